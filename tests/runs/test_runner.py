"""The parallel runner: seeds, sides, chunks, determinism across worker counts, strategy failures."""

import inspect
import logging
import math
import multiprocessing
import time

import pandas as pd
import pytest

import canasta_sim.runs.supervisor
from canasta_sim.cli.backends import default_chunk_size_for
from canasta_sim.core.engine import derive_seed
from canasta_sim.core.rules import Rules
from canasta_sim.runs.dask_backend import DaskChunkRunner
from canasta_sim.runs.local_backend import run_chunks
from canasta_sim.runs.records import GAME_SCHEMA, HAND_SCHEMA
from canasta_sim.runs.runner import ChunkPlayer, ChunkRunner, RunSettings, default_chunk_size, worker_logging
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.supervisor import worker_context
from canasta_sim.runs.worker_log import PipeLogHandler, send_records_to
from tests.helpers import ROOT, read_run_tables

QUICK = Rules(target_score=1000)  # R15.1 with a low target keeps games short

FLAKY = '''
from canasta_sim.strategies.greedy import Greedy


class Flaky(Greedy):
    """Greedy, but its discards fail now and then, drawn from its own generator (so reproducibly)."""

    name = "flaky"
    parameters = {"fail_rate": 0.01}

    def choose_discard(self, view):
        if self.rng.random() < self.fail_rate:
            raise RuntimeError("flaky failure")
        return super().choose_discard(view)
'''


@pytest.fixture
def flaky_spec(tmp_path):
    path = tmp_path / "flaky.py"
    path.write_text(FLAKY)
    return f"{path}:Flaky"


def read_tables(directory: RunDirectory) -> tuple[pd.DataFrame, pd.DataFrame]:
    return read_run_tables(directory.path)


def play(settings, path, workers, on_error="stop", chunks=None):
    directory = RunDirectory(path)
    chunks = range(settings.chunk_count) if chunks is None else chunks
    outcome = run_chunks(settings, directory, list(chunks), workers=workers, on_error=on_error)
    return directory, outcome


def test_settings_swap_sides_every_other_game_and_derive_seeds():
    settings = RunSettings(games=10, seed=42, specs=("greedy", "random"), rules=QUICK, chunk_size=4)
    assert [settings.sides(game) for game in range(3)] == [
        ("greedy", "random"), ("random", "greedy"), ("greedy", "random")]
    assert settings.game_seed(3) == derive_seed(42, "game3")
    assert settings.chunk_count == 3 and list(settings.chunk_games(2)) == [8, 9]
    mirror = RunSettings(games=10, seed=42, specs=("greedy",), rules=QUICK, chunk_size=4)
    assert mirror.sides(1) == ("greedy", "greedy") and mirror.entrants == ("greedy (A)", "greedy (B)")
    with pytest.raises(ValueError, match="different strategies"):  # three or more specs are a round robin
        RunSettings(games=10, seed=1, specs=("a", "b", "a"), rules=QUICK, chunk_size=4)


def test_default_chunk_size_keeps_small_runs_parallel_and_large_chunks_bounded():
    assert default_chunk_size(10_000) == 500
    assert default_chunk_size(4_000) == 500
    assert default_chunk_size(200) == 25
    assert default_chunk_size(3) == 1
    # A backend that plays whole chunks (Dask) needs more of them to keep its workers busy.
    assert default_chunk_size(2_000, whole_chunks=True) == 125 and default_chunk_size(2_000) == 250
    assert default_chunk_size(10_000, whole_chunks=True) == 500
    # run picks by its backend: the local one shares a run's last chunks out in pieces, the Dask one does not.
    assert default_chunk_size_for(2_000, run_chunks) == 250 and default_chunk_size_for(2_000, DaskChunkRunner()) == 125



@pytest.mark.parametrize(("page", "whole_chunks", "chunks"), [("running.md", False, 8), ("cluster.md", True, 16)])
def test_the_docs_give_the_smallest_run_with_every_default_chunk(page, whole_chunks, chunks):
    # The docs said every run of fewer than 4,000 games (8,000 on Dask) has 8 chunks (16): a run of 10 has 5.
    def count(games: int) -> int:
        return math.ceil(games / default_chunk_size(games, whole_chunks=whole_chunks))

    below_full_chunks = range(1, 500 * chunks)  # the runs whose chunks are smaller than 500 games
    assert all(count(games) <= chunks for games in below_full_chunks)
    largest_short = max(games for games in below_full_chunks if count(games) < chunks)
    text = " ".join((ROOT / "docs" / page).read_text(encoding="utf-8").split())
    assert f"{chunks} chunks, or fewer in a run of {largest_short} games or less" in text

@pytest.mark.parametrize("backend", [run_chunks, DaskChunkRunner()], ids=["local", "dask"])
def test_each_backend_takes_what_run_passes_to_a_chunk_runner(backend):
    """``run`` calls the local and the Dask backend alike: each takes every parameter of ChunkRunner, the same
    way (positional or keyword only) and with the same defaults where the protocol gives one."""
    _self, *expected = inspect.signature(ChunkRunner.__call__).parameters.values()
    taken = inspect.signature(backend).parameters
    for parameter in expected:
        name = parameter.name
        assert name in taken, f"{backend} does not take {name}"
        assert taken[name].kind == parameter.kind
        if parameter.default not in (inspect.Parameter.empty, ...):
            assert taken[name].default == parameter.default


def test_one_and_two_workers_write_identical_tables(tmp_path):
    settings = RunSettings(games=60, seed=7, specs=("greedy", "random"), rules=QUICK, chunk_size=7)
    one, outcome_one = play(settings, tmp_path / "one", workers=1)
    two, outcome_two = play(settings, tmp_path / "two", workers=2)
    assert outcome_one == outcome_two == (False, None)
    games_one, hands_one = read_tables(one)
    games_two, hands_two = read_tables(two)
    pd.testing.assert_frame_equal(games_one, games_two)
    pd.testing.assert_frame_equal(hands_one, hands_two)
    assert list(games_one.game_id) == list(range(60))


@pytest.mark.timeout(120)
def test_the_local_backend_reports_games_as_they_come_back_before_their_chunk_is_written(tmp_path):
    # One chunk of 200 games on one worker: a progress bar moved only by chunks would stand still until the end.
    # Full games of expert: about a millisecond each here, so 200 take many of the supervisor's 10 ms ticks.
    settings = RunSettings(games=200, seed=5, specs=("expert", "greedy"), rules=Rules(), chunk_size=200)
    heard: list[tuple[str, int]] = []
    directory = RunDirectory(tmp_path / "run")
    outcome = run_chunks(settings, directory, [0], workers=1, on_chunk=lambda report: heard.append(("chunk", 1)),
                         on_games=lambda count: heard.append(("games", count)))
    assert outcome == (False, None)
    before_chunk = heard[:heard.index(("chunk", 1))]
    assert len(before_chunk) >= 2 and all(kind == "games" for kind, _ in before_chunk), heard
    assert sum(count for kind, count in heard if kind == "games") == 200


def test_schema_and_score_identity_over_every_row(tmp_path):
    settings = RunSettings(games=40, seed=3, specs=("greedy", "random"), rules=QUICK, chunk_size=10)
    directory, _ = play(settings, tmp_path, workers=2)
    games, hands = read_tables(directory)
    assert list(games.columns) == GAME_SCHEMA.names and list(hands.columns) == HAND_SCHEMA.names
    # R14.1: score = meld points + canasta bonus + going-out bonus + red-3 bonus - cards left in hand.
    identity = (hands.meld_points + hands.canasta_bonus + hands.going_out_bonus + hands.red_three_bonus
                - hands.hand_penalty)
    assert (hands.score == identity).all()
    assert hands.groupby("game_id").size().eq(2 * games.set_index("game_id").hands).all()
    last = hands.groupby(["game_id", "team"]).cumulative_score.last().unstack()
    assert (last["A"] == games.score_a).all() and (last["B"] == games.score_b).all()
    assert (games.margin == games.score_a - games.score_b).all()
    decided = games.winner != "draw"
    expected = (games.score_a > games.score_b).map({True: "A", False: "B"})
    assert (games.winner[decided] == expected[decided]).all()
    assert (games.termination == "target").all()  # R15.1
    assert (games.team_a_strategy == ["greedy", "random"] * 20).all()
    assert set(hands.team) == {"A", "B"} and (hands.strategy != hands.opponent_strategy).all()
    assert hands.end_reason.isin(["went_out", "stock_exhausted", "red_three_last_card", "turn_cap"]).all()


def test_forfeits_are_recorded_and_identical_for_any_worker_count(tmp_path, flaky_spec):
    settings = RunSettings(games=40, seed=11, specs=(flaky_spec, "random"), rules=QUICK, chunk_size=6)
    one, outcome = play(settings, tmp_path / "one", workers=1, on_error="forfeit")
    two, _ = play(settings, tmp_path / "two", workers=2, on_error="forfeit")
    assert outcome == (False, None)
    games_one, hands_one = read_tables(one)
    games_two, hands_two = read_tables(two)
    pd.testing.assert_frame_equal(games_one, games_two)
    pd.testing.assert_frame_equal(hands_one, hands_two)
    forfeits = games_one[games_one.termination == "forfeit"]
    assert len(forfeits) > 0 and len(games_one) == 40
    failing_team = forfeits.team_a_strategy.eq(flaky_spec).map({True: "A", False: "B"})
    assert (forfeits.forfeit_team == failing_team).all()
    assert (forfeits.winner_strategy == "random").all()
    assert forfeits.error.str.contains("flaky failure").all()
    # The hands finished before the failure are kept, and the game's scores are the totals they reached.
    for game in forfeits.itertuples():
        rows = hands_one[hands_one.game_id == game.game_id]
        assert len(rows) == 2 * game.hands
        if game.hands:
            last = rows[rows.hand_no == game.hands].set_index("team").cumulative_score
            assert (last["A"], last["B"]) == (game.score_a, game.score_b)
        else:
            assert (game.score_a, game.score_b) == (0, 0) and -1 <= game.first_dealer <= 3
    assert (forfeits.hands > 0).any()


def test_stop_on_error_keeps_finished_games_and_a_forfeit_run_completes_it(tmp_path, flaky_spec):
    settings = RunSettings(games=40, seed=11, specs=(flaky_spec, "random"), rules=QUICK, chunk_size=6)
    directory, (interrupted, error) = play(settings, tmp_path / "run", workers=1, on_error="stop")
    assert not interrupted and "flaky failure" in error and error.startswith("game ")
    failed_game = int(error.split()[1].rstrip(":"))
    counts = directory.chunk_game_counts()
    # Every game before the failing one is on disk; the failing chunk is partial.
    assert sum(counts.values()) == failed_game
    incomplete = [c for c in range(settings.chunk_count) if counts.get(c) != len(settings.chunk_games(c))]
    play(settings, directory.path, workers=2, on_error="forfeit", chunks=incomplete)
    reference, _ = play(settings, tmp_path / "reference", workers=1, on_error="forfeit")
    pd.testing.assert_frame_equal(read_tables(directory)[0], read_tables(reference)[0])
    pd.testing.assert_frame_equal(read_tables(directory)[1], read_tables(reference)[1])


def test_a_set_stop_event_skips_chunks_without_writing(tmp_path):
    settings = RunSettings(games=10, seed=1, specs=("greedy",), rules=QUICK, chunk_size=5)
    stop = multiprocessing.Event()
    stop.set()
    report = ChunkPlayer(settings, str(tmp_path), "stop", stop).play(0)
    assert (report.games, report.complete) == (0, False)
    assert not any(tmp_path.iterdir())


@pytest.mark.timeout(60)
def test_worker_logs_hand_on_every_record_and_close_without_waiting_for_a_poll():
    # multiprocessing-logging's handler, used before, closed only when its thread next polled its queue, up to 0.2 s
    # later: ten closes took about a second.  Each close here comes right after a child's last records.
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    context = worker_context()
    closing = 0.0
    for round_number in range(10):
        with worker_logging(context, [Collect()]) as logs:
            channel = logs.channel()
            child = context.Process(target=_log_lines, args=(channel, round_number))
            child.start()
            channel.close()
            child.join(30)
            started = time.monotonic()
        closing += time.monotonic() - started
    assert records == [f"round {number} line {line}" for number in range(10) for line in range(50)]
    assert closing < 0.3, closing


def _log_lines(channel, round_number: int) -> None:
    send_records_to(channel, logging.INFO)
    logger = logging.getLogger("canasta_sim.test_worker_log")
    for line in range(50):
        logger.info("round %d line %d", round_number, line)


def test_worker_log_records_reach_the_parent_handlers(tmp_path, flaky_spec):
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Collect(level=logging.WARNING)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        settings = RunSettings(games=30, seed=11, specs=(flaky_spec, "random"), rules=QUICK, chunk_size=5)
        run_chunks(settings, RunDirectory(tmp_path), list(range(settings.chunk_count)), workers=2,
                   on_error="forfeit", log_handlers=[handler])
    finally:
        root.removeHandler(handler)
    assert handler not in root.handlers and not any(isinstance(h, PipeLogHandler) for h in root.handlers)
    games = pd.read_parquet(tmp_path / "games")
    forfeited = sorted(games.game_id[games.termination == "forfeit"])
    assert forfeited, "the fixture seed should make the flaky strategy fail at least once"
    logged = sorted(int(record.getMessage().split()[1].rstrip(":")) for record in records)
    assert logged == forfeited
    assert {record.processName for record in records} != {"MainProcess"}


def test_without_fork_workers_are_spawned_and_log_through_a_queue(tmp_path, flaky_spec, monkeypatch):
    monkeypatch.setattr(canasta_sim.runs.supervisor.multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Collect(level=logging.WARNING)
    settings = RunSettings(games=30, seed=11, specs=(flaky_spec, "random"), rules=QUICK, chunk_size=10)
    spawned = RunDirectory(tmp_path / "spawned")
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        outcome = run_chunks(settings, spawned, [0, 1, 2], workers=2, on_error="forfeit", log_handlers=[handler])
    finally:
        root.removeHandler(handler)
    assert outcome == (False, None)
    forked, _ = play(settings, tmp_path / "forked", workers=2, on_error="forfeit")
    pd.testing.assert_frame_equal(read_tables(spawned)[0], read_tables(forked)[0])
    pd.testing.assert_frame_equal(read_tables(spawned)[1], read_tables(forked)[1])
    forfeited = (read_tables(spawned)[0].termination == "forfeit").sum()
    assert forfeited and len([r for r in records if "forfeits the game" in r.getMessage()]) == forfeited
    assert {record.processName for record in records} != {"MainProcess"}


@pytest.mark.timeout(20)
def test_a_worker_killed_while_it_reads_the_stop_flag_leaves_it_to_the_others():
    # A multiprocessing Event kept one lock for all its processes: a worker killed while it held the lock (a bot that
    # kills its worker, a signal) left the run waiting on it for ever.  The stop flag has none.
    import os
    import signal
    import time

    from canasta_sim.runs.runner import stop_on_signals
    from canasta_sim.runs.supervisor import StopFlag, worker_context

    context = worker_context()
    flag = StopFlag(context)
    reader = context.Process(target=_read_for_ever, args=(flag,))
    reader.start()
    time.sleep(0.3)
    os.kill(reader.pid, signal.SIGKILL)  # in the middle of its reads
    reader.join()
    with stop_on_signals(flag) as state:
        signal.raise_signal(signal.SIGTERM)
        deadline = time.monotonic() + 5
        while not flag.is_set() and time.monotonic() < deadline:
            time.sleep(0.01)
    assert state["interrupted"] and flag.is_set()


def _read_for_ever(flag) -> None:
    while not flag.is_set():
        pass
