"""A strategy's failure in a run's log: the one line a failure has, and the strategy's traceback."""

from __future__ import annotations

import logging

from canasta_sim.errors import StrategyError
from canasta_sim.runs.shown_commands import join_shown, quote_shown

logger = logging.getLogger("canasta_sim.runs.runner")
"""The run's logger, whose records the worker sends to the run's handlers and ``check-strategy`` listens to."""


def log_failure(game_id: int, error: StrategyError, on_error: str, run_path: str | None = None) -> None:
    """Log a strategy failure: one line (a warning under ``forfeit``), the strategy's traceback at debug level; for a
    game played side by side, once it counts (:meth:`~canasta_sim.plugins.channel.Hub.defer`).  With the run's
    directory, ``run_path``, each names the command that plays the game again in the user's own process."""
    from canasta_sim.plugins.channel import current_hub  # its greenlets only where bot processes play side by side

    hub = current_hub()
    if hub is not None:
        hub.defer(lambda: _log_failure(game_id, error, on_error, run_path))
    else:
        _log_failure(game_id, error, on_error, run_path)


def replay_here(run_path: str, game_id: int) -> str:
    """The command that plays a run's game again in the user's own process, where a debugger stops, as a failure's line
    names it: ``play it again where a debugger stops: canasta-sim replay RUN 8 --debug``."""
    return f"play it again where a debugger stops: canasta-sim replay {quote_shown(run_path)} {game_id} --debug"


def watch_here(game_seed: int, specs: tuple[str, str], rules) -> str:
    """The command that plays a game of sides ``specs`` (A, B) from ``game_seed`` under ``rules`` again in the user's
    own process, for a game no run directory can replay (``check-strategy``'s, ``compare``'s, ``tune``'s):
    ``play it again where a debugger stops: canasta-sim watch --seed SEED -s A -s B --debug``, with the rules that
    differ from the defaults."""
    words = ["canasta-sim", "watch", "--seed", str(game_seed), "-s", specs[0], "-s", specs[1]]
    for word in rules.changed_words():
        words += ["--rules", word]
    return f"play it again where a debugger stops: {join_shown([*words, '--debug'])}"


def _log_failure(game_id: int, error: StrategyError, on_error: str, run_path: str | None) -> None:
    again = "" if run_path is None else f"; {replay_here(run_path, game_id)}"
    if on_error == "forfeit":
        logger.warning("game %d: %s; side %s forfeits the game%s", game_id, error, "AB"[error.seat % 2], again)
    if error.traceback:
        logger.debug("game %d: the traceback of seat %d's strategy %r:\n%s%s", game_id, error.seat, error.spec,
                     error.traceback.rstrip(), "" if run_path is None else f"\n{replay_here(run_path, game_id)}")
