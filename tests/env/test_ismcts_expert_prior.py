"""ismcts's PUCT prior from expert (``expert_prior``): off by default, and then the games of before."""

import hashlib
import random

import pyspiel
import pytest

import canasta_sim.env.openspiel  # noqa: F401  (registers the game)
from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.env.encoding import playable_actions
from canasta_sim.env.ismcts import _EXPERT_METHODS, expert_prior
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import Expert

PUCT = "ismcts:simulations=4,playout=expert,selection=puct"
PUCT_RECORDED = "8fbf825b4c99e63c"
"""Game seed 5 of ``PUCT`` against expert to a target of 200, recorded before ``expert_prior`` existed: its default
(0, the uniform prior) must play it still.  (With random play-outs the same held: ``7fdddbe0b914d821``, left out of
the suite for its cost.)"""


def _fingerprint(spec: str) -> str:
    searcher, expert = load_strategy(spec), load_strategy("expert")
    result = play_game([searcher, expert, searcher, expert], seed=5, rules=Rules(target_score=200))
    digest = hashlib.sha256()
    digest.update(repr([(hand.end_reason, hand.went_out_seat, hand.totals_after) for hand in result.hands]).encode())
    digest.update(repr((result.scores, result.winner, result.termination)).encode())
    return digest.hexdigest()[:16]


@pytest.mark.timeout(60)
def test_puct_with_the_default_prior_plays_the_games_it_played_before():
    assert _fingerprint(f"{PUCT},expert_prior=0") == PUCT_RECORDED


def _decision_states(count: int):
    game = pyspiel.load_game("canasta_sim", {"target_score": 5000})
    rng = random.Random(2)
    state = game.new_initial_state()
    while count:
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probabilities)[0])
            continue
        if len(state.legal_actions()) > 1:
            yield state
            count -= 1
        state.apply_action(rng.choice(state.legal_actions()))


def test_the_expert_prior_moves_its_weight_to_the_action_expert_would_take():
    favoured_seen = 0
    for state in _decision_states(30):
        actions = state.legal_actions()
        uniform = expert_prior(state, 0.0)
        assert uniform == [(action, 1.0 / len(actions)) for action in actions]
        weighted = dict(expert_prior(state, 0.6))
        assert list(weighted) == actions and sum(weighted.values()) == pytest.approx(1.0)
        tree = state.tree
        view = tree.views[tree.actor]
        expert = Expert(random.Random(0))
        expert.on_hand_start(view)
        move = getattr(expert, _EXPERT_METHODS[tree.decision])(view)
        path = playable_actions(view, tree.decision, move)
        if path[:len(tree.prefix)] == tree.prefix and len(path) > len(tree.prefix):
            favoured = path[len(tree.prefix)]
            assert weighted[favoured] == pytest.approx(0.6 + 0.4 / len(actions))
            favoured_seen += 1
        else:
            assert set(weighted.values()) == {pytest.approx(1.0 / len(actions))}
    assert favoured_seen > 20


@pytest.mark.timeout(60)
def test_an_expert_prior_changes_the_search_and_plays_reproducibly():
    spec = f"{PUCT},expert_prior=0.5"
    assert _fingerprint(spec) == _fingerprint(spec) != PUCT_RECORDED


@pytest.mark.parametrize(("spec", "message"), [
    ("ismcts:expert_prior=0.5", "selection=uct does not read; add selection=puct"),
    ("ismcts:selection=puct,expert_prior=1.5", "must be from 0"),
    ("ismcts:selection=puct,expert_prior=-0.1", "must be from 0"),
])
def test_an_expert_prior_out_of_range_or_without_puct_is_refused(spec, message):
    with pytest.raises(StrategyLoadError, match=message):
        load_strategy(spec)
