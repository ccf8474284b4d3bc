"""A returned move is read under its seat's clock: the code of a value the engine reads after the decision returned
(its groups' iteration) is stopped at the time limit and charged to the seat, as the decision itself would be."""

from __future__ import annotations

import multiprocessing

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.errors import StrategyError
from canasta_sim.strategies import Greedy
from tests.bots.loops_when_read import MeldsEndlessGroups


def _failure(time_limit: float) -> tuple[int, str, str, str]:
    try:
        play_game([MeldsEndlessGroups, Greedy, MeldsEndlessGroups, Greedy], seed=7, time_limit=time_limit)
    except StrategyError as error:
        return error.seat, error.decision, error.reason, str(error)
    return -1, "", "", "the game ended"


@pytest.mark.timeout(30)
def test_a_move_whose_reading_loops_forever_is_stopped_at_the_time_limit_as_its_seat_s_timeout():
    # The engine read the move outside the decision's clock: the game hung, where only a run's supervisor (killing
    # its worker a second past the limit) or check-strategy's could stop it, and the Python API hung for good.
    with multiprocessing.get_context("fork").Pool(1) as pool:  # a hang ends the pool, not the test's process
        seat, decision, reason, said = pool.apply_async(_failure, (0.2,)).get(timeout=15)
    assert (seat % 2, decision, reason) == (0, "meld", "timeout")
    assert said.endswith("was stopped at the time limit of 0.2 s while the engine read the move it returned")


class _ClaimsItsOwnClock(Greedy):
    """A user's strategy claiming what only a bot process's proxy may: that it keeps its own clock."""

    name = "claims-its-own-clock"
    keeps_own_clock = True

    def choose_acquire(self, view):
        while True:
            pass


def _claimed_clock_failure(time_limit: float) -> tuple[int, str, str]:
    try:
        play_game([_ClaimsItsOwnClock, Greedy, Greedy, Greedy], seed=7, time_limit=time_limit)
    except StrategyError as error:
        return error.seat, error.decision, error.reason
    return -1, "", "the game ended"


@pytest.mark.timeout(30)
def test_a_strategy_that_says_it_keeps_its_own_clock_is_timed_all_the_same():
    # The engine believed any strategy's keeps_own_clock, meant for the proxies of bot processes (which time their
    # bots themselves): a loop in play_game(time_limit=...) ran for ever.
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_claimed_clock_failure, (0.2,)).get(timeout=15) == (0, "acquire", "timeout")
