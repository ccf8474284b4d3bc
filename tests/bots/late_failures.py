"""Strategies that fail at their first decision once their worker process has played a few games (loaded by
file spec in tests/runs/test_supervised_commands.py).

Each plays exactly like greedy (which never draws from its generator) and declares one tunable parameter
that changes nothing, so ``tune`` can tune it.  The first :data:`CLEAN_PLAYERS` players built in a process
play clean games; every later one fails at its first decision (``choose_acquire``).  So a ``compare`` or a
``tune`` has finished some games (and iterations) before the first failure, whatever the failure kills:
a worker that replaces a dead one counts from zero again.
"""

from __future__ import annotations

import ctypes
import faulthandler
import os
import signal
import sys
import time

from canasta_sim.core import engine
from canasta_sim.core.cards import JOKER
from canasta_sim.core.parameters import Parameter
from canasta_sim.strategies.greedy import Greedy

CLEAN_PLAYERS = int(os.environ.get("LATE_FAILURES_CLEAN", "16"))
"""Players built in one process before the trap springs: 4 games of a tuning (4 players of the tuned strategy
each), 8 of a comparison against greedy; ``LATE_FAILURES_CLEAN`` changes it (0: the first player fails)."""

_built = 0


def note_sprung() -> None:
    """Add this process's id to the file ``TRAP_SPRUNG_LOG`` names, if set, as a trap springs (as
    ``bad_strategies.note_sprung`` does: these files load alone, by path, in bot processes and workers)."""
    log = os.environ.get("TRAP_SPRUNG_LOG")
    if log:
        with open(log, "a") as file:
            file.write(f"{os.getpid()}\n")


class LateTrap(Greedy):
    """Greedy, failing at the first decision of every player after the first :data:`CLEAN_PLAYERS` in this process."""

    name = "late-trap"
    parameters = {"knob": Parameter(0.5, low=0.0, high=1.0)}

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        self.armed = None  # decided at the first decision: the parent builds players only to read parameters

    def choose_acquire(self, view):
        global _built
        if self.armed is None:
            _built += 1
            self.armed = _built > CLEAN_PLAYERS
            if self.armed:
                note_sprung()
                self.spring()
        return super().choose_acquire(view)

    def spring(self) -> None:
        raise NotImplementedError


class Raises(LateTrap):
    name = "raises"

    def spring(self):
        raise RuntimeError("no move today")


class ExitsItsProcess(LateTrap):
    name = "exits-its-process"

    def spring(self):
        os._exit(3)


class Segfaults(LateTrap):
    name = "segfaults"

    def spring(self):
        faulthandler.disable()  # pytest's handler would print the crash into the test's output
        ctypes.string_at(0)


class LoopsForever(LateTrap):
    name = "loops-forever"

    def spring(self):
        while True:
            pass


class SleepsPastTheLimit(LateTrap):
    name = "sleeps-past-the-limit"

    def spring(self):
        time.sleep(60)


class SwallowsTheAlarm(LateTrap):
    name = "swallows-the-alarm"

    def spring(self):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            try:
                while True:
                    pass
            except BaseException:  # noqa: BLE001 - the point: nothing stops it from inside
                pass


class AllocatesTooMuch(LateTrap):
    name = "allocates-too-much"

    def spring(self):
        self.hoard = bytearray(4 * 1024**3)


class AddsAJoker(LateTrap):
    """Changes the game itself: a joker more in its hand (the engine's fingerprint finds it)."""

    name = "adds-a-joker"

    def choose_acquire(self, view):
        self.view = view
        return super().choose_acquire(view)

    def spring(self):
        self.view._state.hands[self.view.seat][JOKER] += 1
        self.view._state.hand_sizes[self.view.seat] += 1


class PatchesTheEngine(LateTrap):
    """Rebinds the engine's scoring function in the middle of a game, to a wrapper that scores the same (the
    check after the game finds it, puts the original back and charges the game)."""

    name = "patches-the-engine"

    def spring(self):
        engine.score_hand = _scores_the_same(engine.score_hand)


def _scores_the_same(original):
    def score_hand(state):
        return original(state)

    return score_hand


class Prints(LateTrap):
    """Never fails: prints at every first decision (to both streams, and to the descriptors)."""

    name = "prints"

    def choose_acquire(self, view):
        if self.armed is None:
            self.armed = False
            print("printed to stderr", file=sys.stderr)
            print("x" * 100_000)
            os.write(1, b"written to descriptor 1\n")
        return super().choose_acquire(view)
