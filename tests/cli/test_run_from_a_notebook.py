"""A researcher runs tournaments from a notebook's kernel: a class of a cell is refused in one line saying to write it
to a file, and a ``breakpoint()`` in a worker is the debugger quitting whatever hook the kernel installed."""

from __future__ import annotations

import sys

import pytest

from canasta_sim.plugins.loader import StrategyLoadError, load_strategy
from canasta_sim.strategies import Greedy
from tests.helpers import invoke

STOPS = '''
from canasta_sim.strategies.greedy import Greedy


class Stops(Greedy):
    name = "stops"
    version = 1

    def choose_discard(self, view):
        breakpoint()
        return super().choose_discard(view)
'''


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


def _debugpy_hook(*args, **kwargs) -> None:
    """A kernel's ``sys.breakpointhook`` (ipykernel's debugpy) with no debugger attached: it returns at once."""


def _pytest_like_hook(*args, **kwargs) -> None:
    """A test runner's ``sys.breakpointhook`` (pytest's): it hands the streams back to the terminal, then debugs."""
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
    import pdb

    pdb.Pdb().set_trace(sys._getframe(1))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("hook", [_debugpy_hook, _pytest_like_hook], ids=["a-kernels-debugpy", "a-test-runners"])
def test_breakpoint_in_a_worker_is_the_debugger_quitting_whatever_hook_the_kernel_installed(tmp_path, monkeypatch,
                                                                                             hook):
    # A notebook's kernel (debugpy's hook) let the game play on past it, so its tables differed from a terminal's; a
    # test's (pytest's hook) changed the worker's streams, and the game was charged as tampering.
    monkeypatch.delenv("PYTHONBREAKPOINT", raising=False)
    monkeypatch.setattr(sys, "breakpointhook", hook)
    bot = tmp_path / "stops.py"
    bot.write_text(STOPS)
    result = invoke("run", "--games", "2", "--seed", "3", "--workers", "1", "-q", "-s", f"{bot}:Stops",
                    "-s", "greedy", "--out", tmp_path / "run")
    assert result.exit_code == 1, result.output
    assert "raised BdbQuit (a debugger, breakpoint() or pdb, quit in the strategy" in result.output
    assert "(reason: exception)" in result.output

