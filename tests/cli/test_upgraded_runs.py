"""A run read again after an upgrade: what it was played with (the engine, each strategy's version and file) is
named wherever its games would be continued or shown again with something else, and its tables say who wrote them."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from canasta_sim import ENGINE_VERSION, __version__
from canasta_sim.cli import report_html
from canasta_sim.cli.continuing import changed_files
from canasta_sim.core.strategy import Strategy
from canasta_sim.plugins.loader import LoadedStrategy
from canasta_sim.runs.runner import settings_from_manifest
from tests.helpers import invoke, parts_stamps, run_stamp

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(120)

BOT = '''from canasta_sim.strategies.greedy import Greedy


class Mine(Greedy):
    name = "mine"
    version = 1
'''


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("upgraded") / "run"
    result = invoke("run", "--games", "2", "--seed", "3", "--workers", "1", "-q", "--out", str(path),
                    "-s", "greedy", "-s", "random", "--rules", "target_score=500", "--record-decisions", "0")
    assert result.exit_code == 0, result.output
    return path


def older(run_dir, tmp_path, edit) -> str:
    """A copy of the run whose ``run.json`` an older release wrote: ``edit`` changes its content."""
    copy = tmp_path / "old"
    shutil.copytree(run_dir, copy)
    manifest = json.loads((copy / "run.json").read_text())
    edit(manifest)
    (copy / "run.json").write_text(json.dumps(manifest))
    return str(copy)


def page_data(page: str) -> dict:
    """The record a replay page shows."""
    return json.loads(re.search(r'id="replay-data">(.*?)</script>', page, re.DOTALL).group(1))


def report_replays(report: str) -> list[dict]:
    """The records of the replays an HTML report holds."""
    encoded = re.findall(r'<script type="text/plain" id="replay-\d+">([A-Za-z0-9+/=]+)</script>', report)
    return [page_data(base64.b64decode(text).decode("utf-8")) for text in encoded]


def test_a_replay_page_of_another_engines_run_says_on_the_page_what_played_it_again(run_dir, tmp_path, capsys):
    # The warning went to the terminal alone: the page (and the report's replays) showed the game as the run's own,
    # "as the run recorded", with this engine's play and today's name@version in its header.
    old = older(run_dir, tmp_path, lambda manifest: manifest.update(engine_version="3"))
    page = tmp_path / "game.html"
    result = invoke("replay", old, "0", "--html", str(page))
    assert result.exit_code == 0, result.output
    said = f"the run used engine version 3, this is {ENGINE_VERSION}"
    assert said in result.output
    assert page_data(page.read_text())["changes"] == [said]
    # The report's replays, without its charts (which cost seconds and have nothing to say of it).
    manifest = json.loads((tmp_path / "old" / "run.json").read_text())
    games = pd.read_parquet(tmp_path / "old" / "games")
    capsys.readouterr()
    settings = settings_from_manifest(manifest)
    chosen = [(0, "the first"), (1, "the second")]
    replays = report_replays("".join(report_html._replayed_games(tmp_path / "old", manifest, settings,
                                                                 games.set_index("game_id"), chosen)))
    assert len(replays) == 2 and all(replay["changes"] == [said] for replay in replays)
    # Said once for the report, where each replay said it again.
    assert capsys.readouterr().err == f"Warning: {said}; the report's replays may differ.\n"
    same = tmp_path / "same.html"  # the run's own engine and strategies: nothing to say
    assert invoke("replay", str(run_dir), "0", "--html", str(same)).exit_code == 0
    assert page_data(same.read_text())["changes"] == []


def test_a_replay_page_names_a_strategy_whose_version_changed_since_the_run(run_dir, tmp_path):
    def greedy_1(manifest):
        manifest["strategies"][0].update(version=1, label="greedy@1")

    page = tmp_path / "game.html"
    result = invoke("replay", older(run_dir, tmp_path, greedy_1), "0", "--html", str(page))
    assert result.exit_code == 0, result.output
    assert page_data(page.read_text())["changes"] == ["the run used greedy@1 but 'greedy' is now greedy@2"]


def test_a_run_json_with_no_engine_version_is_said_to_record_none(run_dir, tmp_path):
    # The replay took a missing engine version for this one and warned of nothing; the report read "engine None" and
    # the resume "made with engine version None".
    old = older(run_dir, tmp_path, lambda manifest: manifest.pop("engine_version"))
    replay = invoke("replay", old, "0")
    assert replay.exit_code == 0, replay.output
    assert "Warning: the run recorded no engine version; the replay may differ." in replay.output
    report = invoke("report", old)
    assert report.exit_code == 0 and "engine not recorded" in report.output.splitlines()[1], report.output
    resume = invoke("run", "--resume", old)
    assert resume.exit_code == 2
    assert f"its run.json records no engine version, this is version {ENGINE_VERSION}" in resume.output
    assert "None" not in resume.output


def test_a_strategy_files_code_changed_under_the_same_version_is_named_by_resume_and_replay(tmp_path, monkeypatch):
    # A run of one's own strategy file, its play changed afterwards and its version not raised: the resume mixed the
    # two plays in one run without a word, and the replay's failure named no file.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(BOT)
    out = tmp_path / "run"
    made = invoke("run", "--games", "2", "--chunk-size", "1", "--seed", "3", "--workers", "1", "-q", "--out",
                  str(out), "-s", "mine.py:Mine", "-s", "random", "--rules", "target_score=500")
    assert made.exit_code == 0, made.output
    recorded = json.loads((out / "run.json").read_text())["strategies"][0]["file_code"]
    assert recorded.startswith("sha256:")

    def interrupted():
        for table in ("games", "hands"):
            (out / table / "part-000001.parquet").unlink()

    interrupted()
    (tmp_path / "mine.py").write_text("# a comment and blank lines change no code\n\n" + BOT + "\n\n")
    resumed = invoke("run", "--resume", str(out), "-q")
    assert resumed.exit_code == 0 and "Warning" not in resumed.output, resumed.output
    assert "Warning" not in invoke("replay", str(out), "0").output
    interrupted()
    plays_random = "from canasta_sim.strategies.random_play import RandomPlay as Greedy"
    (tmp_path / "mine.py").write_text(BOT.replace("from canasta_sim.strategies.greedy import Greedy", plays_random))
    said = f"the code of 'mine.py:Mine' ({tmp_path / 'mine.py'}) differs from the run's, yet it is still mine@1"
    resumed = invoke("run", "--resume", str(out), "-q")
    assert resumed.exit_code == 0, resumed.output
    assert f"Warning: {out}: {said}; if its play changed, the games played now are not those of the run's first " \
           "games: raise its version and start a new run" in resumed.output
    replay = invoke("replay", str(out), "0")
    assert f"Warning: {said}; the replay may differ." in replay.output
    # Said again whenever the run is read, long after the warning scrolled away: run.json notes the session that began
    # with other code (the third; the second's comment changed none), once however often it is resumed so.
    interrupted()
    assert invoke("run", "--resume", str(out), "-q").exit_code == 0
    entry = json.loads((out / "run.json").read_text())["strategies"][0]
    assert entry["file_code"] == recorded
    assert [change["session"] for change in entry["file_code_changes"]] == [3]
    report = invoke("report", str(out), "--format", "json")
    assert json.loads(report.stdout)["run"]["code_changes"] == [{"spec": "mine.py:Mine", "label": "mine@1",
                                                                  "sessions": [3]}]
    assert ("code changed: mine@1 (mine.py:Mine) began session 3 with other code, its version the same; if its play "
            "changed, the run's games are of more than one play") in invoke("report", str(out)).output


def test_a_runs_parquet_parts_name_the_engine_the_canasta_sim_the_seed_and_the_rules_of_their_run(run_dir):
    # Read alone (a part sent on, a dataset read by pandas or pyarrow), a table said nothing of what played its games,
    # then nothing of which run and rules they were of.
    stamps = parts_stamps(run_dir)
    # Two chunks of games, hands and decisions.
    assert len(stamps) == 6 and all(stamp == run_stamp(run_dir) for stamp in stamps), stamps
    assert stamps[0]["seed"] == 3 and stamps[0]["rules"]["target_score"] == 500


def test_the_games_an_older_engines_run_lacks_are_not_said_to_be_played_by_a_resume_that_refuses_it(run_dir, tmp_path):
    # The report and the replay of a game not written said "canasta-sim run --resume DIR plays it", which refuses
    # a run of another engine.
    old = older(run_dir, tmp_path, lambda manifest: manifest.update(engine_version="3"))
    (tmp_path / "old" / "hands" / "part-000000.parquet").unlink()
    made = f"the run was made with engine version 3, this is version {ENGINE_VERSION}"
    report = invoke("report", old)
    assert report.exit_code == 0, report.output
    assert report.output.splitlines()[2] == (f"parts missing: hands of chunk 0; only a canasta-sim of engine 3 plays "
                                             f"their chunks again ({made})")
    (tmp_path / "old" / "games" / "part-000000.parquet").unlink()
    replay = invoke("replay", old, "0")
    assert replay.exit_code == 1
    assert replay.output.strip() == (f"Error: game 0 of the run in {old} is not recorded: its chunk 0 has not been "
                                     f"written; only a canasta-sim of engine 3 plays it ({made})")


def test_a_killed_older_engines_run_is_not_said_to_go_on_with_a_resume_that_refuses_it(run_dir, tmp_path):
    # The report's header of a run whose run.json says "running" with no process writing it said "canasta-sim run
    # --resume DIR goes on with it", which refuses a run of another engine.
    old = older(run_dir, tmp_path, lambda manifest: manifest.update(engine_version="3", status="running"))
    report = invoke("report", old)
    assert report.exit_code == 0, report.output
    assert ("yet no process is writing it: it was killed or its machine stopped; only a canasta-sim of engine 3 goes "
            f"on with it (the run was made with engine version 3, this is version {ENGINE_VERSION})"
            in report.output.splitlines()[1]), report.output


def test_a_protocol_bots_script_changed_under_the_same_version_is_named_as_a_strategy_files_code_is(tmp_path,
                                                                                                    monkeypatch):
    # The script a cmd: bot's command names is its code: changed, with the version its ready gives kept, the resume
    # mixed two plays without a word. Its interpreter is not (an upgrade of Python changes no bot). The bot is not
    # started: what run.json records and what a resume compares are read from its spec and its files.
    monkeypatch.chdir(tmp_path)
    source = (ROOT / "examples" / "protocol" / "bot.py").read_text()
    (tmp_path / "bot.py").write_text(source)
    (tmp_path / "book.txt").write_text("opening book")
    bot = LoadedStrategy("cmd:python bot.py --book book.txt --fast:depth=2", Strategy)
    assert bot.code_files == (str(tmp_path / "bot.py"), str(tmp_path / "book.txt"))
    manifest = {"strategies": [{"spec": bot.spec, "file_code": bot.file_code}]}
    (tmp_path / "bot.py").write_text("# a comment changes no code\n" + source)
    assert changed_files(manifest, [bot]) == []
    (tmp_path / "book.txt").write_text("another opening book")
    assert changed_files(manifest, [bot]) == [f"the code of {bot.spec!r} ({tmp_path / 'bot.py'}, "
                                              f"{tmp_path / 'book.txt'}) differs from the run's, yet it is still "
                                              f"{Strategy.label()}"]
    assert LoadedStrategy("cmd:python -c pass", Strategy).file_code is None  # no file named: nothing to compare


def test_a_run_json_lacking_its_sessions_or_labels_is_continued_or_refused_in_one_line(run_dir, tmp_path):
    # A run.json without sessions ended the resume in a KeyError's traceback; strategy entries without a label
    # (name and version alone) were refused as "made with None".
    def unlabelled(manifest):
        manifest.pop("sessions")
        for entry in manifest["strategies"]:
            entry.pop("label")

    old = older(run_dir, tmp_path, unlabelled)
    (tmp_path / "old" / "games" / "part-000000.parquet").unlink()
    resumed = invoke("run", "--resume", old, "-q")
    assert resumed.exit_code == 0, resumed.output
    assert len(json.loads((tmp_path / "old" / "run.json").read_text())["sessions"]) == 1
    assert invoke("report", old).output.startswith(f"run {old}: greedy@2 vs random@2\n")

    def versionless(manifest):
        for entry in manifest["strategies"]:
            entry.pop("version")

    shutil.rmtree(tmp_path / "old")
    old = older(run_dir, tmp_path, lambda manifest: (unlabelled(manifest), versionless(manifest)))
    resumed = invoke("run", "--resume", old)
    assert resumed.exit_code == 2 and "Traceback" not in resumed.output
    assert resumed.output == (f"Error: {old}: its run.json records no version of 'greedy', now greedy@2; its games "
                              "cannot be continued, start a new run\n")
    replay = invoke("replay", old, "0")
    assert replay.exit_code == 0 and "Warning: the run recorded no version of 'greedy', now greedy@2" in replay.output


def test_each_session_names_the_canasta_sim_that_played_it(run_dir, tmp_path):
    # A resume after an upgrade that changed no game is allowed: run.json's tool named the first session's
    # canasta-sim alone, and nothing which played the games since.
    old = older(run_dir, tmp_path, lambda manifest: (manifest.update(tool="canasta-sim 0.0.9"),
                                                     manifest["sessions"][0].pop("tool", None)))
    (tmp_path / "old" / "games" / "part-000000.parquet").unlink()
    assert invoke("run", "--resume", old, "-q").exit_code == 0
    manifest = json.loads((tmp_path / "old" / "run.json").read_text())
    assert manifest["tool"] == "canasta-sim 0.0.9"  # the run's first, as it was
    assert manifest["sessions"][-1]["tool"] == f"canasta-sim {__version__}"
    assert json.loads((run_dir / "run.json").read_text())["sessions"][0]["tool"] == f"canasta-sim {__version__}"
