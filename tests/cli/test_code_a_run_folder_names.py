"""A run's folder from someone else (a colleague's results, a tournament's download) names strategies: files, modules,
``cmd:`` commands.  ``report`` runs none of them, its HTML page included; ``replay`` and ``--resume``, which play them
by design, say first what they will run (docs/security.md).  Pages show what the folder holds escaped."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.plugins.outside_code import code_run_by, outside_code_note

MARKING_BOT = """
from pathlib import Path

from canasta_sim.strategies.greedy import Greedy



class Marking(Greedy):
    name = "marking"
    version = 1

    def __init__(self, rng, **parameters):
        # Each time it is built, not when imported: a file imported once stays imported in the tests' process.
        super().__init__(rng, **parameters)
        Path(__file__).with_name("ran").write_text("the folder's code ran")
"""


@pytest.fixture(scope="module")
def marking_run(tmp_path_factory) -> Path:
    """A finished run of a file strategy that leaves a file ``ran`` beside itself whenever it is built, and that
    file taken away: the folder as a user downloads it, whose code has not run on their machine."""
    folder = tmp_path_factory.mktemp("downloaded")
    (folder / "bot.py").write_text(MARKING_BOT)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        made = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "3", "-s", "bot.py:Marking", "-s", "random",
                                         "--rules", "target_score=1000", "--workers", "1", "--out", "run", "-q"])
    assert made.exit_code == 0, made.output
    (folder / "ran").unlink()
    return folder / "run"


@pytest.mark.timeout(60)
def test_an_html_report_of_a_run_folder_runs_none_of_its_strategies_code(marking_run, tmp_path):
    # report --format html replayed the games worth seeing, importing the run's strategy files as it did: a report of
    # a downloaded folder ran the code the folder named.
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(marking_run), "--format", "html", "-o", str(page)])
    assert result.exit_code == 0, result.output
    assert not (marking_run.parent / "ran").exists()
    text = page.read_text(encoding="utf-8")
    assert "not replayed here, as it would run the file" in text and "<iframe" not in text
    assert re.search(r"<code>canasta-sim replay run (\d+) --html game\1\.html</code> replays it, naming what it runs "
                     "first", text)


@pytest.mark.timeout(60)
def test_an_html_report_replays_them_when_asked_to_run_their_code(marking_run, tmp_path):
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(marking_run), "--format", "html", "-o", str(page),
                                       "--run-strategy-code"])
    assert result.exit_code == 0, result.output
    assert (marking_run.parent / "ran").exists() and "<iframe" in page.read_text(encoding="utf-8")
    (marking_run.parent / "ran").unlink()


@pytest.mark.timeout(60)
def test_replay_names_the_file_it_will_import_before_the_game(marking_run):
    # replay imported the file the run named with no word of it.
    result = CliRunner().invoke(main, ["replay", str(marking_run), "0"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    file = str(marking_run.parent / "bot.py")
    assert lines[0] == (f"note: replaying game 0 runs code the run's folder names, as your user, not canasta-sim's "
                        f"own: the file {file!r} (bot.py:Marking) (canasta-sim report shows a folder's strategies "
                        "without running them; canasta-sim docs security)")
    assert lines[1].startswith("Replay of game 0")
    (marking_run.parent / "ran").unlink()


@pytest.mark.timeout(60)
def test_resuming_a_run_names_the_file_it_will_import(marking_run, tmp_path):
    grown = tmp_path / "grown"
    shutil.copytree(marking_run, grown)
    result = CliRunner().invoke(main, ["run", "--resume", str(grown), "--games", "4", "--workers", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("note: resuming the run runs code the run's folder names, as your user, not "
                                    f"canasta-sim's own: the file {str(marking_run.parent / 'bot.py')!r}")


def test_a_run_of_built_ins_is_replayed_with_no_note(tmp_path):
    run = tmp_path / "run"
    made = CliRunner().invoke(main, ["run", "--games", "1", "--seed", "1", "-s", "greedy", "-s", "random",
                                     "--rules", "target_score=1000", "--workers", "1", "--out", str(run), "-q"])
    assert made.exit_code == 0, made.output
    replayed = CliRunner().invoke(main, ["replay", str(run), "0"])
    assert replayed.exit_code == 0 and replayed.output.startswith("Replay of game 0"), replayed.output


@pytest.mark.parametrize(("spec", "named"), [
    ("expert", None),
    ("greedy:freeze=0.5", None),
    ("isolated:expert", None),
    ("canasta_sim.strategies.expert:Expert", None),
    ("openspiel:mcts", None),
    ("ismcts", None),  # an installed plugin: code the user chose to have
    ("cmd:node bot.js:depth=2", "the command 'node bot.js' in START"),
    ("bots/mine.py:Mine", "the file 'START/bots/mine.py'"),
    ("isolated:START/elsewhere/mine.py:Mine", "the file 'START/elsewhere/mine.py'"),
    ("policy:agent.py:act", "the file 'START/agent.py'"),
    ("openspiel:agent.py:make:sees=all", "the file 'START/agent.py'"),
    ("openspiel:agents.spiel:make", "the module agents.spiel"),
    ("policy:agents.trained:act", "the module agents.trained"),
    ("their_package.bots:Bot", "the module their_package.bots"),
    ("isolated:helper:Bot", "the module helper"),  # its bot server (python -P) never imports from where it starts
    ("isolated:helpers.bots:Bot", "the module helpers.bots"),
    ("missing.py:Bot", None),  # nothing to import: its load fails with its own line
    ("played:expert:moves=d/k", None),
    ("played:cmd%3Anode%20bot.js:moves=d/k", "the command 'node bot.js' in START"),
])
def test_what_a_spec_runs_that_is_not_canasta_sims_own(spec, named, tmp_path):
    for file in ("bots/mine.py", "elsewhere/mine.py", "agent.py", "helper.py", "helpers/__init__.py"):
        (tmp_path / file).parent.mkdir(exist_ok=True)
        (tmp_path / file).write_text("")
    start = str(tmp_path)
    assert code_run_by(spec.replace("START", start), start=start) == (named and named.replace("START", start))


def test_the_note_names_each_code_once_with_its_spec_and_says_nothing_for_built_ins():
    assert outside_code_note(["expert", "random"], {}, "resuming the run") is None
    note = outside_code_note(["cmd:sh bot.sh", "expert", "cmd:sh bot.sh"], {}, "resuming the run", "/start")
    assert note is not None and note.count("the command 'sh bot.sh' in /start (cmd:sh bot.sh)") == 1


def test_a_recorded_file_is_the_one_named_while_it_is_there(tmp_path):
    recorded = tmp_path / "kept.py"
    recorded.write_text("")
    (tmp_path / "start").mkdir()
    (tmp_path / "start" / "mine.py").write_text("")
    start = str(tmp_path / "start")
    assert code_run_by("mine.py:Mine", str(recorded), start) == f"the file {str(recorded)!r}"
    assert code_run_by("mine.py:Mine", str(tmp_path / "gone.py"), start) == f"the file '{start}/mine.py'"


MARKUP = "../../<script>alert(1)</script>"
"""A name holding markup and a path up and out of the run's folder."""


@pytest.fixture(scope="module")
def crafted_run(tmp_path_factory) -> Path:
    """A run whose run.json someone edited: every strategy's name, class and parameters, and its command, are
    :data:`MARKUP`."""
    run = tmp_path_factory.mktemp("crafted") / "run"
    made = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "1", "-s", "greedy", "-s", "random", "--rules",
                                     "target_score=1000", "--workers", "1", "--out", str(run), "-q"])
    assert made.exit_code == 0, made.output
    manifest_path = run / "run.json"
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["strategies"]:
        entry.update(name=MARKUP, parameters={MARKUP: MARKUP}, **{"class": MARKUP})
    manifest["command"] = MARKUP
    manifest_path.write_text(json.dumps(manifest))
    return run


@pytest.mark.timeout(60)
def test_markup_in_a_run_folders_names_is_shown_as_text_on_the_report_page(crafted_run, tmp_path):
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(crafted_run), "--format", "html", "-o", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    assert "../../&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert text.count("<script") == text.count('<script type="text/plain"') + 1  # the page's own script alone


@pytest.mark.timeout(60)
def test_a_path_in_a_run_folders_names_names_no_file_plot_writes(crafted_run):
    # Every chart is in the run's plots/ by its fixed name, whatever the run.json names its strategies.
    above = set(crafted_run.parent.parent.iterdir())  # where ../../ from the run's folder leads
    result = CliRunner().invoke(main, ["plot", str(crafted_run)])
    assert result.exit_code == 0, result.output
    assert set(crafted_run.parent.parent.iterdir()) == above
    written = {path.relative_to(crafted_run).as_posix() for path in crafted_run.rglob("*")} - {"run.json"}
    assert {name for name in written if not name.startswith(("games/", "hands/"))} >= {"plots", "plots/win_rates.png"}
    assert all(name.startswith(("games", "hands", "plots/")) or name == "plots" for name in written), written
    assert list(crafted_run.parent.iterdir()) == [crafted_run]


def test_a_module_found_where_the_strategies_start_is_named_with_its_file_where_this_process_looks_there(
        tmp_path, monkeypatch):
    # A resume moves into the run's recorded directory; a module spec was named as "the module helper" while the
    # helper.py lying there was what ran.  This process looks there only with the working directory on its path.
    (tmp_path / "helper.py").write_text("")
    monkeypatch.setattr("sys.path", [entry for entry in sys.path if entry not in ("", ".")])
    assert code_run_by("helper:Bot", start=str(tmp_path)) == "the module helper"
    monkeypatch.setattr("sys.path", ["", *sys.path])  # a notebook's kernel
    assert code_run_by("helper:Bot", start=str(tmp_path)) == f"the module helper from {str(tmp_path / 'helper.py')!r}"


HELPER_MODULE = """
from canasta_sim.strategies.greedy import Greedy


class Helper(Greedy):
    name = "helper"
    version = 1
"""


@pytest.mark.timeout(60)
def test_resuming_a_run_from_elsewhere_names_the_module_file_a_notebooks_process_imports_in_the_recorded_folder(
        tmp_path, monkeypatch):
    started = tmp_path / "started"
    started.mkdir()
    (started / "bot.py").write_text(MARKING_BOT)
    (started / "helper.py").write_text(HELPER_MODULE)
    monkeypatch.setattr("sys.path", ["", *sys.path])  # a notebook's kernel: the working directory on its path
    monkeypatch.chdir(started)
    made = CliRunner().invoke(main, ["run", "--games", "2", "--seed", "3", "-s", "bot.py:Marking", "-s",
                                     "helper:Helper", "--rules", "target_score=1000", "--workers", "1",
                                     "--out", "run", "-q"])
    assert made.exit_code == 0, made.output
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", "--resume", str(started / "run"), "--games", "3", "--workers", "1",
                                       "-q"])
    assert result.exit_code == 0, result.output  # the user's own run, resumed from elsewhere, still plays
    assert result.output.splitlines()[0].startswith(
        "note: resuming the run runs code the run's folder names, as your user, not canasta-sim's own: the file "
        f"{str(started / 'bot.py')!r} (bot.py:Marking); the module helper from {str(started / 'helper.py')!r} "
        "(helper:Helper) (")
