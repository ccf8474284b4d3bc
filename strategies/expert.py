"""``expert``: plays as a good club player does, from what its seat can see and remember.

What it does, decision by decision:

* **Acquire.** Takes the pile whenever it can do so cheaply (a lay-off on the side's meld or a
  natural pair), spends a wild card on an unfrozen pile only when the pile is worth it, and uses a
  pile take to reach its side's initial minimum (R8.2e, R10.5) whenever the top card pairs up.
* **Initial meld.** Holds its cards until it can reach the side's minimum (R10.2), then opens with
  the fewest wild cards that reach it.
* **Melds.** Chooses its discard first and melds from the rest: adds naturals to the side's melds,
  lays natural triples, and spends wild cards to complete a canasta (keeping a natural meld natural
  unless a wild card is spare), to go out, or to shed points when the opponents may end the hand.
* **Going out.** Goes out as soon as it can, which takes the bonus and catches the opponents with
  their cards, except when its side is behind on canastas, the opponents are stuck with many cards
  and the stock is long: then it keeps building (see :meth:`Expert.wants_to_go_out`).  Reaching the
  target score ahead always goes out.  It asks the partner when the partner holds many cards, and
  answers "no" only when its own hand would cost a lot, could mostly be melded next turn, and the
  opponents are not about to go out.
* **Discard.** Scores every card by the chance that the next player can take the pile with it
  (from the opponents' melds, the cards it saw them pick up, what they discarded or declined, and
  how many of the rank are out of play) times what the pile is worth, plus what the card is worth
  in its own hand.  A wild card is discarded to freeze the pile (R8.1b) when every other card
  hands the opponents a big pile.

It remembers the table from the public events only (:meth:`~canasta_sim.core.strategy.Strategy.on_event`; in-process
the engine feeds its memory itself, its :meth:`~canasta_sim.core.strategy.Strategy.event_follower`), so it sees
exactly what a player at the table sees.  Moves are built straight from the hand's count vector and checked with
``view.can(move)``; it never lists the legal melds.  Its inner loops are the core's helpers for strategies
(:mod:`canasta_sim.core.kernels`): the card memory, the discard risk, the opening and meld searches.
"""

from __future__ import annotations

import random
from typing import Any

from canasta_sim import (
    ACE,
    JOKER,
    KIND_COUNT,
    KIND_VALUE,
    TWO,
    Discard,
    Draw,
    Meld,
    Move,
    Parameter,
    PublicEvent,
    SeatView,
    Stop,
    Strategy,
    TakePile,
)
from canasta_sim.core.cards import FOUR
from canasta_sim.core.kernels import CardMemory, DiscardCosts, DiscardRisk, first_legal_meld, opening
from canasta_sim.core.legal import pile_take
from canasta_sim.core.melds import CANASTA_SIZE

__all__ = ["Expert"]

_DRAW = Draw()
_STOP = Stop()
_DISCARDS = tuple(Discard(kind) for kind in range(KIND_COUNT))
"""One discard record per kind: records are immutable, so every decision can hand out the same one."""
_NATURALS = range(FOUR, ACE + 1)
_AVERAGE_CARD = 9  # mean penalty of an unseen card, for estimates of hands nobody may look at
_OPENING_RISK = 150.0  # a discard costing more than this after an initial meld: better wait a turn


class Expert(Strategy):
    """The strongest built-in bot; see the module's description for how it plays.

    Parameters (``expert:aggression=0.7``):

    * ``aggression`` (0 to 1): how readily it goes out when behind on canastas against opponents stuck
      with many cards; 0 plays on more often, 1 nearly always goes out.
    * ``freeze`` (0 to 3): how readily it discards a wild card to freeze a dangerous pile; 0 never.
    * ``ask_cards`` (0 to 15): ask the partner before going out when the partner holds at least this many cards.
    * ``answer_cost`` (0 to 300): answer the partner "no" only when its own hand holds at least these points.
    * ``wild_take_pile`` (1 to 20): the smallest pile worth a wild card to take (one natural and one wild, R8.2c).
    """

    name = "expert"
    version = 1
    description = "Keeps pairs for the pile, freezes big piles, discards safely, times going out by score."
    # The ranges bound what specs accept and what `canasta-sim tune` explores.
    parameters = {
        "aggression": Parameter(0.5, low=0.0, high=1.0, step=0.01,
                                help="how readily it goes out when behind on canastas (0 plays on, 1 goes out)"),
        "freeze": Parameter(1.0, low=0.0, high=3.0, step=0.05,
                            help="how readily it discards a wild card to freeze a dangerous pile (0 never)"),
        "ask_cards": Parameter(5, low=0, high=15, step=1,
                               help="asks the partner before going out when the partner holds this many cards"),
        "answer_cost": Parameter(100, low=0, high=300, step=5,
                                 help="answers the partner no only when its own hand holds this many points"),
        "wild_take_pile": Parameter(4, low=1, high=20, step=1,
                                    help="the smallest pile worth a wild card to take (R8.2c)"),
    }
    # The attributes Strategy.__init__ makes of the parameters, declared for type checkers: a subclass reads them.
    aggression: float
    freeze: float
    ask_cards: int
    answer_cost: int
    wild_take_pile: int

    def __init__(self, rng: random.Random, **parameters: Any) -> None:
        super().__init__(rng, **parameters)
        self._memory = CardMemory()
        self._decided: tuple | None = None
        """``(hand number, turn, going out)``: whether to go out, decided once a turn."""

    # ------------------------------------------------------------ hooks

    def on_hand_start(self, view: SeatView) -> None:
        """Forget the last hand; remember the upcards of this one."""
        self._memory = CardMemory(view.pile)
        self._decided = None

    def on_event(self, event: PublicEvent) -> None:
        """Remember discards, pile takes, melds and declined piles (R2.4: only the next seat takes)."""
        self._memory.observe(event)

    def event_follower(self) -> CardMemory:
        """The hand's memory, which the engine brings up to date itself in place of :meth:`on_event`."""
        return self._memory

    # ------------------------------------------------------------ acquire

    def choose_acquire(self, view: SeatView) -> Move:
        """Take the pile when it pays (R8.2), else draw; on an empty stock take it or stop (R13.3)."""
        take = self._best_take(view)
        if take is not None:
            return take
        if view.stock_count:
            return _DRAW
        if view.can(_STOP):
            return _STOP
        return next(view.legal_acquires())  # R13.3 official: a compulsory take

    def _best_take(self, view: SeatView) -> TakePile | None:
        """The pile take to make, or ``None`` to draw."""
        hand, _number, _turn, _answer, top, pile_size, _sizes, _stock = view.snapshot()
        # Only a wild card or a black 3 blocks the pile (R8.1a, R5.2): a natural top never does.
        if top is None or top < FOUR:
            return None
        side = view.side
        naturals = hand[top]
        if not view.has_melded(side):
            if naturals < 2:
                return None  # R8.1c: frozen against an unmelded side, a natural pair is needed
            return self._opening_take(view, hand, top, pile_size)
        # Each way is checked where it is found, in this order; the first legal one is taken.
        frozen = view.is_pile_frozen_for(side)
        if not frozen and view.meld_size(side, top):
            move = pile_take(top, 0, 0, 0)  # R8.2c: lay the top card off, no hand card spent
            if view.can(move):
                return move
        if naturals >= 2:
            move = pile_take(top, naturals, 0, 0)
            if view.can(move):
                return move
        elif not frozen and naturals == 1 and pile_size >= self.wild_take_pile:
            # The top card, its natural and a wild card: a deuce when there is one.
            if hand[TWO]:
                move = pile_take(top, 1, 0, 1)
            elif hand[JOKER]:
                move = pile_take(top, 1, 1, 0)
            else:
                return None
            if view.can(move):
                return move
        return None

    def _opening_take(self, view, hand: tuple[int, ...], top: int, pile_size: int) -> TakePile | None:
        """The pile take that makes the initial meld with the top card, or ``None`` (R8.2e, R10.5: the top
        card and the hand cards laid with the take must reach the minimum)."""
        found = opening(view.rules, hand, view.requirement(view.side), top, 2, sum(hand) + pile_size - 1)
        if found is None:
            return None
        forced_group, extra = found
        move = TakePile(forced_group.cards, extra)
        return move if view.can(move) else None

    # ------------------------------------------------------------ going out

    def choose_ask(self, view: SeatView) -> bool:
        """Ask when it wants to go out and either the rules demand it or the partner holds many cards."""
        if not self._going_out(view, view.hand_number, view.turn_count):
            return False
        if view.rules.ask_partner == "mandatory":
            return True
        return view.hand_sizes[view.partner] >= self.ask_cards

    def answer_go_out(self, view: SeatView) -> bool:
        """Say no only when its own hand would cost a lot and the opponents cannot end the hand soon."""
        side = view.side
        opponents = 1 - side
        sizes = view.hand_sizes
        cost = view.hand_value()
        if cost < self.answer_cost or view.stock_count < 10:
            return True
        if view.canasta_count(opponents) and min(sizes[opponents], sizes[opponents + 2]) <= 4:
            return True
        if self._wins_game_now(view, side):
            return True
        hand = view.hand
        melds = view.melds(side)
        meldable = sum([hand[rank] for rank in _NATURALS if rank in melds or hand[rank] >= 3])
        meldable += hand[JOKER] + hand[TWO]
        # Most of the hand could go down on the next turn: waiting one turn is worth the points.
        return meldable * 2 < sum(hand)

    def wants_to_go_out(self, view: SeatView) -> bool:
        """Whether going out now beats playing on (R12, R14).

        Going out takes the bonus, stops the opponents' scoring and charges them their cards, so
        it is the rule; the exception is a side behind on canastas while the opponents are stuck
        with many cards (they cannot go out soon) and the stock is long: then it keeps building.
        ``aggression`` sets how many cards count as stuck (4 at 0, 10 at 1).
        """
        side = view.side
        opponents = 1 - side
        if self._wins_game_now(view, side):
            return True
        sizes = view.hand_sizes
        their_fewest = min(sizes[opponents], sizes[opponents + 2])
        behind = view.canasta_count(side) < view.canasta_count(opponents)
        stuck = 4 + round(6 * self.aggression)
        return not (behind and their_fewest >= stuck and view.stock_count >= 15)

    def _wins_game_now(self, view, side: int) -> bool:
        target = view.rules.target_score
        ours = view.scores[side] + _table_score(view, side) - view.hand_sizes[view.partner] * _AVERAGE_CARD + 100
        theirs = view.scores[1 - side] + _table_score(view, 1 - side) - (
            view.hand_sizes[1 - side] + view.hand_sizes[3 - side]
        ) * _AVERAGE_CARD
        return ours >= target and ours > theirs

    def _going_out(self, view, hand_number: int, turn: int) -> bool:
        """Whether to go out this turn (turn ``turn`` of hand ``hand_number``), decided once a turn."""
        decided = self._decided
        if decided is not None and decided[1] == turn and decided[0] == hand_number:
            return decided[2]
        going_out = view.going_out_plan() is not None and self.wants_to_go_out(view)
        self._decided = (hand_number, turn, going_out)
        return going_out

    # ------------------------------------------------------------ melds

    def choose_meld(self, view: SeatView) -> Meld | None:
        """Go out when decided; otherwise open, add naturals, lay triples, complete canastas."""
        hand, hand_number, turn, answer, _top, _pile_size, sizes, _stock = snapshot = view.snapshot()
        going_out = self._going_out(view, hand_number, turn)
        size = sizes[view.seat]  # sum(hand), read: the view keeps each seat's count
        if answer is True or (going_out and answer is None):
            if size <= 1:
                return None
            plan = view.going_out_plan()
            if plan is not None and plan[0]:
                move = Meld(plan[0])
                if view.can(move):
                    return move
            if answer is True:
                return None
        # This turn's discard risk, which the discard reads too: whether the side has melded is in it.
        risk = self._memory.turn_risk(view, snapshot)
        if not risk.we_melded:
            return self._opening_meld(view, hand, size, risk)
        budget = size - 2  # not going out: keep one card to discard and one to hold (R6.4)
        if budget <= 0:
            return None
        # Decide the discard first and meld from the rest, so that melding never leaves only
        # cards that would hand the next player the pile.
        discard = risk.costs(hand, self.freeze).cheapest_kind()
        return first_legal_meld(view, hand, discard, budget, risk.our_melds, risk.hand_may_end)

    def _opening_meld(self, view, hand: tuple[int, ...], size: int, risk: DiscardRisk) -> Meld | None:
        """The initial meld (R10), keeping back a card that is safe to discard after it."""
        rules = view.rules
        minimum = view.requirement(view.side)
        usable = list(hand)
        usable[risk.costs(hand, self.freeze).cheapest_kind()] -= 1
        found = opening(rules, usable, minimum, None, 1, size - 1)
        if found is None:
            found = opening(rules, hand, minimum, None, 2, size)
            if found is None:
                return None
            rest = list(hand)
            for group in found[1]:
                for card in group.cards:
                    rest[card] -= 1
            # Opening would leave only cards that hand the opponents a big pile: wait a turn.
            costs = risk.costs(rest, self.freeze)
            if costs.cost(costs.cheapest_kind()) > _OPENING_RISK:
                return None
        move = Meld(found[1])
        return move if view.can(move) else None

    # ------------------------------------------------------------ discard

    def choose_discard(self, view: SeatView) -> Discard:
        """Discard the card that costs least: danger of feeding the pile plus its worth in hand."""
        snapshot = view.snapshot()
        hand = snapshot[0]
        if snapshot[6][view.seat] == 1:  # one card in hand (the hand sizes' entry: sum(hand), read)
            for kind in range(KIND_COUNT):
                if hand[kind]:
                    return _DISCARDS[kind]
        costs = self._memory.turn_risk(view, snapshot).costs(hand, self.freeze)
        # The cheapest card the view accepts, the cheapest first: usually the cheapest of all.
        move = costs.cheapest_legal(view)
        if move is not None:
            return move
        return next(view.legal_discards())

    def _discard_costs(self, view, hand) -> DiscardCosts:
        """The discard costs of ``hand`` against this turn's risk."""
        return self._memory.turn_risk(view, view.snapshot()).costs(hand, self.freeze)

    def _discard_order(self, view, hand) -> list[tuple[float, int]]:
        """The ``(cost, kind)`` pairs of ``hand``'s discards, cheapest first."""
        return self._discard_costs(view, hand).order()

    def _cheapest_discard(self, view, hand) -> tuple[float, int]:
        """``min`` of the ``(cost, kind)`` pairs of ``hand``'s discards."""
        costs = self._discard_costs(view, hand)
        kind = costs.cheapest_kind()
        return costs.cost(kind), kind


def _table_score(view, side: int) -> int:
    """Meld points and canasta and red-3 bonuses a side has on the table now (R14.1a, b, d)."""
    rules = view.rules
    total = 0
    for rank, (naturals, jokers, deuces) in view.melds(side).items():
        total += naturals * KIND_VALUE[rank] + jokers * 50 + deuces * 20
        if naturals + jokers + deuces >= CANASTA_SIZE:
            total += rules.mixed_canasta_bonus if jokers + deuces else rules.natural_canasta_bonus
    threes = view.red_threes[side] + view.red_threes[side + 2]
    total += rules.all_four_red_threes_total if threes == 4 else threes * rules.red_three_value
    return total
