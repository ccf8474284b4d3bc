"""A strategy's returned value is strategy code too: its repr, its fields, its ``__class__``, its iteration and its
class's metaclass may raise anything (SystemExit, KeyboardInterrupt, GeneratorExit), and the engine, the
environments' driver and the bot server charge that to the seat asked, never letting it out."""

from __future__ import annotations

import gc

import pytest

from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import MeldGroup
from canasta_sim.core.rules import Rules
from canasta_sim.env.driver import GameDriver, shown
from canasta_sim.errors import StrategyError, shown_value
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.strategies import Greedy
from tests.bots import hostile_returns as hostile

SEED = 4242


@pytest.fixture(autouse=True)
def _collected():
    """The hostile values a test leaves (in the failures' tracebacks' cycles) are collected before the next test: a
    strategy of another test that searches every object of the process would meet them."""
    yield
    gc.collect()
ASKING = Rules(ask_partner="optional")

CASES = [
    (hostile.DiscardsItsOwnExitingRecord, Rules(), "discard", "illegal", "_ExitingDiscard"),
    (hostile.DiscardsNoRecord, Rules(), "discard", "malformed", "_NoRecord(field=?)"),
    (hostile.DiscardsAPoser, Rules(), "discard", "malformed", "_PosesAsADiscard"),
    (hostile.MeldsGroupsThatExit, Rules(), "meld", "malformed", "SystemExit"),
    (hostile.MeldsAGroupOfItsOwn, Rules(), "meld", "malformed", "SystemExit"),
    (hostile.AsksWithNoBool, ASKING, "ask", "malformed", "_NoBool"),
]
IDS = [case[0].name for case in CASES]


@pytest.mark.parametrize(("cls", "rules", "decision", "reason", "named"), CASES, ids=IDS)
def test_a_returned_value_whose_own_code_raises_is_its_seats_failure_e1(cls, rules, decision, reason, named):
    # Each once let SystemExit or GeneratorExit out of play_game: the type checks (isinstance reads __class__), the
    # move's checks (iterating the groups) or the failure's own message (the value's fields, its metaclass).
    with pytest.raises(StrategyError) as caught:
        play_game([cls, Greedy, cls, Greedy], seed=SEED, rules=rules, names=[cls.name, "greedy"] * 2)
    error = caught.value
    assert error.seat in (0, 2) and error.decision == decision and "\n" not in str(error)
    # Where the core runs as plain Python, a record's constructor sets its fields through the subclass's properties:
    # the strategy's own call raises (exception).  Compiled, the engine reads what it returned.
    assert error.reason == "exception" or named in str(error) and error.reason == reason


@pytest.mark.parametrize(("cls", "rules", "decision", "reason", "named"), CASES, ids=IDS)
def test_the_environments_driver_charges_a_returned_value_whose_own_code_raises_to_its_seat(
        cls, rules, decision, reason, named):
    # It let SystemExit and GeneratorExit out of reset(), and charged what it refused as "exception".
    with pytest.raises(StrategyError) as caught:
        GameDriver(players=[cls, Greedy, cls, Greedy], rules=rules, names=[cls.name, "greedy"] * 2).reset(SEED)
    error = caught.value
    assert error.seat in (0, 2) and error.decision == decision and "\n" not in str(error)
    assert error.reason == "exception" or named in str(error) and error.reason == reason


@pytest.mark.parametrize("cls", [hostile.ExitsAtItsDiscard, hostile.BlamesSeatOne], ids=["exits", "blames-seat-1"])
def test_the_environments_driver_charges_sys_exit_and_a_strategy_s_own_strategy_error_to_the_seat_asked(cls):
    # The driver let SystemExit out of reset() and passed on a StrategyError the strategy made itself, naming
    # another seat, as the engine's verdict.
    with pytest.raises(StrategyError) as caught:
        GameDriver(players=[Greedy, cls, Greedy, cls], names=["greedy", cls.name] * 2).reset(SEED)
    error = caught.value
    assert (error.spec, error.seat % 2, error.decision, error.reason) == (cls.name, 1, "discard", "exception")
    assert str(error).split(": ", 1)[1].startswith(("raised SystemExit: 3", "raised StrategyError"))


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("cls", "rules", "decision", "reason", "named"), [CASES[2], CASES[3], CASES[5]],
                         ids=[IDS[2], IDS[3], IDS[5]])
def test_a_bot_process_charges_a_returned_value_whose_own_code_raises_as_in_process(
        cls, rules, decision, reason, named):
    # The bot server's own checks raised the value's SystemExit: the bot reported an exception, at the decision that
    # began its planned turn (acquire), where in-process the answer is refused at its own decision.
    isolated = load_strategy(f"isolated:tests/bots/hostile_returns.py:{cls.__name__}")
    with pytest.raises(StrategyError) as caught:
        play_game([isolated, Greedy, isolated, Greedy], seed=SEED, rules=rules)
    error = caught.value
    assert error.seat in (0, 2) and (error.decision, error.reason) == (decision, reason) and "\n" not in str(error)


def test_a_value_is_named_by_its_type_read_from_the_type_itself():
    # Neither the metaclass's __module__ nor the value's repr or fields are run.
    from canasta_sim.errors import type_name

    value = hostile._NoBool()
    assert type_name(value) == "_NoBool" and type_name(value, module=True) == "tests._NoBool"
    assert shown_value(value) == "_NoBool" and shown(value) == "a tests._NoBool"
    assert shown_value(hostile._NoRecord()) == "_NoRecord(field=?)"
    guarded = hostile._Guarded()
    assert type_name(guarded, module=True) == "tests._Guarded" and shown(guarded) == "a tests._Guarded"
    assert shown_value(guarded).startswith("<tests.bots.hostile_returns._Guarded object at ")


@pytest.mark.parametrize("where", ["engine", "environments"])
def test_an_accepted_meld_reaches_the_other_seats_as_the_engines_own_records_e1(where):
    # Groups of the strategy's own class in a list it empties after each meld: heard as they were returned, printing
    # one ended the listener's call with SystemExit (charged to the listener), and the listener kept an empty meld.
    hostile.HearsMelds.heard.clear()
    players = [hostile.MeldsGroupsThatFrameOthers, hostile.HearsMelds] * 2
    if where == "engine":
        assert play_game(players, seed=SEED, rules=Rules(target_score=1000)).winner is not None
    else:  # every seat a strategy: reset plays the whole game
        GameDriver(players=players, rules=Rules(target_score=1000), names=["framer", "hears"] * 2).reset(SEED)
    heard = hostile.HearsMelds.heard
    assert heard and all(type(move.groups) is tuple and move.groups for move in heard)
    assert all(type(group) is MeldGroup for move in heard for group in move.groups)
