"""An isolated strategy's hooks (on_hand_start, event_follower, on_event, on_hand_end) answer no request: a failure
in one is charged at the seat's next request, and its line must still say which hook failed and why, with the reason
the engine charges in-process."""

from __future__ import annotations

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.errors import StrategyError
from canasta_sim.plugins.loader import load_strategy
from tests.helpers import BOTS

MISBEHAVING = BOTS / "protocol_misbehaving.py"


def _fail(spec: str) -> StrategyError:
    greedy = load_strategy("greedy")
    with pytest.raises(StrategyError) as caught:
        play_game([load_strategy(spec), greedy, greedy, greedy], seed=77, names=[spec, "greedy", "greedy", "greedy"])
    return caught.value


@pytest.mark.timeout(60)
def test_an_event_follower_that_is_no_card_memory_is_malformed_as_in_process():
    # It was charged as an exception, "raised TypeError: returned an event follower ...".
    isolated, in_process = _fail(f"isolated:{MISBEHAVING}:FollowsWithAList"), _fail(f"{MISBEHAVING}:FollowsWithAList")
    assert isolated.reason == in_process.reason == "malformed", isolated
    assert "returned an event follower that is not a CardMemory or None: [1, 2]" in str(isolated)
    assert "TypeError" not in str(isolated)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("name", "hook", "words"), [
    ("RaisesAtHandEnd", "on_hand_end", "raised RuntimeError: boom at the hand's end"),
    ("RaisesKeyboardInterrupt", "on_event", "raised KeyboardInterrupt"),
])
def test_a_hook_s_failure_names_the_hook_at_the_request_that_reports_it(name, hook, words):
    # It read "decision acquire: the bot reported an error: raised RuntimeError: ...", as if choose_acquire had raised.
    isolated = _fail(f"isolated:{MISBEHAVING}:{name}")
    assert isolated.reason == "exception" and f"{words} (in {hook})" in str(isolated), isolated
