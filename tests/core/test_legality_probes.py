"""Legality probes (is_legal, can_x) answer like verify_x without building the error.

While a probe runs, a broken rule raises one shared error (``canasta_sim.core.melding._REFUSED``) instead of
formatting its own; these tests check that the probe's answer, the errors verify_x raises afterwards and
the hand state itself are those of a check that builds every error.
"""

import pytest

from canasta_sim.core.cards import parse_kind
from canasta_sim.core.legal import legal_discards, legal_melds, legal_takes
from canasta_sim.core.melding import _REFUSED
from canasta_sim.core.moves import Discard, Meld, MeldGroup, TakePile, parse_move
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import ACQUIRE, PLAY
from canasta_sim.errors import IllegalMoveError
from tests.helpers import expect_illegal, force_field, position, snapshot

K, Q, FIVE = (parse_kind(name) for name in ("K", "Q", "5"))


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("meld K K", "R9.1"),  # too few cards
        ("meld Q Q Q", "R6.1"),  # cards the hand lacks
        ("discard Q", "R6.1"),
    ],
)
def test_a_refused_probe_leaves_verify_raising_the_rules_own_error(text, rule):
    state = position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    move = parse_move(text)
    before = snapshot(state)
    assert not state.is_legal(move)
    assert snapshot(state) == before
    assert state._probing is False
    with pytest.raises(IllegalMoveError) as raised:
        state.verify(move)
    assert raised.value is not _REFUSED
    assert raised.value.rule == rule
    assert rule in str(raised.value)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("hand", "melds", "text", "rule"),
    [
        ("K K K 5", {0: "A A A"}, "meld K K K", "R6.4"),  # would go out (one card left) with no canasta
        ("5", {0: "A A A"}, "discard 5", "R6.4"),  # the same check, reached from a discard
        ("K K K 5 6 7 8", {}, "meld K K K", "R10.2"),  # an initial meld short of the minimum
    ],
)
def test_a_refusal_returned_up_the_checks_answers_as_a_raised_one(hand, melds, text, rule):
    # These refusals return False up the checks while probing instead of raising: the probe must still say no,
    # and verify (not probing) must still raise the rule's own error; a legal move's check answers True.
    state = position(Rules(), hands={0: hand}, melds=melds, seat=0, phase=PLAY)
    move = parse_move(text)
    assert not state.is_legal(move)
    assert state._probing is False
    with pytest.raises(IllegalMoveError) as raised:
        state.verify(move)
    assert raised.value is not _REFUSED and raised.value.rule == rule


@pytest.mark.timeout(30)
def test_the_checks_that_return_a_refusal_answer_true_for_a_legal_move():
    state = position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    assert state.verify_meld(Meld((MeldGroup.of(K, 3),))) is True
    assert state.verify_discard(Discard(FIVE)) is True
    taking = position(
        Rules(), hands={1: "7 7 JK 5 6"}, melds={1: "7 7 7"}, pile="9 4 7", seat=1, phase=ACQUIRE, melded_seats=(1,)
    )
    assert taking.verify_take_pile(parse_move("take 7 7")) is True


@pytest.mark.timeout(30)
def test_the_can_methods_answer_as_verify_does_and_restore_the_probe_flag():
    state = position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    assert state.can_meld(Meld((MeldGroup.of(K, 3),)))
    assert not state.can_meld(Meld((MeldGroup.of(K, 2),)))
    assert state.can_discard(Discard(FIVE))
    assert not state.can_discard(Discard(Q))
    assert state._probing is False
    taking = position(Rules(), hands={1: "7 7 5 6"}, pile="9 7", seat=1, phase=ACQUIRE, melded_seats=(1,))
    assert not taking.can_take_pile(TakePile((FIVE,)))
    assert taking._probing is False
    with pytest.raises(IllegalMoveError) as raised:
        taking.verify_take_pile(TakePile((FIVE,)))
    assert raised.value is not _REFUSED and raised.value.rule == "R8.2"


@pytest.mark.timeout(30)
def test_a_malformed_record_is_still_refused_by_a_probe_and_named_by_verify():
    state = position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    malformed = Discard("K")
    assert not state.is_legal(malformed)
    with pytest.raises(IllegalMoveError) as raised:
        state.verify(malformed)
    assert raised.value.rule == "E1"


@pytest.mark.timeout(30)
def test_the_shared_refusal_keeps_no_traceback_after_a_probe():
    state = position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    for _ in range(3):
        assert not state.is_legal(parse_move("meld K K"))
    assert _REFUSED.__traceback__ is None


def _same_state(left, right) -> None:
    assert snapshot(left) == snapshot(right)
    assert left.history == right.history


def _checked_lays_what_unchecked_lays(state, text: str) -> None:
    """Apply the move ``text`` once after ``is_legal`` checked that very record, once as a fresh record on a copy,
    and compare the two states."""
    unchecked = state.copy()
    move = parse_move(text)
    assert state.is_legal(move)
    state.apply(move)
    unchecked.apply(parse_move(text))
    _same_state(state, unchecked)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("text", ["meld K K K", "meld K K K; 5 5 5", "meld A:JK"])
def test_a_meld_checked_by_is_legal_lays_what_an_unchecked_one_lays(text):
    # The meld reuses the sums is_legal made of that very move (MeldingRules.meld).
    state = position(Rules(), hands={0: "K K K 5 5 5 JK 8 9"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    _checked_lays_what_unchecked_lays(state, text)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("text", ["take 7 7", "take 7 JK", "take"])
def test_a_take_checked_by_is_legal_lays_what_an_unchecked_one_lays(text):
    state = position(
        Rules(), hands={1: "7 7 JK 5 6"}, melds={1: "7 7 7"}, pile="9 4 7", seat=1, phase=ACQUIRE, melded_seats=(1,)
    )
    _checked_lays_what_unchecked_lays(state, text)


@pytest.mark.timeout(30)
def test_sums_from_a_check_are_not_reused_after_another_move_is_applied():
    state = position(Rules(), hands={0: "K K K 5 5 5 JK 8 9"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    kings, fives = parse_move("meld K K K"), parse_move("meld 5 5 5")
    assert state.is_legal(kings)
    state.apply(fives)  # clears the vouch: the kings are checked and summed again
    state.apply(kings)
    assert state.melds[0][K] == [3, 0, 0] and state.melds[0][FIVE] == [3, 0, 0]
    assert state.hands[0][K] == 0 and state.hands[0][FIVE] == 0


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("legal", "changed_field", "changed_to"),
    [
        ("meld K K K", "groups", (MeldGroup(K, (parse_kind("K"),) * 6),)),  # the same cards twice over
        ("discard 5", "card", Q),  # a card the hand lacks
    ],
)
def test_a_record_changed_after_its_check_is_checked_again_not_applied_on_the_vouch(legal, changed_field, changed_to):
    # Strategy code is untrusted: a record found legal and then forced to change (the records are frozen, but
    # not against force_field's ways) must meet the rules' check when applied, not the vouch
    # the check left for that object (R6.1: only cards in hand are played).
    state = position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    move = parse_move(legal)
    assert state.is_legal(move)
    force_field(move, changed_field, changed_to)
    before = snapshot(state)
    with pytest.raises(IllegalMoveError) as raised:
        state.apply(move)
    assert raised.value.rule == "R6.1"
    assert snapshot(state) == before


@pytest.mark.timeout(30)
def test_an_unchanged_record_is_applied_on_its_vouch_as_before():
    state = position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)
    move = parse_move("meld K K K")
    assert state.is_legal(move)
    state.apply(move)
    assert state.hand_sizes[0] == 4


def _change_group_cards(move):
    # A group inside the record, the same cards twice over.  A group refuses ``group.cards = ...``, but strategy
    # code can still force a change: through its slot where the core runs as plain Python, by running its
    # constructor again where it is compiled (its fields are then read-only C members).
    group = move.groups[0]
    with pytest.raises(AttributeError):
        group.cards = (K,) * 6
    try:
        object.__setattr__(group, "cards", (K,) * 6)
    except (TypeError, AttributeError):  # compiled: refused as TypeError up to Python 3.12, AttributeError from 3.13
        MeldGroup.__init__(group, K, (K,) * 6)
    assert group.cards == (K,) * 6


class _Groups(list):
    """A list of groups of a strategy's own: a plain list is taken as its tuple, a subclass is kept as given."""


def _grow_group_list(move):
    move.groups.append(MeldGroup(K, (K, K, K)))  # a list of groups, built by hand, grown after the check


def _change_take_extra(move):
    force_field(move, "extra", (MeldGroup(Q, (Q, Q, Q)),))  # extra melds of cards the hand lacks


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("build", "change", "phase"),
    [
        (lambda: parse_move("meld K K K"), _change_group_cards, PLAY),
        (lambda: Meld(_Groups([MeldGroup(K, (K, K, K))])), _grow_group_list, PLAY),
        (lambda: TakePile((FIVE, FIVE)), _change_take_extra, ACQUIRE),
    ],
    ids=["group_cards", "group_list", "take_extra"],
)
def test_a_record_changed_at_any_level_after_its_check_is_checked_again(build, change, phase):
    # The vouch compares the very objects the record's fields held at the check, level by level (the groups'
    # ranks and cards included), and keeps no vouch for a container other than a tuple: any change made
    # after the check, however deep, meets the rules' check when applied (R6.1: only cards in hand are played).
    state = position(
        Rules(), hands={0: "K K K 5 5 6 7 8"}, melds={0: "A A A"}, pile="9 5", seat=0, phase=phase, melded_seats=(0,)
    )
    move = build()
    assert state.is_legal(move)
    change(move)
    before = snapshot(state)
    with pytest.raises(IllegalMoveError) as raised:
        state.apply(move)
    assert raised.value.rule in ("R6.1", "R8.3")
    assert snapshot(state) == before


def _listed_position():
    return position(Rules(), hands={0: "K K K 5 6 7 8"}, melds={0: "A A A"}, seat=0, phase=PLAY)


@pytest.mark.timeout(30)
def test_a_move_picked_from_a_listing_is_vouched_for_until_a_move_is_applied():
    # The listings remember what they found legal, so the engine applies the move a strategy picks from one on
    # that check; a record of equal value that no listing yielded, and any listed one once a move is applied,
    # are checked again.
    state = _listed_position()
    discards = list(legal_discards(state))
    melds = list(legal_melds(state))
    assert discards and melds
    assert state._take_vouch(discards[-1])  # not only the last listed: every one of the decision's listings
    state = _listed_position()
    discards = list(legal_discards(state))
    list(legal_melds(state))
    assert not state._take_vouch(Discard(discards[0].card))
    assert not state._take_vouch(discards[0])  # the previous call stood for a move applied: nothing is kept


@pytest.mark.timeout(30)
def test_a_listed_move_applied_after_another_move_meets_the_rules_check():
    state = _listed_position()
    king = next(move for move in legal_discards(state) if move.card == K)
    state.apply(parse_move("meld K K K"))  # no king is left to discard
    expect_illegal(state, king, "R6.1")


@pytest.mark.timeout(30)
def test_a_listed_record_changed_after_the_listing_meets_the_rules_check():
    # The listings hand out shared records: one forced to change after it was listed is checked when applied
    # (and put back here, for the other tests).
    state = _listed_position()
    five = next(move for move in legal_discards(state) if move.card == FIVE)
    force_field(five, "card", Q)
    try:
        expect_illegal(state, five, "R6.1")
    finally:
        force_field(five, "card", FIVE)


@pytest.mark.timeout(30)
def test_a_take_picked_from_the_listing_lays_what_a_checked_one_lays():
    state = position(
        Rules(), hands={1: "7 7 JK 5 6"}, melds={1: "7 7 7"}, pile="9 4 7", seat=1, phase=ACQUIRE, melded_seats=(1,)
    )
    checked = state.copy()
    takes = list(legal_takes(state))
    assert len(takes) > 1
    state.apply(takes[0])  # not the last one listed: applied on the listing's check
    checked.apply(TakePile(takes[0].cards, takes[0].extra))
    _same_state(state, checked)


class _OtherGroup(MeldGroup):
    """A group record of another class: its melds are judged by the full checks, never the single-group verdict."""


def _verdict(state, group) -> tuple[bool, str | None]:
    """``(probe's answer, the rule verify names or None)`` for a meld of the one ``group``."""
    move = Meld((group,))
    legal = state.is_legal(move)
    try:
        state.verify(move)
    except IllegalMoveError as error:
        return legal, error.rule
    return legal, None


@pytest.mark.timeout(30)
@pytest.mark.parametrize("hand", ["K K K Q Q 5 6 7 8 2 JK", "K K 2 2 JK JK JK Q", "K K K 2"])
@pytest.mark.parametrize("rules", [Rules(), Rules(ask_partner="mandatory")])
def test_a_single_group_meld_is_judged_as_the_full_checks_judge_it(hand, rules):
    # verify_meld judges the commonest meld (one group of a natural rank, the side melded) on a shorter path: it
    # must answer, probing or not, as the full checks do for the very same cards in a group of another class.
    state = position(rules, hands={0: hand}, melds={0: "A A A; K K 2"}, seat=0, phase=PLAY)
    # The sweep meets the rules that path judges: R6.1 (cards held), R9.1 (three of a natural rank), R9.2 (the
    # wild-card limits), R5.3 (black 3s), R6.4 (one card kept) and R12.5 (a yes obliges going out) on some hands.
    before = snapshot(state)
    judged = 0
    rules_named = set()
    for rank in (parse_kind("3b"), FIVE, Q, K, parse_kind("A")):
        for naturals in range(5):
            for jokers in range(4):
                for deuces in range(4):
                    cards = (rank,) * naturals + (parse_kind("JK"),) * jokers + (parse_kind("2"),) * deuces
                    verdict = _verdict(state, MeldGroup(rank, cards))
                    assert verdict == _verdict(state, _OtherGroup(rank, cards))
                    rules_named.add(verdict[1])
                    judged += 1
    assert {None, "R6.1", "R9.1", "R5.3"} <= rules_named
    # Cards of another rank, a card no kind at all, and an integer too large for a C integer.
    for cards in ((K, Q, Q), (K, K, 99), (K, K, 2**70)):
        assert _verdict(state, MeldGroup(K, cards)) == _verdict(state, _OtherGroup(K, cards))
    assert _verdict(state, MeldGroup(2**70, (K, K, K))) == _verdict(state, _OtherGroup(2**70, (K, K, K)))
    assert judged == 5 * 5 * 4 * 4 and snapshot(state) == before and state._probing is False
