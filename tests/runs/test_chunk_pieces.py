"""The last chunks of a run are shared out in pieces, so that the workers finish together.

With whole chunks only, a worker that ends its last chunk early waits for the others, on average half a
chunk's time, idle.  The supervisor therefore hands out the last chunks' games in shrinking pieces; a chunk's
pieces may be played by different workers at once, and its parts are still written in game order, the same
as when one worker plays the chunk whole.
"""

from __future__ import annotations

import types

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from canasta_sim import Rules
from canasta_sim.cli import main
from canasta_sim.runs import local_backend
from canasta_sim.runs.local_backend import workers_for
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.supervisor import MIN_PIECE_GAMES, _Play
from canasta_sim.runs.worker_process import ENDING_GAMES
from canasta_sim.runs.worker_process import WorkerProcess as _Worker
from tests.helpers import BOTS, assert_same_run_tables


class _Chunks:
    """A schedule of ``count`` chunks of ``size`` games, as a run numbers them."""

    splits_chunks = True

    def __init__(self, count: int, size: int) -> None:
        self.count, self.size = count, size

    def chunk_games(self, chunk: int) -> range:
        return range(chunk * self.size, (chunk + 1) * self.size)


def _deal_out(count: int, size: int, workers: int, splits: bool = True) -> tuple[list[tuple[int, int, int]], _Play]:
    schedule = _Chunks(count, size)
    if not splits:
        schedule.splits_chunks = False
    pool = types.SimpleNamespace(schedule=schedule, workers=[None] * workers)
    play = _Play(pool, list(range(count)), on_chunk=lambda report: None, directory=None)
    tasks = []
    while play.pending:
        tasks.append(play._next_piece())
    return tasks, play


@pytest.mark.parametrize(("count", "size", "workers"),
                         [(50, 200, 2), (20, 200, 2), (16, 63, 4), (3, 40, 2), (1, 200, 8)])
def test_the_pieces_cover_every_game_once_in_order_within_each_chunk(count, size, workers):
    tasks, play = _deal_out(count, size, workers)
    for chunk in range(count):
        pieces = [(first, end) for task_chunk, first, end in tasks if task_chunk == chunk]
        assert pieces[0][0] == chunk * size and pieces[-1][1] == (chunk + 1) * size
        assert all(end == next_first for (_, end), (next_first, _) in zip(pieces, pieces[1:], strict=False))
        assert play.pieces[chunk] == len(pieces)  # the chunk is finished when the last of them ends


def test_whole_chunks_while_plenty_are_left_then_pieces_that_shrink():
    tasks, _ = _deal_out(20, 200, 2)
    sizes = [end - first for _, first, end in tasks]
    assert sizes[:16] == [200] * 16  # until two chunks a worker are left
    tail = sizes[16:]
    assert len(tail) > 8 and min(tail) >= MIN_PIECE_GAMES
    assert all(later <= earlier + 1 for earlier, later in zip(tail, tail[1:], strict=False))  # +1: equal parts
    assert max(tail[-4:]) < 2 * MIN_PIECE_GAMES


@pytest.mark.parametrize(("workers", "splits"), [(4, False), (1, True)],
                         ids=["a schedule that does not split", "one worker"])
def test_whole_chunks_only_for_a_schedule_that_does_not_split_or_a_lone_worker(workers, splits):
    tasks, play = _deal_out(6, 100, workers, splits=splits)
    assert [(first, end) for _, first, end in tasks] == [(chunk * 100, chunk * 100 + 100) for chunk in range(6)]
    assert set(play.pieces.values()) == {1}


def _worker(task, queued=None, *, ready=True, hung_up=False):
    return types.SimpleNamespace(task=task, queued=queued, ready=ready, hung_up=hung_up)


def test_the_supervisor_hears_at_once_only_a_worker_about_to_wait_for_its_next_task():
    # Such a worker waits idle for the supervisor's next look: at the tick alone, half a tick on average a piece.
    assert _Worker.ending(_worker((0, 100 - ENDING_GAMES, 100)))
    assert not _Worker.ending(_worker((0, 99 - ENDING_GAMES, 100)))  # the tick comes in time
    assert not _Worker.ending(_worker((0, 95, 100), queued=(1, 100, 200)))  # it goes on to the task sent ahead
    assert not _Worker.ending(_worker(None))  # idle with nothing left to play
    assert _Worker.ending(_worker(None, ready=False))  # starting: its first task goes as soon as it is ready
    assert not _Worker.ending(_worker((0, 95, 100), hung_up=True))  # a closed pipe would wake it at once, forever


def _run(out, workers: int, *extra: str):
    arguments = ["run", "--games", "64", "--chunk-size", "32", "--seed", "11", "--workers", str(workers),
                 "--rules", "target_score=1500", "--out", str(out), "-q", *extra]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    return out


def _game_ids_of_each_part(out) -> list[list[int]]:
    parts = sorted((out / "games").iterdir())
    return [pq.read_table(part, columns=["game_id"]).column(0).to_pylist() for part in parts]


@pytest.mark.timeout(120)
def test_chunks_played_in_pieces_by_two_workers_write_the_tables_one_worker_writes(tmp_path):
    one = _run(tmp_path / "one", 1, "-s", "expert", "-s", "greedy")
    two = _run(tmp_path / "two", 2, "-s", "expert", "-s", "greedy")
    assert _game_ids_of_each_part(two) == [list(range(32)), list(range(32, 64))]
    assert_same_run_tables(one, two)


@pytest.mark.timeout(120)
def test_a_worker_dying_in_a_piece_costs_its_seat_that_game_and_the_piece_goes_on(tmp_path):
    bad = f"{BOTS / 'bad_strategies.py'}:ExitsItsProcess"
    options = ("-s", bad, "-s", "greedy", "--on-error", "forfeit")
    one = _run(tmp_path / "one", 1, *options)
    two = _run(tmp_path / "two", 2, *options)
    assert _game_ids_of_each_part(two) == [list(range(32)), list(range(32, 64))]
    assert_same_run_tables(one, two)


@pytest.mark.parametrize(("games", "chunk_size", "chunks", "workers", "expected"), [
    (64, 64, [0], 2, 2),  # --chunk-size as large as the run: one chunk, shared out in pieces
    (1000, 500, [1], 4, 4),  # a resume with one chunk left
    (20, 20, [0], 2, 1),  # too few games for two pieces
    (4000, 500, list(range(8)), 2, 2),
    (1, 1, [0], 2, 1),
])
def test_workers_started_for_fewer_chunks_than_workers_share_them_in_pieces(games, chunk_size, chunks, workers,
                                                                              expected):
    settings = RunSettings(games=games, seed=1, specs=("greedy",), rules=Rules(), chunk_size=chunk_size)
    assert workers_for(settings, chunks, workers) == expected


@pytest.mark.timeout(120)
def test_a_run_of_one_chunk_plays_on_every_worker(tmp_path, monkeypatch):
    started = []
    real = local_backend.worker_pool

    def recording(schedule, *, workers, **options):
        started.append(workers)
        return real(schedule, workers=workers, **options)

    monkeypatch.setattr(local_backend, "worker_pool", recording)
    out = tmp_path / "one-chunk"
    result = CliRunner().invoke(main, ["run", "--games", "40", "--chunk-size", "1000", "--seed", "11", "--workers", "2",
                                       "-s", "greedy", "--rules", "target_score=1500", "--out", str(out), "-q"])
    assert result.exit_code == 0, result.output
    assert started == [2]
    assert _game_ids_of_each_part(out) == [list(range(40))]
