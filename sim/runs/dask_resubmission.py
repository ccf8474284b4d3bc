"""When the Dask backend submits a lost chunk again, and when the run gives up on it.

Dask counts a worker's death against every task the worker held: the chunk it was playing, the chunks queued
behind it, and a finished chunk whose rows the client had not fetched yet (the client submits that one again at
once, :mod:`canasta_sim.runs.dask_results`).  A task held by ``allowed-failures + 1`` dying workers (4 by default)
fails with ``KilledWorker``, and the client submits its chunk again under a new key.  The local backend charges a
death to the game its worker was playing and has the other games played again, so a game that kills workers costs
its seat the game, never the run.  The Dask backend follows that rule by telling a chunk's own deaths from its
neighbours':

* every attempt at a chunk tells the scheduler when it begins, before it loads or plays anything, and when it
  has played its games (events on the topic :data:`ATTEMPT_TOPIC`, :func:`announce_attempt`); the client counts
  them (:meth:`Resubmissions.heard`);
* an attempt that began and never ended died playing the chunk.  Its death is charged to the game it was in by
  the next attempt on that machine (:mod:`canasta_sim.runs.dask_journal`), or, in a built-in strategy's call,
  recorded and the game played again (the third such death of a game ends the run).  The lost submission costs the
  chunk one of its resubmissions, at most :data:`~canasta_sim.runs.supervisor.IDLE_DEATHS` per game of the chunk
  (one death charged, two played again): a chunk that keeps killing workers has its games charged one by one, and
  one whose workers die outside any game ends the run once they are spent;
* a lost submission none of whose attempts died playing lost only its place, or its rows, on workers that
  other chunks killed: it costs the chunk nothing.  Unless no attempt at all began after it was submitted: then
  the workers may be dying whatever they play (a broken worker environment, a machine out of memory), and after
  :data:`UNEXPLAINED_LOSSES` such losses with no attempt beginning in between, the run ends.

So the run always ends: a chunk's own losses are bounded by its games, and the losses that cost nothing by the
games the run plays, a bound only workers dying for reasons of their own come near (each such loss takes
``allowed-failures + 1`` deaths, and each death during a game charges that game).
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Sequence

from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.supervisor import IDLE_DEATHS

__all__ = ["ATTEMPT_TOPIC", "BEGAN", "ENDED", "UNEXPLAINED_LOSSES", "Resubmissions", "announce_attempt"]

ATTEMPT_TOPIC = "canasta-sim-attempts"
"""The scheduler event topic of every run's attempts, ``[run token, chunk, submission, BEGAN or ENDED]``: one
topic for all runs, so that a long-lived scheduler keeps one bounded log of them, not one per run."""

BEGAN = "began"
ENDED = "ended"

UNEXPLAINED_LOSSES = 3
"""How many lost submissions after which no attempt at all had begun end the run, if no attempt begins in between.
One would be too few: on a large cluster a chunk may wait in turn behind several crashing attempts that all began
before it was submitted, and be lost before the workers replacing theirs begin anything."""


def announce_attempt(run_token: str, chunk: int, submission: int, what: str) -> None:
    """Tell the scheduler that an attempt at ``chunk`` (its ``submission``-th submission) began or ended here.

    The call waits for the scheduler's answer: an attempt whose strategy kills the worker a moment after it
    began, or whose worker is killed a moment after it ended, has been heard all the same.  Outside a Dask
    worker (a test calling the task function) it does nothing.

    It asks the scheduler through the worker's own connection to it: a client made on the worker for this
    (``get_client``) outlived the worker's event loop when the worker process ended, and printed a traceback
    (``Client.__del__ ... IOLoop is closed``) on the terminal the workers of a local cluster share with the run.
    """
    from distributed import get_worker
    from distributed.utils import sync

    try:
        worker = get_worker()
    except ValueError:
        return
    sync(worker.loop, worker.scheduler.log_event, topic=ATTEMPT_TOPIC, msg=[run_token, chunk, submission, what])


class Resubmissions:
    """The client's book of one run's submissions, their attempts and the chunks lost.

    :param run_token: the run's :attr:`~canasta_sim.runs.dask_task.ChunkJob.token`, which its attempts announce.
    :param chunks: the chunks the run plays now.  A chunk may lose :data:`~canasta_sim.runs.supervisor.IDLE_DEATHS`
        times as many submissions with an attempt dying while it played as it has games, and the run as many that
        cost their chunk nothing as all of them have games.

    :meth:`heard` is called from the Dask client's event loop, the rest from the thread driving the run.
    """

    def __init__(self, run_token: str, settings: RunSettings, chunks: Sequence[int]) -> None:
        self.run_token = run_token
        self.settings = settings
        self.free_limit = sum(len(settings.chunk_games(chunk)) for chunk in chunks)
        self._lock = threading.Lock()
        self._began: collections.Counter[tuple[int, int]] = collections.Counter()
        self._ended: collections.Counter[tuple[int, int]] = collections.Counter()
        """Attempts that began and that ended, by ``(chunk, submission)``."""
        self._began_total = 0
        self._began_before: dict[tuple[int, int], int] = {}
        """For each submission, the attempts (of any chunk) that had begun when it was made."""
        self._unexplained = 0
        """Losses after whose submission nothing began, since the last attempt began."""
        self.own_losses: collections.Counter[int] = collections.Counter()
        """Each chunk's lost submissions of which an attempt died playing it: what it has spent."""
        self.free_losses = 0
        """Lost submissions of which no attempt died playing (they cost their chunk nothing)."""

    def submitted(self, chunk: int, submission: int) -> None:
        """Note a submission, before it can begin."""
        with self._lock:
            self._began_before[chunk, submission] = self._began_total

    def heard(self, event: tuple[float, list]) -> None:
        """Count a scheduler event ``(time, [run token, chunk, submission, BEGAN or ENDED])``; the attempts of other
        runs sharing the scheduler are not this run's business."""
        run_token, chunk, submission, what = event[1]
        if run_token != self.run_token:
            return
        with self._lock:
            if what == BEGAN:
                self._began[chunk, submission] += 1
                self._began_total += 1
                self._unexplained = 0
            else:
                self._ended[chunk, submission] += 1

    def lost(self, chunk: int, submission: int, cause: str) -> str | None:
        """Book the loss of a submission; return why the run must end, or ``None`` to submit the chunk again.

        :param cause: what Dask said (``KilledWorker``'s message, or why the rows could not be fetched).
        """
        with self._lock:
            died_playing = self._began[chunk, submission] > self._ended[chunk, submission]
            if not died_playing and self._began_total == self._began_before[chunk, submission]:
                self._unexplained += 1
            unexplained = self._unexplained
        if died_playing:
            self.own_losses[chunk] += 1
            if self.own_losses[chunk] > IDLE_DEATHS * len(self.settings.chunk_games(chunk)):
                return (f"chunk {chunk} was lost: the Dask workers playing it kept dying ({cause}); a strategy may "
                        "crash its process or exhaust its memory outside any game")
            return None
        self.free_losses += 1
        if unexplained >= UNEXPLAINED_LOSSES:
            return (f"chunk {chunk} was lost: its Dask workers kept dying while no chunk began to play ({unexplained} "
                    f"such losses in a row; the last: {cause}); something kills the workers whatever they play: see "
                    "their logs")
        if self.free_losses > self.free_limit:
            return (f"chunk {chunk} was lost: the run's Dask workers died so often that {self.free_losses} chunks were "
                    f"lost, more than it plays games ({cause}); see the workers' logs")
        return None
