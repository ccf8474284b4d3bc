"""``canasta-sim play --save DIR``: a game played in the terminal saved as a run of one game that ``replay`` plays
again to the same end."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.terminal.played import decision_token, played_spec, played_strategy_class
from tests.helpers import parts_stamps, run_stamp
from tests.terminal.test_play import ANY_ANSWER, BOT, SHORT


def _play(arguments, text):
    return CliRunner().invoke(main, arguments, input=text)


def _game_over(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("Game over after"))


@pytest.mark.timeout(60)
def test_a_game_saved_with_play_save_replays_to_the_same_end(tmp_path):
    saved = tmp_path / "my game"
    played = _play(["play", "--seed", "7", "--partner", "greedy", "--opponents", BOT, *SHORT, "--save", str(saved)],
                   ANY_ANSWER * 400)
    assert played.exit_code == 0, played.output
    assert f"Saved the game in {saved}: canasta-sim replay '{saved}' 0 plays it again" in played.output
    replayed = CliRunner().invoke(main, ["replay", str(saved), "0"])
    assert replayed.exit_code == 0, replayed.output
    assert "The replay ends at the scores the run recorded" in replayed.output
    assert _game_over(replayed.output) == _game_over(played.output)
    # The partner's own strategy in North's seat, and the decisions left out of the header line.
    assert "South (seat 0) you (played back), North (seat 2) greedy@" in replayed.output
    assert re.search(r"side A played:greedy:moves=\.\.\. \(\d+ decisions\), side B", replayed.output)
    page = CliRunner().invoke(main, ["replay", str(saved), "0", "--html", str(tmp_path / "game.html")])
    assert page.exit_code == 0 and "as the run recorded" in page.output, page.output
    summary = CliRunner().invoke(main, ["report", str(saved)])  # a table, not a screen of recorded decisions
    # Named as its header names it, by name and version, never by its spec of recorded decisions.
    assert summary.exit_code == 0 and "\nyou+greedy@2 " in summary.output
    assert "moves=" not in summary.output
    # Its parts, read alone, name the deal's seed and the rules, as a run's do (written before its run.json).
    assert parts_stamps(saved) == [run_stamp(saved)] * 2 and run_stamp(saved)["seed"] == 7


def test_save_refuses_a_folder_in_use_before_the_game_and_an_abandoned_game_is_not_saved(tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("mine")
    refused = _play(["play", "--seed", "4", "--save", str(tmp_path / "used")], "")
    assert refused.exit_code == 2 and "--save" in refused.output and "not empty" in refused.output
    assert "Hand 1" not in refused.output
    abandoned = _play(["play", "--seed", "4", "--partner", BOT, "--opponents", BOT, *SHORT,
                       "--save", str(tmp_path / "new")], "quit\n")
    assert abandoned.exit_code == 0 and "Only a finished game is saved." in abandoned.output
    assert not (tmp_path / "new").exists()


def test_recorded_decisions_read_back_as_the_moves_made():
    from canasta_sim.core.moves import parse_move

    moves = ["draw", "take 7 7", "meld K K K; 8 8 2", "meld 7:JK", "discard 10", "stop", "take ; A A 2"]
    tokens = [decision_token(parse_move(text)) for text in moves] + [decision_token(d) for d in (True, False, None)]
    assert not any(":" in token or "," in token for token in tokens)  # a spec's separators
    played = played_strategy_class("expert%3Aaggression%3D0.7", (("moves", "/".join(tokens)),))
    assert [str(d) if d not in (True, False, None) else d for d in played.decisions] == [*moves, True, False, None]
    saved = played_spec("/bots/x.py:Mine:depth=2", tokens)
    assert saved.startswith("played:%2Fbots%2Fx.py%3AMine%3Adepth%3D2:moves=d/")


def test_a_partner_from_a_file_is_saved_by_its_absolute_path_so_the_game_replays_from_anywhere(tmp_path, monkeypatch):
    # Saved as written, 'bots/x.py' was looked for where the replay ran: "strategy file ... does not exist".
    monkeypatch.chdir(tmp_path)
    spec = played_spec("isolated:bots/x.py:Mine", ["d"])
    assert spec == f"played:{quote(f'isolated:{tmp_path}/bots/x.py:Mine', safe='')}:moves=d"
