"""``scripts/strength.py``'s bookkeeping: parts of one measurement add up, and runs pair by deal."""

import json

import pytest

from tests.helpers import ROOT, script_module

strength = script_module("strength", "strength_script")


def _part(label: str, points: dict[int, float], first: int = 0) -> dict:
    return {"spec": label.partition("@")[0], "labels": [label, "expert@1"], "seed": 3, "games": len(points),
            "hands": 6 * len(points), "command": f"strength.py --first {first}", "timing": {},
            "floor_before": 5000.0, "floor_after": 5000.0,
            "points_by_game": {str(number): value for number, value in points.items()}}


def test_parts_add_up_to_one_measurement_that_keeps_every_games_points():
    whole = strength.combine([_part("pimc@5", {0: 1.0, 1: 0.0}), _part("pimc@5", {2: 1.0, 3: 1.0}, first=2)])
    assert (whole["games"], whole["points"], whole["win_rate"]) == (4, 3.0, 0.75)
    assert whole["points_by_game"] == {"0": 1.0, "1": 0.0, "2": 1.0, "3": 1.0}
    assert [part["games"] for part in whole["parts"]] == [2, 2]


def test_parts_that_share_a_game_or_differ_in_version_are_refused():
    with pytest.raises(SystemExit, match="share games"):
        strength.combine([_part("pimc@5", {0: 1.0, 1: 0.0}), _part("pimc@5", {1: 1.0})])
    with pytest.raises(SystemExit, match="one measurement"):
        strength.combine([_part("pimc@5", {0: 1.0}), _part("pimc@4", {2: 1.0})])


def test_a_combined_run_pairs_by_deal_with_another():
    better = strength.combine([_part("pimc@5", {0: 1.0, 1: 1.0}), _part("pimc@5", {2: 1.0, 3: 0.0}, first=2)])
    worse = _part("pimc@4", {0: 1.0, 1: 0.0, 2: 0.0, 3: 0.0})
    figures = strength.paired(better, worse)
    # Deal 0 (games 0 and 1): one point more of two; deal 1 (games 2 and 3): one more.
    assert figures["deals"] == 2
    assert figures["difference"] == pytest.approx(0.5)
    assert (figures["first"], figures["second"]) == ("pimc@5", "pimc@4")


def test_a_file_that_is_not_a_saved_run_is_refused_in_one_line(tmp_path):
    old = tmp_path / "old.json"
    old.write_text('{"spec": "pimc", "win_rate": 0.7}')
    with pytest.raises(SystemExit, match="lacks labels, seed, points_by_game"):
        strength.saved_run(old)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(SystemExit, match="cannot be read as JSON"):
        strength.saved_run(broken)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_part("pimc@5", {0: 1.0})))
    assert strength.saved_run(good)["labels"] == ["pimc@5", "expert@1"]


def test_the_floor_read_by_default_is_the_repositorys_own():
    """The default was ``../shared/bench/floor.py``, outside the repository: from a clone, every time "at floor
    5000" came out ``null`` without a word."""
    repository = ROOT
    assert strength.FLOOR_SCRIPT == repository / "scripts" / "floor.py" and strength.FLOOR_SCRIPT.exists()


@pytest.mark.timeout(30)
def test_games_are_played_under_the_rules_given_and_runs_under_other_rules_do_not_pair():
    from canasta_sim.core.rules import Rules

    short = Rules(target_score=200)
    game = strength.play_one("greedy", "random", 1, short, 0)
    assert game["hands"] == 1  # one hand of greedy passes 200; under the default rules this deal lasts 6 hands
    assert strength.play_one("greedy", "random", 1, Rules(), 0)["hands"] > 1
    saved = _part("pimc@5", {0: 1.0, 1: 0.0})
    with pytest.raises(SystemExit, match="different rules"):
        strength.paired({**saved, "rules": short.changed_words()}, saved)
    with pytest.raises(SystemExit, match="labels, seed and rules"):
        strength.combine([{**saved, "rules": ["target_score=200"]}, _part("pimc@5", {2: 1.0, 3: 1.0}, first=2)])


@pytest.mark.timeout(30)
def test_an_odd_number_of_games_is_refused_in_one_line(monkeypatch, capsys):
    """Its last deal would be played once and then left out, so the run played fewer games than asked."""
    monkeypatch.setattr("sys.argv", ["strength.py", "greedy", "--games", "3"])
    with pytest.raises(SystemExit) as stopped:
        strength.main()
    assert stopped.value.code == 2
    assert "--games must be even" in capsys.readouterr().err.splitlines()[-1]


@pytest.mark.timeout(30)
@pytest.mark.parametrize("arguments", [["nosuch"], ["greedy", "--against", "nosuch"]])
def test_an_unknown_strategy_is_refused_in_one_line_before_any_game(monkeypatch, capsys, arguments):
    """Loaded up front: a worker would otherwise fail with a traceback once the games had started."""
    monkeypatch.setattr("sys.argv", ["strength.py", *arguments, "--games", "2"])
    monkeypatch.setattr(strength, "play_games", lambda *args, **kwargs: pytest.fail("games were started"))
    monkeypatch.setattr(strength, "measure_floor", lambda script: None)
    with pytest.raises(SystemExit) as stopped:
        strength.main()
    assert stopped.value.code == 2
    assert "unknown strategy 'nosuch'" in capsys.readouterr().err.splitlines()[-1]


@pytest.mark.parametrize("spec", ["expert", f"{ROOT / 'examples' / 'my_bot.py'}:MyBot"],
                         ids=["built-in", "file"])
def test_a_timed_strategy_keeps_the_name_version_and_description_of_the_strategy_it_times(spec):
    loaded = strength.load_strategy(spec)
    timed = strength.timed(spec, [0, 0.0, 0.0]).cls
    assert (timed.name, timed.version, timed.description) == (loaded.cls.name, loaded.cls.version,
                                                               loaded.cls.description)
    assert timed.description
