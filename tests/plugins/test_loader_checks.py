"""Problems a strategy class has are found when its spec is loaded, with a one-line error."""

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import _check_class, load_strategy
from canasta_sim.plugins.protocol import ProtocolError, parse_ready
from canasta_sim.strategies import BUILTIN

BOTS = '''
from canasta_sim.core.strategy import Strategy
from canasta_sim.strategies import Greedy
from tests.helpers import BOTS


class NoDiscard(Strategy):
    name = "no-discard"

    def choose_acquire(self, view):
        return next(view.legal_acquires())


class NoDecisions(Strategy):
    name = "no-decisions"


class NoName(Greedy):
    pass


class Named(Greedy):
    name = "named"


class TextVersion(Greedy):
    name = "text-version"
    version = "1"


class FractionVersion(Greedy):
    name = "fraction-version"
    version = 1.5


class TrueVersion(Greedy):
    name = "true-version"
    version = True


class AtName(Greedy):
    name = "my@bot"


class SpacedName(Greedy):
    name = "my bot"


class ColonName(Greedy):
    name = "my:bot"


class TwoLines(Greedy):
    name = "two-lines"
    description = "Takes piles.\\nLays big melds."


class OwnVersion(Greedy):
    name = "own-version"
    version = 1
'''


@pytest.fixture
def bots(tmp_path):
    path = tmp_path / "bots.py"
    path.write_text(BOTS)
    return path


def test_a_strategy_without_choose_discard_is_refused_at_load(bots):
    with pytest.raises(StrategyLoadError, match=r"does not define choose_discard; a strategy must override"):
        load_strategy(f"{bots}:NoDiscard")
    with pytest.raises(StrategyLoadError, match=r"does not define choose_acquire and choose_discard"):
        load_strategy(f"{bots}:NoDecisions")


def test_a_subclass_without_its_own_name_is_refused_rather_than_recorded_under_its_parents_label(bots):
    with pytest.raises(StrategyLoadError, match=r"class NoName\) does not set its own name, so its results would "
                                                r"be recorded as greedy@2"):
        load_strategy(f"{bots}:NoName")
    assert load_strategy(f"{bots}:Named").label == "named@2"


@pytest.mark.parametrize("name", ["TextVersion", "FractionVersion", "TrueVersion"])
def test_a_version_that_is_no_whole_number_is_refused_in_process_as_a_bots_ready_is(bots, name):
    # In-process it was recorded as given ("1", 1.5, True); the same class run isolated failed its handshake.
    with pytest.raises(StrategyLoadError, match=rf"class {name}\) has version .*; a version is a whole number"):
        load_strategy(f"{bots}:{name}")


@pytest.mark.timeout(60)
def test_run_refuses_such_a_strategy_in_one_line_with_exit_code_2_before_writing(bots, tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "-s", f"{bots}:NoName", "-s", "random", "--out", str(out)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "does not set its own name" in result.output
    assert not out.exists()


@pytest.mark.parametrize(("name", "bad"), [("AtName", "my@bot"), ("SpacedName", "my bot"), ("ColonName", "my:bot")])
def test_a_name_a_bots_ready_may_not_give_is_refused_in_process_too(bots, name, bad):
    # In-process my@bot was recorded as the label my@bot@1; the same name in a cmd: bot's ready was refused.
    with pytest.raises(StrategyLoadError, match=rf"has name '{bad}'; a strategy's name is one word without ':', '@' "
                                                r"or spaces, such as 'my-bot'"):
        load_strategy(f"{bots}:{name}")
    with pytest.raises(ProtocolError, match=r"needs a 'name' without ':', '@' or spaces, such as 'my-bot'"):
        parse_ready({"type": "ready", "protocol": 2, "name": bad})


def test_a_description_of_several_lines_is_refused_in_process_and_in_a_ready(bots):
    # The strategies table showed its first line only; protocol.md asks for one line.
    with pytest.raises(StrategyLoadError, match=r"class TwoLines\) has a description of several lines; a description "
                                                r"is one line of text"):
        load_strategy(f"{bots}:TwoLines")
    with pytest.raises(ProtocolError, match=r"'description' must be one line of text"):
        parse_ready({"type": "ready", "protocol": 2, "name": "two-lines", "description": "Takes piles.\nLays melds."})
    assert parse_ready({"type": "ready", "protocol": 2, "name": "x", "description": "One line."})["description"] \
        == "One line."


def test_every_built_in_strategy_passes_the_checks_a_loaded_class_passes():
    for name, cls in BUILTIN.items():
        assert _check_class(cls, name) is cls


def test_a_subclass_that_sets_no_version_takes_its_parents_and_its_own_when_set(bots):
    # Documented in docs/strategies.md: a subclass inherits its parent's play, so it counts the parent's changes
    # until it sets a version of its own.
    assert load_strategy(f"{bots}:Named").label == "named@2"
    assert load_strategy(f"{bots}:OwnVersion").label == "own-version@1"


@pytest.mark.parametrize("where", ["at import", "in the constructor"])
def test_a_strategy_file_raising_an_exception_that_cannot_print_itself_is_refused_in_one_line(tmp_path, where):
    # The refusal was formatted with the exception's own __str__, whose RuntimeError escaped as a traceback.
    path = tmp_path / "unprintable.py"
    body = ("class Unprintable(Exception):\n    def __str__(self):\n        raise RuntimeError('no text')\n\n"
            "from canasta_sim.strategies import Greedy\n\n"
            "class Bot(Greedy):\n    name = 'bot'\n\n    def __init__(self, rng, **parameters):\n"
            "        raise Unprintable()\n")
    path.write_text(body + ("raise Unprintable()\n" if where == "at import" else ""))
    with pytest.raises(StrategyLoadError) as caught:
        load_strategy(f"{path}:Bot")
    assert "Unprintable: (its message could not be written: its __str__ raised RuntimeError)" in str(caught.value)
    assert "\n" not in str(caught.value)
