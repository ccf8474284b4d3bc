"""A seat's view as a plain message, and a view rebuilt from that message alone.

:func:`view_message` turns what a :class:`~canasta_sim.core.view.SeatView` shows into a JSON-serialisable
dict (format :data:`VIEW_FORMAT`, described field by field in ``docs/protocol.md``).
:class:`MessageView` is a :class:`~canasta_sim.core.view.SeatView` over a partial
:class:`~canasta_sim.core.state.HandState` rebuilt from such a message: its own hand is known, every other
hand is an empty count vector with the right size, and the stock is a run of placeholder cards of the
right length.  Every legality rule the view answers reads only what the message holds:

* the hands: only the hand of the seat to move (R6.1, R8.2, R9, R10, R12 read ``hands[seat]``), and a
  view answers legality only for its own decisions, so that hand is the view's own;
* the stock: only its size (R7.1 draws, R13.3 the empty stock, E4);
* everything else (melds, red 3s, the pile, the pile's freezing cards, hand sizes, the turn's progress)
  is public, and the message carries it whole.

So a :class:`MessageView` answers every question, legal listings, ``can``, ``verify``,
``going_out_plan`` and ``meld_candidates`` included, exactly as the live view (the tests compare
them at every decision of many games), from what the seat knows and nothing more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from canasta_sim.core.cards import KIND_COUNT
from canasta_sim.core.rules import Rules
from canasta_sim.core.scoring import HandResult, SideHandResult
from canasta_sim.core.state import HandState
from canasta_sim.core.view import SeatView
from canasta_sim.core.wire import UNKNOWN_CARD, UNKNOWN_HAND, VIEW_FORMAT, meld_rows, set_view_fields
from canasta_sim.errors import CanastaError

__all__ = [
    "MessageError",
    "MessageView",
    "VIEW_FORMAT",
    "hand_result_from_message",
    "hand_result_message",
    "meld_rows",
    "update_view",
    "view_message",
]

_PHASES = ("acquire", "play", "answer", "over")
_ACQUIRED = (None, "draw", "pile")
_INT = frozenset({int})


class MessageError(CanastaError, ValueError):
    """A view or result message is malformed: a field is missing or holds a value of the wrong shape."""


def view_message(view: SeatView) -> dict[str, Any]:
    """Return what ``view`` shows as a JSON-serialisable dict (see the module's note and ``docs/protocol.md``).

    The arbiter sends views through a :class:`~canasta_sim.core.wire.ViewWire`, which keeps them up to date
    field by field; this whole view is the reference it is tested against, and the answer to a bot's
    ``view`` request.
    """
    state = view._state  # the arbiter's side: it reads the live state to describe it, never a strategy
    seat = view._seat
    return {
        "format": VIEW_FORMAT,
        "seat": seat,
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "scores": list(view._scores),
        "seat_to_move": state.seat,
        "phase": state.phase,
        "turn_count": state.turn_count,
        "acquired": state.acquired,
        "asked": state.asked,
        "answer": state.answer,
        "must_stop": state.must_stop,
        "hand": list(state.hands[seat]),
        "hand_sizes": list(state.hand_sizes),
        "stock_count": len(state.stock),
        "pile": list(state.pile),
        "pile_freezers": state.pile_freezers,
        "melds": meld_rows(state.melds),
        "side_has_melded": list(state.side_has_melded),
        "initial_minimum": [view.requirement(0), view.requirement(1)],
        "red_threes": list(state.red_threes),
        "turn": {
            "melded_before": state.melded_before_turn,
            "melded": state.melded_this_turn,
            "new_ranks": sorted(state.turn_new_ranks),
            "added_to_existing": state.added_to_existing,
            "laid": list(state.turn_laid),
        },
    }


class MessageView(SeatView):
    """A :class:`~canasta_sim.core.view.SeatView` rebuilt from a :func:`view_message` dict and the rule set.

    :meth:`update` refreshes it in place from a later message of the same seat, so a strategy that kept
    the view from ``on_hand_start`` sees the table as of its latest decision, as a live view would.

    :param check: ``False`` for the arbiter's own messages (the bot server's): the fields are taken as they
        are, not checked (the tests compare both ways).
    :raises MessageError: when the message is malformed (checked).
    """

    __slots__ = ("_melds_seen",)

    def __init__(self, message: Mapping[str, Any], rules: Rules, *, check: bool = True) -> None:
        self._melds_seen: Any = None
        if check:
            seat = _seat(message, "seat")
            scores = _scores(message)
            dealer = _seat(message, "dealer")
            hand_number = _int(message, "hand_number")
        else:  # the arbiter's own message (the bot server's): see update
            seat, dealer, hand_number = message["seat"], message["dealer"], message["hand_number"]
            scores = list(message["scores"])
        state = HandState(rules, dealer=dealer, scores=scores, hand_number=hand_number)
        super().__init__(state, seat, (scores[0], scores[1]))
        self.update(message, check=check)

    def update(self, message: Mapping[str, Any], *, check: bool = True) -> None:
        """Refresh the view from a later message of the same seat and hand (see :func:`update_view`)."""
        if check:
            update_view(self, message)
        else:
            _update_unchecked(self, message)

    def apply_changes(self, changes: dict[str, Any], message: dict[str, Any]) -> None:
        """Refresh the view from a protocol-2 request's changes, ``message`` being the whole view they
        update (already merged with them), for messages from the arbiter itself (the bot server's).

        Only the fields that changed are set: the others hold what the last message said, as long as
        nothing but messages changed the state since (the server's plans lay melds on it: it then
        refreshes the view from the whole ``message``).  The tests compare both paths.
        """
        if "hand_number" in changes or "dealer" in changes or "scores" in changes:
            _update_unchecked(self, message)
            return
        self._melds_seen = set_view_fields(self._state, self._seat, changes, False, self._melds_seen)


def _update_unchecked(view: MessageView, message: dict[str, Any]) -> None:
    """:func:`update_view` without checking the fields, for messages from the arbiter itself (the bot
    server's): the same assignments, in a third of the time.  The tests compare both paths.  Lists are
    copied: the message may be kept (a protocol-2 view is merged from its changes) while the bot's own
    plan changes the state."""
    # A hand's start, the commonest whole view a bot server gets, once cost three times a request through the
    # checked path: only its fixed facts are taken as update_view takes them.
    _follow_hand(view, message["hand_number"], message["dealer"], message["scores"])
    set_whole_view(view, message)


def set_whole_view(view: MessageView, message: dict[str, Any]) -> None:
    """Set every field of ``view``'s state again from the whole view ``message`` of the same hand, unchecked (the
    arbiter's own message): after the bot server's plan laid melds on the state, which no message said."""
    view._melds_seen = set_view_fields(view._state, view._seat, message, True, view._melds_seen)


def _follow_hand(view: MessageView, hand_number: int, dealer: int, scores: list) -> None:
    """Remake the view's state with a hand's fixed facts when the message is of another hand than the state's."""
    state = view._state
    if (hand_number, dealer, scores) != (state.hand_number, state.dealer, list(state.scores_before)):
        HandState.__init__(state, state.rules, dealer=dealer, scores=list(scores), hand_number=hand_number)
        view._melds_seen = None
        view._scores = (scores[0], scores[1])


def update_view(view: MessageView, message: Mapping[str, Any]) -> None:
    """Refresh ``view``'s state in place from ``message``.

    A message of another hand (a new ``hand_number``, ``dealer`` or ``scores``) rebuilds the hand's
    fixed facts too, so one view object can follow a seat through a whole game.

    :raises MessageError: when the message is malformed or is another seat's.
    """
    if type(message) is not dict:
        raise MessageError(f"a view message must be an object; got {type(message).__name__}")
    if message.get("format") != VIEW_FORMAT:
        raise MessageError(f"view message format {message.get('format')!r} is not supported; expected {VIEW_FORMAT}")
    seat = _seat(message, "seat")
    if seat != view._seat:
        raise MessageError(f"a view message for seat {seat} cannot update the view of seat {view._seat}")
    _follow_hand(view, _int(message, "hand_number"), _seat(message, "dealer"), _scores(message))
    state = view._state
    phase = message.get("phase")
    if phase not in _PHASES:
        raise MessageError(f"view message field 'phase' must be one of {', '.join(_PHASES)}; got {phase!r}")
    acquired = message.get("acquired")
    if acquired not in _ACQUIRED:
        raise MessageError(f"view message field 'acquired' must be null, 'draw' or 'pile'; got {acquired!r}")
    answer = message.get("answer")
    if answer not in (None, True, False):
        raise MessageError(f"view message field 'answer' must be null, true or false; got {answer!r}")
    state.seat = _seat(message, "seat_to_move")
    state.phase = phase
    state.turn_count = _int(message, "turn_count")
    state.acquired = acquired
    state.asked = _bool(message, "asked")
    state.answer = answer
    state.must_stop = _bool(message, "must_stop")
    hands = [UNKNOWN_HAND] * 4  # the other hands are unknown: empty, and immutable so nothing can fill them
    hands[seat] = _ints(message, "hand", KIND_COUNT)
    state.hands = hands
    state.hand_sizes = _ints(message, "hand_sizes", 4)
    state.stock = [UNKNOWN_CARD] * _int(message, "stock_count")
    state.pile = _kinds(message, "pile")
    state.pile_freezers = _int(message, "pile_freezers")
    melds = _field(message, "melds")
    if melds != view._melds_seen:
        # Only a change to the melds invalidates what the state derives from them (meld tables, the
        # going-out plan), as on the live state: a strategy's repeated questions stay as cheap as in-process.
        state.melds = _meld_tables(melds)
        state.meld_changes += 1
        view._melds_seen = melds
    side_has_melded = _field(message, "side_has_melded")
    if not (isinstance(side_has_melded, list) and len(side_has_melded) == 2):
        raise MessageError("view message field 'side_has_melded' must be a list of two booleans")
    state.side_has_melded = [bool(value) for value in side_has_melded]
    state.red_threes = _ints(message, "red_threes", 4)
    turn = _field(message, "turn")
    if type(turn) is not dict:
        raise MessageError("view message field 'turn' must be an object")
    state.melded_before_turn = _bool(turn, "melded_before")
    state.melded_this_turn = _bool(turn, "melded")
    state.turn_new_ranks = set(_kinds(turn, "new_ranks"))
    state.added_to_existing = _bool(turn, "added_to_existing")
    state.turn_laid = _ints(turn, "laid", KIND_COUNT)
    state._vouched = None
    state._vouched_key = None


def _meld_tables(melds: Any) -> list[list[list[int]]]:
    if not isinstance(melds, list) or len(melds) != 2:
        raise MessageError("view message field 'melds' must be a list of two lists (side A, side B)")
    tables = [[[0, 0, 0] for _ in range(KIND_COUNT)] for _ in range(2)]
    for side in (0, 1):
        for entry in melds[side]:
            if not (_counts(entry) and len(entry) == 4):
                raise MessageError(f"view message melds entry {entry!r} must be [rank, naturals, jokers, deuces]")
            if entry[0] >= KIND_COUNT:
                raise MessageError(f"view message melds entry {entry!r} has no rank {entry[0]}")
            tables[side][entry[0]] = [entry[1], entry[2], entry[3]]
    return tables


def hand_result_message(result: HandResult) -> dict[str, Any]:
    """Return a finished hand's :class:`~canasta_sim.core.scoring.HandResult` as a JSON-serialisable dict."""
    return {
        "hand_number": result.hand_number,
        "dealer": result.dealer,
        "end_reason": result.end_reason,
        "turns": result.turns,
        "went_out_seat": result.went_out_seat,
        "sides": [
            dict(zip(SideHandResult.FIELDS, side.values(), strict=True)) for side in result.sides
        ],
        "totals_after": list(result.totals_after),
    }


def hand_result_from_message(message: Mapping[str, Any]) -> HandResult:
    """Rebuild the :class:`~canasta_sim.core.scoring.HandResult` that :func:`hand_result_message` described.

    :raises MessageError: when a field is missing or unknown.
    """
    try:
        sides = tuple(SideHandResult(**side) for side in message["sides"])
        totals = message["totals_after"]
        return HandResult(
            hand_number=message["hand_number"],
            dealer=message["dealer"],
            end_reason=message["end_reason"],
            turns=message["turns"],
            went_out_seat=message["went_out_seat"],
            sides=(sides[0], sides[1]),
            totals_after=(totals[0], totals[1]),
        )
    except (KeyError, TypeError, IndexError) as error:
        raise MessageError(f"malformed hand result message: {type(error).__name__}: {error}") from None


# ---------------------------------------------------------------------------------------- field checks


def _field(message: Mapping[str, Any], key: str) -> Any:
    try:
        return message[key]
    except KeyError:
        raise MessageError(f"view message has no field {key!r}") from None


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _int(message: Mapping[str, Any], key: str) -> int:
    value = _field(message, key)
    if not _is_count(value):
        raise MessageError(f"view message field {key!r} must be a whole number >= 0; got {value!r}")
    return value


def _seat(message: Mapping[str, Any], key: str) -> int:
    value = _int(message, key)
    if value > 3:
        raise MessageError(f"view message field {key!r} must be a seat 0-3; got {value!r}")
    return value


def _bool(message: Mapping[str, Any], key: str) -> bool:
    value = _field(message, key)
    if type(value) is not bool:
        raise MessageError(f"view message field {key!r} must be true or false; got {value!r}")
    return value


def _counts(value: Any) -> bool:
    # Checked for every field of every message: type checks in C (map, issuperset), not a Python loop.
    return type(value) is list and _INT.issuperset(map(type, value)) and (not value or min(value) >= 0)


def _ints(message: Mapping[str, Any], key: str, length: int) -> list[int]:
    value = _field(message, key)
    if not (_counts(value) and len(value) == length):
        raise MessageError(f"view message field {key!r} must be a list of {length} whole numbers >= 0; got {value!r}")
    return list(value)


def _scores(message: Mapping[str, Any]) -> list[int]:
    value = _field(message, "scores")
    if not (isinstance(value, list) and len(value) == 2 and all(type(item) is int for item in value)):
        raise MessageError(f"view message field 'scores' must be a list of two whole numbers; got {value!r}")
    return list(value)


def _kinds(message: Mapping[str, Any], key: str) -> list[int]:
    value: Sequence[Any] = _field(message, key)
    if not (_counts(value) and (not value or max(value) < KIND_COUNT)):
        raise MessageError(f"view message field {key!r} must be a list of card kinds 0-{KIND_COUNT - 1}; got {value!r}")
    return list(value)
