"""Check the oldest dependencies ``pyproject.toml`` admits, as a user installing into an environment that holds them.

``pip install`` takes each dependency's newest release, so the lower bounds of ``pyproject.toml`` (``numpy>=1.26``,
``click>=8.1``, ...) are promises nobody's install checks: a lab's shared environment, a distribution's packages or a
pinned requirements file may hold exactly them.  ``python scripts/check_oldest_deps.py`` does:

* a fresh clone of this checkout's committed ``HEAD`` (uncommitted changes are not checked: commit them first);
* a venv of this interpreter, and canasta-sim installed in it under constraints pinning each runtime dependency to the
  lowest release the index offers this Python at or above its lower bound (``numpy==1.26.0``, ...: the pins are
  printed; a bound's own release may be missing, as setuptools 77.0.0 is), compiled once without profiles; the
  versions installed are checked against the pins;
* what a user runs there: ``run``, whose games and hands tables must equal, row by row, the same run played by the
  interpreter running this script (its own, newest, versions: a game is a pure function of its rules, seed and
  strategies, whatever a dependency's version), then ``report`` (text and HTML), ``plot``, ``replay``, ``watch``,
  ``check-strategy``, ``compare``, a small ``tune`` and a mistyped command, each of which must exit as expected with
  no traceback;
* the ``dev`` extra's tools added under the same pins, where the extra asks no newer one (it asks ``click>=8.2.1``
  for click's test runner, as ``pyproject.toml`` says), and the games' and the arbiter's tests
  (``scripts/check_pythons.py``'s list), the command line's errors and the docs' typed examples run there.
  ``--dev-lowest`` pins the ``dev`` extra's tools to their own lowest releases too, as a contributor's oldest
  environment.

It prints one line a step and exits 1 when a step failed or the tables differ, naming it; 0 when all passed.  It takes
minutes (mostly the compile), so it is a script, not a test.  docs/install.md says when it last passed.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from check_pythons import TESTS, _step, _tail  # scripts/check_pythons.py's (this script's folder is on the path)
from differential import first_table_difference
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parent.parent

_REQUIREMENT = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*>=\s*(?P<lowest>[0-9][^,;\s]*)")
"""A requirement whose only bound is a lower one (``numpy>=1.26``, ``dask[distributed]>=2024.1``)."""

OLDEST_TESTS = [*TESTS, "tests/cli/test_cli_commands.py", "tests/test_typed_examples.py"]
"""check_pythons.py's tests, the command line's errors (whose words and exit codes click gives) and the docs' examples
under mypy (whose numpy stubs type an array otherwise before 2.0)."""
RUN_STRATEGIES = ["expert", "greedy", "pimc:samples=3,screen=2,width=2"]
"""The run's round robin: pimc's searches add floats in numpy-free Python; expert and greedy are the defaults."""


def lowest_pins(requirements: list[str]) -> dict[str, str]:
    """Each requirement's name (lower case) and its lower bound; ``ValueError`` naming a requirement that has none or
    has another bound beside it (its lowest release could then not be told from the text)."""
    pins = {}
    for requirement in requirements:
        found = _REQUIREMENT.fullmatch(requirement.strip())
        if found is None:
            raise ValueError(f"{requirement!r} has no lower bound alone (name>=VERSION) to pin")
        pins[found["name"].lower()] = found["lowest"]
    return pins


def lowest_release(name: str, bound: str, available: list[str]) -> str:
    """The lowest of the ``available`` releases of ``name`` at or above ``bound``, pre-releases left out;
    ``ValueError`` when there is none."""
    releases = []
    for text in available:
        try:
            version = Version(text)
        except InvalidVersion:  # a release of the old days whose number PEP 440 cannot read: never the lowest
            continue
        if not version.is_prerelease and version >= Version(bound):
            releases.append(version)
    if not releases:
        raise ValueError(f"no release of {name} at or above {bound} is offered to this Python")
    return str(min(releases))


def _released(python: str, name: str) -> list[str]:
    """The releases of ``name`` the index offers ``python`` (``pip index versions``): those with a file it can
    install."""
    listed = _step([python, "-m", "pip", "index", "versions", name], ROOT)
    line = next((line for line in listed.stdout.splitlines() if line.startswith("Available versions:")), "")
    return [text.strip() for text in line.partition(":")[2].split(",") if text.strip()]


def _resolved(python: str, bounds: dict[str, str]) -> dict[str, str]:
    return {name: lowest_release(name, bound, _released(python, name)) for name, bound in bounds.items()}


def constraints(pyproject: Path, dev_lowest: bool = False) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """The runtime dependencies' pins, the pins the ``dev`` extra's tools install under (the runtime's, raised where
    the extra asks a newer release of the same package; with ``dev_lowest`` also each tool's own lower bound) and the
    ``dev`` extra's requirements."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    runtime = lowest_pins(project["dependencies"])
    dev = project["optional-dependencies"]["dev"]
    contributor = dict(runtime)
    for name, lowest in lowest_pins(dev).items():
        if name in runtime or dev_lowest:
            contributor[name] = lowest
    return runtime, contributor, dev


def _written(pins: dict[str, str], path: Path) -> Path:
    path.write_text("".join(f"{name}=={version}\n" for name, version in sorted(pins.items())), encoding="utf-8")
    return path


def _mismatched(python: str, pins: dict[str, str]) -> list[str]:
    """The pinned packages whose installed version is not the pin (``numpy 1.26.4, not 1.26.0``)."""
    code = ("import importlib.metadata as m, sys\n"
            "for name, pin in zip(sys.argv[1::2], sys.argv[2::2]):\n"
            "    print(name, m.version(name), pin)\n")
    listed = _step([python, "-c", code, *[part for pair in sorted(pins.items()) for part in pair]], ROOT)
    wrong = []
    for line in listed.stdout.splitlines():
        name, installed, pin = line.split()
        if Version(installed) != Version(pin):
            wrong.append(f"{name} {installed}, not {pin}")
    return wrong or ([] if listed.returncode == 0 else [_tail(listed)])


def _said(completed) -> str:
    """pip's last lines, without the warnings an index configured on the machine may print for each package."""
    return "\n".join([line for line in (completed.stdout + completed.stderr).splitlines()
                      if not line.startswith("WARNING: ")][-15:])


def _user_commands(canasta: str, run: Path) -> list[tuple[list[str], int]]:
    """What a user runs on a finished run, and the exit code each must end with."""
    return [([canasta, "report", str(run)], 0), ([canasta, "report", str(run), "--format", "html"], 0),
            ([canasta, "plot", str(run)], 0), ([canasta, "replay", str(run), "3"], 0),
            ([canasta, "watch", "--seed", "7"], 0), ([canasta, "check-strategy", "greedy"], 0),
            ([canasta, "compare", "expert", "--baseline", "greedy", "--seed", "3", "--out", str(run.parent / "cmp")],
             0),
            ([canasta, "tune", "expert", "--against", "greedy", "--games", "32", "--seed", "2", "--out",
              str(run.parent / "tune")], 0),
            ([canasta, "rn"], 2), ([canasta, "run", "--games", "x"], 2), ([canasta, "report"], 2)]


def _check(work: Path, games: int, seed: int, dev_lowest: bool) -> list[str]:
    """Every step; the failures in words (empty: all passed)."""
    runtime, contributor, dev = constraints(ROOT / "pyproject.toml", dev_lowest)
    try:
        runtime, contributor = _resolved(sys.executable, runtime), _resolved(sys.executable, contributor)
    except ValueError as error:
        return [str(error)]
    print("runtime pins: " + ", ".join(f"{name}=={version}" for name, version in sorted(runtime.items())), flush=True)
    clone = work / "clone"
    head = _step(["git", "rev-parse", "HEAD"], ROOT).stdout.strip()
    for command in (["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)],
                    ["git", "-C", str(clone), "checkout", "--quiet", head],
                    [sys.executable, "-m", "venv", str(clone / ".venv")]):
        completed = _step(command, work)
        if completed.returncode != 0:
            return [f"{' '.join(command[:2])} failed:\n{_tail(completed)}"]
    python = str(clone / ".venv" / "bin" / "python")
    started = time.monotonic()
    install = _step([python, "-m", "pip", "install", "-q", "-c", str(_written(runtime, work / "runtime.txt")), "-e",
                     "."], clone, {"CANASTA_SIM_PGO": "0"})
    if install.returncode != 0:
        return [f"the install under the runtime pins failed:\n{_said(install)}"]
    wrong = _mismatched(python, runtime)
    if wrong:
        return [f"the install did not hold the pins: {'; '.join(wrong)}"]
    print(f"  installed in {time.monotonic() - started:.0f} s, every runtime dependency at its pin", flush=True)
    failures = []
    runs = {}
    for name, interpreter in (("reference", sys.executable), ("oldest", python)):
        command = [interpreter, "-m", "canasta_sim", "run", "--games", str(games), "--seed", str(seed), "--workers",
                   "2", "--out", str(work / f"run-{name}"), "--quiet"]
        for spec in RUN_STRATEGIES:
            command += ["-s", spec]
        runs[name] = _step(command, ROOT if name == "reference" else clone)
    if runs["reference"].returncode != 0 or runs["oldest"].returncode != 0:
        return [f"canasta-sim run failed: {_tail(runs['reference'])}\n{_tail(runs['oldest'])}"]
    difference = first_table_difference(work / "run-reference", work / "run-oldest")
    if difference is not None:
        failures.append(f"the run's {difference}")
    else:
        print(f"  the same tables: {games} games ({', '.join(RUN_STRATEGIES)}), seed {seed}, as with the newest",
              flush=True)
    canasta = str(clone / ".venv" / "bin" / "canasta-sim")
    commands_failed = []
    for command, expected in _user_commands(canasta, work / "run-oldest"):
        completed = _step(command, work)
        words = " ".join(["canasta-sim", *command[1:]])
        if completed.returncode != expected or "Traceback" in completed.stdout + completed.stderr:
            commands_failed.append(f"{words} exited {completed.returncode} (expected {expected}):\n{_tail(completed)}")
    failures += commands_failed
    if not commands_failed:
        print("  report, plot, replay, watch, check-strategy, compare, tune and three usage errors as expected",
              flush=True)
    tools = _step([python, "-m", "pip", "install", "-q", "-c", str(_written(contributor, work / "contributor.txt")),
                   *dev], clone)
    if tools.returncode != 0:
        return [*failures, f"the dev extra's install under the pins failed:\n{_said(tools)}"]
    raised = {name: pin for name, pin in contributor.items() if runtime.get(name) != pin}
    print(f"  the dev extra installed, with {', '.join(f'{n}=={v}' for n, v in sorted(raised.items())) or 'no pin'} "
          "raised or added", flush=True)
    tests = _step([python, "-m", "pytest", "-p", "no:cacheprovider", *OLDEST_TESTS], clone)
    counts = [line for line in tests.stdout.splitlines() if " passed" in line or " failed" in line or " error" in line]
    print(f"  tests: {counts[-1].strip('= ') if counts else _tail(tests, 1)}", flush=True)
    if tests.returncode != 0:
        failures.append(f"the tests failed:\n{_tail(tests, 30)}")
    return failures


def main(argv: list[str] | None = None) -> int:
    """Check the oldest dependencies admitted; print what was checked and exit 1 on any failure or difference."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60, help="games of the compared run (default 60)")
    parser.add_argument("--seed", type=int, default=5, help="the run's seed (default 5)")
    parser.add_argument("--work", type=Path, help="folder for the clone and the runs (default: a temporary one)")
    parser.add_argument("--dev-lowest", action="store_true",
                        help="pin the dev extra's tools to their lower bounds too (default: their newest)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be a whole number of at least 1, not {args.games}")
    os.environ.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    with tempfile.TemporaryDirectory() as temporary:
        work = (args.work or Path(temporary)).resolve()
        work.mkdir(parents=True, exist_ok=True)
        print(f"Python {sys.version.split()[0]} ({sys.executable}), the reference run with this environment's versions",
              flush=True)
        failures = _check(work, args.games, args.seed, args.dev_lowest)
    for failure in failures:
        print(f"  FAILED: {failure}", flush=True)
    if failures:
        print("check_oldest_deps: the oldest dependencies admitted failed a step or played other games",
              file=sys.stderr)
        return 1
    print("the oldest dependencies admitted installed, played the newest's tables, ran the commands and passed the "
          "tests")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
