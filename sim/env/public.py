"""The public observation of a hand: what every seat may know, the same whichever seat looks.

OpenSpiel asks a game for observations of several kinds (``pyspiel.IIGObservationType``); the ``public_info``
kind with ``private_info=NONE`` holds only the facts every seat shares.  For canasta these are the table (both
sides' melds, the red 3s, the pile, whose turn it is and what is due), the hand sizes, the stock's size and the
totals: nothing of any hand's cards, of the stock's order, of a compound move being built, nor whether the seat
to meld may ask its partner (R12.5: it is offered only when the seat can go out, and declining is silent, so the
table sees its meld decision).

Seats are numbered 0-3 and sides A (seats 0 and 2) and B, not counted from an observer, so the vector is a
function of the public state alone: every seat observes the same (tested, as is that two states differing
only in the hidden cards observe the same).  ``docs/env.md`` has the table of fields.
"""

from __future__ import annotations

from canasta_sim.core.view import SeatView
from canasta_sim.env.driver import ACQUIRE_DECISION, ANSWER_DECISION, ASK_DECISION, DISCARD_DECISION, MELD_DECISION
from canasta_sim.env.encoding import OBSERVATION_FIELDS, meld_counts, table_values, turn_values

__all__ = ["PUBLIC_DECISIONS", "PUBLIC_FIELDS", "PUBLIC_OBSERVATION_SIZE", "public_decision", "public_values"]

PUBLIC_DECISIONS = ("none", ACQUIRE_DECISION, ANSWER_DECISION, MELD_DECISION, DISCARD_DECISION)
"""The decisions the table can tell apart: ``none`` when no seat decides (a deal under way, the game over)."""

_SEAT_FIELDS = {name: (length, low, high) for name, length, low, high, _ in OBSERVATION_FIELDS}


def _as_seat_field(name: str, meaning: str, seat_name: str | None = None) -> tuple[str, int, float, float, str]:
    """A public field built by the seat observation's own piece (``seat_name``, by default the same name): its length
    and bounds are that field's, read from :data:`OBSERVATION_FIELDS`, so the two tables cannot disagree; only the
    order of seats and sides, which the meaning says, is the public one."""
    return (name, *_SEAT_FIELDS[seat_name or name], meaning)


PUBLIC_FIELDS: tuple[tuple[str, int, float, float, str], ...] = (
    _as_seat_field("melds_a", "side A's melds: naturals, jokers, deuces on each slot, as own_melds", "own_melds"),
    _as_seat_field("melds_b", "side B's melds, same layout", "other_melds"),
    _as_seat_field("red_threes", "red 3s laid by seats 0-3"),
    _as_seat_field("hand_sizes", "cards held by seats 0-3"),
    _as_seat_field("pile_counts", "the discard pile's cards of each kind"),
    _as_seat_field("pile_top", "one-hot kind of the pile's top card (all 0: empty pile)"),
    _as_seat_field("pile_size", "cards in the discard pile"),
    _as_seat_field("stock_size", "cards in the stock"),
    _as_seat_field("pile_flags", "pile frozen (R8.1b), blocked (R8.1a), frozen for side A, for side B (R8.1c)"),
    _as_seat_field("melded", "side A, side B has made its initial meld"),
    _as_seat_field("canastas", "canastas of side A, side B"),
    _as_seat_field("scores", "running totals before this hand: side A, side B"),
    _as_seat_field("initial_requirements", "R10.2 minimum this hand: side A, side B"),
    _as_seat_field("requirements", "minimum still due now (0 once melded): side A, side B"),
    # The decisions the table can tell apart, fewer than a seat's: the one field of its own.
    ("decision", len(PUBLIC_DECISIONS), 0, 1,
     "one-hot decision due: none, acquire, answer, meld (an offer to ask included), discard"),
    _as_seat_field("answer", "this turn's answer to an ask: yes, no (both 0: not asked)"),
    _as_seat_field("acquired", "how the player to move began the turn: drew, took the pile"),
    _as_seat_field("to_move", "one-hot seat to move, seats 0-3"),
    _as_seat_field("dealer", "one-hot dealer of this hand, seats 0-3"),
    _as_seat_field("hand_number", "1 for the game's first hand"),
    _as_seat_field("turn_count", "turns begun so far this hand"),
    _as_seat_field("target_score", "the rule set's target score (R15.1)"),
)
"""``(name, length, low, high, meaning)`` of each field of the public observation vector, in order (the bounds of
``scores``, the requirements and ``hand_number`` those of the default rules, as in the observation vector)."""
PUBLIC_OBSERVATION_SIZE = sum(field[1] for field in PUBLIC_FIELDS)
"""The length of the public observation vector."""


def public_decision(decision: str | None) -> str:
    """The decision as the table sees it: an offer to ask is the seat's meld decision (R12.5), none is ``none``."""
    if decision is None:
        return "none"
    return MELD_DECISION if decision == ASK_DECISION else decision


def public_values(view: SeatView, decision: str | None) -> list[int]:
    """The public observation vector as ints, from any seat's ``view`` (only its public facts are read) and the
    decision due (``None`` when no seat decides)."""
    decision_one_hot = [0] * len(PUBLIC_DECISIONS)
    decision_one_hot[PUBLIC_DECISIONS.index(public_decision(decision))] = 1
    # The seat vector's pieces, read from seat 0 and side A: every seat observes the same.
    return [
        *meld_counts(view.melds(0)),
        *meld_counts(view.melds(1)),
        *table_values(view, range(4), 0),
        *decision_one_hot,
        *turn_values(view, 0),
    ]
