"""The package's rooms and their one-way dependencies, read from the folders (docs/architecture.md).

Each sub-package of ``canasta_sim`` (the folder ``sim/``) is a room, and the built-in strategies
(``canasta_sim.strategies``, the folder ``strategies/``) are one too.  A module may import only from its
own room or the rooms before it in :data:`ROOMS`, by the modules' own paths (the old flat paths kept for
users, :mod:`canasta_sim._moved`, are not for the package itself).  The arbiter and the core never import
the analysis stack (numpy, pandas, pyarrow, matplotlib): the hot loop stays on plain ints and lists.
"""

import ast
import re
from pathlib import Path

import pytest

from canasta_sim._moved import MOVED

ROOT = Path(__file__).resolve().parent.parent
SIM = ROOT / "sim"
STRATEGIES = ROOT / "strategies"
ARCHITECTURE_PAGE = ROOT / "docs" / "architecture.md"

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


def rooms_on_the_page() -> dict[str, str]:
    """Each row of docs/architecture.md's table of rooms, in the page's order: the room (``errors`` for the top of
    ``canasta_sim``) and what the row says it holds; the built-in strategies' row is in the table beside it."""
    rows = {}
    for line in ARCHITECTURE_PAGE.read_text(encoding="utf-8").splitlines():
        room = re.match(r"\| `canasta_sim(?:\.(\w+))?` \| `[^`]*` \| (.*) \|$", line)
        if room:
            rows[room.group(1) or "errors"] = room.group(2)
        elif line.startswith("| `strategies/` |"):
            rows["strategies"] += line
    return rows


def test_the_architecture_page_lists_the_rooms_in_their_order():
    assert list(rooms_on_the_page()) == ROOMS


@pytest.mark.parametrize("room", ROOMS)
def test_the_architecture_page_names_every_module_of_a_room_in_its_row(room):
    """A newcomer looks a module up in its room's row: one missing there has no explanation anywhere."""
    folder = {"errors": SIM, "strategies": STRATEGIES}.get(room, SIM / room)
    modules = folder.glob("*.py") if room == "errors" else folder.rglob("*.py")
    named = set(re.findall(r"`(\w+)`", rooms_on_the_page()[room]))
    unnamed = sorted(str(path.relative_to(ROOT)) for path in modules if path.stem not in named | {"__init__"})
    assert not unnamed, f"docs/architecture.md does not name {unnamed} in the row of {room}"


def test_every_module_the_rules_table_names_is_in_the_core():
    """The table of where each rule is checked sends a reader to modules of ``sim/core/``."""
    text = ARCHITECTURE_PAGE.read_text(encoding="utf-8").split("## Where the rules live")[1].split("\n## ")[0]
    named = {name for row in re.findall(r"^\|[^|]*\| ([^|]*) \|", text, re.MULTILINE)
             for name in re.findall(r"`([a-z_]+)`", row)}
    assert named and not {name for name in named if not (SIM / "core" / f"{name}.py").is_file()}
