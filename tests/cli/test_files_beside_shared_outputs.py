"""A report or a page written into a folder other users share (``-o /tmp/report.html``) is written beside its target
first under a name no one else can have made, and chart files are replaced, never written through a link that a
run's folder or another user put in their place (docs/security.md)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.cli.outputs import write_output
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.tuning.run import TuningDirectory


def _small_run(tmp_path) -> Path:
    """A run of two short games, greedy against random, in ``tmp_path / "run"``."""
    run = tmp_path / "run"
    made = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "1", "-s", "greedy", "-s", "random", "--rules",
                                     "target_score=1000", "--workers", "1", "--out", str(run), "-q"])
    assert made.exit_code == 0, made.output
    return run


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name != "posix", reason="links and modes of a POSIX system")
def test_a_report_is_not_written_through_a_link_at_the_name_its_partial_file_had(tmp_path):
    # The partial file was named .report.html.PID.partial: in /tmp another user could make that name first, a link to
    # one of this user's files, and the report was written through it over that file.
    victim = tmp_path / "bashrc"
    victim.write_text("kept\n")
    target = tmp_path / "report.html"
    (tmp_path / f".report.html.{os.getpid()}.partial").symlink_to(victim)
    write_output("--output", target, "<html>page</html>\n", None)
    assert victim.read_text() == "kept\n"
    assert target.read_text() == "<html>page</html>\n" and not target.is_symlink()


@pytest.mark.skipif(os.name != "posix", reason="modes of a POSIX system")
def test_a_written_report_is_readable_as_a_new_file_of_the_users_is(tmp_path):
    # Made with mkstemp's mode (0600), a page published from the folder would be unreadable to the web server.
    mask = os.umask(0o022)
    try:
        target = tmp_path / "report.html"
        write_output("--output", target, "page\n", None)
    finally:
        os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [path.name for path in tmp_path.iterdir()] == ["report.html"]


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "symlink"), reason="links")
def test_plot_of_a_run_folder_replaces_a_link_among_its_charts_and_writes_nothing_through_it(tmp_path):
    # A downloaded folder's plots/win_rates.png, a link to one of the user's files: plot wrote the chart through it.
    run = _small_run(tmp_path)
    victim = tmp_path / "notes.txt"
    victim.write_text("kept\n")
    (run / "plots").mkdir()
    (run / "plots" / "win_rates.png").symlink_to(victim)
    plotted = CliRunner().invoke(main, ["plot", str(run)])
    assert plotted.exit_code == 0, plotted.output
    assert victim.read_text() == "kept\n"
    chart = run / "plots" / "win_rates.png"
    assert not chart.is_symlink() and chart.read_bytes().startswith(b"\x89PNG")
    assert not [path for path in (run / "plots").iterdir() if path.name.endswith(".partial")]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="links")
def test_a_run_or_tuning_folder_written_again_writes_nothing_through_a_link_it_holds(tmp_path):
    # run.json (and every part) was written as .tmp-PID-run.json first: a folder from someone else could hold links
    # at those names for a range of process ids, and a resume wrote through one over a file of the user's.
    victim = tmp_path / "notes.txt"
    victim.write_text("kept\n")
    for directory in (RunDirectory(tmp_path / "run"), TuningDirectory(tmp_path / "tuning")):
        directory.path.mkdir()
        (directory.path / f".tmp-{os.getpid()}-{directory.manifest_path.name}").symlink_to(victim)
        directory.write_manifest({"format": 1})
        assert victim.read_text() == "kept\n"
        assert json.loads(directory.manifest_path.read_text()) == {"format": 1}


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "getuid"), reason="owners of a POSIX system")
def test_a_markdown_reports_charts_folder_that_another_user_made_first_is_refused_naming_it(tmp_path, monkeypatch):
    # -o /tmp/club.md drew its charts into /tmp/club-charts/ whoever had made it, who could change them after.
    run = _small_run(tmp_path)
    (tmp_path / "club-charts").mkdir()  # this process's user made it: as another user, the report's is not its owner
    monkeypatch.setattr("canasta_sim.cli.report_markdown.os.getuid", lambda: os.stat(tmp_path).st_uid + 1)
    report = CliRunner().invoke(main, ["report", str(run), "--format", "markdown", "-o", str(tmp_path / "club.md")])
    assert report.exit_code == 2, report.output
    assert report.output.strip() == (f"Error: --output {tmp_path / 'club.md'}: its charts cannot be written to "
                                     f"{tmp_path / 'club-charts'}: another user's folder, who could change the charts "
                                     "after; remove it or write the report elsewhere")
    assert list((tmp_path / "club-charts").iterdir()) == []


@pytest.mark.timeout(60)
@pytest.mark.skipif(not hasattr(os, "symlink"), reason="links")
def test_a_run_folders_plots_that_is_a_link_is_refused_by_plot_and_the_markdown_report_naming_it(tmp_path):
    # A downloaded folder's plots/, a link to a folder of the user's: plot and report -o RUN/report.md drew into it.
    run = _small_run(tmp_path)
    elsewhere = tmp_path / "pictures"
    elsewhere.mkdir()
    (run / "plots").symlink_to(elsewhere, target_is_directory=True)
    plotted = CliRunner().invoke(main, ["plot", str(run)])
    assert plotted.exit_code == 2, plotted.output
    assert plotted.output.strip() == (f"Error: {run / 'plots'} is a link, not a folder of the run's own; remove it or "
                                      "give --out FOLDER for the charts")
    report = CliRunner().invoke(main, ["report", str(run), "--format", "markdown", "-o", str(run / "report.md")])
    assert report.exit_code == 2, report.output
    assert report.output.strip() == (f"Error: --output {run / 'report.md'}: its charts cannot be written to "
                                     f"{run / 'plots'}: it is a link, not a folder of the run's own; remove it or "
                                     "write the report elsewhere")
    assert list(elsewhere.iterdir()) == []
    assert not (run / "report.md").exists()
