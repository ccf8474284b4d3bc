"""Whether a long ``canasta-sim run`` stays flat: memory and CPU per game early against late, and what it leaves.

Run ``python scripts/bench_scale.py`` (100,000 games of greedy against random, the fastest matchup of the docs, on
two workers, into a temporary directory), or give the run's own options after ``--``::

    python scripts/bench_scale.py --games 100000 -- -s expert -s greedy --seed 2024

Every ``--every`` seconds it reads, from ``/proc``, the resident memory of the run's parent and of each worker and
the CPU seconds each has used, and ``games_done`` from ``run.json``.  It prints a line per tenth of the run's games:
the memory, and the parent's and the workers' CPU milliseconds per game over that tenth.  CPU per game depends far
less on the machine's other work than wall time does, so the first tenth against the last says whether the run
slows down as it grows, on a busy machine too; memory must stay flat, not grow with the games.  At the end it
prints the Parquet parts and their size on disk per 1,000 games, ``run.json``'s size, and the CPU seconds and peak
memory of every reader of the finished run, each in a process of its own: ``canasta-sim report`` in every format,
``canasta-sim plot`` and ``canasta_sim.analysis.load_run`` (whole, and with only a few columns).

``--readers RUN_DIR`` measures the readers alone on a run made before (the run is not played again)::

    python scripts/bench_scale.py --readers results/big
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def resident_mb(pid: int) -> float | None:
    """The process's resident memory in MB, or ``None`` once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds the process has used (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime and stime, fields 14 and 15 of stat(5)


def children(pid: int) -> list[int]:
    """The process's child processes: the run's workers."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as listed:
            return [int(child) for child in listed.read().split()]
    except OSError:
        return []


def games_done(out: Path) -> int:
    """``games_done`` of the run's ``run.json`` (rewritten every two seconds while it runs); 0 before it exists."""
    try:
        return int(json.loads((out / "run.json").read_text(encoding="utf-8"))["games_done"])
    except (OSError, ValueError, KeyError):
        return 0


def _megabytes(size: float | None) -> str:
    return "ended" if size is None else f"{size:.0f}"


def watch(command: list[str], out: Path, games: int, every: float) -> None:
    """Run ``command`` and print a line per tenth of ``games``."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    worker_cpu: dict[int, float] = {}
    marks = [games * tenth // 10 for tenth in range(1, 11)]
    last_games, last_parent, last_workers = 0, 0.0, 0.0
    print(f"{'games':>8} {'parent MB':>10} {'workers MB':>16} {'parent ms/game':>15} {'workers ms/game':>16}")
    while process.poll() is None:
        time.sleep(every)
        for worker in children(process.pid):
            worker_cpu[worker] = max(worker_cpu.get(worker, 0.0), cpu_seconds(worker))
        done = games_done(out)
        if not marks or done < marks[0]:
            continue
        while marks and done >= marks[0]:
            marks.pop(0)
        parent, workers = cpu_seconds(process.pid), sum(worker_cpu.values())
        played = max(done - last_games, 1)
        sizes = [_megabytes(resident_mb(worker)) for worker in children(process.pid)]
        print(f"{done:8d} {_megabytes(resident_mb(process.pid)):>10} {' '.join(sizes) or 'ended':>16} "
              f"{1000 * (parent - last_parent) / played:15.3f} {1000 * (workers - last_workers) / played:16.3f}",
              flush=True)
        last_games, last_parent, last_workers = done, parent, workers
    if process.returncode:
        sys.exit(f"the run ended with exit code {process.returncode}")


def measured(command: list[str]) -> str:
    """``command``'s CPU seconds and peak resident memory, from the kernel's account of the finished process."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if status:
        return f"failed (wait status {status})"
    return f"{usage.ru_utime + usage.ru_stime:.1f} s of CPU, peak {usage.ru_maxrss / 1024:.0f} MB"


LOADS = {
    "load_run, every column": "load_run(path)",
    "load_run, one games and two hands columns": "load_run(path, games_columns='winner', "
                                                 "hands_columns=['score', 'pile_takes'])",
    "load_run, the first strategy's games": "load_run(path, strategies=first_strategy(path))",
}
"""The notebook loads measured, each a Python expression of ``path`` (in a head-to-head run the first strategy
played every game: the last load holds the whole run; in a round robin of three, two thirds of it)."""

_LOAD_PROGRAM = """
import json, sys
from canasta_sim.analysis import load_run
path = sys.argv[1]
def first_strategy(path):
    with open(path + "/run.json", encoding="utf-8") as manifest:
        return json.load(manifest)["strategies"][0]["spec"]
{expression}
"""


def measure_readers(out: Path, scratch: Path) -> None:
    """Print the CPU seconds and peak memory of every reader of the run in ``out``, each in a process of its own."""
    tool = [sys.executable, "-m", "canasta_sim"]
    for style in ("text", "markdown", "csv", "json", "html"):
        print(f"report --format {style}: "
              f"{measured([*tool, 'report', str(out), '--format', style, '-o', str(scratch / f'report.{style}')])}")
    print(f"plot: {measured([*tool, 'plot', str(out), '--out', str(scratch / 'plots')])}")
    for what, expression in LOADS.items():
        program = _LOAD_PROGRAM.format(expression=expression)
        print(f"{what}: {measured([sys.executable, '-c', program, str(out)])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between readings")
    parser.add_argument("--out", type=Path, default=None, help="the run directory (default: a temporary one)")
    parser.add_argument("--readers", type=Path, default=None, metavar="RUN_DIR",
                        help="only measure the readers of this run, made before")
    parser.add_argument("run_options", nargs="*", help="options of canasta-sim run, after --")
    arguments = parser.parse_args()
    if arguments.readers is not None:
        with tempfile.TemporaryDirectory(prefix="bench-scale-") as scratch:
            measure_readers(arguments.readers, Path(scratch))
        return
    run_options = arguments.run_options or ["-s", "greedy", "-s", "random", "--seed", "5"]
    tool = [sys.executable, "-m", "canasta_sim"]
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as scratch:
        out = arguments.out or Path(scratch) / "run"
        watch([*tool, "run", "--games", str(arguments.games), "--workers", str(arguments.workers), "-q",
               "--out", str(out), *run_options], out, arguments.games, arguments.every)
        for dataset in ("games", "hands"):
            parts = list((out / dataset).glob("part-*.parquet"))
            size = sum(part.stat().st_blocks * 512 for part in parts)
            print(f"{dataset}: {len(parts)} parts, {size / 2**20:.1f} MB on disk, "
                  f"{size / 2**20 / arguments.games * 1000:.3f} MB per 1,000 games")
        print(f"run.json: {(out / 'run.json').stat().st_size} bytes")
        measure_readers(out, Path(scratch))


if __name__ == "__main__":
    main()
