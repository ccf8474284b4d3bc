"""The built-in strategies: each decision of the expert on constructed positions, legality and
determinism of every built-in over whole games, and the expert's parameters."""

from __future__ import annotations

import functools
import inspect
import random
import statistics

import pytest

from canasta_sim.core.cards import BLACK_THREE, KIND_VALUE, TWO, parse_kind
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, Stop, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from canasta_sim.core.strategy import PublicEvent, Strategy
from canasta_sim.core.view import SeatView
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import BUILTIN, Expert, Greedy, RandomPlay
from tests.helpers import position

K, Q, J, A, NINE, SEVEN = (parse_kind(name) for name in ("K", "Q", "J", "A", "9", "7"))


def expert_view(state, seat=0, scores=(0, 0), **parameters):
    """An expert for ``seat`` that has seen the hand start, and that seat's view."""
    view = SeatView(state, seat, scores)
    expert = Expert(random.Random(0), **parameters)
    expert.on_hand_start(view)
    return expert, view


# ---------------------------------------------------------------- acquire


def test_expert_takes_frozen_pile_with_natural_pair_r8_2b():
    state = position(hands={0: "9 9 K 5 7"}, melds={0: "Q Q Q", 1: "8 8 8"}, pile="4 2 J 9")
    expert, view = expert_view(state)
    move = expert.choose_acquire(view)
    assert move == TakePile((NINE, NINE))
    assert state.is_legal(move)


def test_expert_lays_off_on_unfrozen_pile_without_hand_cards_r8_2c():
    state = position(hands={0: "K 5 7 4"}, melds={0: "9 9 9", 1: "8 8 8"}, pile="4 6 J 9")
    expert, view = expert_view(state)
    assert expert.choose_acquire(view) == TakePile()


def test_expert_draws_when_black_three_blocks_r5_2():
    state = position(hands={0: "9 9 K 5 7"}, melds={0: "Q Q Q"}, pile="4 6 9 3b")
    expert, view = expert_view(state)
    assert expert.choose_acquire(view) == Draw()


def test_expert_stops_on_empty_stock_when_it_cannot_take_r13_3():
    state = position(hands={0: "9 9 K 5 7"}, melds={0: "Q Q Q"}, pile="4 6 9 3b", stock_size=0)
    expert, view = expert_view(state)
    move = expert.choose_acquire(view)
    assert move == Stop()
    assert state.is_legal(move)


def test_expert_opens_with_a_pile_take_r8_2e_r10_5():
    # Side A has not melded (requirement 50): K K with the top K counts 30, so the take needs more.
    state = position(hands={0: "K K A A 2 5 7 9"}, melds={1: "8 8 8"}, pile="4 6 K")
    expert, view = expert_view(state)
    move = expert.choose_acquire(view)
    assert isinstance(move, TakePile) and move.extra
    assert state.is_legal(move)
    state.apply(move)
    assert state.side_has_melded[0]


def test_expert_draws_when_a_take_cannot_reach_the_minimum_r8_2e():
    state = position(hands={0: "K K 5 7 9 4"}, melds={1: "8 8 8"}, pile="4 6 K", scores=(1600, 0))
    expert, view = expert_view(state, scores=(1600, 0))
    assert expert.choose_acquire(view) == Draw()


# ---------------------------------------------------------------- melds


def test_expert_holds_cards_until_it_can_reach_the_minimum_r10_2():
    state = position(hands={0: "Q Q Q 5 6 7 9"}, melds={1: "8 8 8"}, pile="4 6", phase=PLAY)
    expert, view = expert_view(state)
    assert expert.choose_meld(view) is None  # 30 points < 50


@pytest.mark.parametrize("scores", [(0, 0), (1600, 0), (3200, 0)])
def test_expert_opening_meets_each_requirement_with_no_spare_wild_r10_2(scores):
    state = position(
        hands={0: "A A A K K K Q Q Q 2 5 6 9"}, melds={1: "8 8 8"}, pile="4 6", phase=PLAY, scores=scores
    )
    expert, view = expert_view(state, scores=scores)
    move = expert.choose_meld(view)
    assert isinstance(move, Meld) and state.is_legal(move)
    laid = [card for group in move.groups for card in group.cards]
    assert TWO not in laid  # naturals alone reach 120, so no wild card is spent
    assert sum(KIND_VALUE[card] for card in laid) >= state.requirements[0]


def test_expert_adds_naturals_and_keeps_wilds_when_not_needed():
    state = position(hands={0: "Q Q 2 5 6 9 4"}, melds={0: "Q Q Q", 1: "8 8 8"}, pile="4 6", phase=PLAY)
    expert, view = expert_view(state)
    move = expert.choose_meld(view)
    assert [group.rank for group in move.groups] == [Q] and set(move.groups[0].cards) == {Q}
    state.apply(move)
    assert expert.choose_meld(view) is None  # one deuce cannot finish the queens: it stays in hand
    assert state.hands[0][TWO] == 1


def test_expert_completes_first_canasta_with_wild_cards_r12_1():
    state = position(hands={0: "2 JK 5 6 9 4"}, melds={0: "Q Q Q Q Q", 1: "8 8 8"}, pile="4 6", phase=PLAY)
    expert, view = expert_view(state)
    move = expert.choose_meld(view)
    assert str(move) == "meld Q:JK 2"
    state.apply(move)
    assert state.canasta_count(0) == 1


def test_expert_keeps_its_only_safe_card_out_of_its_melds_r8_2c():
    # Laying the 10 off would leave only nines, which side B could lay off to take a big pile.
    state = position(
        hands={0: "9 9 10"}, melds={0: "10 10 10; K K K K K K K", 1: "9 9 9"}, pile="4 6 7 8 5 4 6 7 8 5", phase=PLAY
    )
    expert, view = expert_view(state)
    assert expert.choose_meld(view) is None
    assert expert.choose_discard(view) == Discard(parse_kind("10"))


def test_expert_opening_leaves_a_safe_discard_r10_2():
    five = parse_kind("5")
    state = position(
        hands={0: "K K K A A A 5"}, melds={1: "5 5 5; 6 6 6"}, pile="4 7 8 9 10 4 7 8 9 10 J", phase=PLAY
    )
    expert, view = expert_view(state)
    move = expert.choose_meld(view)
    assert isinstance(move, Meld)
    state.apply(move)
    assert state.side_has_melded[0]
    assert expert.choose_discard(view) != Discard(five)


# ---------------------------------------------------------------- going out, asking, answering


def going_out_position(their_melds="8 8 8", partner_cards=8, answer=None):
    state = position(
        hands={0: "Q Q Q 5"}, melds={0: "K K K K K K K", 1: their_melds}, pile="4 6", phase=PLAY,
        other_hand_size=partner_cards,
    )
    if answer is not None:
        state.asked = True
        state.answer = answer
    return state


def test_expert_goes_out_when_partner_says_yes_r12_5():
    state = going_out_position(answer=True)
    expert, view = expert_view(state)
    move = expert.choose_meld(view)
    assert str(move) == "meld Q Q Q"
    state.apply(move)
    state.apply(expert.choose_discard(view))
    assert state.is_over and state.went_out_seat == 0


def test_expert_keeps_two_cards_after_a_no_r6_4_r12_5():
    state = going_out_position(answer=False)
    expert, view = expert_view(state)
    move = expert.choose_meld(view)
    assert move is None or sum(state.hands[0]) - sum(len(group.cards) for group in move.groups) >= 2


def test_expert_asks_ahead_in_canastas_when_partner_holds_many_cards():
    state = going_out_position(partner_cards=9)
    expert, view = expert_view(state)
    assert expert.wants_to_go_out(view)
    assert state.can_ask()
    assert expert.choose_ask(view) is True


def test_expert_goes_out_without_asking_when_partner_holds_few_cards():
    state = going_out_position(partner_cards=2)
    expert, view = expert_view(state)
    assert expert.choose_ask(view) is False
    move = expert.choose_meld(view)
    state.apply(move)
    state.apply(expert.choose_discard(view))
    assert state.is_over and state.went_out_seat == 0


def test_expert_plays_on_when_behind_and_opponents_are_stuck():
    # The opponents have two canastas but 11 cards each; ours is one, with sixes nearly a second.
    state = position(
        hands={0: "Q Q Q 5"}, melds={0: "K K K K K K K; 6 6 6 6 6 6", 1: "8 8 8 8 8 8 8; 9 9 9 9 9 9 9"},
        pile="4 6", phase=PLAY,
    )
    expert, view = expert_view(state)
    assert not expert.wants_to_go_out(view)


def answering_position(hand):
    # Seat 2 drew and asked "may I go out?"; seat 0 answers (R12.5).
    state = position(
        hands={0: hand, 2: "Q Q Q 6"}, melds={0: "K K K K K K K; Q Q Q", 1: "8 8 8"}, pile="4 6", seat=2, phase=PLAY
    )
    state.apply(Ask())
    return state


def test_expert_answers_no_holding_many_meldable_points_r12_5():
    state = answering_position("Q A A A JK 2 J J 9 9")
    expert, view = expert_view(state)
    assert list(view.legal_moves()) == [Answer(True), Answer(False)]
    assert expert.answer_go_out(view) is False


def test_expert_answers_yes_with_a_cheap_hand_r12_5():
    state = answering_position("5 6")
    expert, view = expert_view(state)
    assert expert.answer_go_out(view) is True


# ---------------------------------------------------------------- discards


def test_expert_does_not_discard_a_rank_the_next_player_melded_r8_2c():
    state = position(hands={0: "J 9 9 K 5"}, melds={0: "Q Q Q", 1: "J J J"}, pile="4 6", phase=PLAY)
    expert, view = expert_view(state)
    move = expert.choose_discard(view)
    assert move.card != J and state.is_legal(move)


def test_expert_blocks_a_big_pile_with_a_black_three_r5_2():
    state = position(hands={0: "3b 5 K Q 9 9"}, melds={0: "A A A", 1: "J J J"}, pile="4 6 7 8 10 4 6 7", phase=PLAY)
    expert, view = expert_view(state)
    assert expert.choose_discard(view) == Discard(BLACK_THREE)


def test_expert_freezes_a_big_pile_when_every_card_feeds_it_r8_1b():
    state = position(
        hands={0: "K Q J A 2"}, melds={0: "5 5 5", 1: "K K K; Q Q Q; J J J; A A A"},
        pile="4 6 7 8 10 4 6 7 9 10", phase=PLAY,
    )
    expert, view = expert_view(state)
    assert expert.choose_discard(view) == Discard(TWO)
    assert expert_view(state, freeze=0)[0].choose_discard(view) != Discard(TWO)


def test_expert_remembers_cards_an_opponent_picked_up():
    state = position(hands={0: "7 K 5 5 9 9"}, melds={0: "Q Q Q", 1: "8 8 8"}, pile="4 2 6", phase=PLAY)
    fresh, view = expert_view(state)
    assert fresh.choose_discard(view) == Discard(SEVEN)  # the cheaper singleton
    remembering, _ = expert_view(state)
    # Seat 1 once took a pile holding two 7s: it holds a pair, so a 7 would hand it this pile.
    remembering.on_hand_start(SeatView(position(pile="7 7 10 A"), 0, (0, 0)))
    remembering.on_event(PublicEvent(1, TakePile((A, A))))
    assert remembering.choose_discard(view) == Discard(K)


# ---------------------------------------------------------------- whole games


class Checked(Strategy):
    """Wraps a strategy and checks every decision it returns against the view before it is played."""

    def __init__(self, inner: Strategy, log: list) -> None:
        super().__init__(inner.rng)
        self.inner = inner
        self.log = log

    def _checked(self, view, move, decision):
        self.log.append((decision, move))
        if move is not None and not isinstance(move, bool):
            assert view.can(move), f"{decision}: {move} is not legal"
        return move

    def choose_acquire(self, view):
        return self._checked(view, self.inner.choose_acquire(view), "acquire")

    def choose_ask(self, view):
        return self._checked(view, self.inner.choose_ask(view), "ask")

    def answer_go_out(self, view):
        return self._checked(view, self.inner.answer_go_out(view), "answer")

    def choose_meld(self, view):
        return self._checked(view, self.inner.choose_meld(view), "meld")

    def choose_discard(self, view):
        return self._checked(view, self.inner.choose_discard(view), "discard")

    def on_hand_start(self, view):
        self.inner.on_hand_start(view)

    def on_event(self, event):
        self.inner.on_event(event)


def checked(cls, log):
    return lambda rng: Checked(cls(rng), log)


@pytest.mark.parametrize("cls", [RandomPlay, Greedy, Expert])
def test_every_builtin_makes_only_legal_moves(cls):
    log: list = []
    for seed in range(3):
        play_game([checked(cls, log), Greedy, checked(cls, log), RandomPlay], seed=seed)
    kinds = {(decision, type(move).__name__) for decision, move in log}
    assert {("acquire", "Draw"), ("acquire", "TakePile"), ("meld", "Meld"), ("discard", "Discard")} <= kinds


def test_expert_exercises_every_decision_over_games():
    log: list = []
    for seed in range(4):
        play_game([checked(Expert, log)] * 4, seed=seed)
    seen = {(decision, move if isinstance(move, bool) else type(move).__name__) for decision, move in log}
    for expected in [("acquire", "Draw"), ("acquire", "TakePile"), ("ask", True), ("ask", False),
                     ("answer", True), ("meld", "Meld"), ("meld", "NoneType"), ("discard", "Discard")]:
        assert expected in seen, expected


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_each_builtin_is_deterministic_given_its_rng(name):
    cls = BUILTIN[name]
    if name == "pimc":  # a searching strategy: a tiny budget keeps the suite fast
        cls = functools.partial(cls, samples=2, width=2)
    first = play_game([cls, Greedy, cls, RandomPlay], seed=11)
    second = play_game([cls, Greedy, cls, RandomPlay], seed=11)
    assert first == second
    state = position(hands={0: "9 9 K 5 7 4 4 6"}, melds={0: "Q Q Q", 1: "8 8 8"}, pile="4 6", phase=PLAY)
    choices = []
    for _ in range(2):
        player = cls(random.Random(5))
        view = SeatView(state, 0, (0, 0))
        player.on_hand_start(view)
        choices.append((player.choose_meld(view), player.choose_discard(view)))
    assert choices[0] == choices[1]


@pytest.mark.parametrize(
    "options",
    [
        ["ask_partner=mandatory"],
        ["ask_partner=off"],
        ["canastas_to_go_out=2"],
        ["wild_ratio_rule=min_two_naturals"],
        ["stock_exhausted_rule=official", "last_card_red_three=meld_no_discard"],
        ["dealt_red_three_timing=first_turn", "going_out_without_discard=only_if_hand_holds_canasta"],
        ["black_three_freezes_pile=true", "blocking_wild_cards=joker_only"],
    ],
)
def test_expert_plays_legally_under_rule_variants(options):
    rules = Rules.from_options([*options, "target_score=2000"])
    log: list = []
    result = play_game([checked(Expert, log), Greedy, checked(Expert, log), RandomPlay], seed=5, rules=rules)
    assert result.termination == "target" and log


def test_expert_self_play_looks_like_real_canasta_r12_r15():
    hands = []
    gone_out = 0
    for seed in range(10):
        result = play_game([Expert] * 4, seed=seed)
        hands.append(len(result.hands))
        gone_out += sum(1 for hand in result.hands if hand.end_reason == "went_out")
    assert 4 <= statistics.mean(hands) <= 9
    assert gone_out >= 0.95 * sum(hands)


# ---------------------------------------------------------------- parameters


def test_expert_parameters_from_a_spec():
    loaded = load_strategy("expert:aggression=0.7,freeze=2,ask_cards=3")
    player = loaded(random.Random(0))
    assert (player.aggression, player.freeze, player.ask_cards) == (0.7, 2.0, 3)
    assert loaded.label == "expert@1"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("expert:boldness=1", "no parameter 'boldness'"),
        ("expert:ask_cards=many", "expert: ask_cards=many is not a whole number; expected an int from 0 to 15"),
        ("expert:aggression=1.5", "expert: aggression=1.5 is out of range; expected a float from 0 to 1"),
        ("expert:freeze=nan", "expert: freeze=nan is not a finite number"),
    ],
)
def test_expert_refuses_bad_parameters(spec, message):
    with pytest.raises(StrategyLoadError, match=message):
        load_strategy(spec)


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_a_builtins_parameters_are_declared_as_its_attributes_for_type_checkers(name):
    # Strategy.__init__ sets each parameter as an attribute, which mypy and pyright cannot see: a subclass of expert
    # that read self.aggression was "has no attribute aggression" to them until the class declared it.
    cls = BUILTIN[name]
    declared = {attribute for klass in cls.__mro__ for attribute in inspect.get_annotations(klass)}
    assert set(cls.parameters) <= declared


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_a_builtins_decisions_annotate_the_view_they_are_given(name):
    # pyright --strict read an unannotated view in pimc's decisions as Unknown, and so a subclass's
    # super().choose_discard(view) as "partially unknown": the classes users subclass say what they take.
    cls = BUILTIN[name]
    for method in ("choose_acquire", "choose_ask", "answer_go_out", "choose_meld", "choose_discard", "on_hand_start"):
        assert inspect.get_annotations(getattr(cls, method)).get("view") == "SeatView", method
