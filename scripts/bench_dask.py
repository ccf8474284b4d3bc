"""Local against Dask throughput of ``canasta-sim run``, measured on this machine.

Run ``python scripts/bench_dask.py`` (about a minute and a half on a 2-core machine with the defaults).
For each backend it runs the same command line (``--games 1000 --seed 2024 -s greedy -s random
--workers 2`` by default) ``--repeats`` times, alternating the backends so that load from other
processes falls on both alike, and reports:

* the wall time of the whole command (interpreter start, cluster start-up and shutdown included) and
  its games per second;
* the games per second ``canasta-sim run`` itself prints (playing and writing, cluster start-up
  included, interpreter start excluded);

and checks that every run's tables equal the first local run's.  With ``--scheduler tcp://HOST:PORT``
it measures that cluster too.  Nothing is copied in: every figure comes from this run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

RATE = re.compile(r"played now in ([0-9.]+) s, ([0-9.]+) games/s")


def run_once(arguments: list[str], out: Path) -> tuple[float, float, float]:
    """Run ``canasta-sim run`` once; return its wall time, its printed time and its printed games per second."""
    if out.exists():
        shutil.rmtree(out)
    command = [sys.executable, "-m", "canasta_sim", "run", *arguments, "--out", str(out), "-q"]
    started = time.monotonic()
    finished = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    if finished.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({finished.returncode}): {finished.stderr.strip()}")
    found = RATE.search(finished.stdout)
    if found is None:
        raise SystemExit(f"no games/s line in the output of {' '.join(command)}: {finished.stdout}")
    return wall, float(found.group(1)), float(found.group(2))


def tables(path: Path) -> list[pd.DataFrame]:
    """The run's two tables in a fixed order."""
    games = pd.read_parquet(path / "games").sort_values("game_id").reset_index(drop=True)
    hands = pd.read_parquet(path / "hands").sort_values(["game_id", "hand_no", "team"]).reset_index(drop=True)
    return [games, hands]


def main() -> None:
    """Measure and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scheduler", default=None, help="also measure this running cluster")
    options = parser.parse_args()

    common = ["--games", str(options.games), "--seed", str(options.seed), "-s", "greedy", "-s", "random"]
    backends = {
        "local": [*common, "--workers", str(options.workers)],
        "dask (local cluster)": [*common, "--workers", str(options.workers), "--backend", "dask"],
    }
    if options.scheduler:
        backends[f"dask ({options.scheduler})"] = [*common, "--scheduler", options.scheduler]
    figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in backends}
    with tempfile.TemporaryDirectory(prefix="bench-dask-") as folder:
        reference = None
        for repeat in range(options.repeats):
            for index, (name, arguments) in enumerate(backends.items()):
                out = Path(folder) / f"run-{index}"
                figures[name].append(run_once(arguments, out))
                if reference is None:
                    reference = Path(folder) / "reference"
                    shutil.copytree(out, reference)
                else:
                    for mine, theirs in zip(tables(out), tables(reference), strict=True):
                        pd.testing.assert_frame_equal(mine, theirs)
                wall, inside, rate = figures[name][-1]
                print(f"repeat {repeat + 1}: {name}: {wall:.1f} s wall, {inside:.1f} s in run, {rate:.1f} games/s",
                      file=sys.stderr)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"canasta-sim run {' '.join(common)} (median of {options.repeats}; {os.cpu_count()} cores, "
          f"load average {load:.1f}); every run's tables equal")
    print(f"{'backend':30} {'wall s':>7} {'games/s (wall)':>15} {'run s':>6} {'games/s (run)':>14}")
    for name, rows in figures.items():
        wall = statistics.median(row[0] for row in rows)
        inside = statistics.median(row[1] for row in rows)
        print(f"{name:30} {wall:7.1f} {options.games / wall:15.1f} {inside:6.1f} {options.games / inside:14.1f}")


if __name__ == "__main__":
    main()
