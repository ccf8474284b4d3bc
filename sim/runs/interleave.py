"""A chunk's games side by side, when its bot processes play several games at once (protocol 2).

A worker whose run has a bot speaking protocol 2 (``isolated:`` specs, the example bots) plays up to
``games`` of a chunk's games at once, each in a greenlet driven by a
:class:`~canasta_sim.plugins.channel.Hub`: every game runs up to its next bot request, the requests of all
games go to each bot process in one write, and each answer resumes its own game.  Each game is still
played by :meth:`ChunkPlayer.play_game` from its own seed, with the same strategies, so its record is the
one it has played alone; results are sent to the supervisor in game order, as the supervisor expects.

In-process strategies and protocol-1 bots play one game at a time, so a run with no protocol-2 bot,
or with a protocol-1 bot, takes the worker's plain loop and pays nothing for this module.  The same
holds for every command the supervisor plays: ``run``, ``compare`` and ``tune``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

from canasta_sim.arbiter import MONITOR_GAME, MONITOR_START
from canasta_sim.plugins.channel import Hub
from canasta_sim.plugins.proxy import ProcessStrategy
from canasta_sim.plugins.server import settle_collector

__all__ = ["GAMES_AT_ONCE_VARIABLE", "games_at_once", "games_at_once_cap", "play_side_by_side", "runs_bot_processes"]

GAMES_AT_ONCE_VARIABLE = "CANASTA_SIM_GAMES_AT_ONCE"
"""Environment variable capping the games a worker plays at once (``1``: one at a time, as protocol 1)."""


def games_at_once(player, remaining: int, chunk=None) -> int:
    """How many of a task's ``remaining`` games a worker plays at once with ``player``.

    The fewest games any bot process of the task's strategies announced (``games`` in its ``ready``); 1 when
    a strategy runs as a protocol-1 bot, or none runs as a bot at all.  ``player`` is a schedule's player
    (``run``'s, ``compare``'s, ``tune``'s): its ``loaded_strategies(chunk)`` names the strategies of the
    chunk's games.
    """
    bots = _bot_classes(player, chunk)
    if not bots:
        return 1
    width = min(min(cls.games for cls in bots), remaining)
    cap = games_at_once_cap()
    return max(1, width if cap is None else min(width, cap))


def runs_bot_processes(player, chunk=None) -> bool:
    """Whether any strategy of the task's games (as :func:`games_at_once` finds them) runs as a bot process."""
    return bool(_bot_classes(player, chunk))


def _bot_classes(player, chunk) -> list[type[ProcessStrategy]]:
    """The classes of the task's strategies that run as bot processes (none for a player that names none)."""
    strategies = getattr(player, "loaded_strategies", None)
    if strategies is None:
        return []
    return [loaded.cls for loaded in strategies(chunk) if issubclass(loaded.cls, ProcessStrategy)]


def games_at_once_cap() -> int | None:
    """The cap set by ``CANASTA_SIM_GAMES_AT_ONCE``, or None; read by the run's parent first, so that a
    bad value stops the run with one line before any worker starts (a worker failing on it would be
    replaced, again and again)."""
    cap = os.environ.get(GAMES_AT_ONCE_VARIABLE, "").strip()
    if not cap:
        return None
    try:
        return max(1, int(cap))
    except ValueError:
        raise ValueError(f"{GAMES_AT_ONCE_VARIABLE}={cap!r} is not a whole number of games; "
                         "accepted: a whole number, 1 or more") from None


def play_side_by_side(
    play: Callable[[int], tuple], games: range, width: int, monitor, *, stop_event,
    report: Callable[[int, tuple | None, BaseException | None], bool],
) -> None:
    """Play ``games`` up to ``width`` at once; ``report(game_id, (outcome, extra), error)`` each in game order.

    ``play(game_id)`` plays one game (``(outcome, extra)``); an exception it lets out is reported as
    ``error``.  ``report`` returns ``False`` to stop: the games under way are then abandoned (their bots
    told so).  Every task plays its first game alone: a task may be the rest of one whose worker died, its
    first game then the one the worker died in, and a game that kills workers is charged when it is the one
    the supervisor awaits (the supervisor does not mark which tasks are such rests; alone, a task's first game
    adds about one game's latency to a chunk).
    """
    first = games.start
    done: dict[int, tuple] = {}
    state = {"next": first, "emit": first}

    def room(active: int) -> bool:
        if stop_event.is_set() or state["next"] >= games.stop:
            return False
        if state["next"] >= state["emit"] + width:
            return False
        return active == 0 or state["emit"] > first

    def tasks() -> Iterator[tuple[int, Callable[[], tuple]]]:
        while state["next"] < games.stop:
            game_id = state["next"]
            state["next"] += 1
            yield game_id, _starter(play, game_id, monitor)

    def on_switch(game_id: int) -> None:
        # A start with the number, as _starter writes them: a game switched to before its first call would show the
        # supervisor the monitor's first start, 0, and be killed as hours overdue.  A game resumed mid-request is in
        # its bot's time, which the arbiter's own clock keeps; its next call into strategy code writes its own start.
        monitor[MONITOR_START] = time.monotonic()
        monitor[MONITOR_GAME] = game_id

    def on_done(game_id: int, result: tuple) -> bool:
        done[game_id] = result
        while state["emit"] in done:
            value, error = done.pop(state["emit"])
            state["emit"] += 1
            if not report(state["emit"] - 1, value, error):
                return False
        return True

    _freeze_once()
    Hub().play(tasks(), room, on_switch, on_done)


_frozen = False


def _freeze_once() -> None:
    """Settle the collector once a process (:func:`~canasta_sim.plugins.server.settle_collector`), before its
    first games side by side.

    Games side by side keep many games' objects alive, and the cyclic collector's full scans walked every
    object of the process, the libraries' included: about a thirtieth of a worker's instructions.  Done once a
    process, after a collection, so that no garbage of an earlier chunk is frozen with it.  Games are unchanged:
    the collector only frees unreachable cycles.
    """
    global _frozen
    if not _frozen:
        _frozen = True
        settle_collector()


def _starter(play: Callable[[int], tuple], game_id: int, monitor) -> Callable[[], tuple]:
    def start() -> tuple:
        monitor[MONITOR_START] = time.monotonic()  # never an old start with a new game: see the supervisor
        monitor[MONITOR_GAME] = game_id
        return play(game_id)

    return start
