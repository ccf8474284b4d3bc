"""Starting the environments at a position of one's own (docs/env.md): ``build_position`` refuses what no game
reaches in one line, and from a position the PettingZoo and Gymnasium environments keep every promise of a dealt start
(masks, observations inside their spaces, the same episode for the same position and seed, the game's end)."""

import gymnasium
import numpy as np
import pytest

from canasta_sim.env import canasta_env
from canasta_sim.env.driver import ANSWER_DECISION, DECISIONS
from canasta_sim.env.gym import CanastaGymEnv
from canasta_sim.env.positions import Position, PositionError, build_position

SHORT = {"target_score": 500}
# Seat 0 to begin its turn, its side holding a canasta of kings and a queen to lay off, every hand short: a hand
# near its end (the cards placed nowhere else are the stock's).
ENDGAME = {"hands": {0: "Q 5 6 7", 1: "9 9 4 4", 2: "K 8 10", 3: "J J 4"}, "melds": {0: "K K K K K K K; Q Q Q",
           1: "A A A; 7 7 7 2"}, "pile": "6 5", "scores": (120, 335)}


@pytest.mark.parametrize(("arguments", "message"), [
    ({"hands": {0: "JK JK JK JK JK"}}, r"^hands\[0\] places more jokers than the deck's 4, counting those placed "
                                       r"before it \(R1\.1\); place at most 4 in all$"),
    ({"hands": {0: "K X"}}, r"^hands\[0\]='K X' is not accepted: 'X' is not a card; use a rank 4-10"),
    ({"hands": {0: "3r 5 6"}}, r"^seat 0 holds a red 3; red 3s are laid at once, never held \(R4\.1\)"),
    ({"melds": {1: "K K"}}, r"^side 1's meld of K is not accepted: a meld needs at least three cards.*\(R9\.1\)$"),
    ({"melds": {0: "K JK 2"}}, r"^side 0's meld of K is not accepted: a meld may not hold more wild cards.*\(R9\.2\)$"),
    ({"melds": {0: "3b 3b 3b"}}, r"^side 0's meld of 3b is not accepted: black 3s are melded only to go out.*R5\.3"),
    ({"melds": {0: "K K K"}, "side_has_melded": (False, False)}, r"^side 0 has melds on the table but .*R10\.1"),
    ({"scores": (5000, 10)}, r"^side A's total 5000 is at the target 5000, where the game is over \(R15\.1\)"),
    ({"decision": "draw"}, r"^decision='draw' is not accepted; use one of acquire, ask, answer, meld, discard$"),
    ({"decision": ANSWER_DECISION, "hands": {0: "5 6 7"}}, r"^seat 0 may not ask its partner here.*\(R12\.5\)$"),
    ({"scores": (-50, 0)}, r"^the totals \(-50, 0\) are outside the observation space before hand 1: use totals from "
                          r"0 to 4999 there \(a later hand_number allows lower ones"),
    ({"side_has_melded": True}, r"^side_has_melded=True is not accepted; use two truth values, side A's first"),
    ({"seat": 4}, r"^seat=4 is not accepted; use a whole number from 0 to 3$"),
    ({"hands": {0: "K", 1: "Q", 2: "J", 3: "10"}, "stock_size": 3},
     r"^stock_size=3 leaves \d+ cards placed nowhere; leave a seat out of hands"),
], ids=["five jokers R1.1", "no such card", "red 3 held R4.1", "two-card meld R9.1", "wild-heavy meld R9.2",
        "black 3 meld R5.3", "melds of an unmelded side R10.1", "totals at the target R15.1", "no such decision",
        "ask that cannot go out R12.5", "totals outside the space", "side_has_melded not two flags", "no such seat",
        "cards placed nowhere"])
def test_a_position_no_game_reaches_is_refused_in_one_line_naming_what_is_accepted(arguments, message):
    with pytest.raises(PositionError, match=message) as raised:
        build_position(**arguments)
    assert "\n" not in str(raised.value) and isinstance(raised.value, ValueError)


def test_a_position_of_a_hand_state_is_checked_as_a_built_one_r1_1():
    """A researcher's own ``HandState`` (one taken from a game, changed by hand) is checked too: a card removed from
    the stock leaves 107 (R1.1), and a decision its phase does not ask is refused."""
    state = build_position().state.copy()
    state.stock.pop()
    with pytest.raises(PositionError, match=r"^the position holds 7 .*; the deck is 108 cards.*\(R1\.1\)$"):
        Position(state, "acquire")
    with pytest.raises(PositionError, match=r"^the decision 'discard' is not asked in the hand's phase 'acquire'"):
        Position(build_position().state, "discard")


@pytest.mark.parametrize("make", ["pettingzoo", "gymnasium"])
def test_reset_refuses_a_position_it_cannot_start_at_in_one_line(make):
    """Not a Position, one of other rules than the environment's (named, with both values), or a hand after
    ``max_hands``: a ``ValueError`` from ``reset``, which deals nothing."""
    env = canasta_env(rules=SHORT, max_hands=2) if make == "pettingzoo" else CanastaGymEnv(rules=SHORT, max_hands=2)
    cases = [
        ("K K K", r"^options=\{'position': 'K K K'\} is not accepted; use a Position \(canasta_sim\.env\.positions"),
        (build_position(), r"^the position's rules differ from the environment's: target_score=5000 \(the "
                           r"environment's 500\); build it with the environment's rules"),
        (build_position(SHORT, hand_number=3), r"^the position's hand 3 is after the environment's max_hands=2"),
    ]
    for position, message in cases:
        with pytest.raises(PositionError, match=message):
            env.reset(seed=1, options={"position": position})


def _pettingzoo_episode(start: Position, seed: int, **options) -> list:
    """Masked random play of a whole game from ``start``: every observation, action and reward, the end's info; each
    observation checked inside its space and its mask non-empty at a decision."""
    env = canasta_env(rules=start.rules, **options)
    env.reset(seed=seed, options={"position": start})
    rng, trace = np.random.default_rng(seed), []
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        assert env.observation_space(agent).contains(observation)
        if terminated or truncated:
            trace.append((agent, reward, info["scores"], info["termination"]))
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        trace.append((agent, observation["observation"].tobytes(), action, reward))
        env.step(action)
    return trace


def _gym_episode(start: Position, seed: int, **options) -> tuple[list, float, dict, list]:
    """As :func:`_pettingzoo_episode` for the learning seat of ``start``: its trace, its return, the end's info and
    every hand ended."""
    env = CanastaGymEnv(partner="greedy", opponents="random", seat=start.seat, rules=start.rules, on_illegal="raise",
                        **options)
    observation, info = env.reset(seed=seed, options={"position": start})
    rng, trace, total, ended, hands = np.random.default_rng(seed), [], 0.0, False, list(info["hand_results"])
    while not ended:
        assert env.observation_space.contains(observation) and observation["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, info = env.step(action)
        trace.append((action, reward, observation["observation"].tobytes()))
        total, ended = total + reward, terminated or truncated
        hands += info["hand_results"]
    return trace, total, info, hands


@pytest.mark.timeout(60)
def test_the_same_position_and_seed_give_the_same_episode_and_another_seed_deals_other_hands_after_it():
    """The position is copied at each reset (one ``Position`` starts any number of episodes), the strategy seats and
    the next hands' deals come from the seed: the same seed replays the episode step for step, in both environments."""
    start = build_position(None, **ENDGAME)  # the default target: the game goes on past the position's hand
    first = _pettingzoo_episode(start, 3, max_hands=2)
    assert max(int(np.frombuffer(row[1], np.float32)[208]) for row in first if isinstance(row[1], bytes)) == 2
    assert first == _pettingzoo_episode(start, 3, max_hands=2)
    assert first != _pettingzoo_episode(start, 4, max_hands=2)
    gym_first = _gym_episode(start, 3, max_hands=2)
    assert gym_first[0] == _gym_episode(start, 3, max_hands=2)[0]


@pytest.mark.timeout(60)
def test_an_episode_from_a_position_ends_as_a_dealt_one_its_rewards_adding_up_to_the_margins_change():
    """R15.1: from totals 120 to 335 the game goes on to the target (or the hand cap, truncated) and ends with its
    result in ``info``; the ``hand`` rewards add up to the change in the learning side's margin since the position."""
    start = build_position(SHORT, **ENDGAME)
    for seed in (1, 2):
        _, total, info, _ = _gym_episode(start, seed)
        assert info["termination"] == "target" and max(info["scores"]) >= 500
        assert total == (info["scores"][0] - info["scores"][1]) - (120 - 335)
    *_, (agent, reward, scores, termination) = _pettingzoo_episode(start, 1, max_hands=2)
    assert termination in ("target", "hand_cap")


@pytest.mark.timeout(30)
def test_a_position_of_a_later_hand_counts_the_hands_before_it_toward_max_hands():
    """A position of hand 2 under ``max_hands=2`` is the game's last hand: the game ends with it (``hand_cap``), and
    the observation's ``hand_number`` stays within its space (1 to ``max_hands``)."""
    start = build_position(None, **ENDGAME, hand_number=2)  # the default target, 5,000: no hand reaches it from here
    *_, info, hands = _gym_episode(start, 5, max_hands=2)
    assert (info["termination"], len(hands)) == ("hand_cap", 1)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("decision", DECISIONS)
def test_every_decision_can_be_started_at_and_its_mask_allows_what_the_engine_does(decision):
    """Each of the five decisions (``answer``: the seat has asked "may I go out?", R12.5, its partner decides): the
    agent to act is the one the decision is due from, and its mask allows at least one action the engine accepts."""
    hands = {0: "Q Q 5 5 5" if decision in ("ask", ANSWER_DECISION) else "Q 5 6 7"}
    start = build_position(SHORT, **{**ENDGAME, "hands": {**ENDGAME["hands"], **hands}}, decision=decision)
    env = canasta_env(rules=SHORT)
    env.reset(seed=0, options={"position": start})
    assert env.agent_selection == f"seat_{2 if decision == ANSWER_DECISION else 0}"
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))


@pytest.mark.timeout(30)
def test_the_game_tree_of_a_later_hand_counts_the_hands_before_it_toward_max_hands():
    """OpenSpiel's tree at a position of hand 2 under ``max_hands=2``, in the ``game`` scope, ends with that hand as the
    hand cap says, where it dealt a hand 3 (counted from the position, as the environments did)."""
    tree = build_position(None, **ENDGAME, hand_number=2).game_tree(scope="game", max_hands=2)
    while not tree.is_over:
        assert not tree.is_chance  # no deal of a next hand
        tree.apply(tree.legal_actions()[0])
    assert (tree.termination, len(tree.hands)) == ("hand_cap", 1)


@pytest.mark.timeout(30)
def test_a_vector_environment_starts_every_sub_environment_at_the_position():
    """``reset``'s options reach every sub-environment: each starts at the position (its own copy) with its seed."""
    start = build_position(SHORT, **ENDGAME)
    envs = gymnasium.vector.SyncVectorEnv([lambda: CanastaGymEnv(rules=SHORT)] * 2)
    observation, _ = envs.reset(seed=1, options={"position": start})
    assert observation["observation"][:, :15].tolist() == [[0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0]] * 2
    envs.close()
