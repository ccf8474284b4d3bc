"""The summary ``canasta-sim run`` prints is summed from the chunks as the parent writes them (RunSummarizer):
it must equal :func:`summarize_run` reading the run directory back, after a stop, a resume, in a mirror, and
whatever the batch size, and only parts written before the session are read back."""

import pytest
from click.testing import CliRunner

from canasta_sim.analysis import strategy_names
from canasta_sim.analysis.sections import as_printed
from canasta_sim.cli import main
from canasta_sim.runs import storage, summary
from canasta_sim.runs.matchmaking import MatchmakingResults
from canasta_sim.runs.runner import settings_from_manifest
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.summary import RunSummarizer, format_summary, summarize_run
from tests.helpers import FLAKY_BOT_SOURCE

QUICK = ["--rules", "target_score=1000"]  # R15.1 with a low target keeps games short


def run(*args: str):
    return CliRunner().invoke(main, ["run", *args], catch_exceptions=False)


def reread_summary(out) -> str:
    """The summary read back from the run's files, printed as ``run`` prints it (strategies by name)."""
    directory = RunDirectory(out)
    manifest = directory.read_manifest()
    rows = summarize_run(directory, settings_from_manifest(manifest).entrants).rows
    return format_summary(as_printed(rows, MatchmakingResults(), strategy_names(manifest))[0])


def assert_arrow_sums_equal_pandas_sums(out) -> None:
    """The accumulator sums Arrow tables with Arrow and DataFrames with pandas: both must give the same rows."""
    import pyarrow as pa

    chunks = list(RunDirectory(out).iter_chunks(summary.GAME_COLUMNS_NEEDED, summary.HAND_COLUMNS_NEEDED))
    games = pa.concat_tables([games for _, games, _ in chunks])
    hands = pa.concat_tables([hands for _, _, hands in chunks])
    by_arrow, by_pandas = summary.SummaryAccumulator(), summary.SummaryAccumulator()
    by_arrow.add(games, hands)
    by_pandas.add(games.to_pandas(), hands.to_pandas())
    assert repr(by_arrow.rows()) == repr(by_pandas.rows())
    assert format_summary(by_arrow.rows(), "json") == format_summary(by_pandas.rows(), "json")


def printed_summary(result) -> str:
    """The summary table of a run's standard output (it ends with the 'N of M games' line)."""
    lines = result.stdout.splitlines()
    return "\n".join(lines[: next(index for index, line in enumerate(lines) if " games in " in line)])


@pytest.fixture
def read_counter(monkeypatch) -> list:
    """Count the parts this process reads through the storage module."""
    calls = []
    read_table = storage.pq.read_table

    def counting(*args, **kwargs):
        calls.append(args[0])
        return read_table(*args, **kwargs)

    monkeypatch.setattr(storage.pq, "read_table", counting)
    return calls


@pytest.mark.timeout(120)
def test_printed_summary_equals_the_reread_one_after_a_stop_and_a_resume(tmp_path, read_counter):
    (tmp_path / "flaky.py").write_text(FLAKY_BOT_SOURCE)
    spec = f"{tmp_path}/flaky.py:Flaky"
    out = tmp_path / "run"
    stopped = run("--games", "40", "--seed", "11", "-s", spec, "-s", "random", "--workers", "1", "--chunk-size", "3",
                  "--out", str(out), "-q", *QUICK)
    assert stopped.exit_code == 1 and "Error: game " in stopped.stderr
    assert read_counter == []  # every part on disk was written by this session: nothing read back
    assert printed_summary(stopped) == reread_summary(out)
    complete = {chunk for chunk, count in RunDirectory(out).chunk_game_counts().items() if count == 3}
    assert complete and len(complete) < len(RunDirectory(out).chunks())  # complete chunks and a partial one
    read_counter.clear()
    resumed = run("--resume", str(out), "--on-error", "forfeit", "-q")
    assert resumed.exit_code == 0, resumed.output
    assert "40 of 40 games" in resumed.stdout and "forfeits" in resumed.stdout
    # The resume reads the earlier session's complete chunks, each part once (for the progress bar's wins and the
    # summary), never the chunks it wrote itself, the partial one played again included.
    read = {storage._chunk_of(path.name) for path in read_counter}
    assert read == complete and len(read_counter) == 2 * len(complete)
    assert printed_summary(resumed) == reread_summary(out)
    assert_arrow_sums_equal_pandas_sums(out)  # forfeits included


@pytest.mark.timeout(120)
@pytest.mark.parametrize("batch_rows", [1, 50])
def test_printed_summary_of_a_mirror_equals_the_reread_one_whatever_the_batch(tmp_path, monkeypatch, batch_rows):
    monkeypatch.setattr(summary, "SUMMARY_BATCH_ROWS", batch_rows)
    out = tmp_path / "run"
    result = run("--games", "16", "--seed", "4", "-s", "greedy", "--workers", "2", "--chunk-size", "3", "--out",
                 str(out), "-q", *QUICK)
    assert result.exit_code == 0, result.output
    assert "greedy@2 (A)" in result.stdout and "16 of 16 games" in result.stdout
    assert "never reached the target" not in result.stdout  # every game ended at the target (R15.1)
    assert printed_summary(result) == reread_summary(out)
    assert_arrow_sums_equal_pandas_sums(out)  # mirror labels


@pytest.mark.timeout(120)
def test_run_says_in_one_line_how_many_games_the_hand_cap_ended_keeping_them_r15_1(tmp_path):
    # Going out at -100,000 keeps both totals far below the target: each game ends at the engine's guard, 400 hands
    # (a quarter second of greedy and random). The summary read as any other: a variant whose games never end,
    # its results those of the side ahead after 400 hands, with no word of it.
    out = tmp_path / "run"
    result = run("--games", "2", "--seed", "1", "-s", "greedy", "-s", "random", "--workers", "1", "--out", str(out),
                 "-q", "--rules", "going_out_bonus=-100000", "--rules", "concealed_going_out_bonus=-100000")
    assert result.exit_code == 0, result.output
    said = ("2 of 2 games (100.0%) never reached the target score: the engine's guard ended them after 400 hands, "
            "won by the side ahead then (termination hand_cap)")
    assert [line for line in result.stdout.splitlines() if "hand_cap" in line] == [said]
    assert printed_summary(result).startswith(reread_summary(out))  # every result kept, the line below them
    assert result.stdout.count("400.00") == 2  # hands per game, both rows
    resumed = run("--resume", str(out), "-q")  # the games read back, not played: said again, once
    assert [line for line in resumed.stdout.splitlines() if "hand_cap" in line] == [said]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("finished") / "run"
    result = run("--games", "12", "--seed", "6", "-s", "greedy", "-s", "random", "--workers", "1", "--chunk-size", "4",
                 "--out", str(out), "-q", *QUICK)
    assert result.exit_code == 0, result.output
    return RunDirectory(out)


def feed(summarizer: RunSummarizer, directory: RunDirectory, chunks) -> None:
    for chunk, games, hands in directory.iter_chunks():
        if chunk in chunks:
            summarizer.chunk_written(chunk, games, hands)


@pytest.mark.timeout(60)
def test_summarizer_reads_back_only_the_chunks_not_written_through_it(finished, read_counter):
    summarizer = RunSummarizer()
    feed(summarizer, finished, {0, 2})
    read_counter.clear()
    assert summarizer.summarize(finished) == summarize_run(RunDirectory(finished.path))
    assert {path.name for path in read_counter[:2]} == {"part-000001.parquet"}


@pytest.mark.timeout(60)
def test_summarizer_rereads_everything_when_a_chunk_was_written_twice(finished):
    summarizer = RunSummarizer()
    feed(summarizer, finished, {0, 1})
    feed(summarizer, finished, {1})  # its first tables are summed already: it cannot tell which to keep
    assert summarizer.summarize(finished) == summarize_run(finished)


@pytest.mark.timeout(60)
def test_summarizer_rereads_everything_when_a_chunk_it_wrote_is_gone(finished, tmp_path):
    summarizer = RunSummarizer()
    feed(summarizer, finished, {0, 1, 2})
    copy = RunDirectory(tmp_path / "copy")
    copy.create()
    for chunk, games, hands in finished.iter_chunks():
        if chunk != 1:
            copy.write_chunk(chunk, games, hands)
    rows, games, capped = summarizer.summarize(copy)
    assert (rows, games, capped) == summarize_run(copy) and games == 8
