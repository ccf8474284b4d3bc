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
* What the prose points a reader to is there: every file named by its path or page name exists, and every rule ID
  the code and the docs cite (``R8.2b``, ``D20``, ``E4``) is one that docs/rules.md explains.
* Every public class and function of the package has a docstring of its own; no ``assert`` checks anything
  outside the tests (it vanishes under ``python -O``); a catch-all ``except`` re-raises, uses the error it caught,
  or says on its line why it may drop it.

Each check runs once per room (a folder of ``sim/``, ``strategies``, a folder of ``tests``, ``scripts``,
``docs``) and names every offending ``file:line``.
"""

import ast
import functools
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
NAMED_PATH = re.compile(r"(?<![\w/.-])((?:sim|strategies|tests|scripts|examples|docs)/[\w./-]*\w\.(?:py|pxd|md))\b")
"""A file of the repository named by its path from the top: ``sim/core/pile.pxd``, ``docs/rules.md``."""
NAMED_PAGE = re.compile(r"(?<![\w/.-])([A-Za-z][\w-]*\.md)\b")
"""A page named by its file name alone: ``rules.md``, ``CHANGELOG.md``."""
RULE_ID = re.compile(r"(?<![\w./-])([RDE]\d{1,2}(?:\.\d+)?[a-z]?)(?!\w)")
"""A rule's ID as the code cites it: ``R8``, ``R8.2``, ``R8.2b``, ``R14.1a`` (item (a) of R14.1), ``D20``, ``E4``."""
RULES_PAGE = ROOT / "docs" / "rules.md"
UNLISTED_RULE_IDS = {"E0": "the refusal a legality probe raises and discards at once (melding._REFUSED): never shown"}
"""IDs the code uses that docs/rules.md need not explain, each with the reason."""
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


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A Python file's syntax tree, parsed once for every check that reads it."""
    return ast.parse(path.read_text(encoding="utf-8"))


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
        for node in ast.walk(parsed(path)):
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


@functools.cache
def comments(path: Path) -> tuple[tuple[int, str], ...]:
    """``(line, text)`` of each comment of a Python file."""
    text = path.read_text(encoding="utf-8")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):  # Cython's declarations: read the text after a ``#``
        lines = enumerate(text.splitlines(), 1)
        return tuple((number, line[line.index("#"):]) for number, line in lines if "#" in line)
    return tuple((token.start[0], token.string) for token in tokens if token.type == tokenize.COMMENT)


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
    assert NAMED_PATH.search("see sim/core/pile.pxd") and NAMED_PAGE.search("the rules of RULES.md")
    assert not NAMED_PATH.search("canasta_sim/core/pile.py") and not NAMED_PAGE.search("docs/img/replay.png")
    assert [match.group(1) for match in RULE_ID.finditer("R8.2b, (R14.1a) D20 E4; not 1E5, R8.2c.3 stops at R8.2c")] \
        == ["R8.2b", "R14.1a", "D20", "E4", "R8.2c", "R8.2c"]
    listed = {"R8.2b", "R14.1", "D20"}
    assert is_explained("R8", listed) and is_explained("R8.2", listed) and is_explained("R14.1a", listed)
    assert not is_explained("R1", listed) and not is_explained("R8.2c", listed) and not is_explained("D2", listed)
    sample = tmp_path / "sample.py"
    sample.write_text('"""Module."""\n\n\nclass Open:\n    def shown(self):\n        pass\n\n    def _hidden(self):\n'
                      '        pass\n\n\ndef checked(x):\n    assert x\n    try:\n        pass\n    except Exception:\n'
                      '        pass\n')
    assert [name for _, name in undocumented(sample)] == ["Open", "Open.shown", "checked"]
    assert [line for line, _ in asserts(sample)] == [13] and silent_catch_alls(sample) == [16]


def prose(path: Path):
    """``(line, text)`` of what a file says to its reader: a page's every line; a module's comments and docstrings (its
    other strings are code, such as a test's paths inside a temporary folder)."""
    if path.suffix == ".md":
        return list(enumerate(path.read_text(encoding="utf-8").splitlines(), 1))
    said = list(comments(path))
    if path.suffix == ".py":
        for node in ast.walk(parsed(path)):
            value = node.value if isinstance(node, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                said += [(node.lineno + offset, text) for offset, text in enumerate(node.value.value.splitlines())]
    return said


def is_named_file_there(path: Path, named: str) -> bool:
    """Whether a page named alone is at the top, in docs/, or beside the file naming it."""
    return any((folder / named).exists() for folder in (ROOT, ROOT / "docs", path.parent))


@pytest.mark.parametrize("name", sorted(TEXT_ROOMS))
def test_every_file_the_prose_names_is_there(name):
    """A path or page name in a comment, a docstring or a page is one a newcomer can open: a module that moved
    into a room, or a file the repository does not hold, is caught here."""
    found = []
    for path in TEXT_ROOMS[name]:
        for number, text in prose(path):
            found += [where(path, number, match.group(1)) for match in NAMED_PATH.finditer(text)
                      if not (ROOT / match.group(1)).exists()]
            found += [where(path, number, match.group(1)) for match in NAMED_PAGE.finditer(text)
                      if not is_named_file_there(path, match.group(1))]
    assert not found, "\n".join(found)


def explained_rule_ids() -> set[str]:
    """The IDs docs/rules.md explains: each marked in bold where it is stated, and the decisions' table rows."""
    text = RULES_PAGE.read_text(encoding="utf-8")
    stated = re.findall(r"\*\*([RDE]\d+(?:\.\d+)?[a-z]?)\*\*", text)
    return set(stated) | set(re.findall(r"^\| (D\d+b?) \|", text, re.M))


def is_explained(rule: str, listed: set[str]) -> bool:
    """Whether ``rule`` is listed, a section or rule whose parts are (``R8`` for ``R8.1a``), or an item of a listed
    rule (``R14.1a``, item (a) of ``R14.1``)."""
    if rule in listed or (rule[-1].isalpha() and rule[:-1] in listed):
        return True
    return any(other.startswith(rule) and not other[len(rule)].isdigit() for other in listed if len(other) > len(rule))


RULE_CITING_ROOMS = by_room(files(["sim", "strategies", "docs", "README.md"], (".py", ".pxd", ".md")))


@pytest.mark.parametrize("name", sorted(RULE_CITING_ROOMS))
def test_every_rule_id_cited_is_explained_in_the_rules_page(name):
    """A refusal or a comment citing a rule sends the reader to docs/rules.md: the ID must be there."""
    listed = explained_rule_ids()
    found = [where(path, number, match.group(1)) for path in RULE_CITING_ROOMS[name]
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for match in RULE_ID.finditer(line)
             if match.group(1) not in UNLISTED_RULE_IDS and not is_explained(match.group(1), listed)]
    assert not found, "\n".join(found)


def undocumented(path: Path) -> list[tuple[int, str]]:
    """``(line, name)`` of each public class, function and method (of a public class) with no docstring."""
    missing = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) or child.name[0] == "_":
                continue
            if ast.get_docstring(child) is None:
                missing.append((child.lineno, prefix + child.name))
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(parsed(path), "")
    return missing


@pytest.mark.parametrize("name", sorted(PACKAGE_ROOMS))
def test_every_public_item_has_a_docstring_of_its_own(name):
    """An override too: the reader of a strategy or a command sees what this one does, not only what the base
    class asks of it."""
    found = [where(path, line, item) for path in PACKAGE_ROOMS[name] if path.suffix == ".py"
             for line, item in undocumented(path)]
    assert not found, "\n".join(found)


def asserts(path: Path) -> list[tuple[int, str]]:
    """``(line, source)`` of each ``assert`` statement."""
    tree = parsed(path)
    return [(node.lineno, ast.unparse(node)) for node in ast.walk(tree) if isinstance(node, ast.Assert)]


def silent_catch_alls(path: Path) -> list[int]:
    """Lines of each bare ``except``, ``except Exception`` or ``except BaseException`` that neither re-raises, nor uses
    the error it caught, nor says on its line why it drops it."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    silent = []
    for node in ast.walk(parsed(path)):
        if not isinstance(node, ast.ExceptHandler):
            continue
        caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
        if not any(kind is None or isinstance(kind, ast.Name) and kind.id in {"Exception", "BaseException"}
                   for kind in caught):
            continue
        inside = [inner for statement in node.body for inner in ast.walk(statement)]
        raises = any(isinstance(inner, ast.Raise) for inner in inside)
        uses = node.name is not None and any(isinstance(inner, ast.Name) and inner.id == node.name for inner in inside)
        if not (raises or uses or "#" in lines[node.lineno - 1]):
            silent.append(node.lineno)
    return silent


CODE_ROOMS = {name: paths for name, paths in ALL_PYTHON_ROOMS.items() if not name.startswith("tests")}


@pytest.mark.parametrize("name", sorted(CODE_ROOMS))
def test_no_assert_checks_anything_outside_the_tests(name):
    """``python -O`` drops every ``assert``: a check that matters raises an error of its own."""
    found = [where(path, line, source) for path in CODE_ROOMS[name] if path.suffix == ".py"
             for line, source in asserts(path)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", sorted(CODE_ROOMS))
def test_no_catch_all_except_drops_an_error_without_saying_why(name):
    found = [where(path, line) for path in CODE_ROOMS[name] if path.suffix == ".py" for line in silent_catch_alls(path)]
    assert not found, "\n".join(found)
