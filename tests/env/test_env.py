"""The research interface: the PettingZoo and Gymnasium environments, their encodings and driver."""

import random
import re
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from canasta_sim.core.cards import FOUR, JOKER, TWO, counts_text
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Draw, Meld, Stop, TakePile, parse_move
from canasta_sim.core.rules import MAX_TARGET_SCORE, Rules
from canasta_sim.core.state import HandState
from canasta_sim.core.view import SeatView
from canasta_sim.env import canasta_env
from canasta_sim.env.actions import (
    ACTION_COUNT,
    DONE_ACTION,
    GROUP_BASE,
    SLOT_OF_RANK,
    SLOT_RANKS,
    TAKE_BASE,
    action_text,
    group_action,
    group_of_action,
    move_actions,
    take_action,
    take_shape,
)
from canasta_sim.env.driver import DECISIONS, DriverError, GameDriver
from canasta_sim.env.encoding import OBSERVATION_FIELDS, OBSERVATION_SIZE, DecisionOptions, observation_vector
from canasta_sim.env.gym import ENV_ID, CanastaGymEnv
from canasta_sim.errors import RulesError, StrategyError
from canasta_sim.strategies import BUILTIN
from canasta_sim.terminal.narrate import SEAT_NAMES
from tests.helpers import play_masked_game

SHORT = {"target_score": 50}


@pytest.mark.timeout(120)
def test_pettingzoo_api_test_passes():
    api_test(canasta_env(rules=SHORT), num_cycles=1000)


@pytest.mark.timeout(120)
def test_pettingzoo_seed_test_passes():
    seed_test(lambda: canasta_env(rules=SHORT), num_cycles=500)


@pytest.mark.timeout(120)
def test_gymnasium_check_env_passes():
    check_env(CanastaGymEnv(partner="greedy", opponents="random", rules=SHORT), skip_render_check=True)


@pytest.mark.timeout(300)
def test_masked_random_play_is_legal_and_conserves_108_cards_over_300_games():
    """300 whole games to a target score of 50 (R15.1 via ``target_score``; most end after their
    first hand, some play more), every action drawn uniformly among those the mask allows: every
    decision has an allowed action, the engine accepts every move (it raises on an illegal one),
    and the 108 cards (R1.1) are all accounted for after every step."""
    env = canasta_env(rules=SHORT)
    rng = random.Random(17)
    hands = steps = 0

    def conserves_the_cards() -> None:
        assert env.driver.state.card_total() == 108

    for game in range(300):
        steps += play_masked_game(env, game, lambda allowed: allowed[rng.randrange(len(allowed))],
                                  after_step=conserves_the_cards)
        assert not env.agents and env.driver.is_over
        hands += len(env.driver.hands)
    assert hands >= 300 and steps > 30_000


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "options",
    [
        {"ask_partner": "mandatory"},
        {"ask_partner": "off"},
        {"ask_partner_yes_forces_out": False},
        {"stock_exhausted_rule": "official"},
        {"last_card_red_three": "meld_no_discard"},
        {"allow_wild_only_melds": True},
        {"max_wilds_per_meld": 5, "wild_ratio_rule": "min_two_naturals"},
        {"canastas_to_go_out": 2, "going_out_without_discard": "only_if_hand_holds_canasta"},
    ],
    ids=lambda options: ",".join(f"{key}={value}" for key, value in options.items()),
)
def test_masked_random_play_stays_legal_under_other_rule_options(options):
    """Rule-set options (docs/rules.md §17) pass through: 10 games each to a target of 50.  Those games never meet
    what stock_exhausted_rule=official and last_card_red_three govern (scripts/option_reach.py):
    tests/env/test_option_positions.py sets their positions up."""
    env = canasta_env(rules={**SHORT, **options})
    assert all(getattr(env.rules, key) == value for key, value in options.items())
    rng = random.Random(23)

    def conserves_the_cards() -> None:
        assert env.driver.state.card_total() == 108

    for game in range(10):
        play_masked_game(env, game, lambda allowed: allowed[rng.randrange(len(allowed))],
                         after_step=conserves_the_cards)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("names", [("random", "greedy"), ("expert", "greedy"), ("expert", "random")])
def test_driver_with_strategies_in_every_seat_plays_the_engines_game(names):
    players = [BUILTIN[names[0]], BUILTIN[names[1]]] * 2
    for seed in range(2):
        expected = play_game(players, seed=seed)
        driver = GameDriver(Rules(), players=players)
        driver.reset(seed)
        assert driver.is_over
        assert tuple(driver.hands) == expected.hands
        assert (driver.totals, driver.winner, driver.first_dealer) == (expected.scores, expected.winner,
                                                                      expected.first_dealer)


def _sequences(options: DecisionOptions):
    """Every complete action sequence the options allow, with the value it plays."""
    for action, value in options.immediate.items():
        yield (action,), value
    for actions, move in options.compound:
        yield (*actions, DONE_ACTION), move


@pytest.mark.timeout(120)
def test_actions_and_engine_moves_correspond_one_to_one():
    """Over the decisions of random games: each allowed sequence plays its move (stepping through
    the mask), :func:`move_actions` turns the move back into that sequence, and no two sequences
    play the same move."""
    driver = GameDriver(Rules(target_score=50))
    rng = random.Random(5)
    checked = 0
    for seed in range(12):
        driver.reset(seed)
        while not driver.is_over:
            view = driver.view(driver.actor)
            options = DecisionOptions.of(view, driver.decision)
            values = []
            for actions, value in _sequences(options):
                prefix = ()
                for position, action in enumerate(actions):
                    assert options.mask(prefix)[action] == 1
                    prefix, played, complete = options.play(prefix, action)
                    assert complete == (position == len(actions) - 1)
                assert played == value
                assert move_actions(driver.decision, value, side_has_melded=view.has_melded(view.side)) == actions
                values.append(value)
                checked += 1
            assert len(set(map(repr, values))) == len(values)
            actions, value = rng.choice(list(_sequences(options)))
            driver.decide(value)
    assert checked > 3000


def test_options_refuse_an_action_the_mask_does_not_allow():
    env = canasta_env(rules=SHORT)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    refused = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not allowed now"):
        env.step(refused)
    with pytest.raises(DriverError, match="acquire decision takes"):
        env.driver.decide(True)


@pytest.mark.timeout(60)
def test_gym_env_stops_the_game_when_its_partner_fails_and_plays_no_further_action(tmp_path):
    # After the partner's StrategyError the next step was still taken: against the decision the learning seat had
    # before, so it ended the episode as the learning seat's illegal action (-100), or was played for the partner.
    policy = tmp_path / "failing.py"
    policy.write_text("import numpy as np\n\n\ndef act(observation, action_mask):\n"
                      "    if observation[209] > 3:\n        raise RuntimeError('fails from the fourth turn')\n"
                      "    return int(np.flatnonzero(action_mask)[0])\n")
    env = CanastaGymEnv(partner=f"policy:{policy}:act", opponents="random", rules=SHORT)
    observation, _ = env.reset(seed=1)
    with pytest.raises(StrategyError, match="fails from the fourth turn"):
        for _ in range(200):
            observation, *_ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    spec = re.escape(f"'policy:{policy}:act'")
    stopped = rf"^the game stopped when the strategy {spec} at seat 2 failed; call reset\(\)$"
    hands, actor, decision = len(env.driver.hands), env.driver.actor, env.driver.decision
    for action in range(ACTION_COUNT):
        with pytest.raises(ValueError, match=stopped):
            env.step(action)
    with pytest.raises(ValueError, match=stopped):
        env.action_masks()
    assert (len(env.driver.hands), env.driver.actor, env.driver.decision) == (hands, actor, decision)
    observation, info = env.reset(seed=2)
    assert env.driver.failure is None and env.action_masks().any()


def test_gym_env_ends_the_episode_on_an_illegal_action_or_raises_if_asked():
    # The default penalty is a loss worse than games end with: in points, twice the target below zero (-1 point made
    # an illegal first action a nearly free resignation); under win/loss rewards, a loss.
    for reward_kind, penalty in (("hand", -100.0), ("game", -1.0)):
        env = CanastaGymEnv(partner="random", opponents="random", rules=SHORT, reward=reward_kind)
        observation, info = env.reset(seed=2)
        refused = int(np.flatnonzero(info["action_mask"] == 0)[0])
        _, reward, terminated, truncated, info = env.step(refused)
        assert (reward, terminated, truncated, info["illegal_action"]) == (penalty, True, False, refused)
    chosen = CanastaGymEnv(partner="random", opponents="random", rules=SHORT, illegal_reward=-7)
    chosen.reset(seed=2)
    assert chosen.step(refused)[1] == -7.0
    strict = CanastaGymEnv(partner="random", opponents="random", rules=SHORT, on_illegal="raise")
    strict.reset(seed=2)
    with pytest.raises(ValueError, match="not allowed now"):
        strict.step(refused)


@pytest.mark.timeout(120)
def test_gym_episode_rewards_sum_to_the_learning_sides_score_margin():
    env = CanastaGymEnv(partner="greedy", opponents="greedy", seat=1, rules={"target_score": 1000})
    rng = random.Random(3)
    observation, info = env.reset(seed=11)
    total = 0.0
    while True:
        allowed = np.flatnonzero(info["action_mask"])
        observation, reward, terminated, truncated, info = env.step(int(allowed[rng.randrange(len(allowed))]))
        total += reward
        if terminated or truncated:
            break
    scores = info["scores"]
    assert total == scores[1] - scores[0]


def test_observation_holds_nothing_the_seat_may_not_know():
    """Swapping cards between the other seats' hands and the stock (R3.1 deal order) changes none of
    seat 0's observation: it sees only its view (its hand, the table, sizes and counts)."""
    deck = list(range(108))
    dealer = 3  # seat 0 is dealt first: deck positions 0, 4, 8, ...; seat 1: 1, 5, ...; seat 3: 3, 7, ...
    other = deck.copy()
    other[1], other[3] = other[3], other[1]  # a card of seat 1 and one of seat 3 change hands
    other[50], other[107] = other[107], other[50]  # two stock cards change places
    views = []
    for order in (deck, other):
        state = HandState.from_deck(Rules(), order, dealer=dealer)
        views.append(SeatView(state, 0, (0, 0)))
    assert views[0].hand == views[1].hand and views[0].pile == views[1].pile
    for decision in (None, "acquire"):
        first = observation_vector(views[0], decision)
        assert np.array_equal(first, observation_vector(views[1], decision))
        assert first.shape == (OBSERVATION_SIZE,) and first.dtype == np.float32


def test_action_texts_cover_the_whole_space():
    texts = {action_text(action) for action in range(ACTION_COUNT)}
    assert {"draw", "stop", "done", "discard 4", "ask yes", "answer no"} <= texts
    with pytest.raises(ValueError):
        action_text(ACTION_COUNT)
    assert set(DECISIONS) == {"acquire", "ask", "answer", "meld", "discard"}


def test_env_options_are_checked():
    with pytest.raises(ValueError, match="reward"):
        canasta_env(reward="points")
    with pytest.raises(ValueError, match="render_mode='rgb_array' is not accepted; use None, 'ansi' or 'human'"):
        canasta_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="seat"):
        CanastaGymEnv(seat=4)


@pytest.mark.parametrize("make", [lambda: canasta_env(rules=SHORT), lambda: CanastaGymEnv(rules=SHORT)],
                         ids=["pettingzoo", "gymnasium"])
def test_seeds_and_actions_are_whole_numbers_numpy_s_included(make):
    # 7.0 dealt another game than 7, "0" was taken as action 0, and a numpy seed failed inside random.
    env = make()
    with pytest.raises(TypeError, match="seed=7.0 is not accepted; use a whole number"):
        env.reset(seed=7.0)
    gym = isinstance(env, CanastaGymEnv)
    first = env.reset(seed=np.int64(7)) if gym else (env.reset(seed=np.int64(7)), env.last())[1]
    again = env.reset(seed=7) if gym else (env.reset(seed=7), env.last())[1]
    np.testing.assert_array_equal(first[0]["observation"], again[0]["observation"])
    mask = again[1]["action_mask"] if gym else again[0]["action_mask"]
    allowed = int(np.flatnonzero(mask)[0])
    for wrong in (float(allowed), str(allowed), True):
        with pytest.raises(TypeError, match="is not an action number"):
            env.step(wrong)
    env.step(np.int64(allowed))


@pytest.mark.parametrize("make", [lambda: canasta_env(rules=SHORT), lambda: CanastaGymEnv(rules=SHORT)],
                         ids=["pettingzoo", "gymnasium"])
def test_an_integer_array_of_shape_nothing_is_an_action_as_gymnasiums_discrete_holds_it(make):
    """stable-baselines3's ``predict`` for one observation returns ``array(3)``, an element of ``Discrete(5647)``: the
    environments refused it as no action number."""
    after = []
    for action_of in (int, np.array):
        env = make()
        gym = isinstance(env, CanastaGymEnv)
        observation = env.reset(seed=5)[0] if gym else (env.reset(seed=5), env.last()[0])[1]
        space = env.action_space if gym else env.action_space(env.agent_selection)
        allowed = int(np.flatnonzero(observation["action_mask"])[0])
        assert space.contains(np.array(allowed))
        for wrong in (np.array([allowed]), np.array(float(allowed)), np.array(True)):  # none is in the space
            assert not space.contains(wrong)
            with pytest.raises(TypeError, match="is not an action number"):
                env.step(wrong)
        stepped = env.step(action_of(allowed))
        after.append(stepped[0] if gym else env.observe("seat_0"))
    np.testing.assert_array_equal(after[0]["observation"], after[1]["observation"])


def test_pettingzoo_renders_the_table_as_the_seat_to_decide_sees_it(capsys):
    env = canasta_env(rules=SHORT, render_mode="ansi")
    with pytest.raises(ValueError, match="no table to render before the first reset"):
        env.render()
    env.reset(seed=2)
    seat = env.possible_agents.index(env.agent_selection)
    view = env.driver.view(seat)
    text = env.render()
    assert f"\nYour hand ({sum(view.hand)}): {counts_text(view.hand)}\n" in text
    assert text.splitlines()[-1] == f"{SEAT_NAMES[seat]} (seat {seat}) to decide: acquire."
    printed = canasta_env(rules=SHORT, render_mode="human")
    printed.reset(seed=2)
    assert capsys.readouterr().out == text + "\n"
    assert printed.render() is None and capsys.readouterr().out == text + "\n"
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    assert f"side A {info['scores'][0]}, side B {info['scores'][1]}." in env.render()


def test_pettingzoo_stepping_after_the_game_is_over_says_so():
    env = canasta_env(rules=SHORT)
    play_masked_game(env, 3, lambda allowed: allowed[0])
    with pytest.raises(ValueError, match="the game is over; call reset"):
        env.step(0)


@pytest.mark.parametrize("make", [canasta_env, CanastaGymEnv], ids=["pettingzoo", "gymnasium"])
def test_stepping_before_the_first_reset_says_no_game_has_started(make):
    # It said "the game is over", of a game never dealt (PettingZoo's raised an AttributeError on agent_selection).
    with pytest.raises(ValueError, match=r"^no game has started; call reset\(\) first$"):
        make(rules=SHORT).step(0)


@pytest.mark.parametrize("make, ask", [
    (canasta_env, lambda env: env.last()),
    (canasta_env, lambda env: env.last(observe=False)),
    (canasta_env, lambda env: env.observe("seat_0")),
    (CanastaGymEnv, lambda env: env.action_masks()),
], ids=["pettingzoo last", "pettingzoo last unobserved", "pettingzoo observe", "gymnasium action_masks"])
def test_asking_for_an_observation_or_a_mask_before_the_first_reset_says_reset_comes_first(make, ask):
    # last() raised AttributeError (no agent_selection), observe() an IndexError (no views), and action_masks()
    # returned a mask allowing every action, of a game never dealt.
    with pytest.raises(ValueError, match=r"^no game has started; call reset\(\) first$"):
        ask(make(rules=SHORT))


def test_pettingzoo_observing_an_agent_it_does_not_have_names_the_agents():
    env = canasta_env(rules=SHORT)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"^agent 'seat_9' is not accepted; use one of seat_0, seat_1, seat_2, "
                                         r"seat_3$"):
        env.observe("seat_9")
    # The spaces of such an agent raised a bare KeyError: 'seat_9'.
    for space in (env.observation_space, env.action_space):
        with pytest.raises(ValueError, match=r"^agent 'seat_9' is not accepted; use one of seat_0, "):
            space("seat_9")


def test_an_environment_without_its_extra_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pettingzoo", None)  # as if it were not installed
    monkeypatch.delitem(sys.modules, "canasta_sim.env.aec", raising=False)
    with pytest.raises(ModuleNotFoundError, match=r"; install the rl extra: pip install 'pettingzoo>=1\.24' "
                                                  r"'gymnasium>=1\.0' \(in a checkout of canasta-sim: "):
        canasta_env()


def test_gymnasium_make_builds_the_environment_by_its_id_with_its_options():
    made = gymnasium.make(ENV_ID, partner="random", opponents="random", rules=SHORT)
    direct = CanastaGymEnv(partner="random", opponents="random", rules=SHORT)
    observation, info = made.reset(seed=2)
    np.testing.assert_array_equal(observation["observation"], direct.reset(seed=2)[0]["observation"])
    assert made.spec.id == ENV_ID and made.unwrapped.rules.target_score == 50


def test_the_observation_bounds_target_score_by_the_rules_own_limit():
    """R15.1's target is at most ``MAX_TARGET_SCORE`` (the rules refuse more): the space says the same, so a game at
    that target is inside it and the bound is no wider than any legal game needs."""
    start = sum(length for name, length, *_ in OBSERVATION_FIELDS[:-1])
    assert OBSERVATION_FIELDS[-1][0] == "target_score"
    env = CanastaGymEnv(partner="random", opponents="random", rules={"target_score": MAX_TARGET_SCORE})
    space = env.observation_space["observation"]
    assert (space.low[start], space.high[start]) == (1, MAX_TARGET_SCORE)
    observation, _ = env.reset(seed=5)
    assert observation["observation"][start] == MAX_TARGET_SCORE and env.observation_space.contains(observation)
    with pytest.raises(RulesError, match="target_score"):
        Rules(target_score=MAX_TARGET_SCORE + 1)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Draw, "the class Draw itself, not a Draw record"),
        ({"move": "draw"}, "a dict"),
        (np.arange(40), "a numpy.ndarray"),
        ("draw", "'draw'"),
        (parse_move("discard 4"), "the move discard 4"),
    ],
    ids=["class", "dict", "array", "text", "move"],
)
def test_a_wrong_decision_value_is_named_in_one_line_in_the_users_terms(value, shown):
    # Reprs of classes, dicts and arrays showed Python internals, an array's over several lines.
    driver = GameDriver(Rules(target_score=50))
    driver.reset(1)
    with pytest.raises(DriverError) as raised:
        driver.decide(value)
    assert str(raised.value) == f"the acquire decision takes a Draw, TakePile or Stop; got {shown}"


def test_a_malformed_or_illegal_move_is_a_driver_error_naming_the_seat_once():
    driver = GameDriver(Rules(target_score=50))
    driver.reset(1)
    # A take whose extra melds are no meld groups made the message's own repr fail (an AttributeError escaped).
    with pytest.raises(DriverError, match=r"^seat 0 \(A\), acquire: E1: a TakePile's groups are MeldGroup records in "
                                          r"a tuple; it holds 'x'$"):
        driver.decide(TakePile((5, 5), extra="x"))
    with pytest.raises(DriverError) as raised:
        driver.decide(Stop())  # R13.3: only on an empty stock
    assert str(raised.value).count("seat 0") == 1 and "\n" not in str(raised.value)


def test_a_meld_whose_groups_are_a_numpy_array_is_a_driver_error_e1():
    # The driver's catch-all named numpy's own error instead: "a malformed Meld (ValueError: The truth value ...)".
    driver = GameDriver(Rules(target_score=50))
    driver.reset(1)
    while driver.decision in ("acquire", "ask"):
        driver.decide(Draw() if driver.decision == "acquire" else False)
    assert driver.decision == "meld"
    with pytest.raises(DriverError, match=r"^seat \d \([AB]\), play: E1: a Meld's groups are MeldGroup records in a "
                                          r"tuple; it holds array\(\[13, 13, 13\]\)$"):
        driver.decide(Meld(np.array([13, 13, 13])))


def test_environment_options_are_named_in_one_line_in_the_users_terms():
    with pytest.raises(ValueError, match=r"^seat=a numpy.ndarray is not accepted; use 0, 1, 2 or 3$"):
        CanastaGymEnv(seat=np.arange(3))
    with pytest.raises(ValueError, match=r"^on_illegal=the class int itself is not accepted; use 'terminate'"):
        CanastaGymEnv(on_illegal=int)
    env = CanastaGymEnv(partner="random", opponents="random", rules=SHORT)
    env.reset(seed=1)
    with pytest.raises(TypeError, match=r"^a numpy.ndarray is not an action number; use a whole number 0-5646$"):
        env.step(np.arange(30))
    with pytest.raises(TypeError, match=r"^seed=a numpy.ndarray is not accepted; use a whole number 0 or more, or "):
        env.reset(seed=np.arange(3))


def test_gymnasium_partner_opponents_and_illegal_reward_are_named_in_one_line_in_the_users_terms():
    # A class, as play_game takes, failed inside the loader ("'type' object has no attribute 'strip'"); text for
    # illegal_reward failed inside float() without the option's name, and NaN was taken.
    from canasta_sim.strategies import Greedy

    for option in ("partner", "opponents"):
        with pytest.raises(ValueError, match=rf"^{option}=the class Greedy itself is not accepted; use a strategy spec "
                                             r"as text: a built-in such as 'greedy'"):
            CanastaGymEnv(**{option: Greedy})
    for wrong, text in (("a", "'a'"), (float("nan"), "nan"), (float("-inf"), "-inf"), (True, "True")):
        with pytest.raises(ValueError, match=rf"^illegal_reward={text} is not accepted; use a finite number, or None"):
            CanastaGymEnv(partner="random", opponents="random", illegal_reward=wrong)
    assert CanastaGymEnv(partner="random", opponents="random", illegal_reward=np.int64(-3)).illegal_reward == -3.0


@pytest.mark.parametrize("make", [canasta_env, CanastaGymEnv], ids=["pettingzoo", "gymnasium"])
def test_max_hands_is_a_whole_number_one_or_more(make):
    # 2.5 and True were taken (the observation space's hand_number bound became 2.5 or 1.0), "3" failed with
    # "'<' not supported between instances of 'str' and 'int'".
    for wrong in (2.5, True, "3", 0):
        with pytest.raises(ValueError, match=rf"^max_hands={wrong!r} is not accepted; use a whole number, 1 or more$"):
            make(rules=SHORT, max_hands=wrong)
    env = make(rules=SHORT, max_hands=np.int64(2))
    space = env.observation_space("seat_0") if make is canasta_env else env.observation_space
    assert space["observation"].high[208] == 2 and env.driver.max_hands == 2 and type(env.driver.max_hands) is int


def test_every_environment_refuses_a_negative_seed_in_one_line_as_gymnasiums_seeding_does():
    # reset(seed=-5) seeded Gymnasium's np_random as reset(seed=5) did (through abs()), though the games differed;
    # Gymnasium's own seeding refuses a negative seed.
    refused = r"^seed=-5 is not accepted; use a whole number 0 or more, as Gymnasium's seeding takes, or None"
    gym = CanastaGymEnv(partner="random", opponents="random", rules=SHORT)
    petting = canasta_env(rules=SHORT)
    for reset in (gym.reset, petting.reset):
        with pytest.raises(ValueError, match=refused):
            reset(seed=-5)
        with pytest.raises(ValueError, match=refused):
            reset(seed=np.int64(-5))
    vector = gymnasium.vector.SyncVectorEnv([lambda: CanastaGymEnv(partner="random", opponents="random",
                                                                   rules=SHORT)] * 2)
    with pytest.raises(ValueError, match=refused):
        vector.reset(seed=-5)
    # 0 and above are taken, and a seed gives Gymnasium's np_random the seed a plain Gymnasium environment's gets.
    gym.reset(seed=5)
    assert gym.np_random_seed == 5 and gym.np_random.integers(1 << 30) == gymnasium.utils.seeding.np_random(5)[
        0].integers(1 << 30)
    gym.reset(seed=0)
    assert gym.np_random_seed == 0


def test_the_gymnasium_environment_refuses_reset_options_it_would_ignore():
    """``reset(options={"seat": 1})`` or ``{"rules": ...}`` dealt the environment's own game as if nothing was asked.
    Gymnasium's checker sends ``{}``, which asks nothing; PettingZoo's ``api_test`` sends ``{"options": 1}`` to see
    that the parameter exists, so the PettingZoo environment takes any (and uses only ``position``, as docs/env.md
    says)."""
    env = CanastaGymEnv(partner="random", opponents="random", rules=SHORT)
    with pytest.raises(ValueError, match=r"^options=\{'seat': \.\.\.\} is not accepted; use None, or \{'position'"):
        env.reset(seed=1, options={"seat": 1})
    vector = gymnasium.vector.SyncVectorEnv([lambda: CanastaGymEnv(partner="random", opponents="random",
                                                                   rules=SHORT)])
    with pytest.raises(ValueError, match=r"^options=\{'rules': \.\.\.\} is not accepted"):
        vector.reset(seed=1, options={"rules": {"target_score": 50}})
    for options in ({}, None):
        env.reset(seed=1, options=options)


def test_a_strategy_failing_to_build_is_named_without_a_memory_address():
    def broken(rng):
        raise ZeroDivisionError("division by zero")

    with pytest.raises(StrategyError) as raised:
        GameDriver(players=[broken] * 4).reset(1)
    assert "strategy 'broken' at seat 0" in str(raised.value) and " at 0x" not in str(raised.value)


def test_a_strategy_exception_that_cannot_print_itself_is_its_seats_failure_in_the_environments_too():
    # The driver formatted the exception with its own __str__, whose RuntimeError escaped the environment.
    from tests.bots.leaves_behind import RaisesUnprintable

    with pytest.raises(StrategyError) as raised:
        GameDriver(players=[RaisesUnprintable] * 4).reset(1)
    assert "raised _Unprintable: (its message could not be written: its __str__ raised RuntimeError)" in str(
        raised.value)


def test_take_shape_and_group_of_action_read_every_take_and_group_action_back():
    for action in range(TAKE_BASE, GROUP_BASE):
        naturals, jokers, deuces = take_shape(action)
        assert take_action([FOUR] * naturals + [JOKER] * jokers + [TWO] * deuces) == action
    wild_slot = GROUP_BASE + SLOT_OF_RANK[SLOT_RANKS[-1]] * (DONE_ACTION - GROUP_BASE) // len(SLOT_RANKS)
    for action in range(GROUP_BASE, wild_slot):  # a meld of wild cards only has no naturals: not every number is one
        group = group_of_action(action)
        assert group_action(group) == action and SLOT_RANKS[SLOT_OF_RANK[group.rank]] == group.rank
    with pytest.raises(ValueError, match=f"^action {DONE_ACTION} lays no meld group; group actions are "):
        group_of_action(DONE_ACTION)
    with pytest.raises(ValueError, match=f"^action {GROUP_BASE} is no take of the pile; take actions are "):
        take_shape(GROUP_BASE)
