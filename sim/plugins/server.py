"""Serve a Python strategy over the bot protocol: ``python -m canasta_sim.plugins.server SPEC``.

This is the process an ``isolated:SPEC`` seat runs in.  It loads the strategy, answers ``hello``
with the strategy's name, version and parameters, and then for each ``game`` builds a fresh player
with the seat's seed (the very generator the engine would give it in-process), rebuilds its view
from each message (:class:`~canasta_sim.plugins.messages.MessageView`) and answers each ``decide``
request with the strategy's decision in the move notation.  It knows only what the messages say.

Anything the strategy prints goes to stderr (the protocol owns stdout).  A strategy that raises, or
returns a value that is no answer, is reported with an ``error`` message; the arbiter charges it
to the seat.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, BinaryIO

from canasta_sim.core.moves import Discard, Draw, Meld, Stop, TakePile, parse_move
from canasta_sim.core.parameters import declared_parameters
from canasta_sim.core.rules import Rules
from canasta_sim.core.strategy import PublicEvent, SeatRandom, Strategy
from canasta_sim.errors import CanastaError, IllegalMoveError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.messages import MessageView, hand_result_from_message
from canasta_sim.plugins.protocol import PROTOCOL_VERSION, encode

__all__ = ["BotServer", "main"]

_PLANNING_SHARE = 0.25  # of the decision time limit, spent at most on planning the rest of a turn ahead

_METHODS = {
    "acquire": ("choose_acquire", (Draw, TakePile, Stop), "Draw, TakePile or Stop"),
    "ask": ("choose_ask", (bool,), "True or False"),
    "answer": ("answer_go_out", (bool,), "True or False"),
    "meld": ("choose_meld", (Meld, type(None)), "a Meld or None"),
    "discard": ("choose_discard", (Discard,), "a Discard"),
}


class BotServer:
    """Answers the protocol's messages for one strategy spec (one seat at a time).

    :param spec: the strategy spec, without ``isolated:``.
    """

    def __init__(self, spec: str) -> None:
        self.loaded = load_strategy(spec)
        self.player: Strategy | None = None
        self.view: MessageView | None = None
        self.rules: Rules | None = None
        self._rules_text = ""
        self.planning_budget: float | None = None
        """Seconds of a request worth planning ahead in: a plan must never cost a decision its deadline."""
        self._started = 0.0
        self._moves: dict[str, Any] = {}  # event texts parsed so far: moves repeat, and records are immutable

    def ready(self) -> dict[str, Any]:
        """The answer to ``hello``."""
        cls = self.loaded.cls
        return {
            "type": "ready",
            "protocol": PROTOCOL_VERSION,
            "name": cls.name,
            "version": cls.version,
            "description": cls.description,
            "parameters": {key: item.default for key, item in declared_parameters(cls.parameters).items()},
            "legal": False,
            "events": cls.on_event is not Strategy.on_event,
        }

    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Act on one message; return the reply to write, if it needs one."""
        kind = message.get("type")
        if kind == "hello":
            return self.ready()
        if kind == "game":
            text = json.dumps(message["rules"], sort_keys=True)
            if text != self._rules_text:
                self.rules = Rules.from_mapping(message["rules"])
                self._rules_text = text
            rng = SeatRandom(message["seed"], seat=message["seat"])
            limit = message.get("time_limit")
            self.planning_budget = None if limit is None else limit * _PLANNING_SHARE
            self.player = self.loaded.cls(rng, **message["parameters"])
            self.view = None
            return None
        player = self.player
        if player is None:
            return {"type": "error", "message": f"a {kind!r} message came before any 'game' message"}
        try:
            if kind == "hand_start":
                self._follow(message["view"])
                player.on_hand_start(self.view)
            elif kind == "events":
                moves = self._moves
                for seat, text, red_threes in message["events"]:
                    move = moves.get(text)
                    if move is None:
                        move = moves[text] = parse_move(text)
                    player.on_event(PublicEvent(seat, move, red_threes))
            elif kind == "hand_end":
                player.on_hand_end(hand_result_from_message(message["result"]))
            elif kind == "decide":
                return self._decide(player, message)
            else:
                return {"type": "error", "message": f"unknown message type {kind!r}"}
        except Exception as error:  # the strategy's own failure, whatever it is, is the seat's to answer for
            return {"type": "error", "message": f"raised {type(error).__name__}: {error}"}
        return None

    def _follow(self, message: dict[str, Any]) -> None:
        if self.view is None:
            self.view = MessageView(message, self.rules)
        else:
            self.view.update(message, check=False)  # the arbiter's own messages: checked by construction

    def _decide(self, player: Strategy, message: dict[str, Any]) -> dict[str, Any]:
        decision = message["decision"]
        self._started = time.monotonic()
        self._follow(message["view"])
        value, answer = self._answer(player, decision)
        if "error" in answer:
            return {"type": "error", "message": answer["error"]}
        reply = {"type": "move", "move": answer["move"]}
        if decision in ("ask", "meld") and not (decision == "ask" and value):
            reply["then"] = self._plan(player, decision, value)
        return reply

    def _answer(self, player: Strategy, decision: str) -> tuple[Any, dict[str, Any]]:
        """Ask the strategy for one decision: its value, and the answer as a plan item."""
        name, types, wanted = _METHODS[decision]
        try:
            value = getattr(player, name)(self.view)
        except Exception as error:  # the strategy's own failure, charged to the seat at this decision
            return None, {"decision": decision, "error": f"raised {type(error).__name__}: {error}"}
        if not isinstance(value, types):
            return None, {"decision": decision, "error": f"returned something that is not {wanted}: {value!r}"}
        if decision == "ask":
            text = "ask" if value else None
        elif decision == "answer":
            text = "answer yes" if value else "answer no"
        else:
            text = None if value is None else str(value)
        return value, {"decision": decision, "move": text}

    def _plan(self, player: Strategy, decision: str, value: Any) -> list[dict[str, Any]]:
        """The answers to the rest of the turn, found by playing it out on the seat's own view.

        After the partner is not asked (or the first meld), nothing the seat does not know can change
        its turn: only its own melds, which :meth:`HandState.meld` lays on the rebuilt state exactly as
        the engine will.  The strategy hears of each of its moves (``on_event``) right after making
        it, as in-process, and the arbiter sends no event for them.  The plan stops at the discard,
        at a move this state finds illegal (the engine will judge it), or where the hand ends.
        """
        state = self.view._state
        plan: list[dict[str, Any]] = []
        if decision == "meld":
            if value is not None and not self._lay(player, value):
                return plan
            melding = value is not None
        else:
            melding = True
        while melding and state.phase != "over":
            if self._out_of_time():
                return plan
            value, answer = self._answer(player, "meld")
            plan.append(answer)
            if "error" in answer:
                return plan
            if value is None:
                break
            if not self._lay(player, value):
                return plan
        if state.phase == "over" or state.must_stop or self._out_of_time():
            return plan
        value, answer = self._answer(player, "discard")
        plan.append(answer)
        if "error" not in answer:
            self._hear(player, value)
        return plan

    def _out_of_time(self) -> bool:
        # Planning only saves round trips; what is not planned is asked for in requests of its own.
        budget = self.planning_budget
        return budget is not None and time.monotonic() - self._started > budget

    def _lay(self, player: Strategy, move: Meld) -> bool:
        try:
            self.view._state.meld(move)
        except (IllegalMoveError, ValueError, TypeError):
            return False  # the engine will judge it: nothing after it can be planned
        self._hear(player, move)
        return True

    def _hear(self, player: Strategy, move) -> None:
        # A plan's own moves reach the strategy's on_event at once, in the order the engine would call it.
        player.on_event(PublicEvent(self.view.seat, move, 0))


def serve(server: BotServer, source: BinaryIO, sink: int) -> None:
    """Read messages from ``source`` until ``quit`` or end of input; write replies to the fd ``sink``."""
    for line in source:
        if not line.strip():
            continue
        message = json.loads(line)
        if message.get("type") == "quit":
            return
        reply = server.handle(message)
        if reply is not None:
            os.write(sink, encode(reply))


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``python -m canasta_sim.plugins.server SPEC``."""
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) != 1:
        print("usage: python -m canasta_sim.plugins.server SPEC", file=sys.stderr)
        return 2
    # The protocol owns stdout: keep a private copy of it, and send fd 1 (print, C libraries) to stderr.
    sink = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        server = BotServer(arguments[0])
    except CanastaError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    serve(server, sys.stdin.buffer, sink)
    return 0


if __name__ == "__main__":
    sys.exit(main())
