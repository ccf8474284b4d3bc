"""Check other Pythons as a user meets them: a fresh clone, its own venv, the quick start's install, the same games.

``python scripts/check_pythons.py PYTHON [PYTHON ...]`` (for instance
``/root/.pyenv/versions/3.12.1/bin/python3.12``) does, for each interpreter given:

* a fresh clone of this checkout's committed ``HEAD`` (uncommitted changes are not checked: commit them first);
* a venv made with that interpreter, and the README's install in it, compiled once without profiles
  (``CANASTA_SIM_PGO=0 pip install -e '.[dev]'``: the games are the same as the profile-guided build's);
* the tests that hold the games and their containment: the golden narrations (``tests/terminal/test_watch.py``), the
  rules' tests (``tests/rules``), the compiled and plain listings' equivalence (``tests/core/equivalence``), the
  built-ins' fingerprints (``tests/strategies/test_versions.py``), the sums that must add as on every Python, and the
  arbiter's containment (``tests/arbiter``);
* the move digests of ``--games`` games of expert against greedy (``scripts/differential.py``'s), and the games and
  hands tables of a ``canasta-sim run`` of expert, greedy and a cheap pimc, each compared with the same played here,
  by the interpreter running this script (CI's, Python 3.11).

It prints one line a step and exits 1 when any Python failed a step or played another game, naming it; 0 when every
one installed, passed and played the very games this one plays.  It takes minutes a Python (mostly the compile), so
it is a script, not a test, and CI, whose ten minutes hold one build, does not run it.  docs/install.md says which
Pythons it last checked.
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

from differential import first_table_difference  # scripts/differential.py's (this script's folder is on the path)

ROOT = Path(__file__).resolve().parent.parent

TESTS = ["tests/terminal/test_watch.py", "tests/rules", "tests/core/equivalence", "tests/strategies/test_versions.py",
         "tests/strategies/test_pimc_horizon.py", "tests/runs/test_sprt.py", "tests/arbiter"]
"""The games' tests and the containment's, run in each Python's clone."""
RUN_STRATEGIES = ["expert", "greedy", "pimc:samples=3,screen=2,width=2"]
"""The run's round robin: pimc's searches add floats, which Python 3.12 began to sum otherwise."""
STEP_TIMEOUT = 3600
"""Seconds any one step may take (a compile on a busy machine takes minutes)."""


def _step(command: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=STEP_TIMEOUT)


def _tail(completed: subprocess.CompletedProcess, lines: int = 15) -> str:
    return "\n".join((completed.stdout + completed.stderr).strip().splitlines()[-lines:])


def _plays(python: str, checkout: Path, out: Path, games: int, seed: int) -> tuple[list[str], str]:
    """The move digests of ``games`` games and a run's directory, played by ``python`` in ``checkout``; the
    errors' text when either failed (else empty)."""
    digests = _step([python, "scripts/differential.py", "--digests-only", str(games), "--seed", str(seed)], checkout)
    if digests.returncode != 0:
        return [], f"the move digests failed:\n{_tail(digests)}"
    command = [python, "-m", "canasta_sim", "run", "--games", str(games), "--seed", str(seed), "--workers", "2",
               "--out", str(out), "--quiet"]
    for spec in RUN_STRATEGIES:
        command += ["-s", spec]
    run = _step(command, checkout)
    if run.returncode != 0:
        return [], f"canasta-sim run failed:\n{_tail(run)}"
    return json.loads(digests.stdout)["digests"], ""


def _check(python: str, work: Path, reference: tuple[list[str], Path], games: int, seed: int) -> list[str]:
    """Every step for one interpreter; the failures in words (empty: it passed them all)."""
    clone = work / f"clone-{Path(python).name}"
    head = _step(["git", "rev-parse", "HEAD"], ROOT).stdout.strip()
    steps = [["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)],
             ["git", "-C", str(clone), "checkout", "--quiet", head], [python, "-m", "venv", str(clone / ".venv")]]
    for command in steps:
        completed = _step(command, work)
        if completed.returncode != 0:
            return [f"{' '.join(command[:2])} failed:\n{_tail(completed)}"]
    venv = str(clone / ".venv" / "bin" / "python")
    started = time.monotonic()
    install = _step([venv, "-m", "pip", "install", "-q", "-e", ".[dev]"], clone, {"CANASTA_SIM_PGO": "0"})
    if install.returncode != 0:
        return [f"the install failed:\n{_tail(install)}"]
    build = _step([venv, "-m", "canasta_sim", "--version"], clone)
    print(f"  installed in {time.monotonic() - started:.0f} s: {build.stdout.strip() or _tail(build)}", flush=True)
    failures = []
    tests = _step([venv, "-m", "pytest", "-p", "no:cacheprovider", *TESTS], clone)  # -q twice would hide the counts
    counts = [line for line in tests.stdout.splitlines() if " passed" in line or " failed" in line or " error" in line]
    print(f"  tests: {counts[-1].strip('= ') if counts else _tail(tests, 1)}", flush=True)
    if tests.returncode != 0:
        failures.append(f"the tests failed:\n{_tail(tests, 30)}")
    digests, error = _plays(venv, clone, work / f"run-{Path(python).name}", games, seed)
    if error:
        return [*failures, error]
    mine, run = reference
    differing = next((game for game, (one, other) in enumerate(zip(digests, mine, strict=True)) if one != other), None)
    if differing is not None:
        failures.append(f"game {differing} of expert vs greedy (seed derived from {seed}) differs in its moves")
    difference = first_table_difference(run, work / f"run-{Path(python).name}")
    if difference is not None:
        failures.append(f"the run's {difference}")
    if not failures:
        print(f"  the same games: {games} games' moves and the run's tables ({', '.join(RUN_STRATEGIES)})", flush=True)
    return failures


def main(argv: list[str] | None = None) -> int:
    """Check each Python given; print what was checked and exit 1 on any failure or difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pythons", nargs="+", metavar="PYTHON", help="an interpreter to check (its path or name)")
    parser.add_argument("--games", type=int, default=60, help="games of the move digests and of the run (default 60)")
    parser.add_argument("--seed", type=int, default=18, help="the seed of both (default 18)")
    parser.add_argument("--work", type=Path, help="folder for the clones and runs (default: a temporary one)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be a whole number of at least 1, not {args.games}")
    with tempfile.TemporaryDirectory() as temporary:
        work = (args.work or Path(temporary)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        here = f"Python {sys.version.split()[0]}"
        print(f"the reference: {here} ({sys.executable}), {args.games} games, seed {args.seed}", flush=True)
        digests, error = _plays(sys.executable, ROOT, work / "run-reference", args.games, args.seed)
        if error:
            print(f"check_pythons: the reference could not play: {error}", file=sys.stderr)
            return 1
        failed = []
        for python in args.pythons:
            print(f"{python}:", flush=True)
            failures = _check(python, work, (digests, work / "run-reference"), args.games, args.seed)
            for failure in failures:
                print(f"  FAILED: {failure}", flush=True)
            if failures:
                failed.append(python)
    if failed:
        print(f"check_pythons: {', '.join(failed)} failed a step or played other games than {here}", file=sys.stderr)
        return 1
    print(f"every Python given installed, passed the tests and played {here}'s games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
