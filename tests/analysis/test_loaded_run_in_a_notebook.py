"""What a notebook does with a loaded run: shows it as the last value of a cell, changes directory (``%cd``) before
asking for the run's sections, renames its strategies for display, and keeps it after its directory is gone."""

import shutil

import pytest
from click.testing import CliRunner

from canasta_sim.analysis import cross_table, load_run, paired_results, ratings, strategy_names, with_strategy_names
from canasta_sim.cli import main
from canasta_sim.runs.storage import RunDirectoryError

SECTIONS = (cross_table, ratings, paired_results)


@pytest.fixture(scope="module")
def round_robin(tmp_path_factory):
    out = tmp_path_factory.mktemp("rr") / "run"
    arguments = ["run", "--games", "24", "-s", "greedy", "-s", "random", "-s", "expert", "--duplicate", "--rules",
                 "target_score=1000", "--workers", "1", "-q", "--seed", "2", "--out", str(out)]
    result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.timeout(300)
def test_a_loaded_run_shows_as_one_short_line_naming_its_strategies_games_and_tables(round_robin):
    run = load_run(round_robin)
    shown = repr(run)
    # The dataclass's own repr ran to the whole run.json and both tables' reprs: pages of a notebook's output.
    assert "\n" not in shown and len(shown) < 300, shown
    assert str(round_robin) in shown and "greedy, random, expert" in shown and "24 of 24 games" in shown
    assert f"games {len(run.games)} rows" in shown and f"hands {len(run.hands)} rows" in shown
    assert "complete" in shown


@pytest.mark.timeout(300)
@pytest.mark.parametrize("section", SECTIONS, ids=lambda function: function.__name__)
def test_a_runs_sections_are_the_same_after_the_notebook_changes_directory(round_robin, monkeypatch, section):
    monkeypatch.chdir(round_robin.parent)
    run = load_run(round_robin.name)  # a relative path, as a notebook beside its runs gives it
    before = section(run)
    assert len(before) > 0
    monkeypatch.chdir(round_robin.parent.parent)
    # The sections read the run's files again: from a relative path after %cd they found none and came back empty.
    assert section(run).equals(before)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("section", SECTIONS, ids=lambda function: function.__name__)
def test_a_renamed_runs_sections_name_the_strategies_as_its_tables_do(round_robin, section):
    run = load_run(round_robin)
    names = strategy_names(run)
    # The renamed run's sections raised "the run does not hold duplicate deals": its files hold the specs.
    renamed = section(with_strategy_names(run))
    expected = section(run)
    for column in ("strategy", "opponent"):
        if column in expected.columns:
            expected[column] = expected[column].map(names)
    assert len(renamed) > 0 and renamed.equals(expected) and set(renamed.strategy) <= set(names.values())


@pytest.mark.timeout(300)
def test_a_runs_sections_after_its_directory_is_gone_raise_naming_it(round_robin, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(round_robin, copy)
    run = load_run(copy)
    shutil.rmtree(copy)
    for section in SECTIONS:
        with pytest.raises(RunDirectoryError, match="does not exist"):
            section(run)


def test_a_folder_of_runs_is_refused_naming_the_runs_it_holds(tmp_path):
    for name in ("b", "a", "c", "d"):
        (tmp_path / "results" / name).mkdir(parents=True)
        (tmp_path / "results" / name / "run.json").write_text("{}")
    (tmp_path / "results" / "notes").mkdir()
    folder = tmp_path / "results"
    # It said only that the folder has no run.json, where the notebook's user had given the folder of the runs.
    with pytest.raises(RunDirectoryError) as raised:
        load_run(folder)
    assert str(raised.value) == (f"{str(folder)!r} is not a canasta-sim run directory (it has no run.json); it holds "
                                 f"4 runs: {str(folder / 'a')!r}, {str(folder / 'b')!r}, {str(folder / 'c')!r} and 1 "
                                 "more")
    with pytest.raises(RunDirectoryError) as raised:
        load_run(folder / "notes")
    assert str(raised.value).endswith("(it has no run.json)")
