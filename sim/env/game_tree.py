"""The game as a tree of chance and decision nodes, one action at a time: the engine behind
:mod:`canasta_sim.env.openspiel`, with no dependency on OpenSpiel.

A :class:`GameTree` is a :class:`~canasta_sim.env.driver.GameDriver` (the engine's own hand loop, every
move through ``HandState.apply``) whose randomness is explicit:

* **chance nodes**: the first dealer (R2.2, four equally likely seats), then the deal of each hand
  as 108 chance actions, one card kind each, drawn without replacement with probability in
  proportion to the cards of that kind not yet dealt (R3.1: a uniformly shuffled deck; card ids of
  one kind never matter to the rules).  The deck so chosen is dealt by ``HandState.from_deck``;
* **decision nodes**: the action encoding of :mod:`canasta_sim.env.encoding` (``docs/env.md``), the
  compound moves (an opening, a take with extra melds) as several actions, as in the PettingZoo
  environment.

It also keeps what each seat has seen of the current hand: the public moves (as
:class:`~canasta_sim.core.strategy.PublicEvent` records, also fed to a
:class:`~canasta_sim.core.search.PublicMemory`) and each seat's private receipts (its dealt hand,
then the cards it drew).  :meth:`GameTree.information` is that record as text, and
:meth:`GameTree.resample` deals the cards a seat cannot see anew with
:func:`canasta_sim.core.search.sample_world`, keeping everything it has seen.

``scope="hand"`` ends the game with the current hand, valued for each side by pimc's estimate of
its chance of winning the game from the totals the hand leads to
(:func:`canasta_sim.strategies.pimc.match_value`, as ``2 * value - 1``); ``scope="game"`` plays to the
target score (R15) and gives +1 to the winning side, -1 to the other, 0 to both for a draw.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from canasta_sim.core.cards import CARD_KIND, DECK_COUNTS, KIND_COUNT, KIND_NAMES, kind_plural
from canasta_sim.core.engine import MAX_HANDS_PER_GAME
from canasta_sim.core.moves import DRAW, Answer, Draw, TakePile
from canasta_sim.core.phases import ACQUIRE, ANSWER
from canasta_sim.core.rules import Rules
from canasta_sim.core.search import PublicMemory, SearchError, sample_world
from canasta_sim.core.state import MAX_TURNS_PER_HAND, HandState
from canasta_sim.core.strategy import PublicEvent
from canasta_sim.core.view import SeatView
from canasta_sim.env.driver import ACQUIRE_DECISION, ASK_DECISION, MELD_DECISION, GameDriver
from canasta_sim.env.encoding import DecisionOptions
from canasta_sim.strategies.pimc import match_value

__all__ = [
    "DECK_SIZE", "GameTree", "SAMPLE_TRIES", "SCOPES", "deal_text", "event_text", "hand_text", "max_game_length",
    "receipt_text", "sample_position",
]

SCOPES = ("game", "hand")
"""``game``: play to the target score; ``hand``: end with the current hand (see the module)."""
DECK_SIZE = len(CARD_KIND)
_IDS_OF_KIND = tuple(tuple(card for card, kind in enumerate(CARD_KIND) if kind == index) for index in range(KIND_COUNT))
SAMPLE_TRIES = 200
"""The most worlds :func:`sample_position` samples looking for one in which an asker can go out."""
_YES = Answer(True)
_ACTIONS_PER_TURN = 150
"""More actions than one turn can take: acquire (a take and its extra groups, then done), ask and answer,
one meld group per card held at most, done, discard."""


def max_game_length(max_hands: int) -> int:
    """An upper bound on the actions of a game of at most ``max_hands`` hands, chance actions included."""
    return 1 + max_hands * (DECK_SIZE + MAX_TURNS_PER_HAND * _ACTIONS_PER_TURN)


def deal_text(view: SeatView) -> str:
    """The first line of the public record: what the table sees at the deal, the pile turned up (bottom first, with
    the cards turned over a wild card or red 3, R3.3) and each seat's red 3s laid then (R4.1)."""
    return (f"pile {' '.join(KIND_NAMES[kind] for kind in view.pile)}; "
            f"red 3s {' '.join(str(count) for count in view.red_threes)}")


def event_text(event: PublicEvent) -> str:
    """One line of the public record: the seat, its move, and the red 3s it laid with it."""
    text = f"{event.seat} {event.move}"
    return f"{text} +{event.red_threes} red 3" if event.red_threes else text


def receipt_text(before, after) -> str:
    """The private record of cards a hand received (``after`` less ``before``, by kind), or ``''``."""
    gained = [KIND_NAMES[kind] for kind in range(KIND_COUNT) for _ in range(after[kind] - before[kind])]
    return f"got {' '.join(gained)}" if gained else ""


def hand_text(counts) -> str:
    """A hand of counts by kind as text, e.g. ``'JK 2 7 7 K'``."""
    return " ".join(KIND_NAMES[kind] for kind in range(KIND_COUNT) for _ in range(counts[kind]))


class GameTree(GameDriver):
    """One game as a tree: chance actions deal, decision actions play (see the module).

    :param rules: the rule set.
    :param max_hands: the engine's guard against a game without end.
    :param scope: ``"game"`` or ``"hand"`` (:data:`SCOPES`).
    """

    def __init__(self, rules: Rules, *, max_hands: int = MAX_HANDS_PER_GAME, scope: str = "game") -> None:
        if scope not in SCOPES:
            raise ValueError(f"scope={scope!r} is not accepted; use one of: {', '.join(SCOPES)}")
        super().__init__(rules, max_hands=max_hands)
        self.scope = scope
        self.choosing_dealer = True
        self.pending_hand = 0
        self.deck: list[int] = []
        self.prefix: tuple[int, ...] = ()
        self.options: DecisionOptions | None = None
        self.memory: PublicMemory | None = None
        self.public_log: list[str] = []
        self.private_logs: list[list[str]] = [[], [], [], []]

    # ---------------------------------------------------------------- nodes

    @property
    def is_chance(self) -> bool:
        """Whether the next action is chance's: the first dealer, or a card of a deal."""
        return self.choosing_dealer or self.pending_hand > 0

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(action, probability)`` of each chance action now: a seat, or a card kind to deal next.

        :raises ValueError: at a decision or the game's end, which no chance action follows."""
        if not self.is_chance:
            due = "the game is over" if self.is_over else f"seat {self.actor} decides"
            raise ValueError(f"no chance action is due: {due}; chance_outcomes is for chance nodes (is_chance_node())")
        if self.choosing_dealer:
            return [(seat, 0.25) for seat in range(4)]
        left = list(DECK_COUNTS)
        for card in self.deck:
            left[CARD_KIND[card]] -= 1
        total = DECK_SIZE - len(self.deck)
        return [(kind, left[kind] / total) for kind in range(KIND_COUNT) if left[kind]]

    def legal_actions(self) -> list[int]:
        """The actions the deciding seat may take now, in increasing order."""
        return self.current_options().allowed(self.prefix)

    def current_options(self) -> DecisionOptions:
        """The options of the decision due (computed once per decision, shared by copies)."""
        if self.options is None:
            self.options = DecisionOptions.of(self.views[self.actor], self.decision)
        return self.options

    def apply(self, action: int) -> None:
        """Play a chance or decision action; :class:`ValueError` for one not allowed now."""
        if self.choosing_dealer:
            if not 0 <= action < 4:
                raise ValueError(f"the first dealer is a seat 0-3; got {action}")
            self.choosing_dealer = False
            self.first_dealer = self._dealer = action
            self.pending_hand = 1
            return
        if self.pending_hand:
            self._deal_card(action)
            return
        if self.decision is None:
            raise ValueError("the game is over: no action is allowed")
        prefix, value, complete = self.current_options().play(self.prefix, action)
        if not complete:
            self.prefix = prefix
            return
        self.prefix = ()
        self.options = None
        self.decide(value)

    def returns(self) -> list[float]:
        """Each seat's return: 0 until the game is over (see the module for the values)."""
        if not self.is_over:
            return [0.0, 0.0, 0.0, 0.0]
        if self.scope == "hand":
            value = 2.0 * match_value(self.totals, 0, self.rules) - 1.0
        else:
            value = 0.0 if self.winner is None else (1.0 if self.winner == 0 else -1.0)
        return [value, -value, value, -value]

    # ---------------------------------------------------------------- what a seat knows

    def information(self, player: int) -> str:
        """``player``'s record of the game as text: the public facts and moves of this hand, its own
        cards dealt and drawn, the decision due (another seat's offer to ask shown as its meld decision, which
        follows) and (its own) choices of a compound move so far."""
        lines = [f"seat {player}", self._header()]
        if self.pending_hand or self.state is None:
            return "\n".join(lines)
        lines.extend(self.public_log)
        lines.extend(self.private_logs[player])
        if self.decision is not None:
            # R12.5: a seat may ask only when it can go out, and declining is silent, so the others see its meld.
            shown = MELD_DECISION if self.decision == ASK_DECISION and player != self.actor else self.decision
            lines.append(f"{shown} by {self.actor}")
            if self.prefix and self.actor == player:
                lines.append("chosen " + " ".join(str(action) for action in self.prefix))
        return "\n".join(lines)

    def private_information(self, player: int) -> str:
        """``player``'s private record of the hand as text: what :meth:`information` holds that no other seat knows, its
        own cards dealt and drawn, its offer to ask (R12.5) and its choices of a compound move so far."""
        lines = [f"seat {player}"]
        if self.pending_hand or self.state is None:
            return "\n".join(lines)
        lines.extend(self.private_logs[player])
        if self.decision is not None and self.actor == player:
            if self.decision == ASK_DECISION:
                lines.append(f"{ASK_DECISION} by {player}")
            if self.prefix:
                lines.append("chosen " + " ".join(str(action) for action in self.prefix))
        return "\n".join(lines)

    def public_information(self) -> str:
        """The public record of the game as text: what every seat knows, :meth:`information` without any seat's
        own cards and choices, the decision due shown as the table sees it."""
        lines = ["public", self._header()]
        if self.pending_hand or self.state is None:
            return "\n".join(lines)
        lines.extend(self.public_log)
        if self.decision is not None:
            lines.append(f"{MELD_DECISION if self.decision == ASK_DECISION else self.decision} by {self.actor}")
        return "\n".join(lines)

    def _header(self) -> str:
        if self.choosing_dealer:
            return "choosing the first dealer"
        totals = f"totals {self.totals[0]} {self.totals[1]}"
        if self.pending_hand:
            return f"dealing hand {self.pending_hand} from seat {self._dealer}: {len(self.deck)} cards dealt; {totals}"
        over = f"; over ({self.termination})" if self.is_over else ""
        return f"hand {self.state.hand_number} dealt by {self.state.dealer}; {totals}{over}"

    def seat_view(self, player: int) -> SeatView | None:
        """``player``'s view of the hand being played (or just ended); ``None`` before the first deal
        and while a deal is under way."""
        if self.pending_hand or self.state is None:
            return None
        return self.views[player]

    def resample(self, player: int, rng: random.Random) -> GameTree:
        """A copy in which the cards ``player`` cannot see are dealt anew from ``rng``.

        Everything ``player`` has seen is kept (its hand, the table, the pile, every hand size, the
        cards others are known to hold, its records), so :meth:`information` of ``player`` is
        unchanged; the other seats' private records become their sampled hands.  While the deciding
        seat is building a compound move that ``player`` cannot see, the copy is at the start of that
        decision.  During a deal, the cards dealt so far are drawn anew.
        """
        if not 0 <= player < 4:
            raise ValueError(f"resampling is for a seat 0-3, whose information state is kept; got {player!r}")
        other = self.copy()
        if self.choosing_dealer or self.is_over:
            return other
        if self.pending_hand:
            kinds = [kind for kind, count in enumerate(DECK_COUNTS) for _ in range(count)]
            rng.shuffle(kinds)
            other.deck = _ids(kinds[: len(self.deck)])
            return other
        world = sample_position(SeatView(self.state, player, self.views[0].scores), self.memory, rng,
                                must_stop=self.state.must_stop)
        other._set_state(world, self.views[0].scores)
        for seat in range(4):
            if seat != player:
                other.private_logs[seat] = [f"sampled {hand_text(world.hands[seat])}"]
        if self.decision is not None and self.actor != player:
            other.prefix = ()
            other.options = None
        return other

    # ---------------------------------------------------------------- copies

    def copy(self) -> GameTree:
        """An independent copy (the hand state, the records and the memory copied; the rules and the
        current decision's options shared, being immutable)."""
        other = GameTree.__new__(GameTree)
        other.__dict__.update(self.__dict__)
        other.hands = list(self.hands)
        other.deck = list(self.deck)
        other.public_log = list(self.public_log)
        other.private_logs = [list(log) for log in self.private_logs]
        other.memory = None if self.memory is None else self.memory.copy()
        if self.state is not None:
            other._set_state(self.state.copy(), self.views[0].scores)
        return other

    def _set_state(self, state: HandState, scores: tuple[int, int]) -> None:
        self.state = state
        self.views = [SeatView(state, seat, scores) for seat in range(4)]

    @classmethod
    def at_position(cls, rules: Rules, state: HandState, scores: tuple[int, int], decision: str, *,
                    memory: PublicMemory, public_log: list[str], private_logs: list[list[str]],
                    scope: str = "hand", max_hands: int = MAX_HANDS_PER_GAME) -> GameTree:
        """A tree at a decision of a hand under way: ``state`` (a sampled world, say) with the totals
        ``scores`` before the hand, the table's ``memory`` and the records of what each seat saw."""
        tree = cls(rules, max_hands=max_hands, scope=scope)
        tree.choosing_dealer = False
        tree.totals = scores
        tree._dealer = tree.first_dealer = state.dealer
        tree._hands_before = state.hand_number - 1  # toward max_hands, as the environments count them
        tree._set_state(state, scores)
        tree.decision = decision
        tree.memory = memory
        tree.public_log = list(public_log)
        tree.private_logs = [list(log) for log in private_logs]
        return tree

    # ---------------------------------------------------------------- the driver's hooks

    def _deal(self, hand_number: int) -> None:
        # The driver deals the next hand here; in a tree the deal is chance's, or the hand scope ends.
        self.decision = None
        self.options = None
        if self.scope == "hand":
            self.termination = "hand"
            return
        self.pending_hand = hand_number
        self.deck = []

    def _deal_card(self, kind: int) -> None:
        if not 0 <= kind < KIND_COUNT:
            raise ValueError(f"a dealt card is a kind 0-{KIND_COUNT - 1}; got {kind}")
        dealt = sum(1 for card in self.deck if CARD_KIND[card] == kind)
        if dealt >= DECK_COUNTS[kind]:
            raise ValueError(f"all {DECK_COUNTS[kind]} {kind_plural(kind)} have been dealt")
        self.deck.append(_IDS_OF_KIND[kind][dealt])
        if len(self.deck) < DECK_SIZE:
            return
        state = HandState.from_deck(self.rules, self.deck, dealer=self._dealer, scores=self.totals,
                                    hand_number=self.pending_hand)
        self.pending_hand = 0
        self.deck = []
        self._set_state(state, self.totals)
        self.memory = PublicMemory(self.views[0])
        self.public_log = [deal_text(self.views[0])]
        self.private_logs = [[f"dealt {hand_text(state.hands[seat])}"] for seat in range(4)]
        self.decision = ACQUIRE_DECISION

    def _apply(self, seat: int, move) -> None:
        state = self.state
        before = [tuple(hand) for hand in state.hands]
        red_threes = state.red_threes[seat]
        super()._apply(seat, move)
        event = PublicEvent(seat, DRAW if isinstance(move, Draw) else move, state.red_threes[seat] - red_threes)
        self.memory.observe(event)
        self.public_log.append(event_text(event))
        took = isinstance(move, TakePile)
        for other in range(4):
            if took and other == seat:
                continue  # the pile's cards are public; a take draws nothing from the stock
            text = receipt_text(before[other], state.hands[other])
            if text:
                self.private_logs[other].append(text)


def sample_position(view: SeatView, memory: PublicMemory, rng: random.Random, *, must_stop: bool) -> HandState:
    """:func:`~canasta_sim.core.search.sample_world` for ``view``'s seat, with R13.1's ``must_stop`` as given
    (the sampler takes it as ``False``) and, when the player to move has asked and not been told no under
    ``ask_partner_yes_forces_out``, only worlds in which that player can still go out this turn: the ask
    said so (R12.5), and a "yes" in any other world would leave it no legal move.

    :raises SearchError: when :data:`SAMPLE_TRIES` worlds in a row could not go out.
    """
    state_seat = view.seat_to_move
    # The memory's ask is its turn's: at the next seat's acquire it still tells of the turn before, whose asker the
    # ask bound, not the seat to move now.
    asked_this_turn = memory.asked and memory.turn_seat == state_seat and view.phase != ACQUIRE
    needs_out = (view.rules.ask_partner_yes_forces_out and state_seat != view.seat and view.partner_answer is not False
                 and (view.phase == ANSWER or asked_this_turn))
    for _ in range(SAMPLE_TRIES):
        world = sample_world(view, memory, rng)
        world.must_stop = must_stop
        if not needs_out or _can_go_out(world):
            return world
    raise SearchError(f"no world of {SAMPLE_TRIES} sampled lets seat {state_seat} go out as its ask said it could")


def _can_go_out(world: HandState) -> bool:
    if world.phase == ANSWER:
        world = world.copy()
        world.apply(_YES)
    return world.can_go_out_this_turn()


def _ids(kinds: list[int]) -> list[int]:
    taken = [0] * KIND_COUNT
    cards = []
    for kind in kinds:
        cards.append(_IDS_OF_KIND[kind][taken[kind]])
        taken[kind] += 1
    return cards


Sampler = Callable[[], float]
"""OpenSpiel's probability sampler: a callable returning a number in [0, 1)."""


def rng_from_sampler(sampler: Sampler) -> random.Random:
    """A generator seeded from one draw of an OpenSpiel probability sampler (53 bits of it)."""
    return random.Random(int(sampler() * (1 << 53)))
