"""Strategies that misbehave or try to cheat, for the isolation tests (run as ``isolated:FILE:Class``).

Each writes what it found or did to the file named by its ``report`` parameter, one JSON line per entry.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time

from canasta_sim.core.cards import JOKER
from canasta_sim.core.moves import STOP
from canasta_sim.core.state import HandState
from canasta_sim.strategies import Greedy

_decisions = 0  # decisions this process has made, across games


def _report(path: str, entry: dict) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps(entry) + "\n")


class Hangs(Greedy):
    """Hangs at its first acquire."""

    name = "hangs"
    parameters = {"report": ""}

    def choose_acquire(self, view):
        print("about to hang", file=sys.stderr, flush=True)
        _report(self.report, {"hang_started": time.time()})
        while True:
            time.sleep(1)


class Exits(Greedy):
    """Exits at its first acquire."""

    name = "exits"

    def choose_acquire(self, view):
        print("exiting now, status 3", file=sys.stderr, flush=True)
        os._exit(3)


class Crashes(Greedy):
    """Dies of a signal at its first acquire."""

    name = "crashes"

    def choose_acquire(self, view):
        print("about to crash", file=sys.stderr, flush=True)
        os.kill(os.getpid(), 11)
        time.sleep(5)


class Raises(Greedy):
    """Raises at its first discard."""

    name = "raises"

    def choose_discard(self, view):
        raise RuntimeError("boom in the bot")


class CallsSysExit(Greedy):
    """Calls ``sys.exit`` at its first discard: in-process that is an exception like any other."""

    name = "calls-sys-exit"

    def choose_discard(self, view):
        sys.exit(3)


class RaisesKeyboardInterrupt(Greedy):
    """Raises ``KeyboardInterrupt`` from its first event: in-process that is an exception like any other."""

    name = "raises-keyboard-interrupt"

    def on_event(self, event) -> None:
        raise KeyboardInterrupt


class FollowsWithAList(Greedy):
    """Names an event follower that is no CardMemory: in-process the seat's ``malformed`` answer."""

    name = "follows-with-a-list"

    def on_event(self, event) -> None:
        pass

    def event_follower(self):
        return [1, 2]


class RaisesAtHandEnd(Greedy):
    """Raises from ``on_hand_end``, which no request answers."""

    name = "raises-at-hand-end"

    def on_hand_end(self, result) -> None:
        raise RuntimeError("boom at the hand's end")


class ExitsNow(Greedy):
    """Exits during a game the first time this process reaches ``at`` decisions: a new process must take
    the next game."""

    name = "exits-now"
    parameters = {"at": 40, "report": ""}

    def choose_discard(self, view):
        global _decisions
        _decisions += 1
        _report(self.report, {"pid": os.getpid(), "decisions": _decisions})
        if _decisions == self.at:
            os._exit(4)
        return super().choose_discard(view)


class Snoops(Greedy):
    """At every decision, searches its whole process for another hand's cards or the stock's order."""

    name = "snoops"
    parameters = {"report": ""}

    def choose_discard(self, view):
        states = leaks = 0
        objects = gc.get_objects()
        for module in list(sys.modules.values()):
            objects.extend(vars(module).values())
        for item in objects:
            if isinstance(item, HandState):
                states += 1
                hidden = [hand for seat, hand in enumerate(item.hands) if seat != view.seat and any(hand)]
                leaks += bool(hidden) or any(card >= 0 for card in item.stock) or bool(item.deck)
        _report(self.report, {"pid": os.getpid(), "seat": view.seat, "states": states, "leaks": leaks,
                              "objects": len(objects)})
        return super().choose_discard(view)


class Tampers(Greedy):
    """Plays like greedy, then rewrites everything it can reach of the game after every decision."""

    name = "tampers"

    def choose_discard(self, view):
        move = super().choose_discard(view)
        for item in gc.get_objects():
            if isinstance(item, HandState):
                item.hands[view.seat][JOKER] += 5
                item.hand_sizes = [1, 1, 1, 1]
                item.red_threes = [4, 0, 4, 0]
                item.stock = []
        return move


class Whispers(Greedy):
    """Leaves its hand where its partner would find it, if they shared a process, and looks for the partner's."""

    name = "whispers"
    parameters = {"report": ""}
    board: dict = {}

    def choose_discard(self, view):
        Whispers.board[view.seat] = view.hand
        found = Whispers.board.get(view.partner)
        _report(self.report, {"pid": os.getpid(), "seat": view.seat, "found_partner_hand": found is not None})
        return super().choose_discard(view)


class Hoards(Greedy):
    """Tries to hold 400 MB at its first discard."""

    name = "hoards"

    def choose_discard(self, view):
        hoard = bytearray(400 * 1024 * 1024)
        return super().choose_discard(view) if hoard else None


class Listens(Greedy):
    """Plays as greedy and reports every hand's end it is told of (the last hand's included)."""

    name = "listens"
    parameters = {"report": ""}

    def on_hand_end(self, result) -> None:
        _report(self.report, {"pid": os.getpid(), "hand_number": result.hand_number,
                              "totals_after": list(result.totals_after)})


class FailsIn(Greedy):
    """Plays as greedy, and fails at its first acquire of the one game whose seat seed is ``target``, in the
    way ``kind`` names: ``exception``, ``illegal``, ``exit``, ``crash`` or ``hang``.  With many games in one
    process, only that game is its failure."""

    name = "fails-in"
    parameters = {"kind": "exception", "target": 0}

    def choose_acquire(self, view):
        if self.rng.initial_seed != self.target:
            return super().choose_acquire(view)
        print(f"failing now: {self.kind}", file=sys.stderr, flush=True)
        if self.kind == "exception":
            raise RuntimeError("boom in one game")
        if self.kind == "illegal":
            return STOP  # R13: stopping is for an empty stock only
        if self.kind == "exit":
            os._exit(3)
        if self.kind == "crash":
            os.kill(os.getpid(), 11)
        while True:
            time.sleep(1)


class Heeds(Greedy):
    """Takes the pile whenever it may, otherwise plays as greedy, and reports each event it hears (the red 3s laid
    with it included) with its seat: the isolated plans after a take must tell it what the engine tells it."""

    name = "heeds"
    parameters = {"report": ""}

    def choose_acquire(self, view):
        takes = list(view.legal_takes())
        return takes[0] if takes else super().choose_acquire(view)

    def on_event(self, event) -> None:
        _report(self.report, {"seat": self.rng.seat, "event": [event.seat, str(event.move), event.red_threes]})
