"""The package's rooms and their one-way dependencies, read from the folders (docs/architecture.md).

Each sub-package of ``canasta_sim`` (the folder ``sim/``) is a room, and the built-in strategies
(``canasta_sim.strategies``, the folder ``strategies/``) are one too.  A module may import only from its
own room or the rooms before it in :data:`ROOMS`, by the modules' own paths (the old flat paths kept for
users, :mod:`canasta_sim._moved`, are not for the package itself).  The arbiter and the core never import
the analysis stack (numpy, pandas, pyarrow, matplotlib): the hot loop stays on plain ints and lists.
"""

import ast
from pathlib import Path

import pytest

from canasta_sim._moved import MOVED

ROOT = Path(__file__).resolve().parent.parent
SIM = ROOT / "sim"
STRATEGIES = ROOT / "strategies"

ROOMS = ["errors", "arbiter", "core", "strategies", "plugins", "terminal", "env", "runs", "analysis", "tuning", "cli"]
"""The rooms in dependency order: each imports only from itself and those before it."""
TOP = {"__init__", "__main__", "_moved"}
"""The package's own top-level modules: the public surface and the old paths; they may import any room."""
ANALYSIS_STACK = {"numpy", "pandas", "pyarrow", "matplotlib", "tqdm", "dask", "distributed"}
RANDOM_USERS = {"core/deal.py", "core/state.py", "core/engine.py", "core/strategy.py", "plugins/loader.py"}
"""The only modules of the play that import ``random``: each seeds its own generator, never the global one."""


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth of the file (function-level imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            if node.module == "canasta_sim":  # ``from canasta_sim import some_module``
                found.update(f"canasta_sim.{alias.name}" for alias in node.names if _is_module(alias.name))
    return found


def _is_module(name: str) -> bool:
    return name in MOVED or (SIM / name).is_dir() or (SIM / f"{name}.py").is_file()


def room_of_path(path: Path) -> str:
    """A source file's room: its folder under ``sim/``, ``strategies``, or its own name at the top of ``sim/``."""
    if path.is_relative_to(STRATEGIES):
        return "strategies"
    relative = path.relative_to(SIM)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def room_of_module(name: str) -> str:
    """The room of a dotted ``canasta_sim`` module path."""
    return name.split(".")[1]


def package_modules() -> list[Path]:
    return sorted([*SIM.rglob("*.py"), *STRATEGIES.rglob("*.py")])


def test_every_folder_and_top_module_is_a_room():
    rooms = {room_of_path(path) for path in package_modules()}
    assert rooms - TOP == set(ROOMS)


@pytest.mark.parametrize(
    "path",
    [path for path in package_modules() if room_of_path(path) not in TOP],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_imports_point_only_to_earlier_rooms(path):
    own = ROOMS.index(room_of_path(path))
    for module in imported_modules(path):
        if module.startswith("canasta_sim."):
            target = room_of_module(module)
            assert target in ROOMS, f"{path.name} imports {module}, an old path: import it from its room"
            assert ROOMS.index(target) <= own, (
                f"{path.relative_to(ROOT)} ({ROOMS[own]}) imports {module} ({target}), a later room"
            )


@pytest.mark.parametrize(
    "path",
    [path for path in package_modules() if room_of_path(path) in {"errors", "arbiter", "core"}],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_the_arbiter_and_the_core_never_import_the_analysis_stack(path):
    roots = {module.split(".")[0] for module in imported_modules(path)}
    assert not roots & ANALYSIS_STACK
    assert "random" not in roots or str(path.relative_to(SIM)) in RANDOM_USERS


def test_a_later_room_imported_late_is_still_caught(tmp_path):
    """The check reads imports inside functions too: a call-time import is still an import."""
    module = tmp_path / "late.py"
    module.write_text("def f():\n    from canasta_sim.runs.runner import run\n")
    assert "canasta_sim.runs.runner" in imported_modules(module)


def private_imports(path: Path) -> set[str]:
    """The private names (one leading underscore) a file imports from other ``canasta_sim`` modules, as
    ``module.name``."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("canasta_sim"):
            found.update(f"{node.module}.{alias.name}" for alias in node.names
                         if alias.name.startswith("_") and not alias.name.startswith("__"))
    return found


@pytest.mark.parametrize(
    "path",
    [path for path in package_modules() if room_of_path(path) in {"env", "runs", "analysis", "cli"}],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_modules_of_a_room_share_their_helpers_by_public_names(path):
    # The observation's encoder read the action numbering's private helpers, and compare the run command's: a rename
    # there broke them unseen.
    room = f"canasta_sim.{room_of_path(path)}."
    shared = {name for name in private_imports(path) if name.startswith(room)}
    assert not shared, f"{path.relative_to(ROOT)} imports private names of another module: {sorted(shared)}"


@pytest.mark.parametrize("path", package_modules(), ids=lambda path: str(path.relative_to(ROOT)))
def test_rooms_use_each_others_modules_by_public_names_only(path):
    # The policy spec form imported the strategy loader's private file import: a rename in the loader's room would
    # have broken another room unseen.
    room = room_of_path(path)
    foreign = {name for name in private_imports(path)
               if name.count(".") > 1 and room_of_module(name.rpartition(".")[0]) != room}
    assert not foreign, f"{path.relative_to(ROOT)} imports private names of another room: {sorted(foreign)}"
