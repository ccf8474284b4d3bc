"""A strategy's failure in a run's log: the one line a failure has, and the strategy's traceback."""

from __future__ import annotations

import logging

from canasta_sim.errors import StrategyError

logger = logging.getLogger("canasta_sim.runs.runner")
"""The run's logger, whose records the worker sends to the run's handlers and ``check-strategy`` listens to."""


def log_failure(game_id: int, error: StrategyError, on_error: str) -> None:
    """Log a strategy failure: one line (a warning under ``forfeit``), the strategy's traceback at debug level; for a
    game played side by side, once it counts (:meth:`~canasta_sim.plugins.channel.Hub.defer`)."""
    from canasta_sim.plugins.channel import current_hub  # its greenlets only where bot processes play side by side

    hub = current_hub()
    if hub is not None:
        hub.defer(lambda: _log_failure(game_id, error, on_error))
    else:
        _log_failure(game_id, error, on_error)


def _log_failure(game_id: int, error: StrategyError, on_error: str) -> None:
    if on_error == "forfeit":
        logger.warning("game %d: %s; side %s forfeits the game", game_id, error, "AB"[error.seat % 2])
    if error.traceback:
        logger.debug("game %d: the traceback of seat %d's strategy %r:\n%s", game_id, error.seat, error.spec,
                     error.traceback.rstrip())
