"""The pimc measurement scripts measure the settings docs/search.md says they do, whatever pimc's defaults are now."""

import pytest

from canasta_sim.core.engine import derive_seed
from canasta_sim.core.strategy import SeatRandom
from tests.helpers import script_module


def _script(name: str):
    return script_module(name, f"{name}_script")


def test_pimc_strength_plays_pimc3s_settings_at_each_samples_count():
    strength = _script("pimc_strength")
    player = strength._factory(16, "expert")(SeatRandom(derive_seed(1, "x"), seat=0))
    assert (player.samples, player.melds, player.horizon, player.screen, player.width) == (16, 0, 0, 8, 3)


@pytest.mark.timeout(120)
def test_pimc_decisions_records_every_world_and_expert_s_melds_against_holding_back():
    decisions = _script("pimc_decisions")
    game = decisions.record_game(101, 0, 6, 2, True)
    kinds = {record["kind"] for record in game["records"]}
    assert "meld" in kinds  # recorded, where pimc's own meld search would have taken the decision
    # every candidate valued in all the worlds asked for: no screening
    valued = [record for record in game["records"] if record["kind"] != "meld_failed"]
    assert {len(row) for record in valued for row in record["values"]} == {6}


@pytest.mark.timeout(60)
def test_pimc_strength_plays_under_the_rules_given():
    from canasta_sim.core.rules import Rules

    strength = _script("pimc_strength")
    short = strength.play_one(2, "expert", 1, Rules(target_score=200), 0)
    assert short["hands"] == 1  # one hand passes 200; under the default rules the deal lasts several
    assert strength.out_folder(Rules()) == strength.OUT
    assert strength.out_folder(Rules(target_score=200)) == strength.OUT / "target_score=200"


@pytest.mark.timeout(30)
@pytest.mark.parametrize(("arguments", "message"), [
    (["--rules", "target_score"], "is not KEY=VALUE"),
    (["--rules", "no_such_rule=1"], "unknown rule key 'no_such_rule'"),
    (["--samples", "0"], "samples=0 must be at least 1"),
    (["--samples", "4", "--policy", "nobody"], "policy='nobody' is not accepted"),
    (["--games", "3"], "use an even number"),
])
def test_pimc_strength_refuses_bad_input_in_one_line(monkeypatch, capsys, arguments, message):
    strength = _script("pimc_strength")
    monkeypatch.setattr("sys.argv", ["pimc_strength.py", *arguments])
    with pytest.raises(SystemExit) as stopped:
        strength.main()
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err.splitlines()[-1]
