"""Every command the README and the docs pages show a user is one the tools accept, checked without playing a game.

* A ``canasta-sim`` command line of a shell block parses with the command line's own click parser: the command,
  every option and its value's type, the number of arguments.
* A ``canasta-sim`` command quoted in the prose names a command that exists and only options it has.
* A ``python`` command running a script of ``scripts`` or ``examples`` names a file of the repository, and only
  options that script declares (``add_argument``).
* The Python blocks of the README, a first game and a first strategy, run as written, cheaply; so do those of
  docs/output.md, on the run its shell block makes just before them.

tests/test_house.py checks that every file the prose names by its path exists; tests/env/test_env_docs.py runs
docs/env.md's Python blocks.
"""

import ast
import contextlib
import functools
import io
import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_BLOCK = re.compile(r"^```(?:bash|sh|console|shell|)\n(.*?)^```", re.M | re.S)
CODE_BLOCK = re.compile(r"^```.*?^```", re.M | re.S)
QUOTED = re.compile(r"`((?:canasta-sim|python3?) [^`]*)`")
SCRIPT = re.compile(r"^(?:scripts|examples)/[\w/]+\.py$")
SEPARATORS = {"&&", "||", "|", ";", "&"}
REDIRECTIONS = {">", ">>", "<", ">&", "&>"}


def words(line: str) -> list[list[str]]:
    """The simple commands of one shell line, comments and redirections (with their targets) left out: ``a && b | c``
    gives three."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands, current, tokens = [], [], iter(lexer)
    for token in tokens:
        if token in SEPARATORS:
            commands.append(current)
            current = []
        elif token in REDIRECTIONS:
            next(tokens, None)  # the file or descriptor redirected to
        else:
            current.append(token)
    return [command for command in [*commands, current] if command]


def shell_lines(path: Path, synopses: bool = False):
    """``(line number, text)`` of each command line in the page's shell blocks, continuation lines joined and a
    console's ``$`` prompt taken off; output lines (a block's lines not starting with a command) are skipped.  With
    ``synopses``, the synopses instead (``compare NEW --baseline OLD [--elo0 0] ...``), their brackets taken off."""
    text = path.read_text(encoding="utf-8")
    for block in SHELL_BLOCK.finditer(text):
        first = text.count("\n", 0, block.start(1)) + 1
        lines = []  # [first line number, text]: a line ending in a backslash, or an indented one, continues the last
        for number, line in enumerate(block.group(1).splitlines(), first):
            if lines and (lines[-1][1].endswith("\\") or line[:1].isspace()):
                lines[-1][1] = lines[-1][1].removesuffix("\\") + " " + line
            else:
                lines.append([number, line])
        for number, line in lines:
            line = line.removeprefix("$ ")
            if not line.startswith(("canasta-sim ", "python ")):
                continue
            synopsis = " [" in line
            if synopsis:  # its optional parts given, the first of each choice (stop|forfeit)
                line = re.sub(r"(\w)\|[\w|]+", r"\1", re.sub(r"[\[\]]|\.\.\.", " ", line))
            if synopsis == synopses:
                yield number, line


def quoted_commands(path: Path):
    """``(line number, text)`` of each ``canasta-sim ...`` or ``python ...`` the prose quotes in backticks, and of
    each synopsis: what names a command's options without being one to type as it stands."""
    text = CODE_BLOCK.sub(lambda block: "\n" * block.group().count("\n"), path.read_text(encoding="utf-8"))
    for number, line in enumerate(text.splitlines(), 1):
        for match in QUOTED.finditer(line):
            yield number, match.group(1)
    yield from shell_lines(path, synopses=True)


def commands(kind: str, sources) -> list:
    """Every simple command of the docs that starts with ``kind``, as pytest parameters named by page and line."""
    found = []
    for path in DOCS:
        for number, line in sources(path):
            for command in words(line):
                if command[0] == kind or kind == "python" and command[0] in {"python", "python3"}:
                    found.append(pytest.param(command, id=f"{path.name}:{number}:{' '.join(command)[:60]}"))
    return found


def subcommand(args: list[str]) -> tuple[click.Command, list[str]]:
    """The ``canasta-sim`` command ``args`` names, and the arguments left for it."""
    name, rest = args[0], args[1:]
    command = main.get_command(click.Context(main), name)
    assert command is not None, f"canasta-sim has no command {name!r}"
    return command, rest


@pytest.mark.parametrize("command", commands("canasta-sim", shell_lines))
def test_every_canasta_sim_command_of_a_shell_block_parses(command):
    args = command[1:]
    if args[0] in {"--version", "--help", "-h"}:
        return
    parsed, rest = subcommand(args)
    # The group's settings as the program gives them (-h): a command caches its help option from its first context.
    with click.Context(main, info_name="canasta-sim", **main.context_settings) as parent:
        parsed.make_context(args[0], rest, parent=parent)  # raises a one-line usage error on a bad option or value


def options_of(command: click.Command) -> set[str]:
    return {option for parameter in command.params for option in [*parameter.opts, *parameter.secondary_opts]}


@pytest.mark.parametrize("command", commands("canasta-sim", quoted_commands))
def test_every_canasta_sim_command_the_prose_quotes_names_only_options_it_has(command):
    # A quote can be a fragment (`canasta-sim compare --out`, `canasta-sim run --resume DIR`): its options must exist.
    args = command[1:]
    if not args or args[0].startswith("-"):
        assert set(args) <= {"--version", "--help", "-h"}, command
        return
    parsed, rest = subcommand(args)
    named = {word.partition("=")[0] for word in rest if word.startswith("-") and word != "-"}
    assert named <= options_of(parsed), f"{' '.join(command)}: no option {sorted(named - options_of(parsed))}"


@functools.cache
def script_options(path: Path) -> frozenset[str]:
    """The options a script declares with ``add_argument``."""
    declared = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "add_argument":
            declared |= {arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)}
    return frozenset(declared)


PYTHON_COMMANDS = commands("python", shell_lines) + commands("python", quoted_commands)


@pytest.mark.parametrize("command", PYTHON_COMMANDS)
def test_every_script_command_names_a_file_there_and_only_options_it_declares(command):
    if len(command) < 2 or command[1].startswith("-"):  # python -m ..., python -c ...
        return
    script = command[1]
    if not SCRIPT.match(script):  # a user's own file (`python bot.py`)
        return
    path = ROOT / script
    assert path.is_file(), f"{' '.join(command)}: {script} is not in the repository"
    named = {word.partition("=")[0] for word in command[2:] if word.startswith("--")}
    declared = script_options(path)
    if declared:
        assert named <= declared, f"{' '.join(command)}: {script} has no option {sorted(named - declared)}"


REPOSITORY_FILE = re.compile(r"(?<![\w/.-])((?:\.\./|(?:scripts|examples|docs|tests)/)[\w./-]*\w\.(?:py|js|png))")
"""A file a command reads from the checkout (``examples/protocol/bot.js``), or from outside it (``../x/floor.py``)."""


@pytest.mark.parametrize("command", commands("canasta-sim", shell_lines) + PYTHON_COMMANDS)
def test_every_file_a_command_reads_from_the_checkout_is_there(command):
    # A fresh clone has nothing beside it: `../shared/bench/floor.py` failed where `scripts/floor.py`, its copy, runs.
    for match in REPOSITORY_FILE.finditer(" ".join(command)):
        named = match.group(1)
        assert not named.startswith("../"), f"{' '.join(command)}: {named} is outside the repository"
        if not named.startswith("docs/img/"):  # a chart a command writes may be new
            assert (ROOT / named).is_file(), f"{' '.join(command)}: {named} is not in the repository"


def test_the_parsing_checks_catch_what_they_look_for():
    assert words("a --x 1 && b | head  # note") == [["a", "--x", "1"], ["b"], ["head"]]
    assert words("canasta-sim run >&-") == [["canasta-sim", "run"]] == words("canasta-sim run > /dev/full")
    assert words("canasta-sim report R -o -") == [["canasta-sim", "report", "R", "-o", "-"]]
    with pytest.raises(click.UsageError):
        test_every_canasta_sim_command_of_a_shell_block_parses(["canasta-sim", "run", "--gamez", "10"])
    with pytest.raises(click.UsageError):
        test_every_canasta_sim_command_of_a_shell_block_parses(["canasta-sim", "run", "--games", "many"])
    with pytest.raises(AssertionError):
        test_every_canasta_sim_command_the_prose_quotes_names_only_options_it_has(["canasta-sim", "run", "--gamez"])
    with pytest.raises(AssertionError):
        test_every_script_command_names_a_file_there_and_only_options_it_declares(
            ["python", "scripts/bench.py", "--no-such-option"])
    with pytest.raises(AssertionError):
        test_every_file_a_command_reads_from_the_checkout_is_there(["python", "../shared/bench/floor.py"])
    with pytest.raises(AssertionError):
        test_every_file_a_command_reads_from_the_checkout_is_there(["canasta-sim", "-s", "cmd:node examples/x.js"])
    assert commands("canasta-sim", shell_lines) and PYTHON_COMMANDS


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.M | re.S)


@pytest.mark.timeout(60)
def test_the_readmes_first_game_runs_as_written_and_prints_one_line_a_hand():
    first_game = python_blocks(ROOT / "README.md")[0]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(first_game, "README.md", "exec"), {})
    lines = printed.getvalue().splitlines()
    assert re.fullmatch(r"\(\d+, \d+\) [01] \d+", lines[0]), lines[0]
    assert len(lines) == 1 + int(lines[0].split()[-1])


@pytest.mark.timeout(60)
def test_the_readmes_strategy_loads_and_plays_a_game(tmp_path):
    from canasta_sim import Rules, play_game
    from canasta_sim.plugins.loader import load_strategy
    from canasta_sim.strategies import Greedy

    source = next(block for block in python_blocks(ROOT / "README.md") if block.startswith("# my_bot.py"))
    (tmp_path / "my_bot.py").write_text(source, encoding="utf-8")
    bot = load_strategy(f"{tmp_path / 'my_bot.py'}:MyBot")
    result = play_game([bot, Greedy, bot, Greedy], seed=1, rules=Rules(target_score=1500))
    assert max(result.scores) >= 1500


@pytest.mark.timeout(60)
def test_the_output_pages_python_blocks_read_the_run_its_command_makes(tmp_path, monkeypatch):
    # They read a placeholder run ("results/20250101-120000") that no command shown made.
    page = ROOT / "docs" / "output.md"
    made = next(line for _, line in shell_lines(page) if "--out" in line)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [*shlex.split(made)[1:], "-q"])
    assert result.exit_code == 0, result.output
    blocks = python_blocks(page)
    read_decisions = re.search(r"`(pd\.read_parquet\(\"[^\"]+/decisions\"\))`", page.read_text(encoding="utf-8"))
    assert read_decisions, "docs/output.md no longer shows how to read the decisions dataset"
    names = {}
    for block in blocks[:2]:
        exec(compile(block, str(page), "exec"), names)
    decisions = eval(read_decisions.group(1), names)
    assert len(names["games"]) == len(names["run"].games) > 0 and len(decisions) > 0


RESULTS_PATH = re.compile(r"results/[\w<>.\-/]*\w>?")
DEFAULT_FOLDERS = {"results/<date-time>", "results/tune-<date-time>"}
"""The folders ``run`` and ``tune`` name by default, as their ``--out`` help gives them."""


def help_texts():
    """``(command, help text)`` of every command and group of the command line."""
    def walk(command, path, parent=None):
        context = click.Context(command, info_name=path[-1], parent=parent, **command.context_settings)
        yield " ".join(path), command.get_help(context)
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                yield from walk(command.get_command(context, name), [*path, name], context)

    return list(walk(main, ["canasta-sim"]))


def test_every_run_folder_in_the_help_and_the_docstrings_is_one_a_users_run_can_have():
    # The notebook API's and plot's docstrings read "results/20250101-120000", a placeholder no shown command made,
    # where docs/output.md reads results/example, the folder its own command writes.
    written = {match.group(1) for page in DOCS
               for match in re.finditer(r"--out (results/[\w.\-/]+\w)", page.read_text(encoding="utf-8"))}
    assert "results/example" in written
    found = [(command, path) for command, text in help_texts() for path in RESULTS_PATH.findall(text)]
    for source in sorted((ROOT / "sim").rglob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [(source.name, path) for path in RESULTS_PATH.findall(ast.get_docstring(node) or "")]
    assert {path for _, path in found} >= DEFAULT_FOLDERS  # the check sees the help texts
    assert [(where, path) for where, path in found if path not in DEFAULT_FOLDERS | written] == []


@pytest.mark.timeout(300)
def test_the_notebook_block_of_running_md_plays_in_the_kernel_and_in_workers(tmp_path, monkeypatch):
    # Run as a script, not in a kernel: nbconvert is not among the test tools. The magics the prose names
    # (%%writefile) are done here by hand, as the cell would.
    block = next(block for block in python_blocks(ROOT / "docs" / "running.md") if "from my_bot import" in block)
    source = next(block for block in python_blocks(ROOT / "README.md") if block.startswith("# my_bot.py"))
    (tmp_path / "my_bot.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # a notebook's own folder is on its path
    monkeypatch.delitem(__import__("sys").modules, "my_bot", raising=False)
    names = {}
    exec(compile(block, "docs/running.md", "exec"), names)
    assert 0 <= names["wins"] <= 20 and len(names["run"].games) == 200
    assert list(names["run"].entrants) == ["my_bot.py:MyBot", "greedy"]
