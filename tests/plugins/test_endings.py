"""A bot process's end (docs/protocol.md, Endings): it runs in a process group of its own, so that ending it ends
whatever it started, and a terminal's Ctrl-C reaches the arbiter alone; ``check-strategy`` reports a bot that does
not end as the protocol asks."""

from __future__ import annotations

import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.process import BotProcess
from tests.helpers import BOTS

SIMPLE = BOTS / "protocol_simple.py"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "protocol"


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped by whoever adopted it is not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _ends_soon(pid: int, seconds: float = 5.0) -> bool:
    """Whether ``pid`` is gone within ``seconds``: a process sent SIGKILL dies when the kernel next runs it, which on a
    busy machine is not at once."""
    deadline = time.monotonic() + seconds
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _running(pid)


@pytest.mark.timeout(60)
def test_a_bot_process_is_the_leader_of_a_process_group_of_its_own():
    bot = BotProcess([sys.executable, str(SIMPLE)], label="simple")
    bot.start()
    try:
        assert os.getpgid(bot.process.pid) == bot.process.pid != os.getpgid(0)
    finally:
        bot.kill()


@pytest.mark.timeout(120)
def test_what_a_bot_process_started_ends_with_it(tmp_path, monkeypatch):
    helpers = tmp_path / "helpers"
    monkeypatch.setenv("SIMPLE_BOT_HELPER_LOG", str(helpers))
    result = CliRunner().invoke(main, ["run", "--games", "8", "--workers", "1", "-q", "--out", str(tmp_path / "run"),
                                       "--rules", "target_score=500", "-s", f"cmd:{sys.executable} {SIMPLE} 2 4 helper",
                                       "-s", "greedy"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    started = [int(pid) for pid in helpers.read_text().split()]
    assert len(started) >= 1 + 2  # the handshake's process, and one for each of the bot's seats
    assert not [pid for pid in started if not _ends_soon(pid)]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("option", "problem"), [
    ("stays", "was still running 2 s after 'quit' and the end of its input, and was killed"),
    ("helper", "exited leaving processes it started running; they were killed"),
])
def test_check_strategy_reports_a_bot_that_does_not_end_as_the_protocol_asks(tmp_path, monkeypatch, option, problem):
    # One game: its processes end as every game's do, and each bot process that stays costs its 2 s of grace, one
    # after another (the handshake's, then the game's).
    monkeypatch.setenv("SIMPLE_BOT_HELPER_LOG", str(tmp_path / "helpers"))
    result = CliRunner().invoke(main, ["check-strategy", f"cmd:{sys.executable} {SIMPLE} 2 4 {option}",
                                       "--games", "1", "--rules", "target_score=500"])
    close_all()
    assert result.exit_code == 1, result.output
    assert f"problem: the bot process {problem} (canasta-sim docs protocol, Endings)" in result.output
    # and the game's processes, which end the same way
    assert f"problem: a bot process of game 0 {problem} (canasta-sim docs protocol, Endings)" in result.output
    assert "2 problems found" in result.output


@pytest.mark.timeout(120)
def test_check_strategy_accepts_a_bot_that_takes_a_second_and_a_half_to_exit_after_quit():
    # A JVM stopping on a busy machine took more than half a second, the grace a bot once had.  The grace is no
    # decision's time either: a time limit shorter than it does not end the game's process for a timeout.  One game:
    # its process ends as every game's does, and each slow exit is waited for in turn.
    result = CliRunner().invoke(main, ["check-strategy", f"cmd:{sys.executable} {SIMPLE} 2 4 slow_exit",
                                       "--games", "1", "--rules", "target_score=500", "--time-limit", "0.3"])
    close_all()
    assert result.exit_code == 0, result.output
    assert "still running" not in result.output and "no problems found" in result.output


@pytest.mark.timeout(120)
def test_check_strategy_reports_a_bot_that_ends_as_the_protocol_asks_only_before_its_games(tmp_path):
    # One game is enough to tell a game's process from the handshake's; each that stays costs its 2 s of grace.
    result = CliRunner().invoke(main, ["check-strategy", f"cmd:{sys.executable} {SIMPLE} 2 4 stays_after_games",
                                       "--games", "1", "--rules", "target_score=500"])
    close_all()
    assert result.exit_code == 1, result.output
    assert "problem: the bot process was still running" not in result.output  # the handshake's
    assert "problem: a bot process of game 0 was still running 2 s after 'quit'" in result.output
    assert "1 problem found" in result.output


@pytest.mark.timeout(120)
@pytest.mark.parametrize("spec", ["{strategy}", "isolated:{strategy}"])
def test_check_strategy_shows_what_a_strategy_printed_under_verbose(tmp_path, spec):
    # In its game's own process for an in-process strategy, on its bot process's stderr for an isolated one.
    strategy = tmp_path / "prints.py"
    strategy.write_text("import sys\nfrom canasta_sim.strategies import Greedy\n\n\nclass Prints(Greedy):\n"
                        "    name = 'prints'\n\n"
                        "    def choose_discard(self, view):\n"
                        "        print('thinking about my discard', file=sys.stderr)\n"
                        "        return super().choose_discard(view)\n")
    command = ["check-strategy", spec.format(strategy=f"{strategy}:Prints"), "--games", "2",
               "--rules", "target_score=500"]
    quiet = CliRunner().invoke(main, command)
    loud = CliRunner().invoke(main, [*command, "-v"])
    close_all()
    assert quiet.exit_code == 0 and loud.exit_code == 0, (quiet.output, loud.output)
    assert "thinking about my discard" not in quiet.output and "characters (shown with -v)" in quiet.output
    assert "thinking about my discard" in loud.output
    # Each game's output is headed by the game it came from: it read "the strategies printed:" alone, game after game.
    for game in ("game 0 against greedy", "game 1 against greedy"):
        assert f"\n{game}: the strategies printed:\n" in loud.output, loud.output


@pytest.mark.timeout(120)
def test_check_strategy_says_where_a_bots_log_was_cut_and_at_what_limit(tmp_path):
    # A bot's stderr reaches check-strategy's output through its game's output, kept up to 16,000 characters a game:
    # the note that ends a cut game's output named no limit, so a log cut short read as a bot that stopped writing.
    strategy = tmp_path / "chatty.py"
    strategy.write_text("import sys\nfrom canasta_sim.strategies import Greedy\n\n\nclass Chatty(Greedy):\n"
                        "    name = 'chatty'\n\n"
                        "    def choose_discard(self, view):\n"
                        "        print('x' * 2000, file=sys.stderr)\n"
                        "        return super().choose_discard(view)\n")
    result = CliRunner().invoke(main, ["check-strategy", f"isolated:{strategy}:Chatty", "--games", "1", "-v",
                                       "--rules", "target_score=500"])
    close_all()
    assert result.exit_code == 0, result.output
    assert re.search(r"^\.\.\. \(\d+ more characters dropped: at most 16,000 are kept a game\)$", result.output,
                     re.MULTILINE), result.output[-500:]


@pytest.mark.timeout(120)
@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: the JavaScript example needs it")
def test_a_terminal_s_ctrl_c_reaches_the_run_not_its_bots(tmp_path):
    # A terminal sends Ctrl-C's SIGINT to its foreground process group: the run and its workers, not the bots, which
    # the workers end themselves; a bot hit by it would die mid-game and be charged with a crash (Node's die at once).
    import json
    import signal
    import subprocess

    import pandas as pd

    out = tmp_path / "run"
    command = [sys.executable, "-m", "canasta_sim", "run", "--games", "2000", "--chunk-size", "20", "--workers", "1",
               "--on-error", "forfeit", "--rules", "target_score=500", "--out", str(out), "-q",
               "-s", f"cmd:node {EXAMPLES / 'bot.js'}", "-s", "greedy"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                               text=True)
    deadline = time.monotonic() + 60
    while not list(out.glob("games/part-*.parquet")) and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    time.sleep(0.3)  # well inside a chunk's games
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130 and "Interrupted" in stderr, stderr
    games = pd.read_parquet(out / "games")
    assert json.loads((out / "run.json").read_text())["games_done"] == len(games) > 0
    assert games["forfeit_reason"].isna().all(), games["forfeit_reason"].value_counts()


@pytest.mark.timeout(60)
@pytest.mark.parametrize("thread", ["main", "other"])
def test_a_bot_dies_with_the_process_that_started_it_whatever_its_thread(tmp_path, thread):
    # A Dask worker starts bots from its pool's threads: a bot that ignores the end of its input outlived a worker
    # that died, where one started from the main thread did not.
    import subprocess

    script = f"""
import os, sys, threading, time
from canasta_sim.plugins.process import BotProcess
bot = BotProcess([sys.executable, {str(SIMPLE)!r}, "1", "1", "stays"], label="stays")
if {thread!r} == "main":
    bot.start()
else:
    starting = threading.Thread(target=bot.start)
    starting.start()
    starting.join()  # that thread is gone: the bot must still be alive, and die only with this process
time.sleep(0.3)
if bot.process.poll() is not None:
    sys.exit("the bot died with the thread that started it")
print(bot.process.pid, flush=True)
os._exit(0)  # no quit, no cleanup: as a worker killed
"""
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert child.stdout.strip(), child.stderr
    pid = int(child.stdout.split()[0])
    assert _ends_soon(pid)


@pytest.mark.timeout(30)
@pytest.mark.parametrize("hub", [False, True])
def test_lines_a_bot_wrote_before_it_exited_count_when_its_output_and_its_exit_are_seen_at_once(hub):
    # Both are ready by the time the arbiter looks: the output is read first, then the exit, which found an empty pipe
    # and charged a crash though the answers were already read.
    from canasta_sim.plugins.channel import Hub, SharedBot

    script = "import sys\nsys.stdout.write('{\"type\":\"move\",\"move\":\"draw\"}\\n' * 2)\nsys.stdout.flush()"
    bot = BotProcess([sys.executable, "-c", script], label="answers and exits")
    bot.start()
    try:
        deadline = time.monotonic() + 10
        while _running(bot.process.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        if not hub:
            assert bot.read_line(time.monotonic() + 5) == b'{"type":"move","move":"draw"}'
            assert bot.read_line(time.monotonic() + 5) == b'{"type":"move","move":"draw"}'
            return
        shared = SharedBot(bot, tagged=False, capacity=1)
        endpoint = shared.endpoint()
        outcomes = []
        Hub().play(iter([("game", lambda: endpoint.exchange(b'{"type":"decide"}\n', 5.0, fresh=True))]),
                   lambda active: active < 1, lambda key: None, lambda key, outcome: outcomes.append(outcome) or True)
        assert outcomes == [({"type": "move", "move": "draw"}, None)]
    finally:
        bot.close()
