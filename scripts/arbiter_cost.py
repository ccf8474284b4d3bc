"""What the arbiter's in-process guards cost: expert vs greedy, this tree against a baseline tree.

The baseline is another copy of canasta-sim's package (for instance an earlier commit, laid
out as an importable ``canasta_sim`` package); both are run in fresh processes, interleaved A B A B, and
with ``--callgrind`` also under valgrind's callgrind, whose instruction counts do not depend on how busy
the machine is.  Games and seeds are the same on both sides.

    git archive BASE_COMMIT sim strategies | tar -x -C /tmp/base
    mkdir -p /tmp/base/pkg && cp -r /tmp/base/sim /tmp/base/pkg/canasta_sim \\
        && cp -r /tmp/base/strategies /tmp/base/pkg/canasta_sim/strategies
    python scripts/arbiter_cost.py --baseline /tmp/base/pkg --games 30 --rounds 3 --callgrind 8
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLAY = """
import sys, time
from canasta_sim.core.engine import derive_seed, play_game
from canasta_sim.plugins.loader import load_strategy
games = int(sys.argv[1])
expert, greedy = load_strategy(sys.argv[2]), load_strategy("greedy")
start = time.perf_counter()
for game in range(games):
    seats = [expert, greedy] if game % 2 == 0 else [greedy, expert]
    play_game(seats * 2, seed=derive_seed(5, f"game{game}"))
print(time.perf_counter() - start)
"""


FIRST = "expert"
"""The strategy playing greedy: a built-in is trusted (not fingerprinted); ``--checked`` plays expert's own
code loaded from its file, as a user's strategy would be, so that every one of its calls is checked."""


def _environment(path: str | None) -> dict[str, str]:
    environment = dict(os.environ)
    if path:
        environment["PYTHONPATH"] = path
    return environment


def _seconds(path: str | None, games: int) -> float:
    output = subprocess.run([sys.executable, "-c", PLAY, str(games), FIRST], env=_environment(path), check=True,
                            capture_output=True, text=True, timeout=3600).stdout
    return float(output.split()[-1])


def _instructions(path: str | None, games: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/out", sys.executable, "-c", PLAY,
             str(games), FIRST], env=_environment(path), check=True, capture_output=True, text=True, timeout=7200,
        )
    return int(re.findall(r"Collected : (\d+)", result.stderr)[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="a folder holding the baseline's canasta_sim package")
    parser.add_argument("--games", type=int, default=30, help="games per timed process")
    parser.add_argument("--rounds", type=int, default=3, help="A B pairs of timed processes")
    parser.add_argument("--callgrind", type=int, default=0, metavar="GAMES",
                        help="also count instructions of this many games (and of none, to subtract start-up)")
    parser.add_argument("--checked", action="store_true",
                        help="play expert loaded from its file (an untrusted strategy, fingerprinted) against greedy")
    arguments = parser.parse_args()
    global FIRST
    if arguments.checked:
        FIRST = f"{Path(__file__).resolve().parent.parent / 'strategies' / 'expert.py'}:Expert"
    floor_script = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "floor.py"
    floor = subprocess.run([sys.executable, str(floor_script)], capture_output=True, text=True)
    if floor.returncode == 0:
        print(f"floor (pure-Python speed now): {floor.stdout.strip()}")
    ratios = []
    for _ in range(arguments.rounds):
        base = _seconds(arguments.baseline, arguments.games)
        this = _seconds(None, arguments.games)
        ratios.append(this / base)
        print(f"baseline {1000 * base / arguments.games:.2f} ms/game, this tree {1000 * this / arguments.games:.2f} "
              f"ms/game, ratio {this / base:.3f}")
    print(f"median time ratio {sorted(ratios)[len(ratios) // 2]:.3f}")
    if arguments.callgrind:
        started = time.monotonic()
        counts = {}
        for label, path in (("baseline", arguments.baseline), ("this tree", None)):
            counts[label] = _instructions(path, arguments.callgrind) - _instructions(path, 0)
            print(f"{label}: {counts[label] / arguments.callgrind / 1e6:.1f} M instructions per game")
        print(f"instruction ratio {counts['this tree'] / counts['baseline']:.3f} "
              f"({time.monotonic() - started:.0f} s under callgrind)")


if __name__ == "__main__":
    if not Path("/usr/bin/valgrind").exists() and "--callgrind" in sys.argv:
        sys.exit("valgrind is not installed; run without --callgrind")
    main()
