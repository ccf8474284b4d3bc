"""``play_game``'s own arguments are checked before any strategy is built: a caller's slip raises a ``TypeError`` or
``ValueError`` naming the argument and what it takes, never a seat's ``StrategyError`` nor an error from deep inside
the game, and no seed value plays a game other than the one its whole number names."""

from __future__ import annotations

import numpy as np
import pytest

from canasta_sim import Rules, play_game
from canasta_sim.env.driver import GameDriver
from canasta_sim.strategies import Greedy

SHORT = Rules(target_score=200)
PLAYERS = [Greedy] * 4


@pytest.mark.parametrize("seed", ["7", 7.0, 7.5, None, True, np.float64(7)])
def test_a_seed_that_is_no_whole_number_is_refused(seed):
    # "7" played the game of 7, 7.0 another one, None a game of its own: the seed is hashed as text.
    with pytest.raises(TypeError, match="seed"):
        play_game(PLAYERS, seed=seed, rules=SHORT)


def test_a_numpy_integer_seed_plays_the_game_of_the_int_it_equals():
    result = play_game(PLAYERS, seed=np.uint64(7), rules=SHORT)
    assert result == play_game(PLAYERS, seed=7, rules=SHORT)
    assert type(result.seed) is int


@pytest.mark.parametrize("time_limit", [0, -1, float("inf"), float("nan"), 10**12, "1", True])
def test_a_time_limit_the_clock_cannot_keep_is_the_callers_error_not_a_seats(time_limit):
    # It was seat 0's failure: "decision hand start: raised itimer_error", "past the time limit of 0 s".
    with pytest.raises((TypeError, ValueError), match="time_limit"):
        play_game(PLAYERS, seed=1, rules=SHORT, time_limit=time_limit)


def test_rules_given_as_a_mapping_are_refused_naming_the_builders():
    # It raised AttributeError: 'dict' object has no attribute 'initial_requirement', from inside the deal.
    with pytest.raises(TypeError, match=r"Rules\.from_mapping"):
        play_game(PLAYERS, seed=1, rules={"target_score": 200})


@pytest.mark.parametrize("max_hands", [0, -3, "3", 2.0, True])
def test_max_hands_is_a_whole_number_of_one_or_more(max_hands):
    with pytest.raises((TypeError, ValueError), match="max_hands"):
        play_game(PLAYERS, seed=1, rules=SHORT, max_hands=max_hands)


@pytest.mark.parametrize("names", [["a"], "abcd", ["a", "b", "c", 4]])
def test_names_are_four_texts(names):
    # A short list raised IndexError from inside the game.
    with pytest.raises((TypeError, ValueError), match="names"):
        play_game(PLAYERS, seed=1, rules=SHORT, names=names)


def test_players_may_be_any_iterable_of_four_factories():
    assert play_game(iter(PLAYERS), seed=1, rules=SHORT) == play_game(PLAYERS, seed=1, rules=SHORT)


@pytest.mark.parametrize("player, words", [("greedy", "text"), (Greedy(None), "instance")])
def test_a_player_that_is_no_factory_is_the_callers_error(player, words):
    # A spec's text or a built strategy was charged to the seat: "strategy 'str' at seat 0 ... could not be built".
    with pytest.raises(TypeError, match=words):
        play_game([player, Greedy, Greedy, Greedy], seed=1, rules=SHORT)


@pytest.mark.parametrize("seed", ["7", 7.0, None])
def test_the_step_by_step_driver_refuses_the_seeds_play_game_refuses(seed):
    # GameDriver.reset(7.0) dealt another game than play_game's 7, and reset("7") the same one.
    driver = GameDriver(SHORT)
    with pytest.raises(TypeError, match="seed"):
        driver.reset(seed)
    driver.reset(np.int64(7))
    assert driver.seed == 7 and type(driver.seed) is int


def test_the_step_by_step_driver_refuses_rules_given_as_a_mapping():
    # It raised AttributeError from the deal, at the first reset.
    with pytest.raises(TypeError, match=r"Rules\.from_mapping"):
        GameDriver({"target_score": 200})


def test_the_drivers_view_is_of_a_seat_from_0_to_3_once_a_game_is_dealt():
    # view(-1) was seat 3's view, view(0) before reset() an IndexError.
    driver = GameDriver(SHORT)
    with pytest.raises(ValueError, match="reset"):
        driver.view(0)
    driver.reset(7)
    for seat in (-1, 4, 1.0, "0"):
        with pytest.raises(ValueError, match="seat"):
            driver.view(seat)
    assert driver.view(np.int64(3)).seat == 3
