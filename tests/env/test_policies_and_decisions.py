"""Trained policies as strategies (the ``policy:`` spec form) and ``run --record-decisions``."""

import copy
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.env.actions import ACTION_COUNT
from canasta_sim.env.decisions import DecisionRecorder
from canasta_sim.env.encoding import OBSERVATION_SIZE
from canasta_sim.env.gym import CanastaGymEnv
from canasta_sim.env.policy import PolicyStrategy
from canasta_sim.errors import StrategyError, StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import Expert, Greedy
from tests.helpers import assert_same_run_tables, invoke

QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short

POLICIES = '''
import numpy as np


def first(observation, action_mask):
    """The first action the mask allows."""
    return int(np.flatnonzero(action_mask)[0])


def sample(observation, action_mask, rng):
    """Uniform among the allowed actions, from the seat's own generator."""
    return rng.choice(np.flatnonzero(action_mask).tolist())


def shifted(offset):
    """A factory: the spec's parameters come as text."""
    step = int(offset)

    def act(observation, action_mask):
        allowed = np.flatnonzero(action_mask)
        return int(allowed[min(step, len(allowed) - 1)])

    return act


def predicted(observation, action_mask):
    """The first allowed action as a learner's predict gives it for one observation: an array of shape ()."""
    return np.array(np.flatnonzero(action_mask)[0])


def listed(observation, action_mask):
    return np.flatnonzero(action_mask)[:1]


def refused(observation, action_mask):
    """An action the mask never allows first: a seat failure."""
    return int(np.flatnonzero(action_mask == 0)[0])


def text(observation, action_mask):
    return "draw"


def broken(observation, action_mask):
    raise RuntimeError("the policy broke")


NOT_CALLABLE = 3
'''


@pytest.fixture(scope="module")
def policies(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("policies") / "policies.py"
    path.write_text(POLICIES)
    return path


@pytest.mark.timeout(300)
def test_policy_spec_plays_in_worker_processes_with_the_same_tables_for_any_number_of_workers(policies, tmp_path):
    spec = f"policy:{policies}:sample"
    for workers in ("1", "2"):
        result = invoke("run", "--games", "8", "--seed", "4", "-s", spec, "-s", "greedy", "--workers", workers,
                        "--chunk-size", "2", "--out", str(tmp_path / workers), "-q", *QUICK)
        assert result.exit_code == 0, result.output
    assert_same_run_tables(tmp_path / "1", tmp_path / "2")
    games = pd.read_parquet(tmp_path / "1" / "games")
    assert set(games["team_a_strategy"]) == {spec, "greedy"} and games["error"].isna().all()


def test_policy_spec_parameters_call_the_target_as_a_factory(policies):
    loaded = load_strategy(f"policy:{policies}:shifted:offset=2")
    result = play_game([loaded, Greedy, loaded, Greedy], seed=3, rules=Rules(target_score=1000))
    assert result.termination == "target"
    assert loaded.label == f"policy:{policies}:shifted@1"


def test_a_policy_may_return_an_integer_array_of_shape_nothing_as_a_learners_predict_does(policies):
    """``model.predict(observation)`` of stable-baselines3 returns ``array(3)`` for one observation, which Gymnasium's
    ``Discrete`` space holds: it was the seat's failure (``malformed``)."""
    games = [play_game([load_strategy(f"policy:{policies}:{name}"), Greedy] * 2, seed=3, rules=Rules(target_score=500))
             for name in ("predicted", "first")]
    assert games[0].scores == games[1].scores and len(games[0].hands) == len(games[1].hands)


@pytest.mark.parametrize(
    ("name", "message"),
    [("missing", "has no 'missing'"), ("NOT_CALLABLE", "is not a policy"), ("first:offset=1", "first\\(offset='1'\\)"),
     # A factory named without parameters was taken for the policy, and failed at the first decision.
     ("shifted", "'shifted' cannot be called as \\(observation, action_mask\\): too many positional "
                 "arguments; a factory is called only with the spec's parameters, policy:FILE.py:NAME:KEY=VALUE")],
)
def test_bad_policy_specs_are_refused_with_what_is_accepted(policies, name, message):
    with pytest.raises(StrategyLoadError, match=message):
        load_strategy(f"policy:{policies}:{name}")


@pytest.mark.parametrize(
    ("name", "message", "reason"),
    [("refused", "decision acquire: the policy's action 1 \\(stop\\) is not allowed now", "illegal"),
     ("text", "decision acquire: the policy returned 'draw', not an action number", "malformed"),
     ("listed", "decision acquire: the policy returned a numpy.ndarray, not an action number", "malformed")],
)
def test_a_policy_returning_a_refused_or_malformed_action_is_its_seats_failure(policies, name, message, reason):
    # Charged as any strategy's move (docs/strategies.md, Failures): they were "exception", with a traceback of
    # canasta_sim's own frames, the policy's code in none of them.
    loaded = load_strategy(f"policy:{policies}:{name}")
    with pytest.raises(StrategyError, match=message) as caught:
        play_game([Greedy, loaded, Greedy, loaded], seed=1, names=["greedy", "bad"] * 2)
    assert caught.value.seat in (1, 3)
    assert caught.value.reason == reason and caught.value.traceback == ""
    assert "returned None" not in str(caught.value)


def test_a_policy_that_raises_is_charged_an_exception_with_its_own_traceback(policies):
    loaded = load_strategy(f"policy:{policies}:broken")
    with pytest.raises(StrategyError, match="raised RuntimeError: the policy broke") as caught:
        play_game([Greedy, loaded, Greedy, loaded], seed=1, names=["greedy", "bad"] * 2)
    assert caught.value.reason == "exception" and "in broken" in caught.value.traceback


def test_a_bad_policy_spec_is_a_one_line_usage_error(tmp_path):
    result = invoke("run", "--games", "2", "-s", "policy:nowhere.py:act", "--out", str(tmp_path / "run"))
    assert result.exit_code == 2
    assert "does not exist" in result.output and "Traceback" not in result.output


def test_a_policy_file_is_named_a_policy_file_in_its_errors(tmp_path):
    # The policy form borrowed the strategy loader's private file import, whose errors said "strategy file".
    with pytest.raises(StrategyLoadError, match=r"^policy file 'nowhere.py' does not exist \(looked for in "):
        load_strategy("policy:nowhere.py:act")
    broken = tmp_path / "broken_policy.py"
    broken.write_text("raise ImportError('no weights')\n")
    with pytest.raises(StrategyLoadError, match="^policy file '.*broken_policy.py' failed to import: ImportError"):
        load_strategy(f"policy:{broken}:act")


@pytest.mark.timeout(300)
def test_record_decisions_writes_one_row_per_decision_of_the_chosen_strategy(tmp_path):
    out = tmp_path / "run"
    result = invoke("run", "--games", "6", "--seed", "8", "-s", "expert", "-s", "greedy", "--workers", "2",
                    "--chunk-size", "3", "--record-decisions", "expert", "--out", str(out), "-q", *QUICK)
    assert result.exit_code == 0, result.output
    decisions = pd.read_parquet(out / "decisions")
    hands = pd.read_parquet(out / "hands")
    assert set(decisions["strategy"]) == {"expert"}
    # Side A is expert in even games, side B in odd ones (sides swap, R1.1 seats 0 and 2 are side A).
    assert all(seat % 2 == game % 2 for game, seat in zip(decisions["game_id"], decisions["seat"], strict=True))
    assert set(decisions["decision"]) >= {"acquire", "meld", "discard"}
    assert decisions["observation"].map(len).eq(OBSERVATION_SIZE).all()
    assert decisions["actions"].map(lambda actions: actions[0]).eq(decisions["action"]).all()
    assert decisions["action"].between(0, ACTION_COUNT - 1).all() and decisions["legal_actions"].ge(1).all()
    assert decisions["allowed"].map(len).eq(decisions["legal_actions"]).all()
    assert all(action in allowed for action, allowed in zip(decisions["action"], decisions["allowed"], strict=True))
    # Every hand's outcome is the side's row of the hands table.
    outcome = hands.set_index(["game_id", "hand_no", "team"])["score"]
    keys = list(zip(decisions["game_id"], decisions["hand_no"], decisions["team"], strict=True))
    assert decisions["hand_score"].tolist() == [outcome[key] for key in keys]
    # Every hand of every game has rows: each of the expert's turns begins with an acquire decision.
    expert_hands = hands[hands["strategy"] == "expert"][["game_id", "hand_no"]].drop_duplicates()
    recorded = decisions[decisions["decision"] == "acquire"][["game_id", "hand_no"]].drop_duplicates()
    assert len(recorded) == len(expert_hands)
    manifest = (out / "run.json").read_text()
    assert '"record_decisions": [\n    "expert"\n  ]' in manifest and "--record-decisions expert" in manifest


def _replaying(actions: list[int]) -> type[PolicyStrategy]:
    """A policy strategy playing ``actions`` one by one, as a seat's recorded rows list them."""
    pending = iter(actions)

    def replay(observation, action_mask):
        return next(pending)

    return type("Replay", (PolicyStrategy,), {"policy": staticmethod(replay)})


# Games in which a seat makes a move the environment plays in another order than the strategy's listing: greedy
# (target 1000, seeds 23 and 38) lays several groups after its side's opening where only one order can be laid
# group by group (in seed 23 "meld 4 4 4; A" empties the hand, and the 4s first, with no canasta yet, would leave
# one card that may not be discarded: R12.1, R12.2); expert (seeds 2 and 12) takes the pile with extra melds the
# take alone did not need ("take A A; 8 8 8"), which the environment plays as the take, then a meld (R8.3); under
# canastas_to_go_out=2 greedy (seed 4), after its partner's "yes", goes out with "meld 9:2; A:2", two deuces that
# each complete a canasta, neither of which may go alone (R12.1, R12.5): one joint meld of the environment.
@pytest.mark.timeout(120)
@pytest.mark.parametrize(("strategies", "seed", "rules"), [
    ((Greedy, Greedy), 23, Rules(target_score=1000)),
    ((Greedy, Greedy), 38, Rules(target_score=1000)),
    ((Expert, Greedy), 2, Rules()),
    ((Expert, Greedy), 12, Rules()),
    ((Greedy, Greedy), 4, Rules(target_score=1000, canastas_to_go_out=2)),
], ids=["greedy-23", "greedy-38", "expert-2", "expert-12", "greedy-4-two-canastas"])
def test_recorded_actions_played_back_through_the_mask_play_the_same_game(strategies, seed, rules):
    recorder = DecisionRecorder()
    players = [recorder.wrap(strategies[seat % 2], game_id=0, seat=seat, spec="s") for seat in range(4)]
    played = play_game(players, seed=seed, rules=rules)
    rows = recorder.table().to_pydict()
    assert all(action in allowed for action, allowed in zip(rows["action"], rows["allowed"], strict=True))
    by_seat: list[list[int]] = [[], [], [], []]
    for seat, actions in zip(rows["seat"], rows["actions"], strict=True):
        by_seat[seat].extend(actions)
    # Each seat's actions, fed to the environment's masks in order, must all be allowed and play the same game.
    replayed = play_game([_replaying(by_seat[seat]) for seat in range(4)], seed=seed, rules=rules)
    assert replayed.scores == played.scores
    assert [hand.sides for hand in replayed.hands] == [hand.sides for hand in played.hands]


@pytest.mark.timeout(300)
def test_record_decisions_does_not_change_the_games(tmp_path):
    common = ["--games", "4", "--seed", "9", "-s", "greedy", "-s", "random", "--workers", "1", "-q", *QUICK]
    assert invoke("run", *common, "--out", str(tmp_path / "plain")).exit_code == 0
    assert invoke("run", *common, "--record-decisions", "all", "--out", str(tmp_path / "recorded")).exit_code == 0
    assert_same_run_tables(tmp_path / "plain", tmp_path / "recorded")
    assert not (tmp_path / "plain" / "decisions").exists()
    decisions = pd.read_parquet(tmp_path / "recorded" / "decisions")
    assert set(decisions["seat"]) == {0, 1, 2, 3}


def test_record_decisions_refuses_whom_the_run_does_not_have(tmp_path):
    result = invoke("run", "--games", "2", "-s", "greedy", "--record-decisions", "expert", "--out",
                    str(tmp_path / "run"))
    assert result.exit_code == 2
    assert "--record-decisions 'expert' is neither 'all', a seat 0-3 nor a strategy of the run" in result.output


def test_record_decisions_is_refused_on_the_dask_backend(tmp_path):
    result = invoke("run", "--games", "2", "-s", "greedy", "--record-decisions", "all", "--backend", "dask", "--out",
                    str(tmp_path / "run"))
    assert result.exit_code == 2
    assert "--record-decisions works with --backend local only" in result.output


@pytest.mark.timeout(300)
def test_the_imitation_example_runs_end_to_end(tmp_path):
    """The imitation loop of docs/env.md at a small scale: record, fit (one epoch), play the saved policy."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    recorded = tmp_path / "expert"
    assert invoke("run", "--games", "2", "--seed", "1", "-s", "expert", "--record-decisions", "all", "--workers", "1",
                  "--out", str(recorded), "-q", *QUICK).exit_code == 0
    weights = tmp_path / "imitation.npz"
    fitted = subprocess.run([sys.executable, str(root / "examples" / "imitation.py"), str(recorded), str(weights),
                             "--epochs", "1"], capture_output=True, text=True, timeout=240, check=False)
    assert fitted.returncode == 0, fitted.stderr
    assert "decisions imitated" in fitted.stdout and weights.is_file()
    spec = f"policy:{root / 'examples' / 'imitation.py'}:load:weights={weights}"
    played = invoke("run", "--games", "2", "--seed", "2", "-s", spec, "-s", "random", "--workers", "1", "--out",
                    str(tmp_path / "played"), "-q", *QUICK)
    assert played.exit_code == 0, played.output
    assert pd.read_parquet(tmp_path / "played" / "games")["error"].isna().all()


@pytest.mark.timeout(120)
def test_an_isolated_policy_plays_the_same_games_under_the_same_label(policies):
    # isolated:policy:... (and compare --isolate) stopped at the handshake: the protocol refused the name
    # "policy:FILE:NAME" for its colons, though in-process results record every policy under it.
    honest = load_strategy(f"policy:{policies}:sample")
    isolated = load_strategy(f"isolated:policy:{policies}:sample")
    assert isolated.label == honest.label == f"policy:{policies}:sample@1"
    for seed in range(2):
        expected = play_game([honest, Greedy, honest, Greedy], seed=seed, rules=Rules(target_score=1000))
        assert play_game([isolated, Greedy, isolated, Greedy], seed=seed, rules=Rules(target_score=1000)) == expected


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("name", "reason"), [("refused", "illegal"), ("text", "malformed"), ("broken", "exception")])
def test_an_isolated_policys_failure_is_charged_as_in_process(policies, name, reason):
    loaded = load_strategy(f"isolated:policy:{policies}:{name}")
    with pytest.raises(StrategyError, match="the bot reported an error") as caught:
        play_game([Greedy, loaded, Greedy, loaded], seed=1)
    assert caught.value.reason == reason


@pytest.mark.timeout(120)
def test_an_isolated_policy_factory_gets_the_specs_parameters_in_its_process(policies):
    spec = f"policy:{policies}:shifted:offset=2"
    honest, isolated = load_strategy(spec), load_strategy(f"isolated:{spec}")
    assert isolated.label == honest.label and isolated.parameters == ()
    expected = play_game([honest, Greedy, honest, Greedy], seed=3, rules=Rules(target_score=1000))
    assert play_game([isolated, Greedy, isolated, Greedy], seed=3, rules=Rules(target_score=1000)) == expected


@pytest.mark.timeout(60)
def test_an_environment_with_a_policy_seat_pickles_and_copies_mid_game(policies):
    """The spec loads its policy into a class of its own, which pickle could not find by name: a Gymnasium environment
    with a ``policy:`` partner (self-play against a snapshot) could be deep-copied but not pickled."""
    env = CanastaGymEnv(partner=f"policy:{policies}:sample", opponents=f"policy:{policies}:shifted:offset=1",
                        rules={"target_score": 1000})
    observation, _ = env.reset(seed=3)
    action = int(np.flatnonzero(observation["action_mask"])[0])
    pickled = pickle.dumps(env)
    copies = [pickle.loads(pickled), copy.deepcopy(env)]
    assert type(copies[0].driver.strategies[2]) is type(env.driver.strategies[2])  # the class it had, in this process
    played = [twin.step(action)[0]["observation"] for twin in [env, *copies]]
    assert all(np.array_equal(played[0], other) for other in played[1:])
    elsewhere = subprocess.run(
        [sys.executable, "-c", "import pickle, sys; env = pickle.loads(sys.stdin.buffer.read()); "
         f"print(env.step({action})[0]['observation'].tolist())"],
        input=pickled, capture_output=True, check=True)  # a process that never loaded the spec loads it
    assert elsewhere.stdout.decode().strip() == str(played[0].tolist())
