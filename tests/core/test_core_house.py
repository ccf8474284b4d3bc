"""The core reads as one program: one code path per function, no CPython internals, modest sizes.

The compiled build and plain Python run the same source lines (only ``sim/core/_compiled`` may ask
``cython.compiled``); no module reaches CPython's object layout (slot offsets, descriptors fetched from a
class's ``__dict__``, ``Py_TYPE``, the ``cpython`` declarations); every name the ``.py`` files use is defined
in them (no ``noqa: F821`` for a name that exists only in a ``.pxd``); no module is over 600 lines and no
function body (its docstring aside) over 80.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parents[2] / "sim" / "core"
COMPILED_HELPERS = CORE / "_compiled"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80


def _core_files(*suffixes: str) -> list[Path]:
    return sorted(
        path for suffix in suffixes for path in CORE.rglob(f"*{suffix}") if not path.is_relative_to(COMPILED_HELPERS)
    )


@pytest.mark.timeout(60)
def test_no_function_of_the_core_takes_a_compiled_only_path():
    offenders = [str(path) for path in _core_files(".py") if "cython.compiled" in path.read_text()]
    assert offenders == []


@pytest.mark.timeout(60)
def test_the_core_reaches_no_cpython_internals():
    internals = re.compile(r"cpython|Py_TYPE|PyObject_GenericSetAttr|PyType_GenericNew|tp_descr_|__dict__\[")
    offenders = [
        f"{path.name}: {match.group(0)}"
        for path in _core_files(".py", ".pxd")
        for match in internals.finditer(path.read_text())
    ]
    assert offenders == []


@pytest.mark.timeout(60)
def test_every_name_the_core_uses_is_defined_in_its_own_source():
    offenders = [str(path) for path in _core_files(".py") if "noqa: F821" in path.read_text()]
    assert offenders == []


@pytest.mark.timeout(60)
def test_no_core_module_is_over_600_lines_nor_function_over_80():
    too_long = []
    for path in _core_files(".py"):
        text = path.read_text()
        if text.count("\n") > MAX_MODULE_LINES:
            too_long.append(f"{path.name}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            body = node.body
            if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and len(body) > 1:
                body = body[1:]
            lines = body[-1].end_lineno - body[0].lineno + 1
            if lines > MAX_FUNCTION_LINES:
                too_long.append(f"{path.name}: {node.name} {lines} lines")
    assert too_long == []
