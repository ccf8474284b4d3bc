"""A game played side by side that lost its bot process to another game is played again from its start: what its
lost attempt logged is not its result, and a failure is logged once, for the attempt that counts."""

from __future__ import annotations

import logging

from canasta_sim.errors import StrategyError
from canasta_sim.plugins.channel import Hub, current_hub
from canasta_sim.runs.runner import log_failure


class _LostEndpoint:
    """Stands for a bot process's endpoint that another game's failure cost this game (``lost``)."""

    lost = True

    def close(self) -> None:
        pass


def test_a_failure_of_an_attempt_played_again_is_not_logged(caplog):
    attempts = []

    def game():
        attempts.append(1)
        error = StrategyError("its bot process, shared with another game, was lost there", spec="bot.py:Bot", seat=0,
                              game_seed=7, decision="acquire", reason="crash")
        if len(attempts) == 1:
            current_hub().adopt(_LostEndpoint())  # this attempt lost its process: the hub plays the game again
        log_failure(3, error, "forfeit")
        return error

    done = []
    with caplog.at_level(logging.WARNING, logger="canasta_sim.runs.runner"):
        Hub().play(iter([(3, game)]), lambda active: active < 1, lambda key: None,
                   lambda key, outcome: done.append(key) or True)
    assert len(attempts) == 2 and done == [3]
    assert [record.getMessage()[:7] for record in caplog.records] == ["game 3:"], caplog.text
