"""Instructions per hand of expert vs greedy and of the floor, counted by valgrind (issue #18).

``python scripts/instructions.py`` (about a minute; ``--games N``, default 10) runs, each under
``valgrind --tool=callgrind`` in a child process:

* ``--games`` games of expert vs greedy in-process, as installed or as plain Python (``--pure``), seeds
  2,000,000 on, sides alternated, as ``scripts/bench.py`` plays them; and the same process with no
  game, whose count is subtracted (the interpreter's start-up and the imports);
* ``--floor-hands`` hands of the floor's hand loop (``scripts/floor.py``), minus the same with none.

It prints the instructions per hand of each and their ratio, the matchup's hands per second as a
share of the floor's by instruction count.  Instruction counts do not depend on the machine's load, so
this ratio is stable where ``scripts/bench.py``'s clock ratio is not; it is a ratio of instructions, not
of times (instructions per cycle differ between the two loops).  ``--out DIR`` keeps the callgrind
files for ``callgrind_annotate``.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PURE_PYTHON_VARIABLE = "CANASTA_SIM_PURE_PYTHON"  # canasta_sim.accelerator.PURE_PYTHON_VARIABLE

_MATCHUP = """
import sys
from canasta_sim.engine import play_game
from canasta_sim.loader import load_strategy
expert, greedy = load_strategy("expert"), load_strategy("greedy")
from canasta_sim import accelerator
hands = 0
for game in range(int(sys.argv[1])):
    first, second = (expert, greedy) if game % 2 == 0 else (greedy, expert)
    hands += len(play_game([first, second, first, second], seed=2_000_000 + game).hands)
print(accelerator.describe())
print(hands)
"""

_FLOOR = """
import random, sys
count = int(sys.argv[1])
source = open(sys.argv[2]).read()
sys.argv[1:] = ["0"]  # the floor's timed loop runs for no time: only its functions are wanted
namespace = {"__name__": "floor"}
exec(compile(source, sys.argv[0], "exec"), namespace)
rng = random.Random(1)
for _ in range(count):
    namespace["play_hand"](rng)
print(count)
"""


def _count(code: str, arguments: list[str], out: Path, pure: bool = False) -> tuple[int, int, str]:
    """(instructions, the number the child printed last, its first line) of ``python -c code arguments``."""
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", code, *arguments]
    # A fixed hash seed: string hashes and set orders then cost the same instructions in every run.
    environment = {**os.environ, "PYTHONHASHSEED": "0"}
    if pure:
        environment[PURE_PYTHON_VARIABLE] = "1"
    completed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=environment, timeout=3600)
    if completed.returncode != 0:
        raise SystemExit(f"instructions: {' '.join(command[:4])} failed:\n{completed.stderr.strip()[-2000:]}")
    match = re.search(r"^(?:summary|totals): (\d+)", out.read_text(errors="replace"), re.MULTILINE)
    if match is None:
        raise SystemExit(f"instructions: no instruction total in {out}")
    lines = completed.stdout.splitlines()
    return int(match.group(1)), int(lines[-1]), lines[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games of expert vs greedy (default 10)")
    parser.add_argument("--floor-hands", type=int, default=100, help="hands of the floor (default 100)")
    parser.add_argument("--out", type=Path, default=None, help="keep the callgrind files in this folder")
    parser.add_argument("--pure", action="store_true",
                        help="run every module from its Python source (CANASTA_SIM_PURE_PYTHON=1)")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="instructions-")) if args.out is None else args.out
    folder.mkdir(parents=True, exist_ok=True)
    floor_path = str(ROOT / "scripts" / "floor.py")
    games_total, hands, build = _count(_MATCHUP, [str(args.games)], folder / "callgrind.matchup", args.pure)
    games_base, _, _ = _count(_MATCHUP, ["0"], folder / "callgrind.matchup-base", args.pure)
    floor_total, floor_hands, _ = _count(_FLOOR, [str(args.floor_hands), floor_path], folder / "callgrind.floor")
    floor_base, _, _ = _count(_FLOOR, ["0", floor_path], folder / "callgrind.floor-base")
    per_hand = (games_total - games_base) / hands
    floor_per_hand = (floor_total - floor_base) / floor_hands
    print(f"build                          {build}")
    print(f"expert vs greedy               {args.games} games, {hands} hands, "
          f"{per_hand / 1e6:.3f} million instructions a hand")
    print(f"floor                          {floor_hands} hands, {floor_per_hand / 1e6:.3f} million instructions a hand")
    print(f"share of the floor             {floor_per_hand / per_hand:.3f} (by instruction count)")
    if args.out is None:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
