"""A view rebuilt from its message alone answers every SeatView question exactly as the live view.

The test plays whole games and, at every decision and hook of every seat, sends the live view through
JSON, rebuilds a :class:`MessageView` and compares every property and method, legal listings, ``can``,
``verify`` (down to the error's text), ``going_out_plan`` and ``meld_candidates`` included.
"""

import json

import pytest

from canasta_sim.core.cards import KIND_COUNT
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import ASK, DRAW, STOP, Answer, Discard, TakePile
from canasta_sim.core.rules import Rules
from canasta_sim.errors import IllegalMoveError
from canasta_sim.plugins.messages import MessageError, MessageView, view_message
from canasta_sim.strategies import Expert, Greedy, RandomPlay

PROPERTIES = (
    "scores", "seat", "side", "partner", "rules", "hand_number", "dealer", "seat_to_move", "phase", "acquired",
    "partner_answer", "turn_count", "hand", "hand_sizes", "stock_count", "pile", "pile_top", "pile_size",
    "is_pile_frozen", "is_pile_blocked", "red_threes",
)


STATE_FIELDS = (
    "acquired", "added_to_existing", "answer", "asked", "dealer", "hand_number", "hand_sizes", "hands",
    "melded_before_turn", "melded_this_turn", "melds", "must_stop", "phase", "pile", "pile_freezers",
    "red_threes", "requirements", "scores_before", "seat", "side_has_melded", "stock", "turn_count",
    "turn_laid", "turn_new_ranks",
)


def _plain(value):
    return [_plain(item) for item in value] if isinstance(value, (list, tuple)) else value


def _verdict(view, move):
    try:
        view.verify(move)
    except IllegalMoveError as error:
        return str(error)
    return None


def compare(live, rebuilt) -> int:
    """Assert that the two views agree on everything; return how many moves were probed."""
    for name in PROPERTIES:
        assert getattr(rebuilt, name) == getattr(live, name), name
    for side in (0, 1):
        assert rebuilt.melds(side) == live.melds(side)
        assert rebuilt.canasta_count(side) == live.canasta_count(side)
        assert rebuilt.has_melded(side) == live.has_melded(side)
        assert rebuilt.requirement(side) == live.requirement(side)
        assert rebuilt.initial_requirement(side) == live.initial_requirement(side)
        assert rebuilt.is_pile_frozen_for(side) == live.is_pile_frozen_for(side)
    listings = {}
    for name in ("legal_moves", "legal_acquires", "legal_takes", "legal_melds", "legal_discards"):
        listings[name] = list(getattr(live, name)())
        assert list(getattr(rebuilt, name)()) == listings[name], name
    for largest_first in (False, True):
        candidates = list(live.meld_candidates(largest_first=largest_first))
        assert list(rebuilt.meld_candidates(largest_first=largest_first)) == candidates
    assert rebuilt.can_go_out() == live.can_go_out()
    assert rebuilt.going_out_plan() == live.going_out_plan()
    assert rebuilt.hand_value() == live.hand_value()
    probes = [DRAW, STOP, ASK, Answer(True), Answer(False), TakePile(), *(Discard(kind) for kind in range(KIND_COUNT))]
    probes += listings["legal_moves"] + candidates
    top = live.pile_top
    if top is not None:
        probes += [TakePile((top,)), TakePile((top, top)), TakePile((top, 0)), TakePile((top, 1))]
    for move in probes:
        assert rebuilt.can(move) == live.can(move), move
        assert _verdict(rebuilt, move) == _verdict(live, move), move
    return len(probes)


class Comparing:
    """Wraps a strategy class: before each decision and hook, the rebuilt view must match the live one."""

    checked = 0

    def __init__(self, cls, rules):
        self.cls = cls
        self.rules = rules

    def __call__(self, rng):
        player = self.cls(rng)
        kept = {}

        def check(view):
            message = json.loads(json.dumps(view_message(view)))
            rebuilt = kept.get("view")
            if rebuilt is None or view.seat != rebuilt.seat:
                rebuilt = kept["view"] = MessageView(message, self.rules)
                kept["unchecked"] = MessageView(json.loads(json.dumps(view_message(view))), self.rules, check=False)
            else:
                rebuilt.update(message)  # one view object follows the seat, as a live one does
                kept["unchecked"].update(json.loads(json.dumps(view_message(view))), check=False)
            Comparing.checked += compare(view, rebuilt)
            # the bot server's unchecked path builds the very same state
            unchecked = kept["unchecked"]._state
            for name in STATE_FIELDS:
                assert _plain(getattr(unchecked, name)) == _plain(getattr(rebuilt._state, name)), name

        for name in ("choose_acquire", "choose_ask", "answer_go_out", "choose_meld", "choose_discard", "on_hand_start"):
            method = getattr(player, name)

            def checked(view, _method=method):
                check(view)
                return _method(view)

            setattr(player, name, checked)
        return player


RULE_SETS = [
    Rules(target_score=2000),
    Rules(target_score=1500, stock_exhausted_rule="official", dealt_red_three_timing="first_turn",
          black_three_freezes_pile=True, ask_partner="mandatory", last_card_red_three="meld_no_discard"),
    Rules(target_score=1500, allow_wild_only_melds=True, wild_ratio_rule="min_two_naturals",
          going_out_without_discard="only_if_hand_holds_canasta", blocking_wild_cards="joker_only"),
]
"""Rule sets whose games reach every field of the view (the variants change what the view says)."""
RULE_IDS = ["default", "official-variants", "wild-variants"]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("rules", RULE_SETS, ids=RULE_IDS)
def test_rebuilt_view_answers_as_the_live_one_at_every_decision(rules):
    Comparing.checked = 0
    players = [Comparing(cls, rules) for cls in (Expert, Greedy, RandomPlay, Expert)]
    for seed in range(3):
        play_game(players, seed=seed, rules=rules)
    assert Comparing.checked > 10_000


def messages_at_discards(seed: int) -> list[dict]:
    """Seat 0's view message at each of its discards in a game of greedy at every seat to 500, from ``seed``."""
    seen = []

    class Recording(Greedy):
        def choose_discard(self, view):
            seen.append(view_message(view))
            return super().choose_discard(view)

    play_game([Recording, Greedy, Greedy, Greedy], seed=seed, rules=Rules(target_score=500))
    return seen


def test_view_message_holds_no_other_hand_and_no_stock_order():
    seen = messages_at_discards(4)
    assert seen
    for message in seen:
        assert set(message) == {
            "format", "seat", "hand_number", "dealer", "scores", "seat_to_move", "phase", "turn_count", "acquired",
            "asked", "answer", "must_stop", "hand", "hand_sizes", "stock_count", "pile", "pile_freezers", "melds",
            "side_has_melded", "initial_minimum", "red_threes", "turn",
        }
        assert isinstance(message["stock_count"], int)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("phase", "dance", "'phase' must be one of"),
        ("hand", [1, 2], "'hand' must be a list of 15"),
        ("seat", 7, "'seat' must be a seat 0-3"),
        ("melds", [[[99, 1, 0, 0]], []], "no rank 99"),
    ],
)
def test_malformed_view_message_is_refused_naming_the_field(field, value, words):
    captured = []

    class Capturing(Greedy):
        def choose_discard(self, view):
            captured.append(view_message(view))
            return super().choose_discard(view)

    play_game([Capturing, Greedy, Greedy, Greedy], seed=1, rules=Rules(target_score=200))
    message = dict(captured[0], **{field: value})
    with pytest.raises(MessageError, match=words):
        MessageView(message, Rules())
