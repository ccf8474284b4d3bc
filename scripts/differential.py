"""Differential check: the compiled build and plain Python play the very same games.

``python scripts/differential.py`` (default 10,000 games; ``--games N`` for fewer) plays the same
games twice, once as installed (compiled) and once with every module run from its Python source
(``CANASTA_SIM_PURE_PYTHON=1``), each in its own process, and compares:

* every table of a ``canasta-sim run`` (the ``games`` and ``hands`` Parquet tables, row by row), for
  the strategies given with ``-s`` (default: the round robin of expert, greedy and random);
* every move of every game: a digest of each game's moves in order (seat, move text and the card ids
  drawn), for the default matchup expert vs greedy, played in-process with an observer.

It exits 0 when everything is identical and 1, naming the first difference, when not.  It is a
benchmark-sized check, not a test: ten thousand games take minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PURE_PYTHON_VARIABLE = "CANASTA_SIM_PURE_PYTHON"  # canasta_sim.core._compiled.accelerator.PURE_PYTHON_VARIABLE


def move_digests(games: int, seed: int) -> dict:
    """Play ``games`` games of expert vs greedy (sides alternated) here; a digest of each game's moves."""
    from canasta_sim.core._compiled import accelerator
    from canasta_sim.core.engine import GameObserver, derive_seed, play_game
    from canasta_sim.plugins.loader import load_strategy

    class Recorder(GameObserver):
        def __init__(self) -> None:
            self.digest = hashlib.blake2b(digest_size=16)

        def on_hand_end(self, state, result) -> None:
            for seat, move, drawn in state.history:
                self.digest.update(f"{seat} {move} {drawn}\n".encode())
            self.digest.update(f"= {result.totals_after}\n".encode())

    expert, greedy = load_strategy("expert"), load_strategy("greedy")
    digests = []
    for game in range(games):
        first, second = (expert, greedy) if game % 2 == 0 else (greedy, expert)
        recorder = Recorder()
        play_game([first, second, first, second], seed=derive_seed(seed, f"game{game}"), observer=recorder)
        digests.append(recorder.digest.hexdigest())
    return {"build": accelerator.describe(), "digests": digests}


def _child_digests(games: int, seed: int, pure: bool) -> dict:
    env = {**os.environ, PURE_PYTHON_VARIABLE: "1" if pure else "0"}
    command = [sys.executable, __file__, "--digests-only", str(games), "--seed", str(seed)]
    completed = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=24 * 3600)
    if completed.returncode != 0:
        raise SystemExit(f"differential: the move digests failed:\n{completed.stderr.strip()}")
    return json.loads(completed.stdout)


def _run(out: Path, games: int, seed: int, specs: list[str], workers: int | None, pure: bool) -> str:
    env = {**os.environ, PURE_PYTHON_VARIABLE: "1" if pure else "0"}
    command = [sys.executable, "-m", "canasta_sim", "run", "--games", str(games), "--seed", str(seed),
               "--out", str(out), "--quiet"]
    if workers is not None:
        command += ["--workers", str(workers)]
    for spec in specs:
        command += ["-s", spec]
    completed = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=24 * 3600)
    if completed.returncode != 0:
        raise SystemExit(f"differential: {' '.join(command)} failed:\n{completed.stderr.strip()}")
    return json.loads((out / "run.json").read_text())["sessions"][0]["build"]


def first_table_difference(left: Path, right: Path) -> str | None:
    """The first way the games and hands tables of two run folders differ, in words; ``None`` when they are equal
    row by row."""
    import pandas as pd

    keys = {"games": ["game_id"], "hands": ["game_id", "hand_no", "team"]}
    for table, columns in keys.items():
        mine = pd.read_parquet(left / table).sort_values(columns).reset_index(drop=True)
        theirs = pd.read_parquet(right / table).sort_values(columns).reset_index(drop=True)
        try:
            pd.testing.assert_frame_equal(mine, theirs)
        except AssertionError as error:
            return f"the {table} tables differ: {error}"
    return None


def main(argv: list[str] | None = None) -> int:
    """Compare compiled and plain Python; print what was compared and exit 1 on any difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per comparison (default 10000)")
    parser.add_argument("--seed", type=int, default=18, help="run seed (default 18)")
    parser.add_argument("-s", "--strategy", action="append", dest="specs", help="strategies of the run tables")
    parser.add_argument("--workers", type=int, help="workers of each run (default: the run's own)")
    parser.add_argument("--digests-only", type=int, metavar="GAMES", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be a whole number of at least 1, not {args.games}")
    if args.digests_only is not None:  # a child process of _child_digests
        print(json.dumps(move_digests(args.digests_only, args.seed)))
        return 0
    specs = args.specs or ["expert", "greedy", "random"]
    start = time.perf_counter()
    compiled = _child_digests(args.games, args.seed, pure=False)
    plain = _child_digests(args.games, args.seed, pure=True)
    print(f"moves of {args.games} games of expert vs greedy: {compiled['build']} against {plain['build']}")
    if not compiled["build"].startswith("compiled"):
        print("differential: the installed build is not compiled, so there is nothing to compare", file=sys.stderr)
        return 1
    for game, (mine, theirs) in enumerate(zip(compiled["digests"], plain["digests"], strict=True)):
        if mine != theirs:
            print(f"differential: game {game} (seed derived from {args.seed}) differs in its moves", file=sys.stderr)
            return 1
    print(f"  identical: all {args.games} games, move by move")
    with tempfile.TemporaryDirectory() as directory:
        left, right = Path(directory) / "compiled", Path(directory) / "plain"
        builds = (_run(left, args.games, args.seed, specs, args.workers, pure=False),
                  _run(right, args.games, args.seed, specs, args.workers, pure=True))
        strategies = " -s ".join(specs)
        print(f"tables of canasta-sim run --games {args.games} -s {strategies}: {builds[0]} against {builds[1]}")
        difference = first_table_difference(left, right)
        if difference is not None:
            print(f"differential: {difference}", file=sys.stderr)
            return 1
    print(f"  identical: the games and hands tables, row by row ({time.perf_counter() - start:.0f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
