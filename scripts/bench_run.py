"""What ``canasta-sim run`` adds to playing its games: the same games in-process, on one worker, on two.

Run ``python scripts/bench_run.py`` (or ``python scripts/bench.py --run-overhead ROUNDS``).  Each round plays,
in turn, the same ``--games`` games of expert against greedy (run seed ``--seed``, sides alternated as a run
alternates them):

1. in this process, a plain ``play_game`` loop (no workers, no tables);
2. ``canasta-sim run --workers 1``;
3. ``canasta-sim run --workers 2``;
4. the loop's games split between two processes playing side by side: what this machine gives two processes
   with nothing of a run around them, the ceiling against which two workers are read;

and the floor (``scripts/floor.py``, hands/s) before the first round and after each one.  A run's speed is the
games/s its closing line prints (``played now in S s, R games/s``: from the first worker's start to the last part
written, the interpreter's start-up left out); the whole command's wall time is printed beside it.  Each
round's ratios (one worker against the loop, two workers against one) are taken within the round, seconds
apart, so that a change of the machine's speed moves both sides alike; the medians of the rounds are the
figures.  Goals: one worker at least 0.9 of the loop, two at least 1.85 times one.  Beside the clock, the
readings by CPU, which the machine's load moves far less: the loop's CPU seconds a game over one worker's (the
worker's from its parent's ``RUSAGE_CHILDREN``), the share of the loop's speed a worker would reach busy all the
time; and the parent's CPU while two workers play (``WorkerPool.play``) as a share of theirs: the parent shares
their two cores, so two workers give at most ``2 / (1 + share)`` times one on any machine.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import floor  # noqa: E402 - scripts/bench.py's reading of the floor (this script's folder is on the path)

from canasta_sim.core._compiled import accelerator  # noqa: E402
from canasta_sim.core.engine import play_game  # noqa: E402
from canasta_sim.core.rules import Rules  # noqa: E402
from canasta_sim.runs.runner import RunSettings, default_chunk_size  # noqa: E402

MATCHUP = ("expert", "greedy")
ONE_WORKER_GOAL = 0.9
TWO_WORKERS_GOAL = 1.85
FLOOR_SECONDS = 1.5  # each reading of the floor, after every round


def loop(games: int, seed: int) -> tuple[float, float]:
    """Games/s of the run's games played here in a plain ``play_game`` loop, and its CPU seconds a game."""
    play = _player(games, seed)
    start, cpu = time.perf_counter(), time.process_time()
    play(range(games))
    return games / (time.perf_counter() - start), (time.process_time() - cpu) / games


def _player(games: int, seed: int):
    """A function playing the given game ids of the run's games, its strategies loaded now."""
    settings = RunSettings(games=games, seed=seed, specs=MATCHUP, rules=Rules(), chunk_size=default_chunk_size(games))
    loaded = settings.load_strategies()

    def play(game_ids: range) -> None:
        for game_id in game_ids:
            first, second = settings.sides(game_id)
            play_game([loaded[first], loaded[second], loaded[first], loaded[second]],
                      seed=settings.game_seed(game_id), rules=settings.rules, names=[first, second, first, second])

    return play


def _half_loop(games: int, seed: int, half: int, barrier, results) -> None:
    """One of :func:`two_loops`' processes: load, wait for the other, then play every other game and report."""
    play = _player(games, seed)
    barrier.wait()
    start = time.perf_counter()
    play(range(half, games, 2))
    results.put(time.perf_counter() - start)


def two_loops(games: int, seed: int) -> float:
    """Games/s of the run's games split between two processes that start playing together: the slower one's
    time counts, as a run's last worker does."""
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(2), context.Queue()
    processes = [context.Process(target=_half_loop, args=(games, seed, half, barrier, results)) for half in (0, 1)]
    for process in processes:
        process.start()
    seconds = [results.get(timeout=3600) for _ in processes]
    for process in processes:
        process.join(timeout=60)
    return games / max(seconds)


# Runs the command line, then prints the CPU seconds this process (the run's parent: supervisor, records,
# Parquet) used, in all and while its workers played (WorkerPool.play: the share of the cores it takes from
# them) with what its three largest parts took of it, and its workers' (its children, which RUSAGE_SELF does not
# count).
_PARENT = ("import resource, sys\n"
           "from canasta_sim.cli import main\n"
           "from canasta_sim.runs import records, storage, summary, supervisor\n"
           "def _cpu():\n"
           "    usage = resource.getrusage(resource.RUSAGE_SELF)\n"
           "    return usage.ru_utime + usage.ru_stime\n"
           "_spent = dict.fromkeys(('playing', 'tables', 'parquet', 'summary'), 0.0)\n"
           "def _timed(owner, name, part):\n"
           "    original = getattr(owner, name)\n"
           "    def timed(*args, **kwargs):\n"
           "        start = _cpu()\n"
           "        try:\n"
           "            return original(*args, **kwargs)\n"
           "        finally:\n"
           "            _spent[part] += _cpu() - start\n"
           "    setattr(owner, name, timed)\n"
           "_timed(supervisor.WorkerPool, 'play', 'playing')\n"
           "_timed(records.ChunkRecorder, 'tables', 'tables')\n"
           "_timed(storage.pq, 'write_table', 'parquet')\n"
           "_timed(summary.RunSummarizer, 'chunk_written', 'summary')\n"
           "try:\n"
           "    main(sys.argv[1:])\n"
           "finally:\n"
           "    workers = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
           "    print(f'parent cpu {_cpu():.3f} s', file=sys.stderr)\n"
           "    for part, seconds in _spent.items():\n"
           "        print(f'parent {part} cpu {seconds:.3f} s', file=sys.stderr)\n"
           "    print(f'workers cpu {workers.ru_utime + workers.ru_stime:.3f} s', file=sys.stderr)\n")


_CLOSING_LINE = re.compile(r"played now in [0-9.]+ s, ([0-9.]+) games/s")


def closing_rate(command: list[str], completed: subprocess.CompletedProcess, script: str) -> float:
    """The games/s a finished ``canasta-sim run`` printed in its closing line (``played now in S s, R games/s``);
    exits with the run's own output, named by ``script``, when the run failed or printed no such line."""
    if completed.returncode != 0:
        raise SystemExit(f"{script}: {' '.join(command)} failed:\n{completed.stderr.strip()}")
    # The games/s the line prints, not games over its seconds: those are rounded to a tenth, 2% of a short run.
    played = _CLOSING_LINE.search(completed.stdout)
    if played is None:
        raise SystemExit(f"{script}: no closing line in the run's output:\n{completed.stdout}")
    return float(played.group(1))


def run(games: int, seed: int, workers: int) -> tuple[float, float, float, float, dict[str, float]]:
    """``canasta-sim run``'s own games/s (its closing line), the whole command's, on ``workers`` workers, the
    parent process's CPU seconds per 1,000 games (interpreter start-up and imports included), the workers'
    CPU seconds a game, and the parent's CPU seconds a game while the workers played (``playing``) and in three
    parts of that (``tables``, ``parquet``, ``summary``)."""
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-c", _PARENT, "run", "--games", str(games), "--seed", str(seed),
                   "--workers", str(workers), "-q", "--out", str(Path(folder) / "run")]
        start = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, text=True, timeout=3600, cwd=ROOT)
        wall = time.perf_counter() - start
    rate = closing_rate(command, completed, "bench_run")
    parent = re.search(r"parent cpu ([0-9.]+) s", completed.stderr)
    if parent is None:
        raise SystemExit(f"bench_run: the run's parent did not report its CPU time:\n{completed.stderr}")
    workers_cpu = re.search(r"workers cpu ([0-9.]+) s", completed.stderr)
    if workers_cpu is None:
        raise SystemExit(f"bench_run: the run's parent did not report its workers' CPU time:\n{completed.stderr}")
    parts = dict(re.findall(r"parent (playing|tables|parquet|summary) cpu ([0-9.]+) s", completed.stderr))
    if len(parts) != 4:
        raise SystemExit(f"bench_run: the run's parent did not report its CPU time while playing:\n{completed.stderr}")
    return (rate, games / wall, 1000 * float(parent.group(1)) / games,
            float(workers_cpu.group(1)) / games, {part: float(seconds) / games for part, seconds in parts.items()})


def run_overhead(rounds: int, games: int, seed: int, floor_path: Path) -> dict:
    """The rounds (loop, one worker, two workers, floor) and the medians of their ratios."""
    floors = [floor(FLOOR_SECONDS, floor_path)]
    played = []
    for _ in range(rounds):
        in_process, loop_cpu = loop(games, seed)
        one, one_wall, one_parent, one_cpu, _ = run(games, seed, 1)
        two, two_wall, two_parent, two_cpu, two_spent = run(games, seed, 2)
        two_playing = two_spent["playing"]
        side_by_side = two_loops(games, seed)
        floors.append(floor(FLOOR_SECONDS, floor_path))
        played.append({"loop": round(in_process, 1), "one_worker": round(one, 1), "two_workers": round(two, 1),
                       "two_loops": round(side_by_side, 1),
                       "one_worker_wall": round(one_wall, 1), "two_workers_wall": round(two_wall, 1),
                       "one_worker_parent_cpu": round(one_parent, 3), "two_workers_parent_cpu": round(two_parent, 3),
                       "floor_before": floors[-2], "floor_after": floors[-1],
                       "one_to_loop": round(one / in_process, 3), "two_to_one": round(two / one, 3),
                       "one_cpu_to_loop": round(loop_cpu / one_cpu, 3),
                       # The parent's CPU while two workers play, as a share of theirs: it takes that from their two
                       # cores, so two workers give at most 2 / (1 + share) times one, whatever the machine.
                       "parent_share": round(two_playing / two_cpu, 4),
                       "two_workers_parent_playing_cpu": round(1000 * two_playing, 3),
                       **{f"parent_{part}_us": round(1e6 * two_spent[part], 1) for part in ("tables", "parquet",
                                                                                           "summary")},
                       "two_loops_to_loop": round(side_by_side / in_process, 3)})
    return {"games": games, "seed": seed, "build": accelerator.describe(), "rounds": played,
            "one_to_loop": round(statistics.median(entry["one_to_loop"] for entry in played), 3),
            "two_to_one": round(statistics.median(entry["two_to_one"] for entry in played), 3),
            "one_cpu_to_loop": round(statistics.median(entry["one_cpu_to_loop"] for entry in played), 3),
            "parent_share": round(statistics.median(entry["parent_share"] for entry in played), 4),
            "two_loops_to_loop": round(statistics.median(entry["two_loops_to_loop"] for entry in played), 3),
            "parent_cpu": round(statistics.median(entry["two_workers_parent_cpu"] for entry in played), 3),
            "parent_playing_cpu": round(statistics.median(entry["two_workers_parent_playing_cpu"] for entry in played),
                                        3),
            **{key: round(statistics.median(entry[key] for entry in played), 1)
               for key in ("parent_tables_us", "parent_parquet_us", "parent_summary_us")}}


def report(figures: dict) -> list[str]:
    """The printed lines: each round, then the medians against the goals."""
    lines = [f"canasta-sim run against the same {figures['games']} games in-process (expert vs greedy, seed "
             f"{figures['seed']}; {figures['build']}), games/s:"]
    for number, entry in enumerate(figures["rounds"], 1):
        lines.append(f"  round {number}: loop {entry['loop']:.0f}, 1 worker {entry['one_worker']:.0f} "
                     f"({entry['one_to_loop']:.3f} of the loop; {entry['one_cpu_to_loop']:.3f} by CPU a game), "
                     f"2 workers {entry['two_workers']:.0f} "
                     f"({entry['two_to_one']:.3f}x one), two loops side by side {entry['two_loops']:.0f} "
                     f"({entry['two_loops_to_loop']:.3f}x the loop); whole command {entry['one_worker_wall']:.0f} and "
                     f"{entry['two_workers_wall']:.0f}; parent CPU {entry['one_worker_parent_cpu']:.3f} and "
                     f"{entry['two_workers_parent_cpu']:.3f} s per 1,000 games "
                     f"({entry['two_workers_parent_playing_cpu']:.3f} while two workers played, "
                     f"{entry['parent_share']:.1%} of their CPU); floor {entry['floor_before']:,.0f} -> "
                     f"{entry['floor_after']:,.0f} hands/s")
    lines.append(f"median: 1 worker {figures['one_to_loop']:.3f} of the loop (goal {ONE_WORKER_GOAL}; by CPU a "
                 f"game {figures['one_cpu_to_loop']:.3f}: the loop's CPU over the worker's, which load moves less), "
                 f"2 workers {figures['two_to_one']:.3f}x one (goal {TWO_WORKERS_GOAL}; the parent's CPU while they "
                 f"play is {figures['parent_share']:.1%} of theirs, which caps them at "
                 f"{2 / (1 + figures['parent_share']):.3f}x one; two plain loops side by side "
                 f"{figures['two_loops_to_loop']:.3f}x one, this machine's ceiling); the run's parent "
                 f"{figures['parent_cpu']:.3f} CPU-s per 1,000 games with 2 workers, "
                 f"{figures['parent_playing_cpu']:.3f} of them while the workers played, of which a game's tables "
                 f"{figures['parent_tables_us']:.1f} us, Parquet parts {figures['parent_parquet_us']:.1f} us and "
                 f"summary {figures['parent_summary_us']:.1f} us")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the four (default 3)")
    parser.add_argument("--games", type=int, default=4000, help="games of each (default 4000)")
    parser.add_argument("--seed", type=int, default=5, help="the run seed (default 5)")
    parser.add_argument("--floor", type=Path, default=ROOT / "scripts" / "floor.py", help="the floor's hand loop")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.games < 1:
        parser.error(f"--rounds and --games take at least 1, not {args.rounds} and {args.games}")
    for line in report(run_overhead(args.rounds, args.games, args.seed, args.floor)):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
