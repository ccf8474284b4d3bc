"""``random``: uniformly random legal play, a baseline and a fuzzer for the engine."""

from __future__ import annotations

from canasta_sim import Discard, Meld, Move, SeatView, Strategy


class RandomPlay(Strategy):
    """Picks uniformly among the legal choices of each decision (stopping to meld is one of them)."""

    name = "random"
    version = 2
    description = "Uniformly random legal play: a baseline."

    def choose_acquire(self, view: SeatView) -> Move:
        """A legal draw, take or stop, uniformly."""
        return self.rng.choice(list(view.legal_acquires()))

    def choose_ask(self, view: SeatView) -> bool:
        """Ask half the time."""
        return self.rng.random() < 0.5

    def answer_go_out(self, view: SeatView) -> bool:
        """Yes half the time."""
        return self.rng.random() < 0.5

    def choose_meld(self, view: SeatView) -> Meld | None:
        """After the partner's yes, the going-out plan's melds; else a legal meld or stopping, uniformly."""
        if view.partner_answer is True:
            return _meld_out(view)
        options = list(view.legal_melds())
        pick = self.rng.randrange(len(options) + 1)
        return options[pick] if pick < len(options) else None

    def choose_discard(self, view: SeatView) -> Discard:
        """A legal discard, uniformly."""
        return self.rng.choice(list(view.legal_discards()))


def _meld_out(view) -> Meld | None:
    """The partner said yes (R12.5): lay everything but the discard."""
    plan = view.going_out_plan()
    return Meld(plan[0]) if plan is not None and plan[0] else None
