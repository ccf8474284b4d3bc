"""What the package's metadata and source distribution promise a user and a packager, read without building."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
INSTALL = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")


def requirement_name(requirement: str) -> str:
    """The distribution a requirement names, as the docs write it (``dask[distributed]>=2024.1`` is dask)."""
    return re.match(r"[A-Za-z0-9_.-]+", requirement)[0]


def test_the_install_page_names_every_dependency():
    listed = re.search(r"Its dependencies \(([^)]*)\) install with it", INSTALL)[1].replace("\n", " ")
    assert {name.strip() for name in listed.split(",")} == {
        requirement_name(requirement) for requirement in PYPROJECT["project"]["dependencies"]}


def test_the_extras_table_names_every_extra_and_what_it_installs():
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]*) \|", INSTALL, flags=re.MULTILINE))
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert set(rows) == set(extras)
    for extra, requirements in extras.items():
        shown = {name.strip(" `").split("[")[0] for name in rows[extra].split(",")}
        assert shown == {requirement_name(requirement) for requirement in requirements}, extra


def test_the_version_has_one_source_the_metadata_and_the_version_line_report():
    # pyproject.toml and sim/__init__.py each wrote "0.1.0": a release had to change both, and a test caught a
    # mismatch only after the fact.  The metadata now reads canasta_sim.__version__.
    from importlib.metadata import version

    from canasta_sim import __version__
    from canasta_sim.cli import main

    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "canasta_sim.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__) and version("canasta-sim") == __version__
    assert CliRunner().invoke(main, ["--version"]).output.startswith(f"canasta-sim {__version__}, engine version ")


def test_the_classifiers_name_the_pythons_the_wheels_are_built_for():
    # The metadata had no classifiers, keywords or authors: an index showed neither the Pythons nor what it is for.
    project = PYPROJECT["project"]
    classifiers = project["classifiers"]
    listed = sorted(classifier.rpartition(" :: ")[2] for classifier in classifiers
                    if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", classifier))
    built = sorted(f"3.{minor}" for minor in re.findall(r"cp3(\d+)-\*", PYPROJECT["tool"]["cibuildwheel"]["build"]))
    assert listed == built and project["requires-python"] == f">={listed[0]}"
    # A license classifier beside the SPDX expression in `license` is refused by setuptools (PEP 639).
    assert not any(classifier.startswith("License ::") for classifier in classifiers)
    assert project["authors"] and project["keywords"] and project["readme"] == "README.md"


def test_the_changelog_opens_with_the_version_being_made():
    # A tag is the changelog's top version with its date: the heading must be this version, unreleased or dated.
    from canasta_sim import __version__

    first = next(line for line in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").splitlines()
                 if line.startswith("## "))
    assert re.fullmatch(rf"## {re.escape(__version__)} \((unreleased|\d{{4}}-\d\d-\d\d)\)", first), first


def manifest_commands() -> list[tuple[str, str]]:
    lines = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split(None, 1)) for line in lines if line.strip() and not line.startswith("#")]


def test_the_source_distribution_carries_the_docs_examples_scripts_and_tests():
    # Without MANIFEST.in the sdist held only the package and a few of the tests: none of the docs the
    # command line points to, no examples, and not the script cibuildwheel's test command runs.
    grafted = {argument for command, argument in manifest_commands() if command == "graft"}
    assert {"docs", "examples", "scripts", "tests", ".ci"} <= grafted
    tool = PYPROJECT["tool"]["cibuildwheel"]
    commands = [tool["test-command"], *(tool.get(system, {}).get("test-command", "")
                                        for system in ("linux", "macos", "windows"))]
    for path in re.findall(r"\{project\}/(\S+)", " ".join(commands)):
        assert (ROOT / path).is_file() and path.split("/")[0] in grafted, path


def test_every_platforms_wheel_must_play_games_before_it_is_released():
    # The wheels' test ran `canasta-sim --version` and the compiled check only: a Windows wheel whose every run failed
    # at its first command would have shipped.  Each platform's command, the default's and its overrides, plays.
    tool = PYPROJECT["tool"]["cibuildwheel"]
    commands = {"default": tool["test-command"]}
    commands.update({system: tool[system]["test-command"] for system in ("linux", "macos", "windows")
                     if "test-command" in tool.get(system, {})})
    for system, command in commands.items():
        assert "python {project}/scripts/check_wheel_plays.py" in command.split(" && "), system


def test_the_source_distribution_leaves_out_what_builds_and_runs_leave_behind():
    commands = manifest_commands()
    assert ("prune", "build") in commands and ("prune", "results") in commands
    excluded = {pattern for command, argument in commands if command == "global-exclude"
                for pattern in argument.split()}
    assert {"*.so", "*.pyd", "_compiled.json", "_build.json", "__pycache__"} <= excluded


def test_every_package_folder_is_installed_with_its_data_files():
    tool = PYPROJECT["tool"]["setuptools"]
    folders = {package: ROOT / source for package, source in tool["package-dir"].items()}

    def folder(package: str) -> Path:
        parent, _, leaf = package.rpartition(".")
        return folders[package] if package in folders else folder(parent) / leaf

    packages = set(tool["packages"])
    found = {
        ".".join(["canasta_sim", *init.parent.relative_to(ROOT / "sim").parts])
        for init in (ROOT / "sim").rglob("__init__.py")
    } | {"canasta_sim.strategies", "canasta_sim.docs", "canasta_sim.examples"}  # docs and examples: no package code
    assert packages == found
    for package in packages:
        data = [path.name for path in folder(package).iterdir()
                if path.is_file() and path.suffix not in (".py", ".pyc", ".so", ".pyd", ".json")]
        patterns = tool["package-data"].get(package, [])
        for name in data:
            assert any(Path(name).match(pattern) for pattern in patterns), f"{package}: {name}"


def test_the_package_says_it_is_typed_in_the_wheel_and_the_sdist():
    # Without PEP 561's marker mypy called the installed package "missing library stubs or py.typed marker" and read
    # every name a bot imported from it as Any.  Package data goes into the sdist and the wheel alike
    # (scripts/build_wheel_check.py checks both archives).
    assert (ROOT / "sim" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["canasta_sim"]


def test_the_documentation_pages_are_installed_with_the_package():
    # A wheel held none of the pages the command line pointed to as "(docs/protocol.md)": they ship as
    # canasta_sim/docs, where `canasta-sim docs PAGE` finds them.
    tool = PYPROJECT["tool"]["setuptools"]
    assert tool["package-dir"]["canasta_sim.docs"] == "docs"
    patterns = tool["package-data"]["canasta_sim.docs"]
    pages = [path.relative_to(ROOT / "docs") for path in (ROOT / "docs").glob("*.md")]
    assert len(pages) > 10 and all(any(page.match(pattern) for pattern in patterns) for page in pages)


def setuptools_of_the_build() -> None:
    """Skip unless this environment has the setuptools the build system requires (setup.py imports its wheel
    command)."""
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setup.py needs setuptools, which this environment lacks")
    from importlib.metadata import version

    wanted = next(requirement for requirement in PYPROJECT["build-system"]["requires"]
                  if requirement_name(requirement) == "setuptools")
    minimum = tuple(int(part) for part in wanted.partition(">=")[2].split("."))
    have = tuple(int(part) for part in re.findall(r"\d+", version("setuptools"))[:len(minimum)])
    if have < minimum:
        pytest.skip(f"setup.py needs {wanted} (the dev extra installs it), not {version('setuptools')}")


@pytest.mark.timeout(60)
def test_a_mistyped_profile_setting_stops_the_build_before_any_compiling():
    # It stopped only once Cython had translated every module, minutes into an install.
    setuptools_of_the_build()
    environment = {**os.environ, "CANASTA_SIM_PGO": "off", "CANASTA_SIM_NO_COMPILE": ""}
    completed = subprocess.run([sys.executable, "setup.py", "--name"], cwd=ROOT, env=environment,
                               capture_output=True, text=True, timeout=50)
    assert completed.returncode != 0 and completed.stdout == ""
    assert completed.stderr.strip().splitlines()[-1] == (
        "canasta-sim: CANASTA_SIM_PGO must be 1 (profile-guided, the default with GCC) or 0 (without), not 'off'")


WHEEL_BUILD = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("canasta_setup", sys.argv[1])
canasta_setup = importlib.util.module_from_spec(spec)
spec.loader.exec_module(canasta_setup)
from setuptools import Extension, setup
setup(name="demo", version="1", packages=["demo"], ext_modules=[Extension("demo.fast", ["fast.c"], optional=True)],
      cmdclass={"bdist_wheel": canasta_setup.HonestWheel}, script_args=["-q", "bdist_wheel", "--dist-dir", "dist"])
"""

FAST_C = """
#include <Python.h>
static struct PyModuleDef fast = {PyModuleDef_HEAD_INIT, "fast", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_fast(void) { return PyModule_Create(&fast); }
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("compiler", ["none", "the system's"])
def test_a_wheel_is_tagged_for_a_platform_only_when_it_holds_a_compiled_module(tmp_path, compiler):
    # Every module is optional, so a build with no C compiler made a wheel of Python files alone, tagged
    # cp311-cp311-linux_x86_64 all the same: setuptools tags any project that lists an extension module.
    setuptools_of_the_build()
    environment = {**os.environ, "CC": "false"}  # a compiler that fails at once
    if compiler != "none":
        headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
        if shutil.which(sysconfig.get_config_var("CC").split()[0]) is None or not headers.is_file():
            pytest.skip("compiling needs a C compiler and Python's headers")
        environment.pop("CC")
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "__init__.py").write_text("")
    (tmp_path / "fast.c").write_text(FAST_C)
    completed = subprocess.run([sys.executable, "-c", WHEEL_BUILD, str(ROOT / "setup.py")], cwd=tmp_path,
                               env=environment, capture_output=True, text=True, timeout=100)
    assert completed.returncode == 0, completed.stderr
    [wheel] = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read("demo-1.dist-info/WHEEL").decode()
    compiled = [name for name in names if name.startswith("demo/fast") and not name.endswith(".c")]
    if compiler == "none":
        assert wheel.name == "demo-1-py3-none-any.whl" and not compiled
        assert "Root-Is-Purelib: true" in metadata and "demo/__init__.py" in names
    else:
        assert not wheel.name.endswith("-none-any.whl") and compiled
        assert "Root-Is-Purelib: false" in metadata
