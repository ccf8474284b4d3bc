"""The machine refusing a bot process (a low ``ulimit -u`` or ``ulimit -n``, a container's pids limit) is its limit,
named, never the failure of the strategy whose process it is.

The refusal is made by a stand-in at the call that meets it, so that no test needs to be root or lower a limit."""

from __future__ import annotations

import errno
import os
import subprocess

import pytest

from canasta_sim.errors import MachineRefusal, StrategyError
from canasta_sim.plugins.process import BotProcess
from canasta_sim.plugins.specs import machine_refusal


def _refusing(error: BaseException):
    def popen(*_arguments, **_keywords):
        raise error

    return popen


@pytest.mark.timeout(10)
@pytest.mark.parametrize(("error", "limit"), [
    (BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN)), "ulimit -u"),
    (OSError(errno.EMFILE, os.strerror(errno.EMFILE)), "ulimit -n"),
    (OSError(errno.ENFILE, os.strerror(errno.ENFILE)), "the machine's limit on open files"),
    (RuntimeError("can't start new thread"), "ulimit -u"),
], ids=["processes", "open-files", "machine-files", "thread"])
def test_a_bot_process_the_machine_refuses_is_a_machine_refusal_naming_the_limit(monkeypatch, error, limit):
    # It was the seat's SeatFailure (reason crash), "bot 'isolated:expert' could not be started: [Errno 11] ...",
    # charged to the strategy as its own failure.
    monkeypatch.setattr(subprocess, "Popen", _refusing(error))
    bot = BotProcess(["never-started"], label="cmd:never-started")
    with pytest.raises(MachineRefusal) as refused:
        bot.start()
    text = str(refused.value)
    assert limit in text and "'cmd:never-started'" in text and "not the bot's failure" in text, text


@pytest.mark.timeout(10)
def test_a_bot_that_cannot_be_run_is_still_its_own_failure(monkeypatch):
    # A missing executable is the bot's (its spec's) problem, not the machine's limit.
    monkeypatch.setattr(subprocess, "Popen", _refusing(FileNotFoundError(errno.ENOENT, "No such file")))
    with pytest.raises(Exception) as failed:
        BotProcess(["never-started"], label="cmd:never-started").start()
    assert not isinstance(failed.value, MachineRefusal)


def test_a_machine_refusal_is_believed_only_behind_a_bot_seat():
    # An in-process strategy may raise a MachineRefusal of its own making: it stays that strategy's failure.
    refusal = MachineRefusal("a process of bot 'isolated:expert' cannot be started: ...")
    for spec, believed in (("isolated:expert", refusal), ("cmd:node bot.js", refusal), ("my_bot.py:MyBot", None)):
        failure = StrategyError("could not be built", spec=spec, seat=0, game_seed=1, decision="build")
        failure.__cause__ = refusal
        assert machine_refusal(failure) is believed, spec
    own = StrategyError("raised", spec="isolated:expert", seat=0, game_seed=1, decision="choose_discard")
    assert machine_refusal(own) is None
