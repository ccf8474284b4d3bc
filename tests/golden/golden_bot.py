"""``golden``: a fixed, deterministic bot for the narration golden files.

It lives with the golden files rather than in ``strategies/`` so that improving the built-in
bots never changes a golden narration: only an engine or narrator change can.
"""

from __future__ import annotations

from canasta_sim.core.cards import BLACK_THREE, KIND_VALUE, TWO
from canasta_sim.core.moves import Discard, Meld, Move
from canasta_sim.core.strategy import Strategy


class GoldenBot(Strategy):
    """Takes the pile when it can, asks and answers yes, melds the most cards it can, discards its least useful."""

    name = "golden"
    version = 1
    description = "The fixed bot of the narration golden files."

    def choose_acquire(self, view) -> Move:
        takes = sorted(view.legal_takes(), key=lambda move: (len(move.cards) + sum(len(g.cards) for g in move.extra),
                                                               str(move)))
        return takes[0] if takes else next(view.legal_acquires())

    def choose_ask(self, view) -> bool:
        return True

    def answer_go_out(self, view) -> bool:
        # Says no while its own hand is worth little, so the narration shows both answers.
        return view.hand_value() >= 20

    def choose_meld(self, view) -> Meld | None:
        if view.partner_answer is not False:
            plan = view.going_out_plan()
            if plan is not None and plan[0]:
                return Meld(plan[0])
        melds = sorted(view.legal_melds(), key=lambda move: (-sum(len(g.cards) for g in move.groups), str(move)))
        return melds[0] if melds else None

    def choose_discard(self, view) -> Discard:
        hand = view.hand
        own = view.melds(view.side)

        def usefulness(move: Discard) -> tuple[int, int, int]:
            kind = move.card
            if kind == BLACK_THREE:
                return (-1, 0, kind)
            if kind <= TWO:
                return (100, 0, kind)
            if kind in own:
                return (50, 0, kind)
            return (hand[kind], KIND_VALUE[kind], kind)

        return min(view.legal_discards(), key=usefulness)
