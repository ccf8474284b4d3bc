"""Failing strategies are stopped and explained: spec, seat, game seed, decision and returned value;
and ``canasta-sim check-strategy`` reports them."""

from __future__ import annotations

import textwrap
import time

import numpy as np
import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.engine import play_game
from canasta_sim.core.moves import Discard, Meld, MeldGroup, Stop, TakePile
from canasta_sim.errors import StrategyError
from canasta_sim.strategies import Greedy

SEED = 4242


class Raises(Greedy):
    name = "raises"

    def choose_discard(self, view):
        raise RuntimeError("boom")


class ReturnsText(Greedy):
    name = "returns-text"

    def choose_acquire(self, view):
        return "draw"


class ReturnsMalformedRecord(Greedy):
    name = "malformed-record"

    def choose_discard(self, view):
        return Discard("K")


class MeldsWhatIsNoGroup(Greedy):
    name = "melds-what-is-no-group"

    def choose_meld(self, view):
        return Meld(("K K K",))


class DiscardsTrue(Greedy):
    name = "discards-true"

    def choose_discard(self, view):
        return Discard(True)


class AnswersText(Greedy):
    name = "answers-text"

    def answer_go_out(self, view):
        return "yes"


class AsksText(Greedy):
    name = "asks-text"

    def choose_ask(self, view):
        return "please"


class AsksWithOne(Greedy):
    name = "asks-with-one"

    def choose_ask(self, view):
        return 1


class DiscardsWhatItLacks(Greedy):
    name = "discards-what-it-lacks"

    def choose_discard(self, view):
        missing = next(kind for kind in range(4, 15) if view.hand[kind] == 0)
        return Discard(missing)


class TakesBlindly(Greedy):
    name = "takes-blindly"

    def choose_acquire(self, view):
        return TakePile((13, 13))


class Slow(Greedy):
    name = "slow"

    def choose_discard(self, view):
        time.sleep(0.03)
        return super().choose_discard(view)


class BrokenHook(Greedy):
    name = "broken-hook"

    def on_event(self, event):
        raise KeyError("memory")


class BrokenStart(Greedy):
    name = "broken-start"

    def on_hand_start(self, view):
        raise ValueError("cannot start")


class DiscardsNothing(Greedy):
    name = "discards-nothing"

    def choose_discard(self, view):
        return None


class CannotBeBuilt(Greedy):
    name = "cannot-be-built"

    def __init__(self, rng, **parameters):
        raise ValueError("no such table")


def fail(cls, time_limit=None) -> StrategyError:
    names = [f"{cls.name}-spec", "greedy", f"{cls.name}-spec", "greedy"]
    with pytest.raises(StrategyError) as caught:
        play_game([cls, Greedy, cls, Greedy], seed=SEED, names=names, time_limit=time_limit)
    error = caught.value
    assert error.spec == f"{cls.name}-spec" and error.seat in (0, 2) and error.game_seed == SEED
    text = str(error)
    assert f"strategy '{cls.name}-spec' at seat {error.seat} (game seed {SEED}), decision {error.decision}" in text
    assert "\n" not in text
    return error


def test_a_strategy_that_raises():
    error = fail(Raises)
    assert error.decision == "discard" and error.returned is None
    assert str(error).endswith("raised RuntimeError: boom")
    assert isinstance(error.__cause__, RuntimeError)


class RunsOutOfMemory(Greedy):
    name = "runs-out-of-memory"

    def choose_discard(self, view):
        raise MemoryError  # as Python raises it when an allocation fails: no message


class RaisesWithoutMessage(Greedy):
    name = "raises-without-message"

    def choose_discard(self, view):
        raise RuntimeError


def test_a_strategy_out_of_memory_is_charged_in_a_line_that_says_so():
    """An allocation past the memory limit raises a MemoryError without a message: the line said ``raised
    MemoryError:`` and no cause.  An exception with no message is named by its type alone."""
    error = fail(RunsOutOfMemory)
    assert error.reason == "exception"
    assert str(error).endswith("raised MemoryError (it ran out of memory: its process's address space, under "
                               "--memory-limit, or the machine's)"), str(error)
    assert str(fail(RaisesWithoutMessage)).endswith("raised RuntimeError")


def test_a_strategy_that_cannot_be_built_is_not_said_to_have_returned_anything():
    error = fail(CannotBeBuilt)
    assert error.decision == "build" and error.returned is None
    assert str(error).endswith("could not be built: ValueError: no such table")


def test_a_strategy_that_returns_none_for_a_discard_is_shown_to_have_returned_none():
    error = fail(DiscardsNothing)
    assert str(error).endswith("returned something that is not a Discard; returned None")


def test_a_strategy_that_returns_a_string():
    error = fail(ReturnsText)
    assert (error.decision, error.returned) == ("acquire", "draw")
    assert "not Draw, TakePile or Stop; returned 'draw'" in str(error)


def test_a_strategy_that_returns_a_malformed_record():
    error = fail(ReturnsMalformedRecord)
    assert error.decision == "discard" and error.returned == Discard("K")
    text = str(error)
    assert ("malformed" in text or "not a card kind" in text) and text.endswith("returned Discard(card='K')")


@pytest.mark.parametrize("groups", [("K K K",), (13,), 13, [MeldGroup(13, (13, 13, 13)), "x"]])
def test_a_meld_whose_groups_are_no_group_records_is_charged_to_its_seat_e1(groups):
    # Such a record once let an AttributeError out of play_game: the failure's own message could not print it.
    class MeldsThat(MeldsWhatIsNoGroup):
        def choose_meld(self, view):
            return Meld(groups)

    error = fail(MeldsThat)
    assert (error.decision, error.reason) == ("meld", "illegal") and error.returned == Meld(groups)
    assert "E1: a Meld's groups are MeldGroup records in a tuple" in str(error)


@pytest.mark.parametrize(
    "groups",
    [np.array([13, 13, 13]), np.array([]), np.array([MeldGroup.of(13, 3), MeldGroup.of(5, 3)], dtype=object)],
    ids=["ints", "empty", "groups"],
)
def test_a_meld_whose_groups_are_a_numpy_array_is_charged_to_its_seat_e1(groups):
    # An array has no truth value: the meld's check asked for one first, and numpy's ValueError was charged as
    # 'malformed' with numpy's message.
    class MeldsAnArray(MeldsWhatIsNoGroup):
        def choose_meld(self, view):
            return Meld(groups)

    error = fail(MeldsAnArray)
    assert (error.decision, error.reason) == ("meld", "illegal")
    assert "E1: a Meld's groups are MeldGroup records in a tuple; it holds array(" in str(error)
    assert "truth value" not in str(error)


class AsksWithNumpy(Greedy):
    name = "asks-with-numpy"

    def choose_ask(self, view):
        return np.bool_(super().choose_ask(view))


class AnswersWithNumpy(Greedy):
    name = "answers-with-numpy"

    def answer_go_out(self, view):
        return np.bool_(super().answer_go_out(view))


@pytest.mark.parametrize(("cls", "decision"), [(AsksWithNumpy, "ask"), (AnswersWithNumpy, "answer")])
def test_a_numpy_bool_for_an_ask_or_an_answer_is_refused_naming_its_type_r12_5(cls, decision):
    # Under numpy 1 a numpy bool prints as True: "not True or False; returned True" said nothing of why.
    error = fail(cls)
    assert (error.decision, error.reason) == (decision, "malformed")
    assert f"decision {decision}: returned a numpy.bool" in str(error)
    assert ", not True or False; returned " in str(error)


def test_a_discard_of_true_is_no_card_not_a_2_e1():
    error = fail(DiscardsTrue)
    assert (error.decision, error.reason) == ("discard", "illegal")
    assert "E1: a Discard holds True, which is not a card kind" in str(error)


def test_an_answer_that_is_not_a_bool_r12_5():
    error = fail(AnswersText)
    assert (error.decision, error.returned) == ("answer", "yes")
    assert "returned 'yes'" in str(error)


def test_an_ask_that_is_not_a_bool_r12_5():
    error = fail(AsksText)
    assert (error.decision, error.returned) == ("ask", "please")
    assert "not True or False; returned 'please'" in str(error)


def test_an_ask_of_an_int_names_its_type_in_plain_words_r12_5():
    # It read "returned a int, not True or False".
    error = fail(AsksWithOne)
    assert (error.decision, error.reason) == ("ask", "malformed")
    assert "decision ask: returned an int, not True or False" in str(error), error


def test_a_strategy_that_returns_an_illegal_discard_r6_1():
    error = fail(DiscardsWhatItLacks)
    assert error.decision == "discard" and isinstance(error.returned, Discard)
    assert "illegal move" in str(error) and "R6.1" in str(error)
    # The move as players read it and bots write it, not its Python form.
    assert str(error).endswith(f"; returned {error.returned}") and "parse_move" not in str(error)


def test_a_strategy_that_takes_a_pile_it_may_not_r8_2():
    error = fail(TakesBlindly)
    assert error.decision == "acquire" and error.returned == TakePile((13, 13))
    assert "illegal move" in str(error) and ("R8" in str(error) or "R6.1" in str(error))


def test_a_strategy_that_overruns_its_time_budget_is_stopped_at_the_limit():
    started = time.perf_counter()
    error = fail(Slow, time_limit=0.01)
    assert error.decision == "discard" and error.returned is None and error.reason == "timeout"
    assert "was stopped at the time limit of 0.01 s" in str(error)
    assert time.perf_counter() - started < 0.03 * 20  # interrupted, not waited for: far less than every sleep


def test_the_time_budget_spares_a_fast_strategy():
    result = play_game([Greedy] * 4, seed=SEED, time_limit=0.5)
    assert result.termination == "target"


def test_a_failing_hook_is_reported_like_a_decision():
    assert fail(BrokenHook).decision == "event"
    error = fail(BrokenStart)
    assert error.decision == "hand start" and "ValueError: cannot start" in str(error)


# ---------------------------------------------------------------- check-strategy

FAILING_FILE = textwrap.dedent(
    """
    from canasta_sim.core.moves import Discard
    from canasta_sim.strategies.greedy import Greedy


    class Careless(Greedy):
        name = "careless"

        def choose_discard(self, view):
            return Discard(0) if view.hand[0] == 0 else super().choose_discard(view)
    """
)

UNREPRODUCIBLE_FILE = textwrap.dedent(
    """
    import random

    from canasta_sim.strategies.random_play import RandomPlay


    class Moody(RandomPlay):
        name = "moody"

        def __init__(self, rng, **parameters):
            super().__init__(random.Random(), **parameters)  # ignores the engine's generator
    """
)


def test_check_strategy_passes_a_sound_strategy():
    result = CliRunner().invoke(main, ["check-strategy", "expert", "--games", "2", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "2 of 2 games finished" in result.output and "no problems found" in result.output
    one = CliRunner().invoke(main, ["check-strategy", "expert", "--games", "1", "--seed", "3"])
    assert one.exit_code == 0 and "1 of 1 game finished" in one.output, one.output
    assert "1 game against greedy" in one.output
    # Games 0 and 1 are both against greedy: the opening line named random too, which plays from game 2.
    assert result.output.splitlines()[0].endswith("2 games against greedy"), result.output
    three = CliRunner().invoke(main, ["check-strategy", "random", "--games", "3", "--seed", "3"])
    assert three.output.splitlines()[0].endswith("3 games against greedy, random"), three.output


def test_check_strategy_reports_an_illegal_move(tmp_path):
    path = tmp_path / "careless.py"
    path.write_text(FAILING_FILE)
    spec = f"{path}:Careless"
    result = CliRunner().invoke(main, ["check-strategy", spec, "--games", "2"])
    assert result.exit_code == 1
    assert f"strategy '{spec}' at seat" in result.output and "game seed" in result.output
    assert "decision discard" in result.output and "; returned discard JK" in result.output
    assert "2 problems found" in result.output
    assert "0 of 2 games finished; won 0\n" in result.output  # no slowest game among none


def test_check_strategy_reports_a_strategy_that_does_not_replay(tmp_path):
    path = tmp_path / "moody.py"
    path.write_text(UNREPRODUCIBLE_FILE)
    result = CliRunner().invoke(main, ["check-strategy", f"{path}:Moody", "--games", "1"])
    assert result.exit_code == 1
    assert "gave a different game" in result.output


@pytest.mark.parametrize("spec", ["grandmaster", "nowhere/bot.py:Bot", "expert:boldness=2"])
def test_check_strategy_refuses_a_bad_spec_in_one_line(spec):
    result = CliRunner().invoke(main, ["check-strategy", spec])
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1 and result.output.startswith("Error: ")
    assert "Traceback" not in result.output


def test_the_seed_in_a_failure_replays_it():
    # The failure names the game seed; playing that seed again fails the same way.
    first = fail(Raises)
    with pytest.raises(StrategyError) as again:
        names = ["raises-spec", "greedy", "raises-spec", "greedy"]
        play_game([Raises, Greedy, Raises, Greedy], seed=first.game_seed, names=names)
    assert str(again.value) == str(first)


def test_a_constructor_that_fails_mid_run_is_a_strategy_error_with_its_seat_and_seed():
    def broken(rng):
        raise RuntimeError("no memory left")

    with pytest.raises(StrategyError) as caught:
        play_game([Greedy, broken, Greedy, broken], seed=11, names=["greedy", "broken", "greedy", "broken"])
    error = caught.value
    assert error.seat == 1 and error.spec == "broken" and error.game_seed == 11 and error.decision == "build"
    assert "RuntimeError: no memory left" in str(error)


class StopsWithATailOfItsOwn(Greedy):
    """Answers an illegal stop, and has a method named as the bot proxy's stderr tail, which must not be called."""

    name = "stops-with-a-tail"

    def choose_acquire(self, view):
        return Stop()

    def stderr_tail(self):
        raise RuntimeError("an in-process strategy's method ran outside the arbiter's watch")


def test_an_in_process_strategy_is_not_asked_for_a_bot_process_s_stderr_tail_at_its_failure():
    with pytest.raises(StrategyError) as caught:
        play_game([StopsWithATailOfItsOwn, Greedy, StopsWithATailOfItsOwn, Greedy], seed=SEED)
    error = caught.value
    assert error.reason == "illegal" and str(error).endswith("; returned stop"), str(error)
