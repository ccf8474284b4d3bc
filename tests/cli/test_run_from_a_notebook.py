"""A researcher runs tournaments from a notebook's kernel: a class of a cell is refused in one line saying to write it
to a file."""

from __future__ import annotations

import sys

import pytest

from canasta_sim.plugins.loader import StrategyLoadError, load_strategy
from canasta_sim.strategies import Greedy
from tests.helpers import invoke


class CellBot(Greedy):
    """A strategy as a notebook's cell defines it: its class lives in the kernel's ``__main__``."""

    name = "cell-bot"
    version = 1


@pytest.fixture
def in_main(monkeypatch):
    monkeypatch.setattr(sys.modules["__main__"], "CellBot", CellBot, raising=False)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("module", ["__main__", "__mp_main__"])
def test_a_class_of_a_cell_is_refused_in_one_line_that_says_to_write_it_to_a_file(tmp_path, in_main, module):
    # Forked workers found it in the kernel's __main__ and played it; spawned ones (macOS, Windows) failed at start,
    # and --resume or replay could never load it again.
    out = tmp_path / "run"
    result = invoke("run", "--games", "4", "--workers", "1", "-q", "-s", f"{module}:CellBot", "-s", "greedy",
                    "--out", out)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1
    assert (f"strategy '{module}:CellBot': a class defined in a notebook's cell or a script's __main__ is in no module "
            "a run's workers, --resume or replay can load again; write it to a file (in a notebook, a cell beginning "
            "%%writefile my_bot.py) and name it my_bot.py:CellBot") in result.output
    assert not out.exists()
    with pytest.raises(StrategyLoadError, match="write it to a file"):
        load_strategy(f"{module}:CellBot")

