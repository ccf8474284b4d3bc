"""The Gymnasium environment as Gymnasium's own tools use it: vector environments, autoreset, render modes."""

import functools
import warnings

import gymnasium
import numpy as np
import psutil
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

from canasta_sim.core.cards import counts_text
from canasta_sim.env.actions import DONE_ACTION, GROUP_BASE, action_text
from canasta_sim.env.gym import ENV_ID, CanastaGymEnv
from canasta_sim.errors import StrategyError

SHORT = {"target_score": 50}


def _short_game() -> CanastaGymEnv:
    return CanastaGymEnv(partner="random", opponents="random", rules=SHORT)


def _play_to_the_end(env: CanastaGymEnv, seed: int):
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    while True:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return observation, info


@pytest.mark.timeout(60)
def test_the_mask_at_an_episodes_end_allows_every_action_and_none_is_played():
    env = _short_game()
    observation, info = _play_to_the_end(env, seed=4)
    assert observation["action_mask"].all() and info["action_mask"].all()
    assert observation["action_mask"].dtype == np.int8
    assert env.action_masks().all() and env.action_masks().dtype == bool
    assert info["decision"] is None and info["termination"] == "target"
    with pytest.raises(ValueError, match="the game is over; call reset"):
        env.step(0)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP], ids=lambda mode: mode.value)
def test_a_vector_environment_always_gives_a_mask_a_masked_policy_can_draw_from(mode):
    """Gymnasium's vector environments ask every sub-environment for an action at every step, the step after an
    episode's end included (``next_step`` autoreset ignores it and resets); a mask allowing nothing there left a
    masked sampler nothing to draw from, and ``action_masks()`` raised."""
    envs = SyncVectorEnv([_short_game, _short_game], autoreset_mode=mode)
    observation, info = envs.reset(seed=1)
    rng = np.random.default_rng(0)
    ended = 0
    while ended < 4:
        masks = observation["action_mask"]
        assert masks.any(axis=1).all()
        np.testing.assert_array_equal(info["action_mask"], masks)
        np.testing.assert_array_equal(np.stack(envs.call("action_masks")), masks.astype(bool))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observation, _, terminated, truncated, info = envs.step(actions)
        for index in np.flatnonzero(terminated | truncated):
            ended += 1
            if mode == AutoresetMode.SAME_STEP:  # the observation is the next game's; the last one is kept aside
                assert info["final_obs"][index]["action_mask"].all()
                assert not observation["action_mask"][index].all()
            else:
                assert observation["action_mask"][index].all()
    envs.close()


def _first_allowed(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


@pytest.mark.timeout(60)
def test_a_vector_environment_batches_a_won_game_beside_an_illegal_end_in_the_same_step():
    """Gymnasium batches an info field into an array typed by the first sub-environment's value: a game won (an int
    ``winner``) beside an episode an unmasked learner's illegal action ended at the same step made the vector
    environment's ``step`` raise ``TypeError`` when that episode's ``winner`` was ``None``."""
    single = _short_game()
    observation, _ = single.reset(seed=1)
    steps, ended = 0, False
    while not ended:
        observation, _, ended, _, _ = single.step(_first_allowed(observation["action_mask"]))
        steps += 1
    envs = SyncVectorEnv([_short_game, _short_game])
    observation, _ = envs.reset(seed=1)  # sub-environment 0 plays the single one's game
    for _ in range(steps - 1):
        observation, *_ = envs.step(np.array([_first_allowed(mask) for mask in observation["action_mask"]]))
    refused = int(np.flatnonzero(observation["action_mask"][1] == 0)[0])
    _, _, terminated, _, info = envs.step(np.array([_first_allowed(observation["action_mask"][0]), refused]))
    envs.close()
    assert terminated.all() and info["illegal_action"][1] == refused
    assert info["winner"][0] in (0, 1) and info["winner"][1] == -1  # no winner: the episode ended mid-game


def _ansi_game(**options) -> CanastaGymEnv:
    return CanastaGymEnv(partner="random", opponents="random", rules=SHORT, render_mode="ansi", **options)


def test_ansi_render_is_the_table_as_the_learning_seat_sees_it():
    env = _ansi_game(seat=1)
    _, info = env.reset(seed=3)
    text = env.render()
    view = env.driver.view(1)
    assert isinstance(text, str) and f"\nYour hand ({sum(view.hand)}): {counts_text(view.hand)}\n" in text
    assert "Hand 1, turn" in text and "target 50." in text and "Side B (West & East, yours)" in text
    assert text.splitlines()[-1] == f"West (seat 1) to decide: {info['decision']}."
    observation, info = _play_to_the_end(env, seed=3)
    scores = info["scores"]
    assert f"side A {scores[0]}, side B {scores[1]}." in env.render()


def test_ansi_render_names_the_choices_of_a_move_being_built():
    """An opening meld is several actions (docs/env.md): the screen says which are chosen so far."""
    env = _ansi_game()
    rng = np.random.default_rng(0)
    observation, info = env.reset(seed=0)
    for _ in range(2000):
        allowed = np.flatnonzero(observation["action_mask"])
        groups = [action for action in allowed if GROUP_BASE <= action < DONE_ACTION]
        if groups and not env.driver.view(0).has_melded(0) and info["decision"] == "meld":
            observation, _, _, _, info = env.step(int(groups[0]))
            assert env.render().splitlines()[-1] == f"South (seat 0) to decide: meld; chosen so far: " \
                                                    f"{action_text(int(groups[0]))}."
            return
        observation, _, terminated, truncated, info = env.step(int(rng.choice(allowed)))
        if terminated or truncated:
            observation, info = env.reset()
    pytest.fail("no opening meld was begun")


def test_human_render_prints_the_ansi_screen_at_every_reset_and_step(capsys):
    shown, printed = _ansi_game(), CanastaGymEnv(partner="random", opponents="random", rules=SHORT,
                                                 render_mode="human")
    observation, _ = shown.reset(seed=6)
    printed.reset(seed=6)
    assert capsys.readouterr().out == shown.render() + "\n"
    action = int(np.flatnonzero(observation["action_mask"])[0])
    shown.step(action)
    printed.step(action)
    assert capsys.readouterr().out == shown.render() + "\n"
    assert printed.render() is None and capsys.readouterr().out == shown.render() + "\n"


def test_render_modes_are_declared_checked_and_pass_gymnasiums_checker():
    assert CanastaGymEnv.metadata["render_modes"] == ["ansi", "human"]
    assert CanastaGymEnv(rules=SHORT).render() is None
    with pytest.raises(ValueError, match="no table to render before the first reset"):
        _ansi_game().render()
    with pytest.raises(ValueError, match="render_mode='rgb_array' is not accepted; use None, 'ansi' or 'human'"):
        CanastaGymEnv(render_mode="rgb_array")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(ENV_ID, partner="random", opponents="random", rules=SHORT).unwrapped)
    assert not [str(warning.message) for warning in caught if "render" in str(warning.message).lower()]


def test_ansi_render_says_when_an_illegal_action_ended_the_episode():
    env = _ansi_game()
    _, info = env.reset(seed=2)
    refused = int(np.flatnonzero(info["action_mask"] == 0)[0])
    env.step(refused)
    assert env.render().splitlines()[-1] == f"The episode ended on action {refused}, which the mask did not allow."
    env.reset(seed=2)
    assert env.render().splitlines()[-1] == "South (seat 0) to decide: acquire."


def test_the_registered_environments_spec_serializes_to_json_and_builds_it_again():
    """Gymnasium writes an environment's spec as JSON (``EnvSpec.to_json``; datasets such as Minari's record it): an
    entry point given as the class itself could not be written."""
    made = gymnasium.make(ENV_ID, partner="random", opponents="random", rules=SHORT)
    spec = gymnasium.envs.registration.EnvSpec.from_json(made.spec.to_json())
    assert spec.id == ENV_ID and spec.kwargs == {"partner": "random", "opponents": "random", "rules": SHORT}
    again = gymnasium.make(spec)
    assert isinstance(again.unwrapped, CanastaGymEnv) and again.unwrapped.rules.target_score == 50
    np.testing.assert_array_equal(again.reset(seed=2)[0]["observation"], made.reset(seed=2)[0]["observation"])


def _running_children() -> dict[int, psutil.Process]:
    running = {}
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE:
                running[child.pid] = child
        except psutil.NoSuchProcess:  # one that ended meanwhile
            pass
    return running


@pytest.mark.timeout(60)
def test_closing_the_environment_ends_its_isolated_seats_processes():
    """Gymnasium's ``close`` releases what an environment holds: an ``isolated:`` partner's process ran on until the
    environment was garbage-collected."""
    before = _running_children()
    env = CanastaGymEnv(partner="isolated:greedy", opponents="random", rules=SHORT)
    observation, _ = env.reset(seed=1)
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    started = [process for pid, process in _running_children().items() if pid not in before]
    assert started
    env.close()
    _, alive = psutil.wait_procs(started, timeout=20)
    assert not alive
    env.close()
    with pytest.raises(ValueError, match="call reset"):
        env.step(0)
    observation, _ = env.reset(seed=1)  # a new game, with a new process for the partner
    assert observation["action_mask"].any()
    env.close()


@pytest.mark.timeout(60)
def test_closing_an_environment_never_reset_ends_the_process_its_isolated_seat_started():
    """Loading an ``isolated:`` spec starts its bot for the handshake and keeps the process for a first game: an
    environment closed before any ``reset`` (as Gymnasium's ``AsyncVectorEnv`` closes the one it builds in the main
    process to read the spaces) left it running until Python's exit, one more with every vector environment built."""
    before = _running_children()
    env = CanastaGymEnv(partner="isolated:greedy", opponents="random", rules=SHORT)
    started = [process for pid, process in _running_children().items() if pid not in before]
    assert started
    env.close()
    _, alive = psutil.wait_procs(started, timeout=20)
    assert not alive
    observation, _ = env.reset(seed=1)  # the partner's bot starts again
    assert observation["action_mask"].any()
    env.close()


@pytest.mark.timeout(60)
def test_an_async_vector_environment_raises_a_partners_failure_as_the_strategy_error_it_is(tmp_path):
    """Gymnasium's ``AsyncVectorEnv`` raises a worker's error again as ``type(error)(error)``: a failing partner came
    out as ``TypeError: StrategyError.__init__() missing 4 required keyword-only arguments``."""
    policy = tmp_path / "failing.py"
    policy.write_text("def act(observation, action_mask):\n    raise RuntimeError('the partner broke')\n")
    make = functools.partial(CanastaGymEnv, partner=f"policy:{policy}:act", opponents="random", rules=SHORT)
    envs = AsyncVectorEnv([make])
    try:
        observation, _ = envs.reset(seed=1)
        with pytest.raises(StrategyError, match="the partner broke") as raised:
            for _ in range(50):
                observation, *_ = envs.step(np.array([_first_allowed(observation["action_mask"][0])]))
    finally:
        envs.close()
    assert (raised.value.seat, raised.value.spec, raised.value.reason) == (2, f"policy:{policy}:act", "exception")


def test_ansi_render_says_when_a_strategy_seats_failure_stopped_the_game(tmp_path):
    """The screen went on naming the failed partner's decision as due, though no step could make it."""
    policy = tmp_path / "failing.py"
    policy.write_text("def act(observation, action_mask):\n    raise RuntimeError('the partner broke')\n")
    env = CanastaGymEnv(partner=f"policy:{policy}:act", opponents="random", rules=SHORT, render_mode="ansi")
    observation, _ = env.reset(seed=1)
    with pytest.raises(StrategyError, match="the partner broke"):
        for _ in range(50):
            observation, *_ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert env.render().splitlines()[-1] == f"The game stopped when the strategy 'policy:{policy}:act' at seat 2 " \
                                           "failed; call reset()."


@pytest.mark.timeout(60)
def test_each_step_builds_its_action_mask_once_for_the_observation_and_the_info(monkeypatch):
    from canasta_sim.env.encoding import DecisionOptions

    # The observation's mask and the info's were built apart, each finding the allowed actions again, and the check
    # of the action taken found them a third time.
    built = {"mask": 0, "allowed": 0}
    for name, method in (("mask", DecisionOptions.mask), ("allowed", DecisionOptions._find_allowed)):
        def counted(self, *arguments, name=name, method=method):
            built[name] += 1
            return method(self, *arguments)
        monkeypatch.setattr(DecisionOptions, name if name == "mask" else "_find_allowed", counted)
    env, rng, decisions = _short_game(), np.random.default_rng(3), 0
    observation, info = env.reset(seed=3)
    while info["decision"] is not None:
        decisions += 1
        assert (observation["action_mask"] == info["action_mask"]).all()
        assert observation["action_mask"] is not info["action_mask"]  # a learner masking one leaves the other
        observation, _, _, _, info = env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert decisions > 20 and built == {"mask": decisions, "allowed": decisions}
