"""Problems a strategy class has are found when its spec is loaded, with a one-line error."""

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import load_strategy

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
