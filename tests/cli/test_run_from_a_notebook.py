"""A researcher runs tournaments from a notebook's kernel: a class of a cell is refused in one line saying to write it
to a file, a ``breakpoint()`` in a worker is the debugger quitting whatever hook the kernel installed, and
:func:`canasta_sim.cli.call` runs a command in the kernel, its exit code returned."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys

import pytest

from canasta_sim.cli import call
from canasta_sim.plugins.loader import StrategyLoadError, load_strategy
from canasta_sim.strategies import Greedy
from tests.helpers import invoke
from tests.run_helpers import BREAKPOINT_BOT_SOURCE, kernels_breakpoint_hook


class CellBot(Greedy):
    """A strategy as a notebook's cell defines it: its class lives in the kernel's ``__main__``."""

    name = "cell-bot"
    version = 1


@pytest.fixture
def in_main(monkeypatch):
    monkeypatch.setattr(sys.modules["__main__"], "CellBot", CellBot, raising=False)


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("module", "start"), [("__main__", "fork"), ("__main__", "spawn"), ("__mp_main__", "fork")])
def test_a_class_of_a_cell_is_refused_in_one_line_that_says_to_write_it_to_a_file(tmp_path, monkeypatch, in_main,
                                                                                   module, start):
    # Forked workers found it in the kernel's __main__ and played it; spawned ones (macOS, Windows) failed at start,
    # and --resume or replay could never load it again.
    monkeypatch.setattr("canasta_sim.runs.supervisor.worker_start_method", lambda: start)
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


def _pytest_like_hook(*args, **kwargs) -> None:
    """A test runner's ``sys.breakpointhook`` (pytest's): it hands the streams back to the terminal, then debugs."""
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
    import pdb

    pdb.Pdb().set_trace(sys._getframe(1))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("hook", [kernels_breakpoint_hook, _pytest_like_hook],
                         ids=["a-kernels-debugpy", "a-test-runners"])
def test_breakpoint_in_a_worker_is_the_debugger_quitting_whatever_hook_the_kernel_installed(tmp_path, monkeypatch,
                                                                                             hook):
    # A notebook's kernel (debugpy's hook) let the game play on past it, so its tables differed from a terminal's; a
    # test's (pytest's hook) changed the worker's streams, and the game was charged as tampering.
    monkeypatch.delenv("PYTHONBREAKPOINT", raising=False)
    monkeypatch.setattr(sys, "breakpointhook", hook)
    bot = tmp_path / "stops.py"
    bot.write_text(BREAKPOINT_BOT_SOURCE)
    result = invoke("run", "--games", "2", "--seed", "3", "--workers", "1", "-q", "-s", f"{bot}:Stops",
                    "-s", "greedy", "--out", tmp_path / "run")
    assert result.exit_code == 1, result.output
    assert "raised BdbQuit (a debugger, breakpoint() or pdb, quit in the strategy" in result.output
    assert "(reason: exception)" in result.output


@pytest.mark.timeout(60)
def test_breakpoint_in_check_strategys_game_is_the_debugger_quitting_where_a_kernels_hook_returned(tmp_path,
                                                                                                 monkeypatch):
    # Each game of check-strategy is played in a process of its own, which had the kernel's hook: no problem found.
    monkeypatch.delenv("PYTHONBREAKPOINT", raising=False)
    monkeypatch.setattr(sys, "breakpointhook", kernels_breakpoint_hook)
    bot = tmp_path / "stops.py"
    bot.write_text(BREAKPOINT_BOT_SOURCE)
    result = invoke("check-strategy", f"{bot}:Stops", "--games", "2")
    assert result.exit_code == 1, result.output
    assert "raised BdbQuit (a debugger, breakpoint() or pdb, quit in the strategy" in result.output


INTERRUPTS = '''
import multiprocessing
import os
import signal

from canasta_sim.strategies.greedy import Greedy

MARK = {mark!r}


class Interrupts(Greedy):
    name = "interrupts"
    version = 1

    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        # The kernel's Interrupt, once, as a worker begins the run's fourth game (two seats a game play this class;
        # the command builds one more to check it).
        if multiprocessing.parent_process() is not None and not os.path.exists(MARK):
            with open(MARK + ".builds", "a") as builds:
                builds.write("x")
            if os.path.getsize(MARK + ".builds") == 7:
                open(MARK, "w").close()
                os.kill(os.getppid(), signal.SIGINT)
'''


@pytest.mark.timeout(60)
def test_call_runs_a_command_in_the_kernel_and_returns_its_exit_code(tmp_path, capsys):
    out = tmp_path / "run"
    assert call("run", "--games", 4, "--seed", 1, "--workers", 2, "-q", "-s", "greedy", "-s", "random",
                "--out", out) == 0
    assert json.loads((out / "run.json").read_text())["status"] == "complete"
    assert "4 of 4 games in" in capsys.readouterr().out
    assert call("run", "--games", "0", "--out", tmp_path / "other") == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("Error: ")
    with pytest.raises(TypeError, match="a class of a notebook's cell by the file it was written to"):
        call("run", "-s", CellBot)
    with pytest.raises(TypeError):
        call("run", "--duplicate", True)


@pytest.mark.timeout(60)
@pytest.mark.skipif(os.name == "nt", reason="a strategy's os.kill(SIGINT) ends the process outright on Windows")
def test_the_kernels_interrupt_stops_a_call_keeping_its_games_and_the_kernel_runs_again(tmp_path, capsys):
    out = tmp_path / "run"
    bot = tmp_path / "interrupts.py"
    bot.write_text(INTERRUPTS.format(mark=str(tmp_path / "interrupted")))
    handler = signal.getsignal(signal.SIGINT)
    code = call("run", "--games", "40", "--seed", "2", "--workers", "1", "--chunk-size", "1", "-q",
                "-s", f"{bot}:Interrupts", "-s", "greedy", "--out", out)
    assert code == 130
    assert "Interrupted: finished games are kept; continue with canasta-sim run --resume" in capsys.readouterr().err
    manifest = json.loads((out / "run.json").read_text())
    assert manifest["status"] == "interrupted" and 3 <= manifest["games_done"] < 40
    assert multiprocessing.active_children() == []
    assert signal.getsignal(signal.SIGINT) is handler
    assert call("run", "--resume", out, "-q") == 0  # the same kernel plays on
    assert json.loads((out / "run.json").read_text())["games_done"] == 40
