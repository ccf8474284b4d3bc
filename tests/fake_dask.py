"""A stand-in for a Dask client, for tests that drive the Dask backend's client loop (``dask_backend._drive``) against
a scripted cluster: what the loop asks of the client besides submitting chunks, written down for the test to read."""

from __future__ import annotations

from canasta_sim.runs.dask_resubmission import ATTEMPT_TOPIC


class FakeClient:
    """The client's calls other than ``submit``, which each test's client defines: the attempts' topic subscribed,
    one worker thread, the futures cancelled (their keys) and what the end of the run had the workers run."""

    loop = None
    status = "running"

    def __init__(self) -> None:
        self.handler = None
        """The client loop's listener on :data:`ATTEMPT_TOPIC`: a scripted attempt announces itself through it."""
        self.cancelled: list[str] = []
        self.cleaned: tuple | None = None

    def subscribe_topic(self, topic, handler) -> None:
        assert topic == ATTEMPT_TOPIC
        self.handler = handler

    def unsubscribe_topic(self, topic) -> None:
        self.handler = None

    def nthreads(self) -> dict[str, int]:
        return {"worker": 1}

    def cancel(self, futures) -> None:
        self.cancelled += [future.key for future in futures]

    def run(self, function, *args, on_error) -> None:
        self.cleaned = args


class FakeAsCompleted:
    """Dask's ``as_completed`` over a test's futures: each look (``next_batch``) hands over those added that
    :meth:`is_done` finds done, by default every one (a future is done at the next look)."""

    def __init__(self, loop=None) -> None:
        self.pending: list = []

    def add(self, future) -> None:
        self.pending.append(future)

    def next_batch(self, block=True):
        batch = [future for future in self.pending if self.is_done(future)]
        self.pending = [future for future in self.pending if future not in batch]
        return batch

    @staticmethod
    def is_done(future) -> bool:
        return True
