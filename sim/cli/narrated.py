"""The games ``watch``, ``replay`` and ``report`` play, narrated or recorded for a page, each in a process of its own
(forked on Linux, spawned elsewhere), so that no strategy can end the command unheard.

In the command's own process, a strategy that calls ``os._exit`` or is killed by the kernel ended the command with no
word of which seat did it, and what it printed ran through the narration or over the terminal.  :func:`narrate_apart`
and :func:`record_apart` play the game under :func:`~canasta_sim.runs.supervised_game.play_supervised`, the one
runner ``check-strategy`` plays its games with: the narration's lines come back as they are written, what the
strategies print is kept out of the output, a child that dies is its running call's seat's failure (``crash``), in
the one line every other failure has, and a Ctrl-C stops the command as the user's (exit 130).  With a
``time_limit`` a decision is stopped there as a run's is (``timeout``), and a call the game's own clock cannot stop
(one that ignores the alarm) is ended with its process a second later, as a run's supervisor ends a worker: a
replay under the run's limit stops where the run's game did.  With ``--debug``, :func:`narrate_here` plays the game in
the command's own process instead, for a debugger.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import click

from canasta_sim.core.engine import GameResult
from canasta_sim.errors import StrategyError
from canasta_sim.plugins.loader import machines_doing
from canasta_sim.runs.supervised_game import CTRL_C_TO_THE_COMMAND, play_supervised
from canasta_sim.terminal.html_replay import RecordedGame, record_game
from canasta_sim.terminal.narrate import narrate_game

__all__ = ["DEBUG_DEFAULT", "DEBUG_HELP", "narrate_here", "narrate_apart", "record_apart"]


def _charge(seed: int, names: Sequence[str], seat: int, decision: str, reason: str, message: str) -> StrategyError:
    return StrategyError(message, spec=names[seat], seat=seat, game_seed=seed, decision=decision, reason=reason)


def _raise(failure: StrategyError) -> None:
    """Raise ``failure``, or, when it is the machine's doing in a built-in's call, the one line saying so (no built-in
    is charged with it)."""
    machines = machines_doing(failure)
    if machines is not None:
        raise click.ClickException(machines)
    raise failure


def _narrate(players, seed: int, names, time_limit: float | None, game: dict, monitor,
             send) -> GameResult | StrategyError:
    """The game narrated in its own process, each line given to ``send``; a strategy's failure returned."""
    try:
        return narrate_game(players, write=send, seed=seed, names=names, monitor=monitor, time_limit=time_limit, **game)
    except StrategyError as error:
        return error


def _record(players, seed: int, names, time_limit: float | None, game: dict, monitor, send) -> RecordedGame:
    """The game recorded in its own process."""
    return record_game(players, seed=seed, names=names, monitor=monitor, time_limit=time_limit, **game)


def narrate_apart(players: Sequence, *, write: Callable[[str], object], seed: int, names: Sequence[str],
                  time_limit: float | None = None, **game) -> GameResult:
    """:func:`~canasta_sim.terminal.narrate.narrate_game` in a process of its own, its lines given to ``write`` here,
    each decision under ``time_limit`` seconds (``None``: no limit).

    :raises StrategyError: a strategy's failure, as in this process; or ``crash`` for the seat whose call was running
        when the process died (``timeout`` when it was ended past ``time_limit``).
    :raises click.ClickException: when the process died, or ran out of memory, in a built-in's call: the machine's
        doing, said in one line.
    """
    play = functools.partial(_narrate, players, seed, names, time_limit, game)
    outcome = play_supervised(play, lambda *call: _charge(seed, names, *call), time_limit, f"game seed {seed}",
                              lines=write, ctrl_c=CTRL_C_TO_THE_COMMAND)
    if isinstance(outcome, StrategyError):
        _raise(outcome)
    return outcome


def record_apart(players: Sequence, *, seed: int, names: Sequence[str], time_limit: float | None = None,
                 **game) -> RecordedGame:
    """:func:`~canasta_sim.terminal.html_replay.record_game` in a process of its own: the game recorded up to its end or
    to a strategy's failure, each decision under ``time_limit`` seconds (``None``: no limit).

    :raises StrategyError: ``crash`` for the seat whose call was running when the process died, ``timeout`` when it
        was ended past ``time_limit`` (nothing of the game is left to show).
    :raises click.ClickException: when the process died in a built-in's call: the machine's doing, said in one line.
    """
    play = functools.partial(_record, players, seed, names, time_limit, game)
    outcome = play_supervised(play, lambda *call: _charge(seed, names, *call), time_limit, f"game seed {seed}",
                              ctrl_c=CTRL_C_TO_THE_COMMAND)
    if isinstance(outcome, StrategyError):
        _raise(outcome)
    return outcome


DEBUG_HELP = ("Play the game in this process, with no decision time limit, so that breakpoint() or pdb (or an IDE's "
              "debugger) stops in a strategy; a failure's traceback follows its line")
"""The help of ``--debug`` of ``watch`` and ``replay``, which each end with :data:`DEBUG_DEFAULT`."""

DEBUG_DEFAULT = "[default: off: a process of its own]"
"""The end of ``--debug``'s help: its default."""


def narrate_here(players: Sequence, *, write: Callable[[str], object], seed: int, names: Sequence[str],
                 **game) -> GameResult:
    """:func:`~canasta_sim.terminal.narrate.narrate_game` in this process with no decision time limit, for a debugger:
    ``breakpoint()`` reads this terminal (a game's own process has none), and a pause there is no decision's time.
    What the strategies print goes to the terminal, between the narration's lines.

    :raises StrategyError: a strategy's failure, its traceback (the strategy's own frames) on it.
    """
    return narrate_game(players, write=write, seed=seed, names=names, time_limit=None, **game)
