"""The built-in strategies are plain Python a strategy writer can learn from: no Cython, no C declarations,
nothing private of the view or the engine (their speed comes from canasta_sim.core's public helpers)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

STRATEGIES = Path(__file__).resolve().parents[2] / "strategies"
SOURCES = sorted(STRATEGIES.glob("*.py"))

# What a strategy reaches the game through, by the names the built-ins give them.
GAME_OBJECTS = {"view", "state", "engine", "table", "event"}


def _names(node: ast.AST) -> set[str]:
    """The base name of an attribute chain: ``view`` for ``view.rules.x``."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


def test_the_strategies_folder_holds_python_sources_only():
    assert SOURCES
    assert not list(STRATEGIES.glob("*.pxd")) and not list(STRATEGIES.glob("*.pyx"))


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_a_builtin_strategy_imports_no_cython_and_nothing_compiled_only(source):
    tree = ast.parse(source.read_text(), str(source))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert not any(alias.name.split(".")[0] == "cython" for alias in node.names), source.name
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            assert module.split(".")[0] != "cython" and "_compiled" not in module, (source.name, module)
        elif isinstance(node, ast.Attribute):
            assert not (node.attr == "compiled" and _names(node.value) == {"cython"}), source.name


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_a_builtin_strategy_reads_nothing_private_of_the_view_or_the_engine(source):
    tree = ast.parse(source.read_text(), str(source))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            value = node.value
            if isinstance(value, ast.Name) and value.id in GAME_OBJECTS:
                raise AssertionError(f"{source.name}:{node.lineno}: {value.id}.{node.attr}")
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
            # A class's __dict__ hands out slot descriptors: the way round a view's or a record's attributes.
            assert node.value.attr != "__dict__", f"{source.name}:{node.lineno}"


def test_the_sizes_a_reader_can_take_in():
    lines = {path.name: len(path.read_text().splitlines()) for path in SOURCES}
    assert lines["expert.py"] <= 600 and lines["greedy.py"] <= 250


@pytest.mark.parametrize("source", SOURCES, ids=lambda path: path.name)
def test_a_builtin_strategy_imports_what_canasta_sim_exports_from_canasta_sim_itself(source):
    """The built-ins are the files users copy, and docs/strategies.md teaches ``from canasta_sim import Strategy``:
    a name the package exports is imported from it, the core's modules only for the helpers it does not export."""
    import canasta_sim

    exported = set(canasta_sim.__all__)
    tree = ast.parse(source.read_text())
    found = [f"{source.name}:{node.lineno}: {name} from {node.module}" for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("canasta_sim.")
             and not node.module.startswith("canasta_sim.strategies")
             for name in (alias.name for alias in node.names) if name in exported]
    assert not found, "\n".join(found)
