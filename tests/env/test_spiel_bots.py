"""The ``openspiel:`` spec form: OpenSpiel's bots as strategies, seeing only what their seat may know unless asked."""

import logging
import random

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.env.spiel_bots import spiel_bot_class
from canasta_sim.errors import StrategyError, StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import Greedy

SHORT = Rules(target_score=200)


def _spied(spec: str):
    """The spec's class, recording at each searched decision the true hands and those of the state the bot got."""
    cls = load_strategy(spec).cls
    records = []

    class Spy(cls):
        def _search(self, view, root, allowed):
            truth = view._state  # the test, not the strategy, looks at the game itself
            records.append((view.seat, [tuple(hand) for hand in truth.hands], list(truth.stock),
                            [tuple(hand) for hand in root.tree.state.hands], list(root.tree.state.stock)))
            return super()._search(view, root, allowed)

    return Spy, records


@pytest.mark.timeout(60)
def test_a_bot_gets_worlds_sampled_from_what_its_seat_has_seen_never_the_hidden_cards():
    spy, records = _spied("openspiel:random")
    play_game([spy, Greedy, spy, Greedy], seed=3, rules=SHORT)
    assert len(records) > 5
    for seat, hands, stock, given, given_stock in records:
        assert given[seat] == hands[seat]  # its own hand as it is
        assert [len(hand) for hand in given] == [len(hand) for hand in hands] and len(given_stock) == len(stock)
    assert sum(given != hands or given_stock != stock for _, hands, stock, given, given_stock in records) > 0.8 * \
        len(records)  # the others' cards and the stock dealt anew (a world may repeat the truth by chance)


@pytest.mark.timeout(60)
def test_an_all_seeing_bot_gets_the_true_state_and_is_named_so(caplog):
    spiel_bot_class.cache_clear()  # the warning comes once per process, when the class is first made
    with caplog.at_level(logging.WARNING):
        loaded = load_strategy("openspiel:random:sees=all")
    assert loaded.label == "openspiel:random:all-seeing@2"
    assert "sees every hidden card" in caplog.text
    spy, records = _spied("openspiel:random:sees=all")
    play_game([spy, Greedy, spy, Greedy], seed=3, rules=SHORT)
    assert records and all(given == hands and given_stock == stock
                           for _, hands, stock, given, given_stock in records)
    assert load_strategy("openspiel:random").label == "openspiel:random@2"


@pytest.mark.timeout(60)
def test_openspiels_mcts_plays_whole_games_reproducibly_from_the_seed():
    mcts = load_strategy("openspiel:mcts:simulations=4,playout=expert")
    first = play_game([mcts, Greedy, mcts, Greedy], seed=5, rules=SHORT)
    again = play_game([mcts, Greedy, mcts, Greedy], seed=5, rules=SHORT)
    assert (first.scores, len(first.hands)) == (again.scores, len(again.hands)) and max(first.scores) >= 200


def _bad_bots(tmp_path):
    path = tmp_path / "bots.py"
    path.write_text("class Stuck:\n    def step(self, state):\n        return 1  # stop: seldom allowed\n\n"
                    "class Vague:\n    def step(self, state):\n        return 'draw'\n\n"
                    "def stuck(game, player, random_state):\n    return Stuck()\n\n"
                    "def vague(game, player, random_state):\n    return Vague()\n\n"
                    "def first(game, player, random_state, *, pick='0'):\n"
                    "    class First:\n        def step(self, state):\n"
                    "            return state.legal_actions()[int(pick)]\n    return First()\n\n"
                    "NOT_A_BOT = 3\n")
    return path


@pytest.mark.timeout(60)
def test_a_bot_in_a_file_plays_and_its_wrong_answers_are_its_seats_failures(tmp_path):
    path = _bad_bots(tmp_path)
    first = load_strategy(f"openspiel:{path}:first:pick=0")
    assert max(play_game([first, Greedy, first, Greedy], seed=2, rules=SHORT).scores) >= 200
    for name, reason in (("stuck", "illegal"), ("vague", "malformed")):
        with pytest.raises(StrategyError) as failed:
            play_game([load_strategy(f"openspiel:{path}:{name}"), Greedy] * 2, seed=2, rules=SHORT)
        assert failed.value.reason == reason


@pytest.mark.parametrize(("spec", "message"), [
    ("openspiel:random:sees=most", "sees='most' is not accepted; use seat"),
    ("openspiel:random:depth=2", "takes no parameter but sees"),
    ("openspiel:mcts:depth=2", "has no parameter 'depth'"),
    ("openspiel:mcts:simulations=0", "simulations and rollouts must be at least 1"),
    ("openspiel:mcts:uct_c=inf", r"uct_c a finite number 0 or more; .*uct_c=inf"),
    ("openspiel:mcts:uct_c=nan", r"uct_c a finite number 0 or more; .*uct_c=nan"),
    ("openspiel:mcts:simulations=many", "take whole numbers"),
    ("openspiel:mcts:playout=minimax", "playout='minimax' is not accepted"),
    ("openspiel:alphazero", "names no bot"),
])
def test_bad_openspiel_specs_are_refused_in_one_line(spec, message):
    with pytest.raises(StrategyLoadError, match=message):
        load_strategy(spec)


def test_a_file_without_the_bot_named_is_refused(tmp_path):
    path = _bad_bots(tmp_path)
    with pytest.raises(StrategyLoadError, match="has no callable 'NOT_A_BOT'"):
        load_strategy(f"openspiel:{path}:NOT_A_BOT")


def test_a_bot_factory_that_cannot_take_the_specs_parameters_is_refused_at_load(tmp_path):
    """The factory is first called at the seat's first decision: a parameter it does not take, or a class taking no
    game, stopped the run there as the seat's failure (a run folder made, "fix the strategy"); the spec was wrong."""
    path = _bad_bots(tmp_path)
    with pytest.raises(StrategyLoadError, match=r"first\(game, player, random_state, \*, pick='0'\) cannot be called "
                                                r"as first\(game, player, random_state, depth='2'\): got an "
                                                r"unexpected keyword argument 'depth'$"):
        load_strategy(f"openspiel:{path}:first:depth=2")
    with pytest.raises(StrategyLoadError, match=r"Stuck\(\) cannot be called as Stuck\(game, player, random_state\): "
                                                r"too many positional arguments$"):
        load_strategy(f"openspiel:{path}:Stuck")


def test_an_all_seeing_bot_refuses_a_view_without_the_game():
    from canasta_sim.errors import SeatFailure

    cls = load_strategy("openspiel:random:sees=all").cls
    player = cls(random.Random(0))

    class RebuiltView:  # a view rebuilt from a message (isolated:) is not the game's own SeatView
        pass

    with pytest.raises(SeatFailure, match="cannot run isolated"):
        player._root(RebuiltView(), "discard")
