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
