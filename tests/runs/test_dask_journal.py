"""The Dask backend's chunk journals (sim/runs/dask_journal.py): each attempt at a chunk plays with a monitor of its
own, the next attempt on the machine charges the game an attempt died in, and an attempt still playing beside it (one
of a submission the client gave up, which Dask cannot stop) is nobody's death."""

import subprocess
import sys

import pytest

from canasta_sim.arbiter import CALL_CODES, MONITOR_CALL, MONITOR_GAME
from canasta_sim.runs.dask_cluster import ClusterError
from canasta_sim.runs.dask_journal import ChunkJournal, forget_run

DIES_PLAYING = """
import os
import sys
from pathlib import Path

from canasta_sim.arbiter import CALL_CODES, MONITOR_CALL, MONITOR_GAME
from canasta_sim.runs.dask_journal import ChunkJournal

journal = ChunkJournal("run", 3, Path(sys.argv[1]))
journal.monitor[MONITOR_GAME] = int(sys.argv[2])
journal.monitor[MONITOR_CALL] = CALL_CODES["discard"] + 2
print("playing", flush=True)
sys.stdin.readline()  # until the test lets it die
os._exit(1)  # as a strategy that kills its worker: nothing of the attempt's own cleaning runs
"""


def attempt_in_a_process(folder, game: int) -> subprocess.Popen:
    """An attempt at chunk 3 of run "run" in a process of its own, in game ``game`` at seat 2's discard; it dies when
    its stdin is closed."""
    process = subprocess.Popen([sys.executable, "-c", DIES_PLAYING, str(folder), str(game)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "playing\n"
    return process


def let_die(process: subprocess.Popen) -> None:
    process.stdin.close()
    assert process.wait(timeout=30) == 1


def files(folder) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@pytest.mark.timeout(60)
def test_the_next_attempt_charges_the_game_an_attempt_died_in_once_and_keeps_the_charge(tmp_path):
    let_die(attempt_in_a_process(tmp_path, 7))
    again = ChunkJournal("run", 3, tmp_path)
    assert again.charged == {7: (2, "discard")} and again.monitor[MONITOR_GAME] == -1
    again.close()
    third = ChunkJournal("run", 3, tmp_path)  # charged once, remembered
    assert third.charged == {7: (2, "discard")}
    third.close()
    # Played to its end, the chunk may yet be played again (its rows died with their worker): the charge stays.
    assert files(tmp_path) == ["run-3.charged"]
    assert (tmp_path / "run-3.charged").read_text() == "7 2 discard\n"
    ChunkJournal("run", 4, tmp_path).close()  # a chunk that charged nothing leaves nothing
    forget_run("other run", tmp_path)
    assert files(tmp_path) == ["run-3.charged"]
    forget_run("run", tmp_path)  # at the run's end
    assert files(tmp_path) == []


def test_an_attempt_still_playing_beside_the_next_is_not_charged(tmp_path):
    # An attempt of a submission the client gave up, still playing (Dask cannot stop it), in game 5.
    late = ChunkJournal("run", 3, tmp_path)
    late.monitor[MONITOR_GAME] = 5
    late.monitor[MONITOR_CALL] = CALL_CODES["meld"] + 1
    resubmitted = ChunkJournal("run", 3, tmp_path)
    assert resubmitted.charged == {}  # game 5 is being played, not died in
    assert resubmitted.monitor[MONITOR_GAME] == -1 and late.monitor[MONITOR_GAME] == 5  # neither wrote the other's
    resubmitted.monitor[MONITOR_GAME] = 2
    assert late.monitor[MONITOR_GAME] == 5
    late.close()
    resubmitted.close()
    assert files(tmp_path) == []


@pytest.mark.timeout(60)
def test_a_late_attempt_that_ends_leaves_the_death_of_the_attempt_beside_it_to_be_charged(tmp_path):
    late = ChunkJournal("run", 3, tmp_path)
    late.monitor[MONITOR_GAME] = 1
    resubmitted = attempt_in_a_process(tmp_path, 6)
    late.close()  # the late attempt played to its end meanwhile: its returned rows are not wanted
    let_die(resubmitted)  # and the resubmission's worker dies in game 6
    following = ChunkJournal("run", 3, tmp_path)
    assert following.charged == {6: (2, "discard")}
    following.close()
    forget_run("run", tmp_path)
    assert files(tmp_path) == []


def test_an_attempt_that_raises_is_nobodys_death(tmp_path):
    with pytest.raises(ValueError, match="a bug"), ChunkJournal("run", 3, tmp_path) as journal:
        journal.monitor[MONITOR_GAME] = 4
        journal.monitor[MONITOR_CALL] = CALL_CODES["discard"]
        raise ValueError("a bug, not a dead worker")
    assert files(tmp_path) == []
    with ChunkJournal("run", 3, tmp_path) as next_attempt:
        assert next_attempt.charged == {}


def seat_two_is_built_in(game: int, seat: int) -> bool:
    return seat % 2 == 0  # as when the side of seats 0 and 2 plays greedy


@pytest.mark.timeout(60)
def test_a_death_in_a_built_in_strategys_call_is_played_again_and_the_third_ends_the_run(tmp_path, caplog):
    # Judged from the run's specs: for a seat that is no built-in's a death is charged, as ever.
    let_die(attempt_in_a_process(tmp_path, 5))  # at seat 2's discard
    with ChunkJournal("run", 3, tmp_path, is_built_in=lambda game, seat: False) as charging:
        assert charging.charged == {5: (2, "discard")} and charging.deaths_in_built_ins == {}
    let_die(attempt_in_a_process(tmp_path, 7))
    again = ChunkJournal("run", 3, tmp_path, is_built_in=seat_two_is_built_in)
    assert again.charged == {5: (2, "discard")} and again.deaths_in_built_ins == {7: 1}  # played again, not charged
    assert "game 7: its Dask worker died during a built-in strategy's call" in caplog.text
    again.close()
    let_die(attempt_in_a_process(tmp_path, 7))
    with ChunkJournal("run", 3, tmp_path, is_built_in=seat_two_is_built_in) as second:
        assert second.deaths_in_built_ins == {7: 2}
    let_die(attempt_in_a_process(tmp_path, 7))
    with pytest.raises(ClusterError, match=r"^game 7's Dask workers died 3 times during a built-in strategy's call"):
        ChunkJournal("run", 3, tmp_path, is_built_in=seat_two_is_built_in)
    forget_run("run", tmp_path)
    assert files(tmp_path) == []
