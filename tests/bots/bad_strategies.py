"""Strategies that attack the arbiter, one per way a strategy can fail a run (loaded by file spec in test_arbiter.py).

Each plays exactly like greedy (which never draws from its generator) until its trap springs: in the
second hand of a game whose second dealer sits on side A, at its first discard.  So some games of a run
are forfeited and the others must be identical, row for row, to the same games played by greedy.
"""

from __future__ import annotations

import os
import signal
import sys
import time

from canasta_sim.core.cards import JOKER
from canasta_sim.errors import StrategyError
from canasta_sim.strategies.greedy import Greedy


def note_sprung() -> None:
    """Add this process's id to the file ``TRAP_SPRUNG_LOG`` names, if set, as a trap springs: a test waits for a
    strategy stuck in its trap by reading it, not by sleeping for as long as a slow machine may take to get there."""
    log = os.environ.get("TRAP_SPRUNG_LOG")
    if log:
        with open(log, "a") as file:
            file.write(f"{os.getpid()}\n")


class Trap(Greedy):
    """Greedy until :meth:`spring` is due, once per game."""

    name = "trap"

    def due(self, view) -> bool:
        return view.hand_number == 2 and view.dealer % 2 == 0

    def choose_discard(self, view):
        if self.due(view):
            note_sprung()
            self.spring(view)
        return super().choose_discard(view)

    def spring(self, view) -> None:
        raise NotImplementedError


class RaisesKeyboardInterrupt(Trap):
    name = "raises-keyboard-interrupt"

    def spring(self, view):
        raise KeyboardInterrupt


class CallsSysExit(Trap):
    name = "calls-sys-exit"

    def spring(self, view):
        sys.exit(3)


class ExitsItsProcess(Trap):
    name = "exits-its-process"

    def spring(self, view):
        os._exit(1)


class KillsItsWorker(Trap):
    """As the kernel's OOM killer or ``kill -9`` would, but of its own doing: charged to its seat."""

    name = "kills-its-worker"

    def spring(self, view):
        os.kill(os.getpid(), signal.SIGKILL)


class LoopsForever(Trap):
    name = "loops-forever"

    def spring(self, view):
        while True:
            pass


class SwallowsTheAlarm(Trap):
    name = "swallows-the-alarm"

    def spring(self, view):
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        while True:
            try:
                while True:
                    pass
            except BaseException:  # noqa: BLE001 - the point: nothing stops it from inside
                pass


class SleepsPastTheLimit(Trap):
    name = "sleeps-past-the-limit"

    def spring(self, view):
        time.sleep(60)


class AddsJokers(Trap):
    name = "adds-jokers"

    def spring(self, view):
        view._state.hands[view.seat][JOKER] += 2
        view._state.hand_sizes[view.seat] += 2


class RewritesThePile(Trap):
    name = "rewrites-the-pile"

    def spring(self, view):
        pile = view._state.pile
        pile[:] = [pile[-1]] * len(pile)


class SwapsWithTheStock(Trap):
    name = "swaps-with-the-stock"

    def spring(self, view):
        state = view._state
        state.stock[-1], state.stock[0] = state.stock[0], state.stock[-1]


class GrowsItsMelds(Trap):
    name = "grows-its-melds"

    def spring(self, view):
        side = view._state.melds[view.side]
        side[12] = [7, 0, 0]  # a natural canasta of kings, from nowhere


class TampersInItsEvents(Greedy):
    """Changes an opponent's hand from ``on_event``, while the other side is to move."""

    name = "tampers-in-its-events"

    def on_event(self, event):
        state = self._view_state
        if state is not None and state.hand_number == 2 and state.dealer % 2 == 0 and state.seat % 2 != self.side:
            state.hands[state.seat][JOKER] += 1
            state.hand_sizes[state.seat] += 1
            self._view_state = None

    def on_hand_start(self, view):
        self._view_state = view._state
        self.side = view.side


class BlamesItsOpponent(Trap):
    name = "blames-its-opponent"

    def spring(self, view):
        raise StrategyError("an opponent failed", spec="greedy", seat=(view.seat + 1) % 4, game_seed=0,
                            decision="discard")


class PrintsMegabytes(Greedy):
    name = "prints-megabytes"

    def on_hand_start(self, view):
        print("x" * 1_000_000)
        print("y" * 200_000, file=sys.stderr)


class AllocatesTooMuch(Trap):
    name = "allocates-too-much"

    def spring(self, view):
        self.hoard = bytearray(4 * 1024**3)


class PatchesGreedy(Trap):
    """Monkeypatches its opponent's class, which would weaken greedy in every later game of the worker."""

    name = "patches-greedy"

    def spring(self, view):
        Greedy.choose_discard = _first_discard


def _first_discard(self, view):
    return next(view.legal_discards())
