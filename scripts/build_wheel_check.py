"""Build canasta-sim's sdist and wheel, install the wheel in a fresh virtual environment and check it runs compiled.

``python scripts/build_wheel_check.py`` runs ``python -m build`` (it needs the ``build`` package; the
build fetches its own Cython and setuptools from the package index), which makes the source
distribution and then the wheel from it, as pip does from an sdist.  It checks the two archives'
file lists (:func:`sdist_problems`, :func:`wheel_problems`): the sdist holds every file of the
checkout that git tracks but the ignore list and ``results/``, and no build junk; the wheel holds
the package, every documentation page and example, and no tests or C sources.  Then it creates a
new virtual environment in a temporary folder, installs the wheel there with pip, and checks from
outside the source tree that

* ``canasta-sim --version`` reports every hot module compiled (``compiled (N of N hot modules)``),
* ``canasta-sim docs protocol --path`` finds the page inside the installed package,
* ``canasta-sim examples`` copies the examples, and a short ``canasta-sim run`` plays the copied
  ``examples/my_bot.py`` and reports the compiled build in its ``run.json``.

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
import tarfile
import tempfile
import venv
import zipfile
from pathlib import Path

from canasta_sim.cli.examples import example_files

ROOT = Path(__file__).resolve().parent.parent
COMPILED_PATTERN = re.compile(r"compiled \((\d+) of (\d+) hot modules\)")
SDIST_EXTRAS = re.compile(r"PKG-INFO|setup\.cfg|[\w.-]+\.egg-info/.*")
"""What the sdist holds beyond the checkout's files: the metadata the build writes."""
JUNK = re.compile(r".*(\.so|\.pyd|\.py[cod]|/_compiled\.json|/_build\.json)$|(.*/)?__pycache__/.*|build/.*|results/.*")
"""What a build or a run leaves in a checkout, which no archive may carry."""


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


def tracked_files(root: Path = ROOT) -> list[str] | None:
    """The files of the checkout at ``root`` that git tracks, or None where git cannot say (an unpacked sdist)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return [name for name in listed.stdout.split("\0") if name] if listed.returncode == 0 else None


def sdist_problems(names: list[str], tracked: list[str] | None) -> list[str]:
    """What is wrong with a source distribution holding the files ``names`` (below its top folder), one line each.

    With the checkout's ``tracked`` files (:func:`tracked_files`) every one of them must be there but
    ``.gitignore`` and ``results/``, and nothing else but the metadata the build writes; the folders the
    docs promise are checked either way, and no archive may carry what a build or a run leaves behind.
    """
    present = set(names)
    problems = [f"the sdist carries {name}, which a build or a run leaves behind" for name in names
                if JUNK.fullmatch(name)]
    if tracked is not None:
        wanted = {name for name in tracked if name != ".gitignore" and not name.startswith("results/")}
        problems += [f"the sdist lacks {name}" for name in sorted(wanted - present)]
        problems += [f"the sdist carries {name}, which git does not track" for name in sorted(present - wanted)
                     if not SDIST_EXTRAS.fullmatch(name) and not JUNK.fullmatch(name)]
    for folder in ("sim", "strategies", "docs", "examples", "scripts", "tests"):
        if not any(name.startswith(f"{folder}/") for name in names):
            problems.append(f"the sdist has no {folder}/")
    return problems


def wheel_problems(names: list[str], root: Path = ROOT) -> list[str]:
    """What is wrong with a wheel holding the files ``names``, one line each: every documentation page, example and
    page template of the checkout at ``root`` must be in it, and no test, C source or byte-compiled file."""
    present = set(names)
    wanted = [f"canasta_sim/docs/{page.name}" for page in sorted((root / "docs").glob("*.md"))]
    # The examples as `canasta-sim examples` copies them: the files it finds are those the wheel must hold.
    wanted += [f"canasta_sim/examples/{name.as_posix()}" for name in example_files(root / "examples")]
    wanted += [f"canasta_sim/terminal/{page.name}" for page in sorted((root / "sim" / "terminal").glob("*.html"))]
    wanted += ["canasta_sim/__init__.py", "canasta_sim/cli/__init__.py", "canasta_sim/strategies/__init__.py"]
    # PEP 561's marker, without which a type checker reads every name imported from canasta_sim as Any.
    wanted += ["canasta_sim/py.typed"]
    problems = [f"the wheel lacks {name}" for name in wanted if name not in present]
    problems += [f"the wheel carries {name}" for name in names
                 if name.endswith((".c", ".pyc")) or "__pycache__/" in name or name.split("/")[0] == "tests"]
    return problems


def _archive_names(sdist: Path, wheel: Path) -> tuple[list[str], list[str]]:
    """The files of the sdist (below its top folder) and of the wheel."""
    with tarfile.open(sdist) as archive:
        in_sdist = [member.name.partition("/")[2] for member in archive.getmembers() if member.isfile()]
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = [name for name in archive.namelist() if not name.endswith("/")]
    return in_sdist, in_wheel


def _build(work: Path, profile_guided: bool) -> tuple[Path, Path, str] | str:
    """Build the sdist, then the wheel from it; the two and the build's stderr, or why they are not right."""
    dist = work / "dist"
    environment = {**os.environ, "CANASTA_SIM_PGO": "1" if profile_guided else "0"}
    built = _run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], ROOT, 3600, environment)
    if built.returncode != 0:
        return f"the sdist and wheel did not build:\n{built.stderr[-4000:]}"
    sdists, wheels = sorted(dist.glob("canasta_sim-*.tar.gz")), sorted(dist.glob("canasta_sim-*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        return f"expected one sdist and one wheel in {dist}, found {sdists + wheels}"
    print(f"built {sdists[0].name} and, from it, {wheels[0].name}")
    if wheels[0].name.endswith("-none-any.whl"):
        return "the wheel is pure Python (no compiled module was built)"
    in_sdist, in_wheel = _archive_names(sdists[0], wheels[0])
    problems = sdist_problems(in_sdist, tracked_files()) + wheel_problems(in_wheel)
    if problems:
        return "the archives' files are not right:\n" + "\n".join(problems)
    print(f"the sdist's {len(in_sdist)} files and the wheel's {len(in_wheel)} are what they should be")
    return sdists[0], wheels[0], built.stderr


def _check_installed(work: Path, bin_folder: Path, environment: Path) -> str | None:
    """Run the installed wheel's documentation, examples and a short run from ``work``; None, or what failed."""
    command = str(bin_folder / "canasta-sim")
    # The command line's pointers name pages as `canasta-sim docs PAGE`: the wheel must carry them.
    page = _run([command, "docs", "protocol", "--path"], work, 120)
    print(f"canasta-sim docs protocol --path: {page.stdout.strip()}")
    located = Path(page.stdout.strip())
    if page.returncode != 0 or not located.is_file() or not located.resolve().is_relative_to(environment.resolve()):
        return f"the installed wheel does not carry its documentation pages:\n{page.stdout}{page.stderr}"
    # The docs run the examples by path (examples/my_bot.py): the wheel carries them for this command to copy.
    copied = _run([command, "examples"], work, 120)
    print(copied.stdout.strip())
    if copied.returncode != 0 or not (work / "examples" / "my_bot.py").is_file():
        return f"canasta-sim examples did not copy the examples:\n{copied.stdout}{copied.stderr}"
    out = work / "run"
    played = _run([command, "run", "--games", "20", "--seed", "1", "--workers", "1", "-s", "examples/my_bot.py:MyBot",
                   "-s", "expert", "--out", str(out), "--quiet"], work, 600)
    if played.returncode != 0:
        return f"canasta-sim run failed:\n{played.stderr[-4000:]}"
    build = json.loads((out / "run.json").read_text())["sessions"][0]["build"]
    print(f"canasta-sim run --games 20 played the copied example; run.json says: {build}")
    return None if build.startswith("compiled") else "the run did not play compiled"


def main(argv: list[str] | None = None) -> int:
    """Build, check the archives, install in a fresh environment, check; print each step."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build into this folder and keep the archives and environment there")
    parser.add_argument("--profile-guided", action="store_true",
                        help="build profile-guided, as GCC installs and Linux wheels are, and check it took")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("build") is None:
        print("build_wheel_check: the 'build' package is not installed in this Python; "
              "pip install -e '.[dev]' (or pip install build) installs it", file=sys.stderr)
        return 2
    expected = _expected_modules()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        built = _build(work, args.profile_guided)
        if isinstance(built, str):
            print(f"build_wheel_check: {built}", file=sys.stderr)
            return 1
        _sdist, wheel, build_messages = built
        environment = work / "venv"
        venv.EnvBuilder(with_pip=True, clear=True).create(environment)
        bin_folder = environment / ("Scripts" if sys.platform == "win32" else "bin")
        installed = _run([str(bin_folder / "python"), "-m", "pip", "install", "--quiet", str(wheel)], work, 3600)
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
            print(f"build_wheel_check: the wheel was not built profile-guided:\n{build_messages[-4000:]}",
                  file=sys.stderr)
            return 1
        failed = _check_installed(work, bin_folder, environment)
        if failed is not None:
            print(f"build_wheel_check: {failed}", file=sys.stderr)
            return 1
    print("the sdist and the wheel hold what they should; the wheel installs in a fresh environment and runs compiled")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
