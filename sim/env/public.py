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

from canasta_sim.core.cards import KIND_COUNT
from canasta_sim.core.state import MAX_TURNS_PER_HAND
from canasta_sim.core.view import SeatView
from canasta_sim.env.actions import SLOT_RANKS
from canasta_sim.env.driver import ACQUIRE_DECISION, ANSWER_DECISION, ASK_DECISION, DISCARD_DECISION, MELD_DECISION
from canasta_sim.env.encoding import OBSERVATION_FIELDS, meld_counts, table_values, turn_values

__all__ = ["PUBLIC_DECISIONS", "PUBLIC_FIELDS", "PUBLIC_OBSERVATION_SIZE", "public_decision", "public_values"]

PUBLIC_DECISIONS = ("none", ACQUIRE_DECISION, ANSWER_DECISION, MELD_DECISION, DISCARD_DECISION)
"""The decisions the table can tell apart: ``none`` when no seat decides (a deal under way, the game over)."""

_BOUNDS = {name: (low, high) for name, _, low, high, _ in OBSERVATION_FIELDS}

PUBLIC_FIELDS: tuple[tuple[str, int, float, float, str], ...] = (
    ("melds_a", 3 * len(SLOT_RANKS), 0, 12, "side A's melds: naturals, jokers, deuces on each slot, as own_melds"),
    ("melds_b", 3 * len(SLOT_RANKS), 0, 12, "side B's melds, same layout"),
    ("red_threes", 4, 0, 4, "red 3s laid by seats 0-3"),
    ("hand_sizes", 4, 0, 108, "cards held by seats 0-3"),
    ("pile_counts", KIND_COUNT, 0, 108, "the discard pile's cards of each kind"),
    ("pile_top", KIND_COUNT, 0, 1, "one-hot kind of the pile's top card (all 0: empty pile)"),
    ("pile_size", 1, 0, 108, "cards in the discard pile"),
    ("stock_size", 1, 0, 108, "cards in the stock"),
    ("pile_flags", 4, 0, 1, "pile frozen (R8.1b), blocked (R8.1a), frozen for side A, for side B (R8.1c)"),
    ("melded", 2, 0, 1, "side A, side B has made its initial meld"),
    ("canastas", 2, 0, 13, "canastas of side A, side B"),
    ("scores", 2, *_BOUNDS["scores"], "running totals before this hand: side A, side B"),
    ("initial_requirements", 2, *_BOUNDS["initial_requirements"], "R10.2 minimum this hand: side A, side B"),
    ("requirements", 2, *_BOUNDS["requirements"], "minimum still due now (0 once melded): side A, side B"),
    ("decision", len(PUBLIC_DECISIONS), 0, 1,
     "one-hot decision due: none, acquire, answer, meld (an offer to ask included), discard"),
    ("answer", 2, 0, 1, "this turn's answer to an ask: yes, no (both 0: not asked)"),
    ("acquired", 2, 0, 1, "how the player to move began the turn: drew, took the pile"),
    ("to_move", 4, 0, 1, "one-hot seat to move, seats 0-3"),
    ("dealer", 4, 0, 1, "one-hot dealer of this hand, seats 0-3"),
    ("hand_number", 1, *_BOUNDS["hand_number"], "1 for the game's first hand"),
    ("turn_count", 1, 0, MAX_TURNS_PER_HAND, "turns begun so far this hand"),
    ("target_score", 1, *_BOUNDS["target_score"], "the rule set's target score (R15.1)"),
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
