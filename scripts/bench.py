"""canasta-sim's benchmark: engine throughput, matchup speed, scaling and memory.

Run ``python scripts/bench.py`` (about four minutes on a 2-core machine) or
``python scripts/bench.py --quick``.  It prints a table and writes the figures
to ``results/bench.json`` (``--json PATH`` to change).  Every figure is
measured here, on this machine, by this script: nothing is copied in.

Figures:

* engine throughput with uniformly random legal players on one core:
  hands/s and decisions/s (strategy calls, the engine's unit of work);
* the default matchup (expert vs greedy, sides alternated) in games to 5000
  per second on one worker, in-process, compiled (as installed; in turn with the floor, below) and as plain
  Python (``CANASTA_SIM_PURE_PYTHON=1``, in a child process), and through
  ``canasta-sim run`` on one worker and on all cores, start-up included;
* ``canasta-sim run --games 10000`` exactly as the quick start (README.md) runs it,
  and the same games on one worker for the speed-up of a long run (both skipped
  with ``--quick``);
* the speed-up from 1 to N workers, and as a yardstick how fast N in-process
  matchups play side by side (how far the machine's cores themselves scale);
* peak resident memory of the parent and of one worker process;
* expert vs greedy in-process in turn with the floor (floor, matchup, floor, ...): each round's ratio to
  the floors either side of it, and their median, the figure the engine's speed is judged by; the same
  for a user's plain-Python bot (``examples/my_bot.py`` loaded from its file) against greedy, the speed
  a user's own strategy gets (``--beside-floor ROUNDS`` runs only these two); the other ratios are to the
  mean of the two floors below;
* the floor: ``scripts/floor.py``, a fixed pure-Python canasta-like hand loop (the project's shared
  yardstick, ``../shared/bench/floor.py``, copied unchanged), run just before and just after the
  figures.  A machine's speed varies two- to threefold between machines and over minutes, so every
  hands/s figure is also printed as a ratio to the mean of the two floors: only the ratios compare
  across machines.
* pimc's sampled play-outs per second on one core (a world sampled from a seat's view, copied and
  played to the end of the hand by expert), with the pure-Python floor measured beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim import __version__  # noqa: E402
from canasta_sim.core._compiled import accelerator  # noqa: E402
from canasta_sim.core.engine import play_game  # noqa: E402
from canasta_sim.core.rules import Rules  # noqa: E402
from canasta_sim.plugins.loader import load_strategy  # noqa: E402
from canasta_sim.runs.machine import usable_cores  # noqa: E402
from canasta_sim.runs.runner import MAX_CHUNK_SIZE  # noqa: E402


class _Counting:
    """Wraps a factory so every decision made by the strategies it builds is counted."""

    def __init__(self, factory) -> None:
        self.factory = factory
        self.decisions = 0

    def __call__(self, rng):
        player = self.factory(rng)
        counter = self

        for name in ("choose_acquire", "choose_ask", "answer_go_out", "choose_meld", "choose_discard"):
            method = getattr(player, name)

            def counted(view, _method=method):
                counter.decisions += 1
                return _method(view)

            setattr(player, name, counted)
        return player


def engine_throughput(seconds: float) -> dict:
    """Random legal players on one core: hands/s and decisions/s."""
    factory = _Counting(load_strategy("random"))
    rules = Rules()
    hands = 0
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        result = play_game([factory] * 4, seed=1_000_000 + games, rules=rules)
        hands += len(result.hands)
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "games": games,
        "hands": hands,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(hands / elapsed, 1),
        "decisions_per_second": round(factory.decisions / elapsed, 1),
    }


def floor(seconds: float, path: Path) -> float:
    """The floor: hands/s of the fixed pure-Python hand loop in ``path``, run in a child process now."""
    completed = subprocess.run(
        [sys.executable, str(path), str(seconds)], capture_output=True, text=True, timeout=seconds + 60
    )
    if completed.returncode != 0:
        raise SystemExit(f"bench: the floor {path} failed:\n{completed.stderr.strip()}")
    return float(completed.stdout.split()[-1])


def matchup_in_process(specs: tuple[str, str], seconds: float, first_seed: int = 2_000_000) -> dict:
    """Games to 5000 per second for a matchup, one core, no runner overhead; seeds from ``first_seed`` on."""
    loaded = [load_strategy(spec) for spec in specs]
    games = 0
    hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        first, second = (loaded[0], loaded[1]) if games % 2 == 0 else (loaded[1], loaded[0])
        result = play_game([first, second, first, second], seed=first_seed + games)
        hands += len(result.hands)
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "games": games,
        "hands": hands,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1),
        "hands_per_second": round(hands / elapsed, 1),
    }


DEFAULT_MATCHUP = ("expert", "greedy")
"""The matchup the engine's speed is judged by: the strongest built-in against the quickest sound one."""

USER_BOT_MATCHUP = (f"{ROOT / 'examples' / 'my_bot.py'}:MyBot", "greedy")
"""A user's plain-Python bot, loaded from its file as ``-s examples/my_bot.py:MyBot`` loads it, against greedy:
the speed a user's own strategy gets from the engine and the view."""

USER_BOT_GOAL = 0.20
"""The share of the floor the user's bot against greedy should reach in-process."""


def matchup_beside_floor(rounds: int, seconds: float, path: Path, specs: tuple[str, str] = DEFAULT_MATCHUP) -> dict:
    """A matchup in-process and the floor in turn: floor, matchup, floor, ..., matchup, floor.

    Each round's ratio is its matchup's hands/s over the mean of the two floors either side of it, a few
    seconds apart, so a change of the machine's speed during the benchmark (another process, the clock of
    a shared host) moves both sides of a ratio alike.  The median of the rounds is the figure the speed is
    judged by; the lowest and highest are printed beside it.
    """
    floors = [floor(seconds / 2, path)]
    rounds_played = []
    games = 0
    for _ in range(rounds):
        played = matchup_in_process(specs, seconds, first_seed=3_000_000 + games)
        games += played["games"]
        floors.append(floor(seconds / 2, path))
        rate = played["hands"] / played["seconds"]
        rounds_played.append({
            **played,
            "floor_before": floors[-2],
            "floor_after": floors[-1],
            "ratio": round(rate / ((floors[-2] + floors[-1]) / 2), 3),
        })
    ratios = [entry["ratio"] for entry in rounds_played]
    games_played = sum(entry["games"] for entry in rounds_played)
    hands_played = sum(entry["hands"] for entry in rounds_played)
    elapsed = sum(entry["seconds"] for entry in rounds_played)
    return {"rounds": rounds_played, "median_ratio": round(statistics.median(ratios), 3),
            "lowest_ratio": min(ratios), "highest_ratio": max(ratios), "games": games_played, "hands": hands_played,
            "seconds": round(elapsed, 3),
            "games_per_second": round(games_played / elapsed, 1), "hands_per_second": round(hands_played / elapsed, 1)}


def matchup_pure_python(seconds: float) -> dict:
    """:func:`matchup_in_process` in a child process that runs every module from its Python source."""
    return _matchup_children(seconds, 1, {accelerator.PURE_PYTHON_VARIABLE: "1"})[0]


def matchup_side_by_side(seconds: float, processes: int) -> dict:
    """:func:`matchup_in_process` in ``processes`` child processes at once: how far the cores themselves scale."""
    children = _matchup_children(seconds, processes, {})
    rates = [child["games_per_second"] for child in children]
    mean = round(sum(rates) / len(rates), 1)
    hands = [child["hands_per_second"] for child in children]
    return {
        "processes": processes,
        "games_per_second_each": rates,
        "mean_games_per_second": mean,
        "hands_per_second_each": hands,
    }


def _matchup_children(seconds: float, processes: int, environment: dict[str, str]) -> list[dict]:
    command = [sys.executable, __file__, "--matchup-only", str(seconds)]
    env = {**os.environ, **environment}
    children = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        for _ in range(processes)
    ]
    results = []
    for child in children:
        stdout, stderr = child.communicate()
        if child.returncode != 0:
            raise SystemExit(f"bench: a matchup child process failed:\n{stderr.strip()}")
        results.append(json.loads(stdout))
    return results


def pimc_playouts(seconds: float) -> dict:
    """Sampled play-outs per second on one core (pimc's unit of work), the pure-Python floor measured beside it.

    Each play-out samples a world from the first player's view of a fresh deal (``sample_world``),
    copies it and plays the whole hand out with expert at every seat: the work of one pimc sample
    from the start of a hand, the longest kind (later in a hand a play-out is shorter).
    """
    import random

    from canasta_sim.core.search import PublicMemory, playout, sample_world
    from canasta_sim.core.state import HandState
    from canasta_sim.core.view import SeatView
    from canasta_sim.strategies import Expert

    floor_script = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "floor.py"

    def floor() -> float | None:
        if not floor_script.exists():
            return None
        output = subprocess.run([sys.executable, str(floor_script)], capture_output=True, text=True, timeout=300)
        return float(output.stdout.split()[-1]) if output.returncode == 0 else None

    floor_before = floor()
    rules = Rules()
    rng = random.Random(19)
    playouts = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        real = HandState.deal(rules, random.Random(playouts), dealer=playouts % 4)
        view = SeatView(real, real.seat, (0, 0))
        world = sample_world(view, PublicMemory(view), rng).copy()
        playout(world, [Expert(random.Random(seat)) for seat in range(4)], (0, 0))
        playouts += 1
    elapsed = time.perf_counter() - start
    return {
        "playouts": playouts,
        "seconds": round(elapsed, 3),
        "playouts_per_second": round(playouts / elapsed, 1),
        "floor_before": floor_before,
        "floor_after": floor(),
    }


def _peak_kib(pid: int) -> int:
    """The peak resident memory (VmHWM, KiB) of a live process, or 0 once it is gone (Linux /proc)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        tasks = Path(f"/proc/{pid}/task").iterdir()
        return [int(child) for task in tasks for child in (task / "children").read_text().split()]
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return []


def run_command(games: int, workers: int | None, extra: list[str]) -> dict:
    """Time ``canasta-sim run`` end to end (interpreter start-up included) and watch its memory.

    The run's parent and its worker processes are sampled every 50 ms for their peak resident
    memory (VmHWM), which only grows, so the last sample of each process is close to its peak.
    """
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "run"
        # workers=None: the command's own default, as the quick start (README.md) runs it.
        command = [
            sys.executable, "-m", "canasta_sim", "run", "--games", str(games),
            *(["--workers", str(workers)] if workers else []), "--seed", "1", "--out", str(out), "--quiet", *extra,
        ]
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        parent_peak = 0
        worker_peaks: dict[int, int] = {}
        while process.poll() is None:
            parent_peak = max(parent_peak, _peak_kib(process.pid))
            for child in _children(process.pid):
                worker_peaks[child] = max(worker_peaks.get(child, 0), _peak_kib(child))
            time.sleep(0.05)
        _, stderr = process.communicate()
        elapsed = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"bench: {' '.join(command)} failed:\n{stderr.strip()}")
    workers = workers or len(worker_peaks) or 1
    return {
        "games": games,
        "workers": workers,
        "seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1),
        "games_per_second_per_worker": round(games / elapsed / workers, 1),
        "parent_peak_mb": round(parent_peak / 1024, 1),
        "worker_peak_mb": round(max(worker_peaks.values(), default=0) / 1024, 1),
    }


ISOLATION_ROUND_GAMES = MAX_CHUNK_SIZE
"""Games of each matchup in a round of the isolation rows: a large run's chunk (a round caps the games at once)."""


def isolation_rows(figures: dict, rounds: int) -> list[tuple[str, str]]:
    """Strategies in their own processes (docs/protocol.md) beside in-process, interleaved rounds, one worker:
    games/s and games per CPU-second (this process and the bot processes), with this machine's floor."""
    from bench_isolation import isolation_cost, pure_python_floor

    floor_before = pure_python_floor()
    cost = isolation_cost(rounds, ISOLATION_ROUND_GAMES, include_node=shutil.which("node") is not None)
    floor_after = pure_python_floor()
    figures["isolation"] = {**cost, "floor_hands_per_second": [floor_before, floor_after]}
    rows = [(f"{label}, 1 worker", f"{row['games_per_second']:.1f} games/s (x{row['wall_ratio']:.2f} time), "
                                  f"{row['games_per_cpu_second']:.1f} per CPU-second (x{row['cpu_ratio']:.2f})")
            for label, row in cost.items()]
    if floor_before is not None:
        rows.append(("  floor (pure-Python hand loop)",
                     f"{floor_before:,.0f} hands/s before, {floor_after:,.0f} after"))
    else:
        rows.append(("  floor", "not measured: set CANASTA_SIM_FLOOR_SCRIPT to the floor script"))
    return rows


def _rounds_row(beside: dict) -> str:
    """The interleaved rounds as a table cell: the median ratio first, then each round's."""
    each = ", ".join(f"{entry['ratio']:.3f}" for entry in beside["rounds"])
    return (f"median {beside['median_ratio']:.3f} of the floor (lowest {beside['lowest_ratio']:.3f}, "
            f"highest {beside['highest_ratio']:.3f}; rounds {each})")


def beside_floor_only(rounds: int, path: Path) -> None:
    """``--beside-floor ROUNDS``: expert vs greedy, then the user's bot vs greedy, each in turn with the floor."""
    for label, specs, goal in (("expert vs greedy", DEFAULT_MATCHUP, None),
                               ("examples/my_bot.py:MyBot vs greedy", USER_BOT_MATCHUP, USER_BOT_GOAL)):
        beside = matchup_beside_floor(rounds, 10.0 / 3, path, specs)
        print(f"{label} in-process, in turn with the floor ({accelerator.describe()}):")
        for number, entry in enumerate(beside["rounds"], 1):
            print(f"  round {number}: {entry['hands_per_second']:,.0f} hands/s, floor {entry['floor_before']:,.0f} "
                  f"before and {entry['floor_after']:,.0f} after: {entry['ratio']:.3f}")
        print(_rounds_row(beside) + ("" if goal is None else f"; goal {goal:.2f}"))


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print a table; figures go to JSON too."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter measurements (noisier)")
    parser.add_argument("--games", type=int, default=None, help="games for the canasta-sim run timings")
    parser.add_argument("--json", type=Path, default=ROOT / "results" / "bench.json", help="where to write figures")
    parser.add_argument("--floor", type=Path, default=ROOT / "scripts" / "floor.py", help="the floor's hand loop")
    parser.add_argument("--matchup-only", type=float, metavar="SECONDS", help=argparse.SUPPRESS)
    parser.add_argument("--beside-floor", type=int, metavar="ROUNDS",
                        help="only expert vs greedy and examples/my_bot.py vs greedy, each in turn with the floor, "
                             "ROUNDS rounds (about 5 s each)")
    parser.add_argument("--run-overhead", type=int, metavar="ROUNDS",
                        help="only what canasta-sim run adds: the same games in-process, on 1 worker and on 2, "
                             "ROUNDS rounds in turn with the floor (scripts/bench_run.py)")
    args = parser.parse_args(argv)
    if args.run_overhead is not None:
        from bench_run import main as run_overhead

        return run_overhead(["--rounds", str(args.run_overhead), "--floor", str(args.floor),
                             *(["--games", str(args.games)] if args.games else [])])
    if args.beside_floor is not None:
        if args.beside_floor < 1:
            parser.error(f"--beside-floor takes a number of rounds of at least 1, not {args.beside_floor}")
        beside_floor_only(args.beside_floor, args.floor)
        return 0
    if args.matchup_only is not None:  # a child process of _matchup_children
        figures = matchup_in_process(DEFAULT_MATCHUP, args.matchup_only)
        print(json.dumps({**figures, "build": accelerator.describe()}))
        return 0
    figures = measure(args.quick, args.games, args.floor)
    rows = table_rows(figures)
    rows += isolation_rows(figures, rounds=1 if args.quick else 3)
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"figures written to {args.json}")
    return 0


def measure(quick: bool, games: int | None, floor_path: Path) -> dict:
    """Every figure but the isolation rows, with the floor before and after and each ratio to the floor."""
    seconds = 3.0 if quick else 10.0
    games = games or (400 if quick else 2000)
    cores = usable_cores()  # a container's CPU quota counted, as the run's default workers count it
    figures: dict = {
        "version": __version__,
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {cores} cores",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "cores": cores,
        "games": games,
    }
    floor_before = floor(seconds / 2, floor_path)
    figures["engine_random"] = engine_throughput(seconds)
    # The matchups in turn with the floor (about 3.3 s each way a round): their ratio is taken against floors
    # measured seconds from them, not minutes, as the two floors around the whole benchmark are.
    rounds = 3 if quick else 7
    figures["matchup_in_process"] = matchup_beside_floor(rounds, seconds / 3, floor_path)
    figures["user_bot_in_process"] = matchup_beside_floor(rounds, seconds / 3, floor_path, USER_BOT_MATCHUP)
    figures["build"] = accelerator.describe()
    figures["matchup_in_process_pure_python"] = matchup_pure_python(seconds)
    figures["matchup_side_by_side"] = matchup_side_by_side(seconds, cores)
    figures["pimc_playouts"] = pimc_playouts(seconds)
    one = figures["run_1_worker"] = run_command(games, 1, [])
    many = figures[f"run_{cores}_workers"] = run_command(games, cores, [])
    figures[f"run_{cores}_workers_small"] = run_command(max(100, games // 5), cores, [])
    figures["speedup"] = round(one["seconds"] / many["seconds"], 2)
    if not quick:
        figures["quick_start_10000"] = run_command(10_000, None, [])
        # The same 10000 games on one worker: the speed-up where start-up weighs least.
        figures["run_10000_1_worker"] = run_command(10_000, 1, [])
        figures["speedup_10000"] = round(
            figures["run_10000_1_worker"]["seconds"] / figures["quick_start_10000"]["seconds"], 2
        )
    floor_after = floor(seconds / 2, floor_path)
    floor_mean = (floor_before + floor_after) / 2
    figures["floor"] = {
        "hands_per_second_before": floor_before,
        "hands_per_second_after": floor_after,
        "hands_per_second": round(floor_mean, 1),
    }
    ratios = {
        "engine_random": figures["engine_random"]["hands_per_second"] / floor_mean,
        "matchup_in_process": figures["matchup_in_process"]["median_ratio"],
        "user_bot_in_process": figures["user_bot_in_process"]["median_ratio"],
        "matchup_in_process_pure_python": figures["matchup_in_process_pure_python"]["hands_per_second"] / floor_mean,
        "matchup_side_by_side": [
            rate / floor_mean for rate in figures["matchup_side_by_side"]["hands_per_second_each"]
        ],
    }
    figures["ratio_to_floor"] = {
        key: [round(value, 3) for value in values] if isinstance(values, list) else round(values, 3)
        for key, values in ratios.items()
    }
    return figures


def table_rows(figures: dict) -> list[tuple[str, str]]:
    """The printed table of :func:`measure`'s figures: a label and a value a row."""
    ratios, cores, games = figures["ratio_to_floor"], figures["cores"], figures["games"]
    floors = figures["floor"]
    one, many = figures["run_1_worker"], figures[f"run_{cores}_workers"]
    small = figures[f"run_{cores}_workers_small"]

    def ratio(value: float) -> str:
        return f"{value:.3f} of the floor"

    rows = [
        ("floor (scripts/floor.py), before, after",
         f"{floors['hands_per_second_before']:,.0f}, {floors['hands_per_second_after']:,.0f} hands/s"),
        ("engine, random players, 1 core", f"{figures['engine_random']['hands_per_second']:,.0f} hands/s, "
         f"{figures['engine_random']['decisions_per_second']:,.0f} decisions/s; "
         f"{ratio(ratios['engine_random'])}"),
        ("engine build", figures["build"]),
        ("expert vs greedy in-process, 1 core",
         f"{figures['matchup_in_process']['games_per_second']:.1f} games/s, "
         f"{figures['matchup_in_process']['hands_per_second']:,.0f} hands/s, in turn with the floor"),
        ("  its ratio to the floor beside it", _rounds_row(figures["matchup_in_process"])),
        ("  the same as plain Python",
         f"{figures['matchup_in_process_pure_python']['games_per_second']:.1f} games/s, "
         f"{figures['matchup_in_process_pure_python']['hands_per_second']:,.0f} hands/s; "
         f"{ratio(ratios['matchup_in_process_pure_python'])}"),
        (f"  {cores} of them at once, each", ", ".join(
            f"{rate:.1f}" for rate in figures["matchup_side_by_side"]["games_per_second_each"]) + " games/s; "
         + ", ".join(f"{value:.3f}" for value in ratios["matchup_side_by_side"]) + " of the floor"),
        ("a user's bot (examples/my_bot.py) vs greedy, 1 core",
         f"{figures['user_bot_in_process']['games_per_second']:.1f} games/s, "
         f"{figures['user_bot_in_process']['hands_per_second']:,.0f} hands/s, in turn with the floor"),
        ("  its ratio to the floor beside it",
         _rounds_row(figures["user_bot_in_process"]) + f"; goal {USER_BOT_GOAL:.2f}"),
        ("pimc sampled play-outs, 1 core", f"{figures['pimc_playouts']['playouts_per_second']:.1f} play-outs/s "
         f"(whole hands, expert policy; floor {figures['pimc_playouts']['floor_before']} -> "
         f"{figures['pimc_playouts']['floor_after']} hands/s)"),
        (f"canasta-sim run, 1 worker, {games} games",
         f"{one['games_per_second']:.1f} games/s ({one['seconds']:.1f} s)"),
        (f"canasta-sim run, {cores} workers, {games} games",
         f"{many['games_per_second']:.1f} games/s ({many['seconds']:.1f} s)"),
        (f"speed-up 1 -> {cores} workers", f"{figures['speedup']:.2f}x"),
        ("peak memory of a worker", f"{max(one['worker_peak_mb'], many['worker_peak_mb']):.0f} MB"),
        ("peak memory of the run's parent", f"{small['parent_peak_mb']:.0f} MB at {small['games']} games, "
                                            f"{many['parent_peak_mb']:.0f} MB at {many['games']} games"),
    ]
    if "quick_start_10000" in figures:
        full = figures["quick_start_10000"]
        rows.append(("canasta-sim run --games 10000 (defaults)",
                     f"{full['seconds']:.1f} s, {full['games_per_second_per_worker']:.1f} games/s per worker"))
        rows.append(("peak memory of its parent", f"{full['parent_peak_mb']:.0f} MB"))
        alone = figures["run_10000_1_worker"]
        rows.append(("the same on 1 worker", f"{alone['seconds']:.1f} s, speed-up {figures['speedup_10000']:.2f}x"))
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
