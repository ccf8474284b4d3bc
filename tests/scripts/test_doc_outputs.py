"""``scripts/doc_outputs.py``: the outputs the docs show against what their commands print."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers import ROOT, script_module


def _script():
    return script_module("doc_outputs")


def test_every_checked_page_still_shows_its_command_and_its_output_block():
    # The cheap half of the check, run with every suite: a page edited so that the script no longer finds its block
    # or its command fails here, not only when someone reruns the script.
    module = _script()
    for check in module.CHECKS:
        for page in check.pages:
            assert check.command in (ROOT / page).read_text(encoding="utf-8"), (check.name, page)
            if check.first_line is None:
                assert module.row_figures(page, check.command), (check.name, page)
            else:
                assert module.block_lines(page, check.first_line), (check.name, page)


def test_a_table_row_gives_the_figures_after_its_command():
    figures = _script().row_figures("README.md", "canasta-sim run --games 2000 -s expert --seed 1")
    assert figures == ["48.7%", "46.5%", "50.9%", "6.75"]


def test_the_lines_of_a_block_must_all_be_printed_in_their_order():
    first_missing = _script().first_missing
    assert first_missing(["a", "c"], ["a", "b", "c"]) is None
    assert first_missing(["c", "a"], ["a", "b", "c"]) == "a"
    assert first_missing(["a", "d"], ["a", "b", "c"]) == "d"
    assert first_missing(["a", "a"], ["a", "b"]) == "a"


@pytest.mark.timeout(300)
def test_a_figure_changed_on_the_page_is_found_and_the_page_as_it_is_passes(tmp_path, monkeypatch, capsys):
    module = _script()
    assert module.main(["--only", "round-robin"]) == 0
    assert "round-robin: docs/matchmaking.md shows what" in capsys.readouterr().out
    (tmp_path / "docs").mkdir()
    page = (ROOT / "docs" / "matchmaking.md").read_text(encoding="utf-8")
    shown = "   1  expert@1  +302.4  [+240.6, +364.2]    200  88.0%"
    assert shown in page
    (tmp_path / "docs" / "matchmaking.md").write_text(page.replace(shown, shown.replace("+302.4", "+302.5")))
    monkeypatch.setattr(module, "ROOT", tmp_path)
    assert module.main(["--only", "round-robin"]) == 1
    said = capsys.readouterr().out
    assert "shows a line" in said and shown.replace("+302.4", "+302.5") in said and shown in said


def test_a_page_that_no_longer_shows_the_command_is_named(tmp_path, monkeypatch, capsys):
    module = _script()
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / "docs" / "protocol.md", tmp_path / "docs" / "protocol.md")
    page = (tmp_path / "docs" / "protocol.md").read_text(encoding="utf-8")
    (tmp_path / "docs" / "protocol.md").write_text(page.replace("examples/protocol/bot.py", "examples/protocol/b.py"))
    monkeypatch.setattr(module, "ROOT", tmp_path)
    assert module.main(["--only", "ready"]) == 1
    assert "docs/protocol.md no longer shows" in capsys.readouterr().out
