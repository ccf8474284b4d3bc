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
REMEMBERS = f"{BOTS / 'remembers_the_game.py'}:RemembersTheGame"


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


@pytest.mark.timeout(60)
def test_a_bot_remembering_its_game_lives_one_game_hears_every_hand_and_plays_alike_isolated_or_not():
    """docs/strategies.md (what a strategy may remember): one instance per seat and game, a hand's start and its end
    for every hand, the last included, so a memory kept on self gives the same game in-process and isolated."""
    built = []
    remembers = load_strategy(REMEMBERS)

    def kept(rng, **parameters):
        built.append(remembers(rng, **parameters))
        return built[-1]

    greedy = load_strategy("greedy")
    games = {}
    for players in ([kept, greedy, kept, greedy], [load_strategy(f"isolated:{REMEMBERS}"), greedy] * 2):
        games[len(games)] = [play_game(players, seed=seed, names=[REMEMBERS, "greedy"] * 2) for seed in (5, 6)]
    in_process, isolated = games[0], games[1]
    assert len(built) == 4  # two seats, two games
    for result, seats in zip(in_process, (built[:2], built[2:]), strict=True):
        assert all(seat.hands_ended == list(range(1, len(result.hands) + 1)) for seat in seats)
    assert in_process == isolated
    assert all(sum(seat.discarded) for seat in built)  # each heard the discards of its game
