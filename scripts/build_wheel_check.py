"""Build canasta-sim's wheel, install it in a fresh virtual environment and check it runs compiled.

``python scripts/build_wheel_check.py`` runs ``python -m build --wheel`` (it needs the ``build``
package; the build fetches its own Cython and setuptools from the package index), creates a new
virtual environment in a temporary folder, installs the wheel there with pip, and checks from
outside the source tree that

* ``canasta-sim --version`` reports every hot module compiled (``compiled (N of N hot modules)``),
* ``canasta-sim docs protocol --path`` finds the page inside the installed package, and
* a short ``canasta-sim run`` plays and reports the compiled build in its ``run.json``.

Without options it builds with ``CANASTA_SIM_PGO=0`` (one compile, quicker); ``--profile-guided`` builds
as installs with GCC and released Linux wheels are built (GCC's profile-guided build, trained on a few
games inside the build, the default) and checks the wheel says so too.

Releases build their wheels for Linux, macOS and Windows with cibuildwheel (``[tool.cibuildwheel]``
in ``pyproject.toml``, which runs the same ``--version`` check on every wheel); cibuildwheel's Linux
builds need container images, so this script is the check that runs anywhere.  Exit 0 when the wheel
runs compiled, 1 with the reason when not.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPILED_PATTERN = re.compile(r"compiled \((\d+) of (\d+) hot modules\)")


def _run(command: list[str], cwd: Path, timeout: float, environment: dict[str, str] | None = None):
    print("$ " + " ".join(command), flush=True)
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=timeout, env=environment)


def _expected_modules() -> int:
    """How many modules setup.py's ``COMPILED`` lists, read without running it."""
    import ast

    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "COMPILED" for target in node.targets):
            return sum(len(modules) for modules in ast.literal_eval(node.value).values())
    raise SystemExit("build_wheel_check: setup.py defines no COMPILED")


def main(argv: list[str] | None = None) -> int:
    """Build, install in a fresh environment, check; print each step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build into this folder and keep the wheel and environment there")
    parser.add_argument("--profile-guided", action="store_true",
                        help="build profile-guided, as GCC installs and Linux wheels are, and check it took")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("build") is None:
        print("build_wheel_check: the 'build' package is not installed in this Python; "
              "pip install -e '.[dev]' (or pip install build) installs it", file=sys.stderr)
        return 2
    expected = _expected_modules()
    build_environment = {**os.environ, "CANASTA_SIM_PGO": "1" if args.profile_guided else "0"}
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        dist = work / "dist"
        built = _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)], ROOT, 3600,
                     build_environment)
        if built.returncode != 0:
            print(f"build_wheel_check: the wheel did not build:\n{built.stderr[-4000:]}", file=sys.stderr)
            return 1
        wheels = sorted(dist.glob("canasta_sim-*.whl"))
        if len(wheels) != 1:
            print(f"build_wheel_check: expected one wheel in {dist}, found {wheels}", file=sys.stderr)
            return 1
        wheel = wheels[0]
        print(f"built {wheel.name}")
        if wheel.name.endswith("-none-any.whl"):
            print("build_wheel_check: the wheel is pure Python (no compiled module was built)", file=sys.stderr)
            return 1
        environment = work / "venv"
        venv.EnvBuilder(with_pip=True, clear=True).create(environment)
        bin_folder = environment / ("Scripts" if sys.platform == "win32" else "bin")
        python = bin_folder / "python"
        installed = _run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], work, 3600)
        if installed.returncode != 0:
            print(f"build_wheel_check: pip could not install the wheel:\n{installed.stderr[-4000:]}", file=sys.stderr)
            return 1
        # Run from the scratch folder, so the sources in this checkout cannot be imported instead.
        version = _run([str(bin_folder / "canasta-sim"), "--version"], work, 120)
        print(version.stdout.strip())
        found = COMPILED_PATTERN.search(version.stdout)
        if version.returncode != 0 or found is None or int(found[1]) != expected or int(found[2]) != expected:
            print(f"build_wheel_check: the installed wheel does not run all {expected} hot modules compiled:\n"
                  f"{version.stdout}{version.stderr}", file=sys.stderr)
            return 1
        if args.profile_guided and not version.stdout.strip().endswith(", profile-guided"):
            why = built.stderr[-4000:]
            print(f"build_wheel_check: the wheel was not built profile-guided:\n{why}", file=sys.stderr)
            return 1
        # The command line's pointers name pages as `canasta-sim docs PAGE`: the wheel must carry them.
        page = _run([str(bin_folder / "canasta-sim"), "docs", "protocol", "--path"], work, 120)
        print(f"canasta-sim docs protocol --path: {page.stdout.strip()}")
        located = Path(page.stdout.strip())
        if page.returncode != 0 or not located.is_file() or not located.resolve().is_relative_to(environment.resolve()):
            print(f"build_wheel_check: the installed wheel does not carry its documentation pages:\n"
                  f"{page.stdout}{page.stderr}", file=sys.stderr)
            return 1
        out = work / "run"
        played = _run([str(bin_folder / "canasta-sim"), "run", "--games", "20", "--seed", "1", "--workers", "1",
                       "--out", str(out), "--quiet"], work, 600)
        if played.returncode != 0:
            print(f"build_wheel_check: canasta-sim run failed:\n{played.stderr[-4000:]}", file=sys.stderr)
            return 1
        build = json.loads((out / "run.json").read_text())["sessions"][0]["build"]
        print(f"canasta-sim run --games 20 played; run.json says: {build}")
        if not build.startswith("compiled"):
            print("build_wheel_check: the run did not play compiled", file=sys.stderr)
            return 1
    print("the wheel installs in a fresh environment and runs compiled")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
