"""The compiled hot loop and its pure-Python fallback: same games, and the right one runs.

``setup.py`` compiles the modules of the game's hot loop with Cython;
:mod:`canasta_sim.core._compiled.accelerator` runs a
module from its source instead when ``CANASTA_SIM_PURE_PYTHON`` is set or the source changed since it
was compiled.  Where the install compiled nothing these tests check the fallback alone.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim import ENGINE_VERSION
from canasta_sim.cli import main
from canasta_sim.core._compiled import accelerator
from tests.helpers import assert_same_run_tables

ROOT = Path(__file__).resolve().parents[3]


FOLDERS = {"canasta_sim.core": "sim/core"}
"""Each import package the build compiles, and the source folder it maps onto (pyproject.toml): the core only
(the built-in strategies are plain Python, tests/strategies/test_plain_python.py)."""


def compiled_by_setup() -> dict[str, list[str]]:
    """``COMPILED`` as written in setup.py, read without running the build."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == "COMPILED" for target in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py defines no COMPILED")


def test_every_module_setup_compiles_exists_and_nothing_outside_the_hot_loop():
    compiled = compiled_by_setup()
    assert set(compiled) == set(FOLDERS)
    for package, modules in compiled.items():
        for module in modules:
            assert (ROOT / FOLDERS[package] / f"{module}.py").is_file(), f"{FOLDERS[package]}/{module}.py"
    # The package inits stay plain Python, and only the core is compiled among the package's rooms.
    assert not any("__init__" in modules for modules in compiled.values())


def test_each_module_the_build_recorded_runs_compiled_unless_pure_python_is_asked():
    states = accelerator.status()
    for package, folder in FOLDERS.items():
        manifest = ROOT / folder / accelerator.MANIFEST_NAME
        if manifest.is_file():
            assert {f"{package}.{module}" for module in json.loads(manifest.read_text())} <= set(states)
    expected = "source" if accelerator.pure_python_requested() else "compiled"
    wrong = sorted(name for name, state in states.items() if state != expected)
    assert not wrong, (
        f"{', '.join(wrong)} should run {expected}: after editing a compiled module, recompile with "
        f"`pip install -e .` (or set {accelerator.PURE_PYTHON_VARIABLE}=1 to test the sources)"
    )


def play(out: Path, environment: dict[str, str] | None = None) -> str:
    """Plays a short three-bot round robin through ``canasta-sim run`` in a fresh process; its build line.

    The run says so on its standard error whenever the engine is not compiled.
    """
    command = [sys.executable, "-m", "canasta_sim", "run", "--games", "18", "--seed", "77", "--workers", "1",
               "-s", "expert", "-s", "greedy", "-s", "random", "--out", str(out)]
    env = {**os.environ, **(environment or {})}
    completed = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=240)
    assert completed.returncode == 0, completed.stderr
    build = json.loads((out / "run.json").read_text())["sessions"][0]["build"]
    noted = f"note: the engine runs as {build}: the same games, only slower" in completed.stderr
    assert noted is not build.startswith("compiled"), completed.stderr
    return build


def test_compiled_and_pure_python_play_identical_tables(tmp_path):
    installed = play(tmp_path / "installed", {accelerator.PURE_PYTHON_VARIABLE: "0"})
    pure = play(tmp_path / "pure", {accelerator.PURE_PYTHON_VARIABLE: "1"})
    assert installed.startswith(("compiled", "pure Python (nothing was compiled"))
    if installed.startswith("compiled"):
        assert pure == f"pure Python ({accelerator.PURE_PYTHON_VARIABLE} is set)"
    else:  # an install without a compiler (CANASTA_SIM_NO_COMPILE=1): both runs are the sources already
        assert pure == installed
    assert_same_run_tables(tmp_path / "installed", tmp_path / "pure")


def test_version_names_the_engine_version_and_the_build():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    described = accelerator.describe()
    why = accelerator.why_not_profile_guided() if described.endswith(", not profile-guided") else None
    reason = f" ({why})" if why else ""
    assert result.output == f"canasta-sim 0.1.0, engine version {ENGINE_VERSION}, {described}{reason}\n"


def test_version_says_why_a_compiled_build_is_not_profile_guided(monkeypatch):
    # pip shows the build's own message only with -v: --version repeats the reason the build recorded.
    monkeypatch.setattr(accelerator, "describe", lambda: "compiled (22 of 22 hot modules), not profile-guided")
    monkeypatch.setattr(accelerator, "why_not_profile_guided", lambda: "the compiler clang is not GCC")
    result = CliRunner().invoke(main, ["--version"])
    assert result.output.endswith(", not profile-guided (the compiler clang is not GCC)\n")


def test_version_gives_no_reason_for_a_profile_guided_build(monkeypatch):
    monkeypatch.setattr(accelerator, "describe", lambda: "compiled (22 of 22 hot modules), profile-guided")
    monkeypatch.setattr(accelerator, "why_not_profile_guided", lambda: "stale")
    assert CliRunner().invoke(main, ["--version"]).output.endswith(", profile-guided\n")


# --- the fallback, on a package made up for the test: its "compiled" file is not loadable at all ---

EXTENSION_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def made_up_package(tmp_path, monkeypatch):
    """``fakeaccel`` with ``mod.py`` (VALUE = 1), a broken ``mod`` extension file beside it, and no manifest."""
    folder = tmp_path / "fakeaccel"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "mod.py").write_text("VALUE = 1\n")
    (folder / f"mod{EXTENSION_SUFFIX}").write_bytes(b"not a shared object")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(accelerator._FINDER, "sources", dict(accelerator._FINDER.sources))
    monkeypatch.setattr(accelerator, "_REGISTERED", dict(accelerator._REGISTERED))
    yield folder
    for name in ("fakeaccel", "fakeaccel.mod"):
        sys.modules.pop(name, None)


def record(folder: Path, digest: str) -> None:
    (folder / accelerator.MANIFEST_NAME).write_text(json.dumps({"mod": digest}))


def test_a_compiled_file_is_preferred_when_its_source_is_unchanged(made_up_package):
    record(made_up_package, accelerator.source_digest(made_up_package / "mod.py"))
    assert accelerator.use_sources_where_needed("fakeaccel", made_up_package, environment={}) == []
    with pytest.raises(ImportError):
        importlib.import_module("fakeaccel.mod")


def test_an_edited_source_runs_instead_of_its_stale_compiled_file_with_a_warning(made_up_package):
    record(made_up_package, accelerator.source_digest(made_up_package / "mod.py"))
    (made_up_package / "mod.py").write_text("VALUE = 2\n")
    with pytest.warns(accelerator.StaleCompiledModuleWarning, match="fakeaccel.mod changed since compiled"):
        stale = accelerator.use_sources_where_needed("fakeaccel", made_up_package, environment={})
    assert stale == ["fakeaccel.mod"]
    module = importlib.import_module("fakeaccel.mod")
    assert (module.VALUE, Path(module.__file__).name) == (2, "mod.py")


def test_a_module_linked_to_an_edited_one_runs_from_its_source_too(made_up_package, monkeypatch):
    # Compiled against each other's C declarations (the hand state's three modules), they cannot be mixed.
    (made_up_package / "base.py").write_text("VALUE = 3\n")
    (made_up_package / "other.py").write_text("VALUE = 4\n")
    digests = {name: accelerator.source_digest(made_up_package / f"{name}.py") for name in ("mod", "base", "other")}
    (made_up_package / accelerator.MANIFEST_NAME).write_text(json.dumps(digests))
    monkeypatch.setattr(accelerator, "LINKED_MODULES", {"fakeaccel": (frozenset({"mod", "base"}),)})
    (made_up_package / "base.py").write_text("VALUE = 5\n")
    with pytest.warns(accelerator.StaleCompiledModuleWarning, match="fakeaccel.base, fakeaccel.mod changed"):
        stale = accelerator.use_sources_where_needed("fakeaccel", made_up_package, environment={})
    assert stale == ["fakeaccel.base", "fakeaccel.mod"]
    assert importlib.import_module("fakeaccel.mod").VALUE == 1


def test_every_module_that_cimports_another_is_linked_to_it():
    # A module compiled against another's C layout (a .pxd's cimport) would read a plain-Python object as a C
    # struct if that other ran from source alone; LINKED_MODULES keeps the two together.  Only the core is
    # compiled, so every cimport names a module of the core.
    for package, folder in FOLDERS.items():
        groups = accelerator.LINKED_MODULES.get(package, ())
        for declarations in (ROOT / folder).glob("*.pxd"):
            cimports = re.findall(r"^from (canasta_sim(?:\.\w+)*)\.(\w+) cimport", declarations.read_text(), re.M)
            for origin, other in cimports:
                assert origin == package, (declarations.name, f"{origin}.{other}")
                assert any({declarations.stem, other} <= group for group in groups), (declarations.name, other)


def test_every_declarations_file_that_uses_cythons_decorators_cimports_cython():
    # Without ``cimport cython`` Cython ignores a .pxd's @cython.locals without a word: the locals stay Python
    # objects, and nothing but the speed shows it.
    for folder in FOLDERS.values():
        for declarations in (ROOT / folder).glob("*.pxd"):
            text = declarations.read_text()
            if "@cython." in text or "cython.uint" in text:
                assert re.search(r"^cimport cython$", text, re.M), declarations.name


# A .pxd's ``@cython.locals(...)``, the decorators after it, and the name of the function or method it types.
_DECLARED_LOCALS = re.compile(
    r"^( *)@cython\.locals\((.*?)\)\n(?: *@.*\n)* *(?:cpdef|cdef|def)\b[^(\n]*?(?:\([^)]*\)[^(\n]*?)?(\w+)\(",
    re.M | re.S,
)


def _assigned_names(function: ast.FunctionDef) -> set[str]:
    """The names ``function`` binds: its arguments and every name it assigns, loop targets included."""
    assigned = {node.id for node in ast.walk(function)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    return assigned | {node.arg for node in ast.walk(function) if isinstance(node, ast.arg)}


def test_every_local_a_declarations_file_types_is_one_its_function_assigns():
    # A name declared for a function that no longer has that local is typed for nothing: a stale line that
    # tells the reader a loop runs in C integers when it does not.
    for folder in FOLDERS.values():
        for declarations in (ROOT / folder).glob("*.pxd"):
            text = declarations.read_text()
            module = ast.parse(declarations.with_suffix(".py").read_text())
            functions = {(None, node.name): node for node in module.body if isinstance(node, ast.FunctionDef)}
            for node in module.body:
                if isinstance(node, ast.ClassDef):
                    functions.update({(node.name, item.name): item for item in node.body
                                      if isinstance(item, ast.FunctionDef)})
            found = list(_DECLARED_LOCALS.finditer(text))
            for match in found:
                classes = re.findall(r"^cdef class (\w+)", text[:match.start()], re.M)
                owner = classes[-1] if match.group(1) and classes else None
                function = functions.get((owner, match.group(3)))
                assert function is not None, (declarations.name, owner, match.group(3))
                declared = set(re.findall(r"(\w+)\s*=", match.group(2)))
                assert declared <= _assigned_names(function), (declarations.name, match.group(3), declared)
            assert len(found) == text.count("@cython.locals("), declarations.name  # every one was read


def test_every_local_a_module_types_is_one_its_function_assigns():
    # The same for the @cython.locals a module's own source carries.
    for folder in FOLDERS.values():
        for source in (ROOT / folder).glob("*.py"):
            for function in ast.walk(ast.parse(source.read_text())):
                if not isinstance(function, ast.FunctionDef):
                    continue
                for decorator in function.decorator_list:
                    if isinstance(decorator, ast.Call) and getattr(decorator.func, "attr", None) == "locals":
                        declared = {keyword.arg for keyword in decorator.keywords}
                        assert declared <= _assigned_names(function), (source.name, function.name, declared)


def test_a_group_member_that_failed_to_compile_takes_the_others_to_their_source(made_up_package, monkeypatch):
    # "base" is in the group but not in the manifest: its compile failed, so it runs from source.
    (made_up_package / "base.py").write_text("VALUE = 3\n")
    record(made_up_package, accelerator.source_digest(made_up_package / "mod.py"))
    monkeypatch.setattr(accelerator, "LINKED_MODULES", {"fakeaccel": (frozenset({"mod", "base"}),)})
    with pytest.warns(accelerator.StaleCompiledModuleWarning, match="fakeaccel.mod"):
        assert accelerator.use_sources_where_needed("fakeaccel", made_up_package, environment={}) == ["fakeaccel.mod"]
    assert importlib.import_module("fakeaccel.mod").VALUE == 1


def test_pure_python_variable_runs_every_source_without_a_warning(made_up_package, recwarn):
    record(made_up_package, accelerator.source_digest(made_up_package / "mod.py"))
    environment = {accelerator.PURE_PYTHON_VARIABLE: "1"}
    assert accelerator.use_sources_where_needed("fakeaccel", made_up_package, environment=environment) == []
    assert importlib.import_module("fakeaccel.mod").VALUE == 1
    assert not [warning for warning in recwarn if issubclass(warning.category, accelerator.StaleCompiledModuleWarning)]


def test_without_a_manifest_nothing_is_rerouted(made_up_package):
    assert accelerator.use_sources_where_needed("fakeaccel", made_up_package, environment={}) == []
    assert "fakeaccel" not in accelerator._REGISTERED
    with pytest.raises(ImportError):
        importlib.import_module("fakeaccel.mod")


@pytest.mark.parametrize(("value", "pure"), [("", False), ("0", False), ("1", True), ("yes", True)])
def test_pure_python_variable_is_on_for_any_value_but_empty_or_zero(value, pure):
    assert accelerator.pure_python_requested({accelerator.PURE_PYTHON_VARIABLE: value}) is pure


def setup_constant(name: str):
    """A constant of setup.py (a string or literal), read without running the build."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(target, "id", None) == name for target in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError(f"setup.py defines no {name}")


def setup_function_named(name: str):
    """A function of setup.py, compiled alone with the constants it reads, without running the build."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    definition = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name)
    namespace = {"Path": Path, "ROOT": ROOT, **{constant: setup_constant(constant)
                                                 for constant in ("SOURCE_FOLDERS", "PARENT_FOLDERS")}}
    exec(compile(ast.Module([definition], type_ignores=[]), "setup.py", "exec"), namespace)
    return namespace[name]


def test_the_profile_training_finds_a_build_outside_the_source_tree_from_its_own_folder(tmp_path, monkeypatch):
    # A non-editable build names its files relative to the build's folder, and the training runs in another:
    # with the relative path it imported every module from source, and no wheel was profile-guided.
    monkeypatch.chdir(tmp_path)
    built = {f"canasta_sim.core.{module}": f"build/lib/canasta_sim/core/{module}.so" for module in ("cards", "engine")}
    folders = setup_function_named("_training_folders")(built)
    assert folders["canasta_sim.core"] == [str(tmp_path / "build/lib/canasta_sim/core"), str(ROOT / "sim/core")]
    assert folders["canasta_sim"] == [str(ROOT / "sim")]
    assert all(Path(folder).is_absolute() for places in folders.values() for folder in places)


def test_the_build_record_name_is_the_one_setup_writes():
    assert setup_constant("BUILD_RECORD_NAME") == accelerator.BUILD_RECORD_NAME


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([True, True], True),
        ([True, False], False),
        ([False], False),
        ([True, None], None),  # a package built before the record existed
        ([], None),
    ],
)
def test_profile_guided_reads_every_package_record(tmp_path, records, expected):
    folders = []
    for index, guided in enumerate(records):
        folder = tmp_path / f"package{index}"
        folder.mkdir()
        if guided is not None:
            reason = None if guided else "not asked for"
            record = {"profile_guided": guided, "without_profile_guidance": reason}
            (folder / accelerator.BUILD_RECORD_NAME).write_text(json.dumps(record))
        folders.append(folder)
    assert accelerator.profile_guided(folders) is expected


def test_why_not_profile_guided_reads_each_package_record_once(tmp_path):
    reasons = ["turned off: CANASTA_SIM_PGO=0", None, "turned off: CANASTA_SIM_PGO=0", "the training games failed: x"]
    folders = []
    for index, reason in enumerate([*reasons, "no record"]):
        folder = tmp_path / f"package{index}"
        folder.mkdir()
        if reason != "no record":
            record = {"profile_guided": reason is None, "without_profile_guidance": reason}
            (folder / accelerator.BUILD_RECORD_NAME).write_text(json.dumps(record))
        folders.append(folder)
    assert accelerator.why_not_profile_guided(folders) == (
        "turned off: CANASTA_SIM_PGO=0; the training games failed: x")
    assert accelerator.why_not_profile_guided(folders[1:2]) is None


# Refuses every import but the standard library's, the project's own and Cython's: what a build environment
# holds (its setuptools is never imported by the training).
BUILD_ENVIRONMENT_ONLY = """
import importlib.abc, sys
class OnlyTheBuildEnvironment(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.partition(".")[0]
        if top in sys.stdlib_module_names or top in ("canasta_sim", "cython", "Cython"):
            return None
        raise ModuleNotFoundError(f"the build environment has no module {name!r}")
sys.meta_path.insert(0, OnlyTheBuildEnvironment())
"""


@pytest.mark.timeout(120)
def test_the_profile_training_plays_the_installed_modules_with_only_the_engine_and_bots():
    # The profile-guided build (the default with GCC) trains in the build's own environment, where only
    # setuptools and Cython are installed; here it runs against this install's folders.  It must play
    # its games, import nothing the build environment lacks, and name any module it played from source.
    folders = {package: [str(ROOT / folder)] for package, folder in FOLDERS.items()}
    compiled = [f"{package}.{module}" for package, modules in compiled_by_setup().items() for module in modules]
    blocked = BUILD_ENVIRONMENT_ONLY
    completed = subprocess.run(
        [sys.executable, "-c", blocked + setup_constant("_TRAINING"), json.dumps(folders), json.dumps(compiled)],
        capture_output=True, text=True, timeout=110, cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    states = accelerator.status()
    from_source = {name for name, state in states.items() if state == "source" and name != "canasta_sim.runs.records"}
    printed = completed.stdout.strip()
    played = set(printed.split()) if printed != "compiled" else set()
    if accelerator.pure_python_requested():
        # Every module runs from source here, the training's and those it never imports (the view wire).
        assert "canasta_sim.core.engine" in played and played <= from_source
    else:
        assert played == from_source


def test_the_installed_build_says_whether_it_is_profile_guided():
    import canasta_sim.strategies  # noqa: F401

    guided = accelerator.profile_guided()
    described = accelerator.describe()
    if guided is None or accelerator.pure_python_requested():
        assert "profile-guided" not in described
    else:
        assert described.endswith(", profile-guided" if guided else ", not profile-guided")
