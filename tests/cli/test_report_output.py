"""``canasta-sim report``: where its output goes.  ``--output FILE`` writes any format to a file, and an HTML page
is not printed to a terminal, where hundreds of kB of markup would only scroll past."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main, report
from canasta_sim.cli.options import open_log_file


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "run"
    made = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "3", "-s", "greedy", "-s", "random", "--workers",
                                     "1", "--rules", "target_score=500", "--out", str(path), "-q"])
    assert made.exit_code == 0, made.output
    return path


def test_an_html_report_to_a_terminal_is_refused_in_one_line_naming_output(run_dir, monkeypatch):
    monkeypatch.setattr(report, "stdout_is_terminal", lambda: True)
    refused = CliRunner().invoke(main, ["report", str(run_dir), "--format", "html"])
    assert refused.exit_code == 2
    assert refused.output.count("\n") == 1 and refused.output.startswith("Error: --format html writes a whole page")
    assert f"--output FILE (canasta-sim report {run_dir} --format html --output report.html)" in refused.output
    text = CliRunner().invoke(main, ["report", str(run_dir)])  # the other formats are for reading there
    assert text.exit_code == 0 and text.output.startswith(f"run {run_dir}:")


def test_output_writes_the_report_that_would_be_printed_to_the_file(run_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(report, "stdout_is_terminal", lambda: True)  # a file named: a terminal does not matter
    printed = CliRunner().invoke(main, ["report", str(run_dir), "--format", "csv"])
    written = CliRunner().invoke(main, ["report", str(run_dir), "--format", "csv", "-o", str(tmp_path / "r.csv")])
    assert written.exit_code == 0 and written.output == f"Wrote {tmp_path / 'r.csv'}.\n"
    assert (tmp_path / "r.csv").read_text(encoding="utf-8") == printed.output
    missing = CliRunner().invoke(main, ["report", str(run_dir), "--output", str(tmp_path / "no" / "r.txt")])
    assert missing.exit_code == 2 and "Error: --output" in missing.output and "No such file" in missing.output


def test_a_long_report_is_printed_in_pieces_under_the_streams_buffer(monkeypatch):
    # Printed in one write, a page larger than the stream's buffer was cut short by a closed pipe (| head) with no
    # error at all, and the command ended with 0 as if it had printed everything.
    pieces = []
    monkeypatch.setattr(report.click, "echo", lambda text, nl=True: pieces.append(text + "\n" * nl))
    page = "<p>é</p>" * 3000
    report._deliver(page, None)
    assert "".join(pieces) == page + "\n"
    assert max(len(piece.encode()) for piece in pieces) < 8192


@pytest.mark.parametrize("option", ["-o", "--output"])
def test_output_dash_is_standard_output_as_in_other_tools(run_dir, tmp_path, monkeypatch, option):
    monkeypatch.chdir(tmp_path)  # a file named "-" would be written here
    printed = CliRunner().invoke(main, ["report", str(run_dir), "--format", "csv"])
    dashed = CliRunner().invoke(main, ["report", str(run_dir), "--format", "csv", option, "-"])
    assert dashed.exit_code == 0 and dashed.output == printed.output
    assert not (tmp_path / "-").exists()
    monkeypatch.setattr(report, "stdout_is_terminal", lambda: True)  # a page to a terminal is refused as without -o
    refused = CliRunner().invoke(main, ["report", str(run_dir), "--format", "html", option, "-"])
    assert refused.exit_code == 2 and refused.output.startswith("Error: --format html writes a whole page")


def test_html_dash_and_log_file_dash_are_standard_output(run_dir, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    page = CliRunner().invoke(main, ["watch", "--seed", "1", "--rules", "target_score=50", "--html", "-"])
    assert page.exit_code == 0 and page.output.startswith("<!DOCTYPE html>") and page.output.endswith("</html>\n")
    replayed = CliRunner().invoke(main, ["replay", str(run_dir), "0", "--html", "-"])
    assert replayed.exit_code == 0 and replayed.output.startswith("<!DOCTYPE html>"), replayed.output[-300:]
    handler = open_log_file(Path("-"))
    assert isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler)
    assert sorted(path.name for path in tmp_path.iterdir()) == []


def test_run_log_file_dash_logs_to_standard_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    made = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "3", "-s", "random", "--workers", "1", "--rules",
                                     "target_score=50", "--out", "run", "-q", "--log-file", "-"])
    assert made.exit_code == 0, made.output
    assert " DEBUG " in made.output or " INFO " in made.output, made.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["run"]
