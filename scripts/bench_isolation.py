"""What isolation costs: expert in its own processes against greedy, beside the same matchup in-process.

``python scripts/bench_isolation.py [--rounds 6] [--games 500] [--floor /path/to/floor.py]`` plays rounds
of games of each matchup in turn (A B C D A B C D ..., so that a machine's changing load falls on all of
them alike) with the same seeds, the way one ``run`` worker plays a chunk: in-process strategies one game
at a time, bots speaking protocol 2 (``isolated:``, the example bots) up to ``--games`` games side by side
(:mod:`canasta_sim.runs.interleave`).  It prints for each:

* games per second of wall-clock time on one worker (the worker and its bot processes run at once, so
  one worker may keep more than one core busy);
* games per CPU-second: CPU time of this process plus the bot processes (from ``/proc``), the cost per
  core whatever else the machine runs;
* the share of the in-process matchup's games per second (the goal: isolated expert at 0.5 or more);
* the worker's own CPU time per game against in-process, and the share of the wall-clock time it was
  running: near 100%, the worker is the critical path and the bots wait for it; well below, it waited for
  the bots or for a core;
* the share of the worker's CPU spent in the kernel (its pipes, its waits), and how many times a game it
  waited (voluntary context switches): with enough games side by side it hardly waits, and what it costs
  beyond in-process is its own work.

The worker and its bots are placed as ``canasta-sim run --pin-cores`` places a run's only worker (its own core,
the others for its bots; :mod:`canasta_sim.plugins.affinity`); ``--unpinned`` leaves them where the kernel puts
them.  ``--games-at-once 1`` plays the bots one game at a time, as protocol 1 does.  ``--writes`` times the
worker's writes to the bots' pipes: whether they wait for room in a pipe, or for a core.  ``--whole-runs PAIRS``
plays whole ``canasta-sim run --workers 1`` commands instead (``--pin-cores`` unless ``--unpinned``), isolated
and in-process in turn, and reads each run's games/s from its closing line: what a user's run gets, start-up
included.  ``--placement PAIRS`` plays whole runs of ``--bot SPEC`` (``isolated:expert`` by default) against
greedy in turn, one worker placed (``--workers 1 --pin-cores``) against the default workers left where the kernel
puts them: the choice ``docs/fairness.md`` weighs.  ``--floor PATH`` (or the environment variable
``CANASTA_SIM_FLOOR_SCRIPT``) runs the pure-Python floor script before and after, so the figures can be set beside
it.  ``scripts/bench.py`` calls :func:`isolation_cost` for its rows.
"""

from __future__ import annotations

import argparse
import array
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import floor  # noqa: E402 - scripts/bench.py's reading of the floor (this script's folder is on the path)

from canasta_sim.core.rules import Rules  # noqa: E402
from canasta_sim.errors import StrategyError  # noqa: E402
from canasta_sim.plugins import process as process_module  # noqa: E402
from canasta_sim.plugins.affinity import AFFINITY_VARIABLE, pin_worker, placement  # noqa: E402
from canasta_sim.plugins.pools import close_all  # noqa: E402
from canasta_sim.plugins.proxy import ProcessStrategy  # noqa: E402
from canasta_sim.runs.interleave import games_at_once, play_side_by_side  # noqa: E402
from canasta_sim.runs.runner import MAX_CHUNK_SIZE, ChunkPlayer, RunSettings  # noqa: E402

IN_PROCESS = "expert vs greedy, in-process"
MATCHUPS = {
    IN_PROCESS: "expert",
    "expert isolated vs greedy": "isolated:expert",
    "examples/protocol/bot.py vs greedy": f"cmd:{sys.executable} {ROOT / 'examples' / 'protocol' / 'bot.py'}",
    "examples/protocol/bot.js vs greedy": f"cmd:node {ROOT / 'examples' / 'protocol' / 'bot.js'}",
}


def _bot_seconds(player: ChunkPlayer) -> float:
    """CPU seconds used so far by the bot processes of a player's bot specs (0 for in-process ones)."""
    total = 0.0
    for loaded in player.factories.values():
        if not issubclass(loaded.cls, ProcessStrategy):
            continue
        for bot in loaded.cls.pool.processes():
            fields = Path(f"/proc/{bot.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _own_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _own_waits() -> tuple[int, float]:
    """This process's voluntary context switches so far (each a wait for a bot's answer, once it plays), and its
    CPU seconds in the kernel."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_nvcsw, usage.ru_stime


def _play(player: ChunkPlayer, games: range, width: int | None) -> None:
    """Play ``games`` as a worker does: one at a time, or side by side up to ``width`` at once."""
    monitor = memoryview(array.array("d", [0.0] * 3))
    at_once = games_at_once(_Wrapped(player), len(games)) if width is None else width
    if at_once <= 1:
        for game_id in games:
            _finished(game_id, player.play_game(game_id, monitor))
        return

    def report(game_id, played, error) -> bool:
        if error is not None:
            raise error
        _finished(game_id, played[0])
        return True

    play_side_by_side(lambda game_id: (player.play_game(game_id, monitor), None), games, at_once, monitor,
                      stop_event=threading.Event(), report=report)


def _finished(game_id: int, outcome) -> None:
    """Stop at a forfeited game: its speed is not the matchup's (a bot killed by mistake once read as a slow bot)."""
    if isinstance(outcome, StrategyError):
        raise SystemExit(f"bench_isolation: game {game_id} was forfeited, so no figure is printed: {outcome}")


class _Wrapped:
    """A :class:`ChunkPlayer` as :func:`games_at_once` finds it in a worker (its ``loaded_strategies``)."""

    def __init__(self, player: ChunkPlayer) -> None:
        self.player = player

    def loaded_strategies(self, chunk=None):
        return self.player.factories.values()


class _WriteTimes:
    """Times the worker's writes to its bots' pipes (``--writes``): how long each took on the clock and on
    the worker's CPU, how large, and how many found the pipe full (a non-blocking write that took nothing).
    A write far longer on the clock than on the CPU did not wait for room in the pipe: the worker lost its
    core meanwhile (the bot it woke, or another process, ran on it)."""

    def __init__(self) -> None:
        self.count = self.full = self.largest = self.total_bytes = 0
        self.wall = self.cpu = 0.0
        self._write = os.write

    def write(self, fd: int, data) -> int:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            written = self._write(fd, data)
        except BlockingIOError:
            self.full += 1
            raise
        finally:
            self.wall += time.perf_counter() - wall
            self.cpu += time.thread_time() - cpu
            self.count += 1
        self.largest = max(self.largest, len(data))
        self.total_bytes += len(data)
        return written

    def summary(self, games: int) -> str:
        if not self.count:
            return "no writes to bots"
        return (f"{self.count / games:.1f} writes a game, {self.total_bytes / self.count / 1024:.1f} KiB each, the "
                f"largest {self.largest / 1024:.1f} KiB, {self.full} found the pipe full; in writes "
                f"{self.wall / games * 1e3:.2f} ms a game on the clock, {self.cpu / games * 1e3:.2f} ms on the CPU")


def _timed_writes(times: _WriteTimes | None):
    """The ``os`` module the bot pipes' code writes with: the real one, or one timing each write."""
    if times is None:
        return os

    class _Timed:
        def __getattr__(self, name: str):
            return getattr(os, name)

        write = staticmethod(times.write)

    return _Timed()


def isolation_cost(rounds: int, games: int, *, include_node: bool = True, at_once: int | None = None,
                   writes: bool = False) -> dict:
    """Play ``rounds`` interleaved rounds of ``games`` games of each matchup; return the figures by matchup."""
    matchups = {label: spec for label, spec in MATCHUPS.items() if include_node or "bot.js" not in label}
    total_games = (rounds + 1) * games
    players = {}
    for label, spec in matchups.items():
        settings = RunSettings(games=total_games, seed=3_000_000, specs=(spec, "greedy"), rules=Rules(),
                               chunk_size=total_games)
        players[label] = ChunkPlayer(settings, "", "stop", threading.Event())
    totals = {label: {"games": 0, "wall": 0.0, "cpu": 0.0, "own": 0.0, "waits": 0, "kernel": 0.0} for label in players}
    # Placed as a run's only worker places itself and its bots under --pin-cores (CANASTA_SIM_AFFINITY=1).
    where = placement(0, 1)
    everywhere = os.sched_getaffinity(0) if where is not None else None
    pin_worker(where)
    for player in players.values():  # start each bot's processes before timing
        _play(player, range(total_games - games, total_games), at_once)
    times = {label: _WriteTimes() for label in players} if writes else {}
    for round_number in range(rounds):
        for label, player in players.items():
            process_module.os = _timed_writes(times.get(label))
            if where is not None:  # in-process strategies play where the kernel puts them, as in a run
                os.sched_setaffinity(0, everywhere if label == IN_PROCESS else {where.worker})
            wall = time.perf_counter()
            own, bots = _own_seconds(), _bot_seconds(player)
            waits, kernel = _own_waits()
            _play(player, range(round_number * games, (round_number + 1) * games), at_once)
            totals[label]["wall"] += time.perf_counter() - wall
            totals[label]["own"] += _own_seconds() - own
            waits_after, kernel_after = _own_waits()
            totals[label]["waits"] += waits_after - waits
            totals[label]["kernel"] += kernel_after - kernel
            totals[label]["cpu"] += _own_seconds() + _bot_seconds(player) - own - bots
            totals[label]["games"] += games
    process_module.os = os
    close_all()
    if where is not None:
        os.sched_setaffinity(0, everywhere)
    base = totals[IN_PROCESS]
    figures = {}
    for label, total in totals.items():
        figures[label] = {
            "games": total["games"],
            "games_per_second": round(total["games"] / total["wall"], 2),
            "games_per_cpu_second": round(total["games"] / total["cpu"], 2),
            "share_of_in_process": round(base["wall"] / total["wall"], 3),
            "wall_ratio": round(total["wall"] / base["wall"], 2),
            "cpu_ratio": round(total["cpu"] / base["cpu"], 2),
            "worker_cpu_ratio": round(total["own"] / base["own"], 2),
            "worker_busy": round(total["own"] / total["wall"], 2),
            "worker_waits_per_game": round(total["waits"] / total["games"], 1),
            "worker_kernel_share": round(total["kernel"] / total["own"], 3),
        }
        if label in times and label != IN_PROCESS:
            figures[label]["writes"] = times[label].summary(total["games"])
    return figures


FLOOR_SECONDS = 2.0  # each reading of the floor
FLOOR_VARIABLE = "CANASTA_SIM_FLOOR_SCRIPT"
"""Environment variable naming the pure-Python floor script (``/work/shared/bench/floor.py`` on the team's
machine): a fixed hand loop whose speed says how fast plain Python runs on the machine right now."""


def _run_rate(spec: str, games: int, options: list[str]) -> float:
    """Games/s of one whole ``canasta-sim run`` of ``spec`` against greedy with ``options``, from its closing line."""
    from bench_run import closing_rate  # the closing line read as bench_run reads it (scripts/ is on the path)

    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "canasta_sim", "run", "--games", str(games), "--seed", "4", "-q",
                   "--out", str(Path(out) / "run"), "-s", spec, "-s", "greedy", *options]
        done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
        return closing_rate(command, done, "bench_isolation")


def whole_runs(pairs: int, games: int, *, pinned: bool) -> list[tuple[float, float]]:
    """``(isolated, in-process)`` games/s of ``pairs`` pairs of whole ``canasta-sim run --workers 1`` commands
    played in turn (isolated ``expert`` against greedy, then in-process), each read from the run's closing line:
    what a user's run gets, its bot processes' start-up and its chunks' ends included."""
    options = ["--workers", "1", *(["--pin-cores"] if pinned else [])]
    return [(_run_rate("isolated:expert", games, options), _run_rate("expert", games, options))
            for _ in range(pairs)]


def placement_runs(pairs: int, games: int, spec: str) -> list[tuple[float, float]]:
    """``(placed, default)`` games/s of ``pairs`` pairs of whole runs of ``spec`` against greedy played in turn: one
    worker with its bots placed (``--workers 1 --pin-cores``), then the default workers left where the kernel puts
    them (``docs/fairness.md``'s choice between the two for bots in their own processes)."""
    return [(_run_rate(spec, games, ["--workers", "1", "--pin-cores"]), _run_rate(spec, games, []))
            for _ in range(pairs)]


def pure_python_floor() -> float | None:
    """The floor read now (``scripts/bench.py``'s :func:`floor`, for :data:`FLOOR_SECONDS`) with the script named by
    :data:`FLOOR_VARIABLE`, or ``None`` when it names none."""
    path = os.environ.get(FLOOR_VARIABLE)
    return floor(FLOOR_SECONDS, Path(path)) if path else None


def _whole_runs_table(args: argparse.Namespace) -> int:
    """Play and print ``--whole-runs`` or ``--placement``: each pair's games/s and the median of their ratios."""
    before = pure_python_floor()
    if args.placement:
        readings = placement_runs(args.placement, args.games, args.bot)
        names = (f"{args.bot} placed on one worker", "default workers, unplaced")
        what = f"whole runs of {args.games} games of {args.bot}: one placed worker at"
        against = "the default workers unplaced"
    else:
        readings = whole_runs(args.whole_runs, args.games, pinned=not args.unpinned)
        names = ("isolated:expert", "expert")
        what = (f"whole runs of {args.games} games on one worker{'' if args.unpinned else ', --pin-cores'}: "
                "isolated at")
        against = "in-process"
    after = pure_python_floor()
    for first, second in readings:
        print(f"{names[0]} {first:7.1f} games/s, {names[1]} {second:7.1f}: {first / second:.3f}")
    ratio = statistics.median(first / second for first, second in readings)
    print(f"{what} {ratio:.3f} of {against} (the median of {len(readings)} pairs; "
          f"{min(a / b for a, b in readings):.3f} to {max(a / b for a, b in readings):.3f})")
    if before is not None:
        print(f"floor: {before:,.0f} hands/s before, {after:,.0f} after")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table (and JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--games", type=int, default=MAX_CHUNK_SIZE,
                        help=f"games per matchup per round (default {MAX_CHUNK_SIZE}, a large run's chunk: a round "
                             "caps the games at once)")
    parser.add_argument("--games-at-once", type=int, default=None,
                        help="cap on the games a bot plays side by side (default: what the bot announces)")
    parser.add_argument("--no-node", action="store_true", help="leave out the JavaScript example")
    parser.add_argument("--floor", type=Path, default=None, help="the floor script, run before and after")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--unpinned", action="store_true",
                        help="leave the worker and its bots where the kernel puts them (default: placed as "
                             "'canasta-sim run --pin-cores' places a run's only worker and its bots)")
    parser.add_argument("--writes", action="store_true",
                        help="time the worker's writes to the bots' pipes (clock against CPU, sizes, full pipes)")
    parser.add_argument("--whole-runs", type=int, default=0, metavar="PAIRS",
                        help="instead, play PAIRS pairs of whole 'canasta-sim run --workers 1 [--pin-cores]' "
                             "commands in turn, isolated and in-process, of --games games each")
    parser.add_argument("--placement", type=int, default=0, metavar="PAIRS",
                        help="instead, play PAIRS pairs of whole runs of --bot against greedy in turn: "
                             "'canasta-sim run --workers 1 --pin-cores' against 'canasta-sim run' (the default "
                             "workers, unplaced), of --games games each")
    parser.add_argument("--bot", default="isolated:expert", metavar="SPEC",
                        help="the strategy --placement plays against greedy (default isolated:expert)")
    args = parser.parse_args(argv)
    if args.floor:
        os.environ[FLOOR_VARIABLE] = str(args.floor)
    if args.whole_runs or args.placement:
        return _whole_runs_table(args)
    os.environ[AFFINITY_VARIABLE] = "0" if args.unpinned else "1"
    before = pure_python_floor()
    figures = isolation_cost(args.rounds, args.games, include_node=not args.no_node, at_once=args.games_at_once,
                             writes=args.writes)
    after = pure_python_floor()
    for label, row in figures.items():
        print(f"{label:<40} {row['games_per_second']:7.2f} games/s ({row['share_of_in_process']:.3f} of in-process)"
              f"   {row['games_per_cpu_second']:7.2f} games per CPU-second (x{row['cpu_ratio']:.2f} CPU;"
              f" the worker x{row['worker_cpu_ratio']:.2f}, busy {row['worker_busy']:.0%} of the time, "
              f"{row['worker_kernel_share']:.0%} of it in the kernel, waiting {row['worker_waits_per_game']:.1f} "
              f"times a game)")
        if "writes" in row:
            print(f"{'':<40} {row['writes']}")
    if before is not None:
        print(f"floor: {before:,.0f} hands/s before, {after:,.0f} after")
        figures["floor_hands_per_second"] = [before, after]
    print("the worker and its bots " + ("where the kernel put them" if args.unpinned else
                                        "placed as under 'canasta-sim run --pin-cores'"))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
