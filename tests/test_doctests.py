"""The examples in the package's docstrings, run against the installed ``canasta_sim`` modules.

pytest's ``--doctest-modules`` would import ``sim/*.py`` a second time under the folder's name
(``sim.cards`` beside ``canasta_sim.core.cards``), so the docstrings are read from the sources here and run
in the namespace of the module the package really imports, compiled or not.
"""

import ast
import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"canasta_sim": ROOT / "sim", "canasta_sim.strategies": ROOT / "strategies"}


def docstrings(path: Path):
    """(name, docstring, line) of the module and of every class and function in it that has one."""
    tree = ast.parse(path.read_text())
    for node in [tree, *ast.walk(tree)]:
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node, clean=False)
            if text and ">>>" in text:
                yield getattr(node, "name", "<module>"), text, getattr(node, "lineno", 1)


def examples():
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            relative = path.relative_to(folder).with_suffix("")
            parts = [part for part in relative.parts if part != "__init__"]
            module = ".".join([package, *parts])
            for name, text, line in docstrings(path):
                yield pytest.param(module, name, text, line, id=f"{module}.{name}")


@pytest.mark.parametrize(("module", "name", "text", "line"), list(examples()))
def test_docstring_examples(module, name, text, line):
    namespace = dict(vars(importlib.import_module(module)))
    test = doctest.DocTestParser().get_doctest(text, namespace, f"{module}.{name}", module, line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
