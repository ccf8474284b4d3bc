"""Helpers for the tests of runs and commands: test bots' sources, the summary's hand-made run, run tables compared, a
command invoked in this process, the stamps of a run's parts, and a test bot's trap awaited.

``tests.helpers`` offers every name here too, where the tests have always imported them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from canasta_sim.core.engine import play_game
from canasta_sim.core.rules import Rules
from canasta_sim.runs.records import ChunkRecorder
from canasta_sim.strategies import Greedy, RandomPlay

__all__ = [
    "BREAKPOINT_BOT_SOURCE",
    "BROKEN_AT_ONCE_BOT_SOURCE",
    "FLAKY_BOT_SOURCE",
    "INTERRUPTED_WHILE_THINKING",
    "SUMMARY_FIXTURE_GAMES",
    "SUMMARY_FIXTURE_HANDS",
    "assert_same_run_tables",
    "invoke",
    "invoked",
    "kernels_breakpoint_hook",
    "parts_stamps",
    "read_run_tables",
    "recorded_chunk",
    "run_key",
    "run_stamp",
    "wait_for_a_trap",
    "warnings_logged",
]


FLAKY_BOT_SOURCE = '''
from canasta_sim.strategies.greedy import Greedy


class Flaky(Greedy):
    """Greedy whose discards fail now and then, drawn from its own generator (so reproducibly)."""

    name = "flaky"

    def choose_discard(self, view):
        if self.rng.random() < 0.01:
            raise RuntimeError("flaky failure")
        return super().choose_discard(view)
'''


# A tiny run computed by hand, shared by the summary and report tests: four games of x against y.
# x wins g0 and g2 (y forfeits g2), y wins g1, and g3 is a draw at the hand cap.
SUMMARY_FIXTURE_GAMES = [
    dict(game_id=0, team_a_strategy="x", team_b_strategy="y", score_a=1200, score_b=800, winner="A",
         winner_strategy="x", margin=400, hands=2, termination="target", forfeit_team=None),
    dict(game_id=1, team_a_strategy="y", team_b_strategy="x", score_a=1500, score_b=300, winner="A",
         winner_strategy="y", margin=1200, hands=1, termination="target", forfeit_team=None),
    dict(game_id=2, team_a_strategy="x", team_b_strategy="y", score_a=0, score_b=0, winner="A",
         winner_strategy="x", margin=0, hands=0, termination="forfeit", forfeit_team="B",
         error="strategy 'y' at seat 1: raised"),
    dict(game_id=3, team_a_strategy="y", team_b_strategy="x", score_a=1000, score_b=1000, winner="draw",
         winner_strategy=None, margin=0, hands=1, termination="hand_cap", forfeit_team=None),
]
_FIXTURE_HAND_KEYS = ("game_id", "hand_no", "team", "strategy", "opponent_strategy", "score", "pile_takes",
                      "canasta_natural", "canasta_mixed", "red_threes", "went_out", "concealed")
SUMMARY_FIXTURE_HANDS = [dict(zip(_FIXTURE_HAND_KEYS, values, strict=True)) for values in [
    (0, 1, "A", "x", "y", 700, 2, 1, 0, 1, True, False),
    (0, 1, "B", "y", "x", 300, 0, 0, 1, 1, False, False),
    (0, 2, "A", "x", "y", 500, 1, 0, 1, 0, False, False),
    (0, 2, "B", "y", "x", 500, 2, 0, 0, 0, True, False),
    (1, 1, "A", "y", "x", 1500, 4, 2, 0, 1, True, True),
    (1, 1, "B", "x", "y", 300, 0, 0, 0, 2, False, False),
    (3, 1, "A", "y", "x", 1000, 0, 0, 0, 0, False, False),
    (3, 1, "B", "x", "y", 1000, 3, 1, 1, 0, True, True),
]]


def read_run_tables(path) -> tuple:
    """A run directory's ``games`` and ``hands`` tables, sorted so that two runs compare row by row."""
    from pathlib import Path

    import pandas as pd

    path = Path(path)
    games = pd.read_parquet(path / "games").sort_values("game_id").reset_index(drop=True)
    hands = pd.read_parquet(path / "hands").sort_values(["game_id", "hand_no", "team"]).reset_index(drop=True)
    return games, hands


def assert_same_run_tables(left: Path | str, right: Path | str) -> None:
    """Fail unless two run directories hold identical tables."""
    for mine, theirs in zip(read_run_tables(left), read_run_tables(right), strict=True):
        pd.testing.assert_frame_equal(mine, theirs)


# A strategy whose every discard fails: a run stops at its first game (or, with --on-error forfeit, it forfeits).
BROKEN_AT_DISCARD_BOT_SOURCE = '''
from canasta_sim.strategies.greedy import Greedy


class Broken(Greedy):
    name = "broken"
    version = 1

    def choose_discard(self, view):
        raise RuntimeError("no discard")
'''


# A strategy that stops in the debugger at its first discard (breakpoint()), where no one can type: a game process's
# debugger quits at once, charged to the seat.
BREAKPOINT_BOT_SOURCE = '''
from canasta_sim.strategies.greedy import Greedy


class Stops(Greedy):
    name = "stops"
    version = 1

    def choose_discard(self, view):
        breakpoint()
        return super().choose_discard(view)
'''


def kernels_breakpoint_hook(*args, **kwargs) -> None:
    """A notebook kernel's ``sys.breakpointhook`` (ipykernel's debugpy) with no debugger attached: it returns at
    once, and a game process that kept it would play on past a strategy's ``breakpoint()``."""


# A strategy whose seats fail as the game builds them, before the first deal (the loader's own check passes).
BROKEN_AT_ONCE_BOT_SOURCE = '''
from canasta_sim.strategies.greedy import Greedy


class BrokenAtOnce(Greedy):
    """Fails as the game builds its players, before the deal."""

    name = "broken-at-once"

    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        self.built = getattr(type(self), "built", 0) + 1
        type(self).built = self.built
        if self.built > 1:  # the loader's check builds one first; the game's seats fail
            raise RuntimeError("it breaks at once")
'''


INTERRUPTED_WHILE_THINKING = """
import os
import signal

from canasta_sim.strategies import Greedy


class Thinker(Greedy):
    name = "thinker"
    version = 1

    def choose_acquire(self, view):
        os.kill(os.getpid(), signal.SIGINT)  # the person's Ctrl-C arrives while this bot thinks
        return super().choose_acquire(view)
"""
"""A strategy file whose first decision interrupts its own process (SIGINT), as a person's Ctrl-C arrives while a
bot thinks: class ``Thinker``."""


def recorded_chunk(game_ids: Iterable[int]) -> tuple:
    """The ``games`` and ``hands`` tables (Arrow) of a chunk of greedy against random games to 1000 points, one per
    id in ``game_ids``, each played from its id as seed."""
    recorder = ChunkRecorder()
    for game_id in game_ids:
        result = play_game([Greedy, RandomPlay, Greedy, RandomPlay], seed=game_id, rules=Rules(target_score=1000))
        recorder.add_game(game_id, result, ("greedy", "random"))
    return recorder.tables()


def invoke(*arguments):
    """``canasta-sim ARGUMENTS`` run in this process by click's ``CliRunner``, each argument as text (a path too): its
    result, whose ``exit_code`` and ``output`` a test reads.  An exception that no command turns into an exit code
    propagates, as a traceback the test shows, rather than becoming an exit code 1 a test may take for a refusal."""
    from click.testing import CliRunner

    from canasta_sim.cli import main

    return CliRunner().invoke(main, [str(argument) for argument in arguments], catch_exceptions=False)


def invoked(*arguments) -> str:
    """What ``canasta-sim ARGUMENTS`` printed (:func:`invoke`), having ended with exit code 0."""
    result = invoke(*arguments)
    assert result.exit_code == 0, result.output
    return result.output


def run_key(spec: str) -> str:
    """The name a run or comparison started here records ``spec`` by, in its tables and messages: a file given by its
    absolute path is named from the directory it starts in, or from the home, when inside them."""
    from canasta_sim.cli.replaying import specs_named_from_start

    return specs_named_from_start([spec])[0]


def parts_stamps(run_dir: Path) -> list[dict]:
    """The ``canasta_sim`` metadata of every Parquet part of a run (games, hands, decisions), each read alone with
    pyarrow, as a reader of one part file reads it."""
    import json

    import pyarrow.parquet as pq

    from canasta_sim.runs.storage import WRITER_KEY

    parts = sorted(Path(run_dir).glob("*/part-*.parquet"))
    assert parts, f"{run_dir} holds no part"
    return [json.loads(pq.read_schema(part).metadata[WRITER_KEY]) for part in parts]


def run_stamp(run_dir: Path) -> dict:
    """What each part of the run in ``run_dir`` should name in its metadata: its writer, and ``run.json``'s seed and
    rules."""
    import json

    from canasta_sim import ENGINE_VERSION, __version__

    manifest = json.loads((Path(run_dir) / "run.json").read_text(encoding="utf-8"))
    return {"tool": f"canasta-sim {__version__}", "engine_version": ENGINE_VERSION, "seed": manifest["seed"],
            "rules": manifest["rules"]}


def wait_for_a_trap(log: Path, process, seconds: float = 40.0) -> None:
    """Wait until a test bot's trap has sprung (its process id in ``log``, the file the bots' ``TRAP_SPRUNG_LOG``
    names), while the command ``process`` (a ``subprocess.Popen``) still runs: from then a strategy is stuck in its
    trap.  Reading the log is as quick as the machine, where a fixed sleep was as long as the slowest machine needed."""
    import time

    deadline = time.monotonic() + seconds
    while not (log.exists() and log.read_text().strip()):
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no trap sprang within {seconds} s (the command's exit code: {process.poll()})")
        time.sleep(0.05)


@contextlib.contextmanager
def warnings_logged():
    """The warnings logged in this process meanwhile, its Dask workers' among them (forwarded to the client)."""
    records: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Collect(level=logging.WARNING)
    logging.getLogger().addHandler(handler)
    try:
        yield records
    finally:
        logging.getLogger().removeHandler(handler)
