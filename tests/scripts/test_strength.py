"""``scripts/strength.py``'s bookkeeping: parts of one measurement add up, and runs pair by deal."""

import importlib.util
import json
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "strength.py"
_SPEC = importlib.util.spec_from_file_location("strength_script", _PATH)
strength = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(strength)


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
