"""Instructions per hand of expert vs greedy and of the floor, counted by valgrind.

``python scripts/instructions.py`` (about a minute; ``--games N``, default 10) runs, each under
``valgrind --tool=callgrind`` in a child process:

* ``--games`` games of expert (or ``--bot SPEC``, e.g. ``examples/my_bot.py:MyBot``) vs greedy in-process,
  as installed or as plain Python (``--pure``), seeds
  2,000,000 on, sides alternated, as ``scripts/bench.py`` plays them.  When the engine is compiled,
  only the instructions inside ``play_game`` are counted (callgrind's ``--toggle-collect`` on its C
  function).  As plain Python ``play_game`` has no C function of its own, so the same process with no
  game is counted too and subtracted (the interpreter's start-up and the imports);
* ``--floor-hands`` hands of the floor's hand loop (``scripts/floor.py``), minus the same with none.

It prints the instructions per hand of each and their ratio, the matchup's hands per second as a
share of the floor's by instruction count.  Instruction counts do not depend on the machine's load, so
this ratio is stable where ``scripts/bench.py``'s clock ratio is not; it is a ratio of instructions, not
of times (instructions per cycle differ between the two loops).  ``--out DIR`` keeps the callgrind
files for ``callgrind_annotate``.

Why inside ``play_game``: with ``PYTHONDONTWRITEBYTECODE`` set, as on some machines, every process
parses its sources at start-up, and that count wobbles from run to run by more than a change to the
engine moves a hand's; the subtraction then reads noise.  Counting inside the game leaves start-up out.

``--monitor`` plays as a run's worker does, with every call into strategy code published in a
shared-memory monitor (what the supervisor reads to charge a crash or a hang to a seat): its cost.

``--cache`` also simulates the caches and branch predictors (callgrind's ``--cache-sim=yes
--branch-sim=yes``, several times slower) and prints, per hand of each, the misses of the first-level
instruction and data caches and the mispredicted branches: why a hand of the matchup costs more time
per instruction than a hand of the floor.  Simulated, not measured: valgrind's caches are modelled on
the host's sizes, and its indirect-branch predictor is simpler than a real one's.
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
PURE_PYTHON_VARIABLE = "CANASTA_SIM_PURE_PYTHON"  # canasta_sim.core._compiled.accelerator.PURE_PYTHON_VARIABLE

_MATCHUP = """
import sys
from canasta_sim.core.engine import play_game
from canasta_sim.plugins.loader import load_strategy
expert, greedy = load_strategy(sys.argv[2]), load_strategy("greedy")
from canasta_sim.core._compiled import accelerator
monitor = None
if sys.argv[3:] == ["monitor"]:  # as a run's worker plays: every call published in shared memory
    import multiprocessing
    from canasta_sim.arbiter import MONITOR_SIZE
    monitor = memoryview(multiprocessing.RawArray("d", MONITOR_SIZE)).cast("B").cast("d")
# The collector's debt from the imports is settled before the games: otherwise whether a full collection falls inside
# them depends on how many objects the imports made, and a change to start-up alone moved a hand by 2%.
import gc
gc.collect()
hands = 0
for game in range(int(sys.argv[1])):
    first, second = (expert, greedy) if game % 2 == 0 else (greedy, expert)
    hands += len(play_game([first, second, first, second], seed=2_000_000 + game, monitor=monitor).hands)
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


CACHE_EVENTS = {"I1mr": "instruction cache misses", "D1mr": "data cache read misses",
                "D1mw": "data cache write misses", "Bcm": "conditional branches mispredicted",
                "Bim": "indirect branches mispredicted"}
"""callgrind's event names under ``--cache-sim=yes --branch-sim=yes``, and what each counts."""


PLAY_GAME_FUNCTION = "__pyx_pw_11canasta_sim_4core_6engine_*play_game"
"""The C function of the compiled ``play_game`` (Cython's name for it, numbered by its place in the module)."""


def _engine_compiled(pure: bool) -> bool:
    """Whether the child's ``canasta_sim.core.engine`` is the compiled module."""
    if pure:
        return False
    probe = "import importlib.machinery, canasta_sim.core.engine as e; " \
            "print(e.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)))"
    completed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=300)
    if completed.returncode != 0:
        raise SystemExit(f"instructions: cannot import canasta_sim.core.engine:\n{completed.stderr.strip()[-2000:]}")
    return completed.stdout.strip() == "True"


def _count(code: str, arguments: list[str], out: Path, pure: bool = False, cache: bool = False,
           inside: str | None = None):
    """(events, the number the child printed last, its first line) of ``python -c code arguments``.

    ``events`` maps callgrind's event names (``Ir``: instructions; with ``cache`` also ``CACHE_EVENTS``)
    to their totals; with ``inside`` (a C function's name, wildcards allowed), counted only inside it.
    """
    simulation = ["--cache-sim=yes", "--branch-sim=yes"] if cache else []
    toggle = [] if inside is None else ["--collect-atstart=no", f"--toggle-collect={inside}"]
    command = ["valgrind", "--tool=callgrind", *simulation, *toggle, f"--callgrind-out-file={out}",
               sys.executable, "-c", code, *arguments]
    # A fixed hash seed: string hashes and set orders then cost the same instructions in every run.
    environment = {**os.environ, "PYTHONHASHSEED": "0"}
    if pure:
        environment[PURE_PYTHON_VARIABLE] = "1"
    completed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=environment, timeout=3600)
    if completed.returncode != 0:
        raise SystemExit(f"instructions: {' '.join(command[:4])} failed:\n{completed.stderr.strip()[-2000:]}")
    text = out.read_text(errors="replace")
    names = re.search(r"^events: (.+)$", text, re.MULTILINE)
    totals = re.search(r"^(?:summary|totals): (.+)$", text, re.MULTILINE)
    if names is None or totals is None:
        raise SystemExit(f"instructions: no event totals in {out}")
    events = dict(zip(names.group(1).split(), map(int, totals.group(1).split()), strict=False))
    lines = completed.stdout.splitlines()
    return events, int(lines[-1]), lines[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games of expert vs greedy (default 10)")
    parser.add_argument("--bot", default="expert", metavar="SPEC",
                        help="the strategy played against greedy (default expert; e.g. examples/my_bot.py:MyBot)")
    parser.add_argument("--floor-hands", type=int, default=100, help="hands of the floor (default 100)")
    parser.add_argument("--out", type=Path, default=None, help="keep the callgrind files in this folder")
    parser.add_argument("--pure", action="store_true",
                        help="run every module from its Python source (CANASTA_SIM_PURE_PYTHON=1)")
    parser.add_argument("--monitor", action="store_true",
                        help="play as a run's worker does, publishing every call in a shared-memory monitor")
    parser.add_argument("--cache", action="store_true",
                        help="also simulate the caches and branch predictors (slower) and print their misses")
    args = parser.parse_args(argv)
    if args.games < 1 or args.floor_hands < 1:
        parser.error(f"--games and --floor-hands take at least 1, not {args.games} and {args.floor_hands}")
    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="instructions-")) if args.out is None else args.out
    folder.mkdir(parents=True, exist_ok=True)
    floor_path = str(ROOT / "scripts" / "floor.py")
    inside = PLAY_GAME_FUNCTION if _engine_compiled(args.pure) else None
    mode = ["monitor"] if args.monitor else []
    games, hands, build = _count(_MATCHUP, [str(args.games), args.bot, *mode], folder / "callgrind.matchup", args.pure,
                                 args.cache, inside)
    if inside is None:
        games_base, _, _ = _count(_MATCHUP, ["0", args.bot, *mode], folder / "callgrind.matchup-base", args.pure,
                                  args.cache)
    else:
        games_base = {}
    floor, floor_hands, _ = _count(_FLOOR, [str(args.floor_hands), floor_path], folder / "callgrind.floor",
                                   cache=args.cache)
    floor_base, _, _ = _count(_FLOOR, ["0", floor_path], folder / "callgrind.floor-base", cache=args.cache)

    def per_hand(total: dict[str, int], base: dict[str, int], count: int, event: str) -> float:
        return (total.get(event, 0) - base.get(event, 0)) / count

    matchup_instructions = per_hand(games, games_base, hands, "Ir")
    floor_instructions = per_hand(floor, floor_base, floor_hands, "Ir")
    if matchup_instructions <= 0:
        raise SystemExit(f"instructions: nothing was counted inside {PLAY_GAME_FUNCTION}; has the compiled "
                         "play_game's C name changed (nm the engine's .so)?")
    print(f"build                          {build}")
    print("counted                        " + ("inside play_game" if inside else "the process, less its start-up"))
    print("monitor                        " + ("published, as in a run's worker" if args.monitor else "none"))
    print(f"{args.bot + ' vs greedy':<30} {args.games} games, {hands} hands, "
          f"{matchup_instructions / 1e6:.3f} million instructions a hand")
    print(f"floor                          {floor_hands} hands, "
          f"{floor_instructions / 1e6:.3f} million instructions a hand")
    print(f"share of the floor             {floor_instructions / matchup_instructions:.3f} (by instruction count)")
    if args.cache:
        print(f"simulated, a hand                 {args.bot + ' vs greedy':<23} floor   (per 1,000 instructions)")
        for event, meaning in CACHE_EVENTS.items():
            matchup = per_hand(games, games_base, hands, event)
            floor_value = per_hand(floor, floor_base, floor_hands, event)
            print(f"  {meaning:<36} {matchup:>9,.0f} ({1000 * matchup / matchup_instructions:4.1f})"
                  f" {floor_value:>9,.0f} ({1000 * floor_value / floor_instructions:4.1f})")
    if args.out is None:
        shutil.rmtree(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
