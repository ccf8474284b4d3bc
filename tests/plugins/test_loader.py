"""Strategy specs: built-in names, files, modules, entry-point plugins, parameters, and the
``canasta-sim strategies`` listing."""

from __future__ import annotations

import pickle
import random
import textwrap

import pytest
from click.testing import CliRunner

import canasta_sim.plugins.loader
from canasta_sim.cli import main
from canasta_sim.core.engine import play_game
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import available_strategies, load_strategy, parse_spec
from canasta_sim.strategies import Expert, Greedy, RandomPlay

BOT_SOURCE = textwrap.dedent(
    '''
    from canasta_sim.core.strategy import Strategy


    class FileBot(Strategy):
        """Draws, never melds, discards its first legal card."""

        name = "file-bot"
        version = 3
        description = "A bot from a file."
        parameters = {"depth": 1, "bold": False}

        def choose_acquire(self, view):
            return next(view.legal_acquires())

        def choose_discard(self, view):
            return next(view.legal_discards())


    NOT_A_STRATEGY = 42
    '''
)


@pytest.fixture()
def bot_file(tmp_path):
    path = tmp_path / "file_bot.py"
    path.write_text(BOT_SOURCE)
    return path


class FakeEntryPoint:
    """Stands in for an ``importlib.metadata.EntryPoint`` of the group canasta_sim.strategies."""

    def __init__(self, name, target, value="fake_package.bots:Bot"):
        self.name = name
        self.value = value
        self._target = target

    def load(self):
        if isinstance(self._target, Exception):
            raise self._target
        return self._target


class PluginBot(Greedy):
    """A plugin strategy."""

    name = "plugin-bot"
    version = 7
    description = "Installed from a package."


@pytest.fixture()
def plugins(monkeypatch):
    points = {
        "plugin-bot": FakeEntryPoint("plugin-bot", PluginBot),
        "broken-bot": FakeEntryPoint("broken-bot", ImportError("no module named fake_package")),
    }
    monkeypatch.setattr(canasta_sim.plugins.loader, "_entry_points", lambda: points)
    return points


# ---------------------------------------------------------------- spec forms


@pytest.mark.parametrize(("name", "cls"), [("random", RandomPlay), ("greedy", Greedy), ("expert", Expert)])
def test_builtin_names(name, cls):
    loaded = load_strategy(name)
    assert loaded.cls is cls and loaded.label == f"{name}@{cls.version}"
    assert isinstance(loaded(random.Random(0)), cls)


def test_file_path_and_class(bot_file):
    loaded = load_strategy(f"{bot_file}:FileBot")
    assert loaded.label == "file-bot@3"
    result = play_game([loaded, Greedy, loaded, Greedy], seed=1)
    assert result.winner == 1  # a bot that never melds loses


def test_file_parameters_are_converted_to_the_defaults_types(bot_file):
    player = load_strategy(f"{bot_file}:FileBot:depth=4,bold=yes")(random.Random(0))
    assert (player.depth, player.bold) == (4, True)


def test_module_and_class():
    loaded = load_strategy("canasta_sim.strategies.expert:Expert:aggression=0.9")
    assert loaded.cls is Expert and loaded(random.Random(0)).aggression == 0.9


def test_entry_point_plugin(plugins):
    loaded = load_strategy("plugin-bot")
    assert loaded.cls is PluginBot and loaded.label == "plugin-bot@7"


def test_broken_plugin_is_reported_with_its_cause(plugins):
    with pytest.raises(StrategyLoadError, match="'broken-bot' failed to load: ImportError"):
        load_strategy("broken-bot")


def test_plugin_through_importlib_metadata(monkeypatch):
    seen = []

    def entry_points(group):
        seen.append(group)
        return [FakeEntryPoint("meta-bot", PluginBot)]

    monkeypatch.setattr(canasta_sim.plugins.loader.importlib.metadata, "entry_points", entry_points)
    assert load_strategy("meta-bot").cls is PluginBot
    assert seen[-1] == "canasta_sim.strategies"


def test_parse_spec_splits_target_and_parameters():
    assert parse_spec("expert") == ("expert", ())
    assert parse_spec("expert:aggression=0.7,freeze=2") == ("expert", (("aggression", "0.7"), ("freeze", "2")))
    assert parse_spec("bots/b.py:Bot:depth=2") == ("bots/b.py:Bot", (("depth", "2"),))
    assert parse_spec(r"C:\bots\b.py:Bot") == (r"C:\bots\b.py:Bot", ())  # a drive letter is no parameter


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "empty strategy spec"),
        ("grandmaster", "unknown strategy 'grandmaster'; use one of: expert, greedy, ismcts, pimc, random"),
        ("expert:aggression=0.5:freeze", "parameters must come last"),
        ("expert:=3", "is not KEY=VALUE"),
        # The last value was played, silently: a typo in a long spec went unseen.
        ("expert:aggression=0.3,freeze=2,aggression=0.7", "gives aggression twice"),
        ("isolated:expert:aggression=0.3,aggression=0.7", "gives aggression twice"),
        ("expert:boldness=2", "has no parameter 'boldness'; its parameters: aggression, answer_cost"),
        ("expert:freeze=lots", "expert: freeze=lots is not a number; expected a float from 0 to 3, such as 1.0"),
        ("no_such_module_here:Bot", "cannot be imported"),
        ("canasta_sim.strategies.expert:Missing", "has no class 'Missing'"),
        ("canasta_sim.strategies.expert:CardMemory", "'canasta_sim.strategies.expert:CardMemory' is not a strategy "
                                                    "class: FILE.py:Class or module:Class must name a subclass of "
                                                    "canasta_sim.Strategy"),
        ("missing/dir/bot.py:Bot", "does not exist"),
        ("expert:", "empty part after a colon"),
        ("bots/b.py::depth=2", "empty part after a colon"),
        # Read as module:Class, it said that no module 'expert' could be imported.
        ("expert:aggression", "'aggression' is no KEY=VALUE parameter of expert"),
    ],
)
def test_bad_specs_are_refused_with_one_clear_line(spec, message):
    with pytest.raises(StrategyLoadError, match=message.replace("(", r"\(")) as caught:
        load_strategy(spec)
    assert "\n" not in str(caught.value)


def test_bad_files_are_refused(tmp_path, bot_file):
    broken = tmp_path / "broken.py"
    broken.write_text("def oops(:\n")
    with pytest.raises(StrategyLoadError, match="failed to import: SyntaxError"):
        load_strategy(f"{broken}:Bot")
    with pytest.raises(StrategyLoadError, match="is not a strategy class"):
        load_strategy(f"{bot_file}:NOT_A_STRATEGY")
    raising = tmp_path / "raising.py"
    raising.write_text(
        "from canasta_sim.strategies import Greedy\n"
        "class Bot(Greedy):\n"
        "    name = 'raising'\n"
        "    def __init__(self, rng, **parameters):\n"
        "        raise RuntimeError('no model file')\n"
    )
    with pytest.raises(StrategyLoadError, match="cannot be built: RuntimeError: no model file"):
        load_strategy(f"{raising}:Bot")


def test_loaded_strategy_pickles_as_its_spec(bot_file):
    for spec in ("expert:aggression=0.8", f"{bot_file}:FileBot:depth=2"):
        loaded = load_strategy(spec)
        again = pickle.loads(pickle.dumps(loaded))
        assert again.spec == spec and again.label == loaded.label and again.parameters == loaded.parameters


# ---------------------------------------------------------------- listing


def test_available_strategies_lists_builtins_and_plugins(plugins):
    listed = {name: (cls, source) for name, cls, source in available_strategies()}
    assert listed["expert"] == (Expert, "built-in")
    assert listed["plugin-bot"][0] is PluginBot
    assert listed["broken-bot"][0] is None


def test_strategies_command(plugins):
    result = CliRunner().invoke(main, ["strategies"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "VERSION", "SOURCE", "DESCRIPTION"]
    rows = {line.split()[0]: line for line in lines[1:] if line.strip()}
    for name, cls in (("random", RandomPlay), ("greedy", Greedy), ("expert", Expert)):
        assert f" {cls.version} " in rows[name] and cls.description in rows[name]
    assert "7" in rows["plugin-bot"] and "Installed from a package." in rows["plugin-bot"]
    assert "fails to load" in rows["broken-bot"]


@pytest.mark.parametrize("where", ["import", "build"])
def test_a_strategy_that_calls_exit_is_refused_with_one_line_and_ends_nothing(tmp_path, where):
    # exit() raises SystemExit, which is no Exception: it ended the command with its status and no word.
    path = tmp_path / "quits.py"
    body = "    def __init__(self, *args, **kwargs):\n        raise SystemExit(4)\n" if where == "build" else ""
    path.write_text("import sys\nfrom canasta_sim.strategies import Greedy\n"
                    + ("sys.exit(3)\n" if where == "import" else "")
                    + f"class Quits(Greedy):\n    name = 'quits'\n{body}")
    expected = "failed to import: SystemExit: 3" if where == "import" else "cannot be built: SystemExit: 4"
    with pytest.raises(StrategyLoadError, match=expected):
        load_strategy(f"{path}:Quits")


def test_a_file_importing_a_module_beside_it_is_told_how_to_reach_it(tmp_path):
    # It said only "No module named 'helpers'", though helpers.py lay beside it: a file spec loads that one file.
    (tmp_path / "helpers.py").write_text("LIMIT = 3\n")
    path = tmp_path / "uses_helpers.py"
    path.write_text("from helpers import LIMIT\nfrom canasta_sim.strategies import Greedy\n"
                    "class Bot(Greedy):\n    name = 'uses-helpers'\n")
    with pytest.raises(StrategyLoadError) as caught:
        load_strategy(f"{path}:Bot")
    message = str(caught.value)
    assert "ModuleNotFoundError: No module named 'helpers'" in message and "\n" not in message
    assert f"helpers.py lies beside it, but a strategy file's folder is not on the Python path: " \
           f"set PYTHONPATH={tmp_path})" in message, message
    # A module found nowhere is named as before, with no such advice.
    path.write_text("import no_such_helpers\n")
    with pytest.raises(StrategyLoadError) as caught:
        load_strategy(f"{path}:Bot")
    assert str(caught.value).endswith("ModuleNotFoundError: No module named 'no_such_helpers'")


def test_a_class_name_or_a_file_alone_that_loads_nothing_is_told_the_file_s_strategy_classes(bot_file, tmp_path):
    # They said only "has no class 'FileBto'" and "unknown strategy 'file_bot.py'; use one of: expert, ...".
    with pytest.raises(StrategyLoadError) as caught:
        load_strategy(f"{bot_file}:FileBto")
    assert str(caught.value).endswith("has no class 'FileBto'; its strategy classes: FileBot"), caught.value
    with pytest.raises(StrategyLoadError) as caught:
        load_strategy(str(bot_file))
    assert str(caught.value) == (f"strategy {str(bot_file)!r} names a file but no class: write FILE.py:Class; "
                                 "its strategy classes: FileBot"), caught.value
    empty = tmp_path / "empty.py"
    empty.write_text("from canasta_sim.strategies import Greedy\n")  # imported, not its own
    with pytest.raises(StrategyLoadError) as caught:
        load_strategy(f"{empty}:Bot")
    assert str(caught.value).endswith("has no class 'Bot'; it defines no strategy class"), caught.value


def test_strategies_command_lists_the_specs_it_is_given(bot_file):
    # It took no argument ("Got unexpected extra argument"): a file strategy's parameters could not be listed.
    result = CliRunner().invoke(main, ["strategies", f"{bot_file}:FileBot", "expert:aggression=0.7"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["NAME", "VERSION", "SOURCE", "DESCRIPTION"]
    assert lines[1].split()[:3] == ["file-bot", "3", f"{bot_file}:FileBot"] and "A bot from a file." in lines[1]
    assert lines[2].split()[:3] == ["expert", "1", "expert:aggression=0.7"] and "greedy" not in result.output
    assert "Parameters of file-bot:" in lines and any(line.split()[:4] == ["depth", "int", "default", "1"]
                                                       for line in lines)
    bad = CliRunner().invoke(main, ["strategies", f"{bot_file}:Missing"])
    assert bad.exit_code == 2 and bad.output.startswith("Error: ") and len(bad.output.splitlines()) == 1, bad.output


def test_the_loaders_list_of_spec_forms_and_the_strategies_doc_name_every_registered_form():
    """A form an entry point of canasta-sim's own registers is listed where a reader looks for the spec forms."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    forms = pyproject["project"]["entry-points"]["canasta_sim.spec_forms"]
    doc = (root / "docs" / "strategies.md").read_text(encoding="utf-8")
    assert forms
    for form in forms:
        assert f"``{form}:" in canasta_sim.plugins.loader.__doc__, form
        assert f"`{form}:" in doc, form
