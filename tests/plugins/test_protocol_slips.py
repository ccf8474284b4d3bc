"""A bot author's slips against docs/protocol.md are named for what they are: the failure line says what was wrong
and what is accepted, showing what the bot wrote as it wrote it (JSON), not a neighbouring complaint."""

from __future__ import annotations

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.errors import SeatFailure, StrategyError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.protocol import ProtocolError, parse_ready
from tests.helpers import BOTS

SLIPS = BOTS / "protocol_slips.py"


def _failure(slip: str) -> str:
    spec = f"cmd:python {SLIPS} {slip}"
    greedy = load_strategy("greedy")
    try:
        with pytest.raises(StrategyError) as caught:
            play_game([load_strategy(spec), greedy, greedy, greedy], seed=77, names=[spec, "greedy", "greedy",
                                                                                      "greedy"])
    finally:
        close_all()
    assert isinstance(caught.value.__cause__, SeatFailure) and caught.value.__cause__.reason == "malformed"
    return str(caught.value)


@pytest.mark.timeout(60)
def test_a_game_named_by_a_text_is_told_that_games_are_named_by_their_number():
    text = _failure("game-as-text")
    assert "names its game by \"0\": a game is named by the whole number its 'game' message gave" in text, text


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("slip", "shown"), [("game-as-false", "false"), ("game-as-float", "0.0")])
def test_a_game_named_by_a_value_equal_to_its_number_is_no_game(slip, shown):
    # Game 0's answer named by false or 0.0 was taken as game 0's (and true as game 1's): equal keys of a dict.
    text = _failure(slip)
    assert f"names its game by {shown}: a game is named by the whole number" in text, text


@pytest.mark.timeout(60)
def test_a_plan_after_a_draw_whose_cards_were_not_shown_is_told_so():
    text = _failure("then-after-unshown-draw")
    assert "'then' after a draw needs the draw's cards, and this request did not show them" in text, text
    assert "None" not in text


@pytest.mark.timeout(60)
def test_a_plan_that_is_no_list_is_shown_as_the_bot_wrote_it():
    text = _failure("then-not-a-list")
    assert """'then' is a list of items {"decision": D, "move": M}; got {"decision":"discard"}""" in text, text


@pytest.mark.parametrize(("ready", "said"), [
    ({"protocol": "2", "name": "x"}, """'protocol' must be the number 1 or 2; got "2\""""),
    ({"name": "x"}, "'protocol' must be the number 1 or 2; got no protocol field"),
    ({"protocol": 3, "name": "x"}, "the bot speaks protocol version 3; this arbiter speaks 1 or 2"),
    ({"protocol": 2}, "needs a 'name' without ':', '@' or spaces, such as 'my-bot'; got no name field"),
    ({"protocol": 2, "name": None}, "needs a 'name' without ':', '@' or spaces, such as 'my-bot'; got null"),
    ({"protocol": 2, "name": "x", "version": "1"}, """'version' must be a whole number; got "1\""""),
])
def test_a_ready_field_of_the_wrong_kind_is_shown_in_json(ready, said):
    with pytest.raises(ProtocolError) as caught:
        parse_ready({"type": "ready", **ready})
    assert said in str(caught.value) and "None" not in str(caught.value), str(caught.value)
