"""The package's rooms and their one-way dependencies (STYLE.md: the layout tells the architecture).

Each module of ``canasta_sim`` (the folder ``sim/``) belongs to one layer; a module may import only from
its own layer or the ones before it, and the rules engine never imports the analysis stack (numpy,
pandas, pyarrow, matplotlib): the hot loop stays on plain ints and lists.
"""

import ast
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parent.parent / "sim"

LAYERS = [
    ("foundations", {"accelerator", "cython_fallback", "errors", "cards", "rules", "moves", "phases"}),
    ("rules engine", {"melds", "going_out", "melding", "pile", "state", "legal", "scoring"}),
    ("play", {"arbiter", "view", "parameters", "strategy", "engine", "loader",
              "viewmessage", "protocol", "botprocess", "isolation", "botserver"}),
    ("search", {"search"}),
    # The research interface (issue #17): environments, encodings, policies, decision records; numpy allowed.
    ("research", {"env"}),
    ("runs", {"records", "storage", "summary", "ratings", "sprt", "matchmaking", "runner", "supervisor", "dask_backend",
              "analysis", "report_sections", "code_guard"}),
    ("tuning", {"spsa", "tuning", "tuning_run"}),
    ("people", {"narrate", "human"}),
    ("command line", {"cli", "__main__", "commands"}),
]
LAYER_OF = {module: index for index, (_, modules) in enumerate(LAYERS) for module in modules}
ANALYSIS_STACK = {"numpy", "pandas", "pyarrow", "matplotlib", "tqdm", "dask", "distributed"}


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth of the file (function-level imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def sim_modules() -> list[Path]:
    return sorted(path for path in SIM.rglob("*.py"))


def layer_of(path: Path) -> int:
    relative = path.relative_to(SIM)
    name = relative.parts[0] if len(relative.parts) > 1 else relative.stem
    return LAYER_OF.get("__init__" if name == "__init__" else name, -1)


def test_every_module_has_a_layer():
    unplaced = [str(path.relative_to(SIM)) for path in sim_modules() if path.stem != "__init__" and layer_of(path) < 0]
    assert unplaced == []


@pytest.mark.parametrize(
    "path",
    [path for path in sim_modules() if path.name != "__init__.py" or path.parent != SIM],
    ids=lambda path: str(path.relative_to(SIM)),
)
def test_imports_point_only_to_earlier_layers(path):
    own = layer_of(path)
    for module in imported_modules(path):
        if module.startswith("canasta_sim.") and not module.startswith("canasta_sim.strategies"):
            target = module.split(".")[1]
            assert LAYER_OF[target] <= own, (
                f"{path.name} ({LAYERS[own][0]}) imports {module} ({LAYERS[LAYER_OF[target]][0]})"
            )


@pytest.mark.parametrize("name", sorted(LAYERS[0][1] | LAYERS[1][1] | LAYERS[2][1]))
def test_engine_never_imports_the_analysis_stack(name):
    roots = {module.split(".")[0] for module in imported_modules(SIM / f"{name}.py")}
    assert not roots & ANALYSIS_STACK
    assert "random" not in roots or name in {"state", "engine", "loader", "strategy"}
