"""The house rules a newcomer relies on, checked over the whole tree (docs/architecture.md).

* Sizes: no Python module (the package, its tests, scripts and examples) over :data:`MAX_MODULE_LINES` lines,
  no function body (its docstring left out) over :data:`MAX_FUNCTION_LINES`, so that every module and
  function can be read whole.
* Compiled code lives in one room: Cython (``import cython``, ``cimport``, ``.pxd`` files) only under
  ``sim/core``, and the one switch between the compiled and the plain code path (``cython.compiled``) only
  in ``sim/core/_compiled``; everywhere else a function has one code path.
* No CPython internals (member offsets, type slots, raw attribute writes) anywhere: the code relies only on
  Python's documented behaviour, so it runs the same games compiled or not.
* No work-item numbers in code, tests or docs: comments say why, in canasta terms; history belongs in the
  commit messages and CHANGELOG.md.

Each check runs once per room (a folder of ``sim/``, ``strategies``, a folder of ``tests``, ``scripts``,
``docs``) and names every offending ``file:line``.
"""

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = [ROOT / "sim", ROOT / "strategies"]
CORE = ROOT / "sim" / "core"
COMPILED_SWITCH = CORE / "_compiled"

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

WORK_ITEM = re.compile(r"\bissues? #?\d+|\(#\d+\)", re.IGNORECASE)
"""A work-item reference anywhere: ``issue #18``, ``issue 6``, ``(#13)``."""
WORK_ITEM_IN_COMMENT = re.compile(r"(?<![\w&/])#\d{1,3}\b")
"""A bare ``#13`` in a comment (in prose it may be a rank or a seat, so only comments are checked for it)."""
CYTHON = re.compile(r"^\s*(import cython\b|from cython\b|cimport\b|from \S+ cimport\b)")
CPYTHON_INTERNALS = re.compile(
    r"PyMemberDef|Py_TYPE|__dict__\[[\"']|tp_descr_|PyObject_GenericSetAttr|PyType_GenericNew|offsetof|"
    r"\bfrom cpython\b|\bcimport cpython\b"
)
"""Reads of CPython's layout: member offsets, type slots, class dicts by key, raw attribute writes."""
SELF = Path(__file__).resolve()
"""This file names the patterns it looks for, so it is left out of the pattern checks."""


def room(path: Path) -> str:
    """The room a file is counted in: its first two folders (``sim/core``, ``tests/cli``) or, for a file
    directly in a top folder, that folder (``sim``, ``scripts``); ``README.md`` is its own room."""
    parts = path.relative_to(ROOT).parts
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def files(tops, suffixes=(".py",)) -> list[Path]:
    found = []
    for top in tops:
        top = ROOT / top
        if top.is_file():
            found.append(top)
        else:
            found.extend(path for path in top.rglob("*") if path.suffix in suffixes and path.is_file())
    return sorted(path for path in found if "__pycache__" not in path.parts and path.resolve() != SELF)


def by_room(paths: list[Path]) -> dict[str, list[Path]]:
    rooms: dict[str, list[Path]] = {}
    for path in paths:
        rooms.setdefault(room(path), []).append(path)
    return rooms


def where(path: Path, line: int, what: str = "") -> str:
    return f"{path.relative_to(ROOT)}:{line}" + (f" {what}" if what else "")


PACKAGE_ROOMS = by_room(files(PACKAGE, (".py", ".pyx")))
PXD_ROOMS = by_room(files(PACKAGE, (".pxd",)))
ALL_PYTHON_ROOMS = by_room(files(["sim", "strategies", "tests", "scripts", "examples", "setup.py"], (".py", ".pxd")))
TEXT_ROOMS = by_room(files(["sim", "strategies", "tests", "scripts", "docs", "README.md"], (".py", ".pxd", ".md")))


def function_body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the body's first statement after the docstring to the function's last line."""
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(
            body[0].value.value, str):
        body = body[1:]
    if not body:
        return 0
    return function.end_lineno - body[0].lineno + 1


@pytest.mark.parametrize("name", sorted(ALL_PYTHON_ROOMS))
def test_no_module_is_longer_than_600_lines(name):
    long = [where(path, lines, f"has {lines} lines") for path in ALL_PYTHON_ROOMS[name]
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert not long, "\n".join(long)


@pytest.mark.parametrize("name", sorted(ALL_PYTHON_ROOMS))
def test_no_function_body_is_longer_than_80_lines(name):
    long = []
    for path in ALL_PYTHON_ROOMS[name]:
        if path.suffix != ".py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = function_body_lines(node)
                if lines > MAX_FUNCTION_LINES:
                    long.append(where(path, node.lineno, f"{node.name}: a body of {lines} lines"))
    assert not long, "\n".join(long)


@pytest.mark.parametrize("name", sorted(PACKAGE_ROOMS))
def test_only_the_compatibility_module_switches_on_cython_compiled(name):
    found = [where(path, number) for path in PACKAGE_ROOMS[name] if not path.is_relative_to(COMPILED_SWITCH)
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if "cython.compiled" in line]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", sorted(set(PACKAGE_ROOMS) | set(PXD_ROOMS)))
def test_cython_appears_only_in_the_core(name):
    paths = [path for path in PACKAGE_ROOMS.get(name, []) if not path.is_relative_to(CORE)]
    found = [where(path, number, line.strip()) for path in paths
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if CYTHON.match(line)]
    found += [where(path, 1, "a .pxd file") for path in PXD_ROOMS.get(name, []) if not path.is_relative_to(CORE)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", sorted(PACKAGE_ROOMS))
def test_every_name_a_module_uses_is_defined_in_its_own_source(name):
    """No ``noqa: F821``: a name that exists only in a ``.pxd`` would pass lint and every plain-Python test."""
    found = [where(path, number) for path in PACKAGE_ROOMS[name]
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "noqa: F821" in line]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", sorted(ALL_PYTHON_ROOMS))
def test_no_cpython_internals(name):
    found = [where(path, number, match.group()) for path in ALL_PYTHON_ROOMS[name]
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for match in CPYTHON_INTERNALS.finditer(line)]
    assert not found, "\n".join(found)


def comments(path: Path):
    """``(line, text)`` of each comment of a Python file."""
    text = path.read_text(encoding="utf-8")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):  # Cython's declarations: read the text after a ``#``
        return [(number, line[line.index("#"):]) for number, line in enumerate(text.splitlines(), 1) if "#" in line]
    return [(token.start[0], token.string) for token in tokens if token.type == tokenize.COMMENT]


@pytest.mark.parametrize("name", sorted(TEXT_ROOMS))
def test_no_work_item_numbers(name):
    found = []
    for path in TEXT_ROOMS[name]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [where(path, number, match.group()) for match in WORK_ITEM.finditer(line)]
        if path.suffix in {".py", ".pxd"}:
            found += [where(path, number, match.group()) for number, text in comments(path)
                      for match in WORK_ITEM_IN_COMMENT.finditer(text)]
    assert not found, "\n".join(found)


def test_the_checks_see_what_they_look_for(tmp_path):
    """Each pattern and the body count catch a sample of what they forbid, so a passing check means something."""
    assert WORK_ITEM.search("see issue #18") and WORK_ITEM.search("issue 6") and WORK_ITEM.search("point (#13)")
    assert WORK_ITEM_IN_COMMENT.search("# as in #13") and not WORK_ITEM_IN_COMMENT.search("# R9.2, hands[#]")
    assert CYTHON.match("from canasta_sim.core cimport cards") and CYTHON.match("import cython")
    assert CPYTHON_INTERNALS.search("Py_TYPE(obj)") and CPYTHON_INTERNALS.search('Seat.__dict__["hand"]')
    assert CPYTHON_INTERNALS.search("from cpython.object cimport PyObject")
    assert not CPYTHON_INTERNALS.search("CPython's")
    source = 'def f():\n    """Doc."""\n' + "    x = 1\n" * 81
    assert function_body_lines(ast.parse(source).body[0]) == 81
