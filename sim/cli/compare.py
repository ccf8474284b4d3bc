"""``canasta-sim compare NEW --baseline OLD``: play until a sequential probability ratio test decides.

Games are played in blocks, in worker processes, and their results are taken in game order whatever
the number of workers, so the verdict depends only on the seed and the settings.  By default every
deal is played twice, NEW on side A and then on side B with the same cards (:mod:`canasta_sim.runs.matchmaking`),
and the test counts pairs (pentanomial model, :mod:`canasta_sim.runs.sprt`); ``--no-duplicate`` plays independent
games, sides alternated, and counts games (trinomial model).  The log-likelihood ratio is checked
after every pair (or game) and printed every ``--print-every`` games; the last line is the verdict.
The exit code is 0 for any verdict, 1 when a strategy fails, 2 for bad input and 130 on Ctrl-C.

The games are played in supervised worker processes (:mod:`canasta_sim.runs.supervisor`), as ``run`` plays
them, even with one worker: a strategy that raises, exits, crashes or outlives ``--time-limit`` has its
game charged to its seat with a reason.  Failures are applied in game order, like results: under
``--on-error stop`` (the default) the first one ends the comparison with its one-line error, under
``forfeit`` the failing side loses that game and the test goes on.  What strategies print goes to the
log (``--log-file``), never to the output.

With ``--out DIR`` the games counted are saved as a run directory, exactly the one ``canasta-sim run``
writes for the same seed, games and strategies (its ``run.json`` holds that command), so ``report``,
``plot``, ``replay`` and ``run --resume DIR --games N`` work on it.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from canasta_sim.cli import output_closed
from canasta_sim.cli.command_logging import install_logging
from canasta_sim.cli.compare_resume import ResumePoint, loaded_labels, resume_point
from canasta_sim.cli.compare_saving import RunRecorder
from canasta_sim.cli.options import (
    STRATEGY_SPECS,
    OneLineErrorCommand,
    WholeNumber,
    cap_games_at_once,
    check_even_games,
    counted,
    fail,
    isolation_options,
    open_log_file,
    pin_cores,
    rules_given,
    rules_option,
    rules_text,
    supervision_options,
    worker_count,
    workers_option,
)
from canasta_sim.cli.replaying import specs_named_from_start
from canasta_sim.core.engine import derive_seed, play_game
from canasta_sim.core.rules import Rules
from canasta_sim.errors import CanastaError, MachineRefusal, StrategyError
from canasta_sim.plugins.loader import is_built_in_spec, load_strategy
from canasta_sim.plugins.pools import close_all
from canasta_sim.runs.code_guard import CodeGuard
from canasta_sim.runs.failure_log import watch_here
from canasta_sim.runs.matchmaking import deal_seed, first_spec_side
from canasta_sim.runs.records import ChunkRecorder
from canasta_sim.runs.runner import ON_ERROR_CHOICES, log_failure
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.sprt import EloEstimate, ResultCounts, Sprt, elo_interval_text, unanimous_elo_bound
from canasta_sim.runs.stopping import stop_on_signals
from canasta_sim.runs.summary import hand_cap_line
from canasta_sim.runs.supervisor import StopPlaying, WorkerStartError, charged_failure, worker_pool

__all__ = ["CompareSchedule", "Comparison", "MatchPlan", "compare_command", "verdict_line"]

BLOCK_OBSERVATIONS = 5
"""Deals (or single games) per task sent to a worker: small, so the test stops soon after deciding."""

SAVED_CHUNK_GAMES = 500
"""Games per Parquet part of the run ``--out`` saves, as ``run``'s default chunks: saved block by block (10 games),
a test of 20,000 games left 4,000 files of a few kB each, which pandas and ``report`` read ten times slower."""

EXIT_STOPPED = 1
EXIT_INTERRUPTED = 130


@dataclasses.dataclass(frozen=True)
class MatchPlan:
    """Which games the comparison plays, in order; an observation is one deal (paired) or one game."""

    new: str
    old: str
    seed: int
    rules: Rules
    duplicate: bool
    observations: int
    """At most this many observations are played."""

    @property
    def games_per_observation(self) -> int:
        """2 with duplicate deals, else 1."""
        return 2 if self.duplicate else 1

    def games(self, observation: int) -> list[tuple[int, int]]:
        """``(game seed, NEW's side)`` of each game of an observation; side 0 is A (seats 0 and 2, R1.1)."""
        if self.duplicate:
            seed = deal_seed(self.seed, observation)
            return [(seed, first_spec_side(2 * observation)), (seed, first_spec_side(2 * observation + 1))]
        return [(derive_seed(self.seed, f"game{observation}"), first_spec_side(observation))]

    @property
    def block_count(self) -> int:
        """Number of blocks of :data:`BLOCK_OBSERVATIONS` observations."""
        return math.ceil(self.observations / BLOCK_OBSERVATIONS)


class CompareSchedule:
    """The games of a plan as the supervisor (:mod:`canasta_sim.runs.supervisor`) plays them: a chunk is a block.

    Game ``g`` is game ``g % games_per_observation`` of observation ``g // games_per_observation``, the
    numbering of ``canasta-sim run`` (see ``--out``).
    """

    def __init__(self, plan: MatchPlan, time_limit: float | None, record: bool) -> None:
        self.plan = plan
        self.time_limit = time_limit
        self.record = record

    def chunk_games(self, block: int) -> range:
        """The game numbers of a block."""
        per = self.plan.games_per_observation
        start = block * BLOCK_OBSERVATIONS
        return range(start * per, min(start + BLOCK_OBSERVATIONS, self.plan.observations) * per)

    def game(self, game_id: int) -> tuple[int, int, tuple[str, str]]:
        """``(game seed, NEW's side, (side A's spec, side B's spec))`` of a game."""
        per = self.plan.games_per_observation
        seed, new_side = self.plan.games(game_id // per)[game_id % per]
        plan = self.plan
        return seed, new_side, (plan.new, plan.old) if new_side == 0 else (plan.old, plan.new)

    def new_player(self, on_error: str, stop_event) -> _GamePlayer:
        """The worker's player, loading NEW and OLD from their specs."""
        return _GamePlayer(self, on_error)

    def charge(self, block: int, game_id: int, seat: int, decision: str, reason: str, message: str) -> StrategyError:
        """The failure of a game lost with its worker."""
        seed, _, specs = self.game(game_id)
        return charged_failure(specs[seat % 2], seed, seat, decision, reason, message)

    def is_built_in(self, block: int, game_id: int, seat: int) -> bool:
        """Whether ``seat`` plays a built-in strategy in the worker, which a death in its call is no forfeit of."""
        return is_built_in_spec(self.game(game_id)[2][seat % 2])

    def new_book(self, block: int, on_error: str) -> _BlockBook:
        """The block's games as they come in."""
        return _BlockBook(self, block)


class _GamePlayer:
    """Plays the games of a comparison in a worker process, each checked after it as ``run``'s are
    (:class:`~canasta_sim.runs.code_guard.CodeGuard`)."""

    def __init__(self, schedule: CompareSchedule, on_error: str) -> None:
        self.schedule = schedule
        self.on_error = on_error
        self.loaded = {spec: load_strategy(spec) for spec in (schedule.plan.new, schedule.plan.old)}
        self.guard = CodeGuard(self.loaded.values())

    def loaded_strategies(self, block: int | None = None):
        """NEW and OLD (:func:`~canasta_sim.runs.interleave.games_at_once` reads their bots' widths)."""
        return self.loaded.values()

    def play_game(self, block: int, game_id: int, monitor):
        seed, _, specs = self.schedule.game(game_id)
        first, second = (self.loaded[spec] for spec in specs)
        try:
            outcome = play_game([first, second, first, second], seed=seed, rules=self.schedule.plan.rules,
                                names=[*specs, *specs], time_limit=self.schedule.time_limit, monitor=monitor)
        except StrategyError as error:
            outcome = error
        outcome = self.guard.checked(outcome, (first, second), seed)
        if isinstance(outcome, StrategyError):
            log_failure(game_id, outcome, self.on_error)
        return outcome, None


class _BlockBook:
    """A block's games in the supervisor, in order: each game's result or failure, and (``--out``) its rows."""

    def __init__(self, schedule: CompareSchedule, block: int) -> None:
        self.schedule = schedule
        self.block = block
        self.outcomes: dict[int, object] = {}
        self.recorder = ChunkRecorder() if schedule.record else None
        self.error = None

    def add(self, game_id: int, outcome, extra=None) -> bool:
        self.outcomes[game_id] = outcome
        if self.recorder is not None:
            seed, _, specs = self.schedule.game(game_id)
            deal = game_id // self.schedule.plan.games_per_observation
            if isinstance(outcome, StrategyError):
                self.recorder.add_forfeit(game_id, seed, specs, outcome, deal)
            else:
                self.recorder.add_game(game_id, outcome, specs, deal)
        return True  # failures are applied in game order by the comparison, whatever the order blocks end in

    def finish(self, directory) -> _BlockBook:
        return self


class Comparison:
    """Takes the blocks' games in game order, whatever order they end in, and runs the test on them.

    :param print_every: games between progress lines; ``None`` prints none (``-q``).
    :param on_block: called with each block's index and ``(games, hands)`` tables before its games are
        counted (``--out``).
    """

    def __init__(self, plan: MatchPlan, test: Sprt, *, on_error: str, print_every: int | None,
                 on_block: Callable[[int, tuple], None] | None = None) -> None:
        self.plan = plan
        self.test = test
        self.on_error = on_error
        self.print_every = print_every
        self.on_block = on_block
        self.counts = ResultCounts()
        self.llr = 0.0
        self.decision: str | None = None
        self.error: str | None = None  # the first failure in game order under --on-error stop
        self.forfeits = 0
        self.hand_capped = 0  # games counted that the engine's guard ended, no side at the target score
        self.last_line = ""
        self._printed_at = 0  # the multiple of --print-every last passed
        self._waiting: dict[int, _BlockBook] = {}
        self._next_block = 0

    def go_on_from(self, point: ResumePoint) -> int:
        """Start from the games a saved comparison counted (``--resume``); return the first block to play."""
        self.counts, self.llr, self.decision, self.forfeits = point.counts, point.llr, point.decision, point.forfeits
        self.hand_capped = point.hand_capped
        if self.print_every is not None:
            self._printed_at = point.games - point.games % self.print_every
        self._next_block = point.games // (BLOCK_OBSERVATIONS * self.plan.games_per_observation)
        return self._next_block

    def take(self, book: _BlockBook) -> None:
        """A block has ended: count every block now due, in order; raise :class:`StopPlaying` when the test
        decided, a failure ends the comparison, or a block was cut short (the user stopped it)."""
        self._waiting[book.block] = book
        while self._next_block in self._waiting:
            book = self._waiting.pop(self._next_block)
            self._next_block += 1
            if not self._count(book):
                raise StopPlaying

    def _count(self, book: _BlockBook) -> bool:
        plan = self.plan
        if self.on_block is not None and book.recorder is not None and book.recorder.game_count:
            self.on_block(book.block, book.recorder.tables())
        start = book.block * BLOCK_OBSERVATIONS
        for observation in range(start, min(start + BLOCK_OBSERVATIONS, plan.observations)):
            scores = []
            for index, (game_seed, new_side) in enumerate(plan.games(observation)):
                game_id = observation * plan.games_per_observation + index
                outcome = book.outcomes.get(game_id)
                if outcome is None:
                    return False
                if isinstance(outcome, StrategyError):
                    if self.on_error == "stop":
                        # Not replay DIR N (--out): the saved run holds the games counted, the failing one after them.
                        specs = (plan.new, plan.old) if new_side == 0 else (plan.old, plan.new)
                        again = watch_here(game_seed, specs, plan.rules)
                        self.error = f"game {game_id}: {outcome} (reason: {outcome.reason}); {again}"
                        return False
                    self.forfeits += 1
                    scores.append(0.0 if outcome.seat % 2 == new_side else 1.0)  # the failing side loses
                else:
                    scores.append(0.5 if outcome.winner is None else float(outcome.winner == new_side))
                    self.hand_capped += outcome.termination == "hand_cap"
            if plan.duplicate:
                self.counts.add_pair(*scores)
            else:
                self.counts.add_game(scores[0])
            self.llr = self.test.llr(self.counts)
            self.decision = self.test.decide(self.llr)
            if self.print_every is not None and (self.counts.game_count - self._printed_at >= self.print_every
                                                 or self.decision):
                self._printed_at = self.counts.game_count - self.counts.game_count % self.print_every
                self.last_line = _progress_line(self.counts, self.llr, self.test)
                click.echo(self.last_line)
            if self.decision:
                return False
        return True


def _progress_line(counts: ResultCounts, llr: float, test: Sprt) -> str:
    return (f"games {counts.game_count:6d}  {counts.text()}  LLR {llr:6.2f} [{test.lower:.2f}, {test.upper:.2f}]  "
            f"{counts.estimate()}")


def verdict_line(decision: str | None, games: int, plan: MatchPlan, test: Sprt, llr: float,
                 estimate: EloEstimate | None = None) -> str:
    """The plain last line: which hypothesis was accepted after how many games, or that none was.

    An accepted hypothesis says only that the results favour it over the other: H1 accepted is no lower bound of
    ``elo1`` on the gain (a gain between ``elo0`` and ``elo1`` accepts either), so the line names both hypotheses and
    ends with the Elo estimate, the size of the gain.  An H0 whose estimate's interval lies wholly below ``elo0``
    states it: "the results favour H0" alone read as "about equal" for a strategy 170 Elo behind.  It says "weaker"
    only when the whole interval is below 0 too: under an ``elo0`` above 0, an interval below ``elo0`` can still be a
    gain.  When NEW lost (or won) every game the estimate is infinite, and the line says so and gives the bound the
    results support instead, whether the test decided or ``--max-games`` stopped it.
    """
    if decision is None:
        capped = (f"no decision after {games} games (the --max-games cap): LLR {llr:.2f} is still between "
                  f"{test.lower:.2f} and {test.upper:.2f}")
        if estimate is not None and games and estimate.score in (0.0, 1.0):
            return f"{capped}; {_unanimous(games, plan, lost=estimate.score == 0.0)}"
        return capped
    accepted, other = (("H1", test.elo1), ("H0", test.elo0)) if decision == "H1" else (("H0", test.elo0),
                                                                                      ("H1", test.elo1))
    favoured = (f"{decision} accepted after {games} games: the results favour {accepted[0]} ({plan.new} "
                f"{accepted[1]:+g} Elo against {plan.old}) over {other[0]} ({other[1]:+g} Elo)")
    if estimate is None:
        return favoured
    if estimate.score in (0.0, 1.0):
        return f"{favoured}; {_unanimous(games, plan, lost=estimate.score == 0.0)}"
    if decision == "H0" and estimate.high < min(test.elo0, 0.0):
        return (f"{favoured}; {plan.new} is weaker than {plan.old}, by {-estimate.elo:.1f} Elo "
                f"[{elo_interval_text(-estimate.high, -estimate.low, signed=False)}]")
    if decision == "H0" and estimate.high < test.elo0:
        return f"{favoured}; {plan.new}'s gain over {plan.old} is below elo0 = {test.elo0:g} Elo: {estimate}"
    return f"{favoured}; estimate {estimate}"


def _unanimous(games: int, plan: MatchPlan, *, lost: bool) -> str:
    """What every game lost (``lost``) or won says: an infinite estimate with no interval, but a one-sided bound."""
    observations = games // plan.games_per_observation
    deals = f" ({counted(observations, 'deal')}, each {'0-2' if lost else '2-0'})" if plan.duplicate else ""
    said = f"{plan.new} {'lost' if lost else 'won'} all {games} games{deals}"
    bound = unanimous_elo_bound(observations)
    if bound <= 0:
        few = counted(observations, "deal" if plan.duplicate else "game")
        return f"{said}: the Elo estimate is unbounded, and {few} are too few to bound it at 95%"
    return (f"{said}: {plan.new} is {'weaker' if lost else 'stronger'} than {plan.old}, by at least {bound:.1f} Elo "
            f"(a one-sided 95% bound; the Elo estimate itself is unbounded)")


@click.command("compare", cls=OneLineErrorCommand)
@click.argument("new", required=False)
@click.option("--baseline", "old", metavar="SPEC",
              help=f"The strategy NEW is tested against; both are needed unless --resume ({STRATEGY_SPECS}).")
@click.option("--elo0", type=float, default=0.0, show_default=True, help="Elo difference of H0 (no gain).")
@click.option("--elo1", type=float, default=10.0, show_default=True, help="Elo difference of H1 (the hoped-for gain).")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="Chance of accepting H1 when H0 is true, between 0 and 1 (alpha + beta below 1).")
@click.option("--beta", type=float, default=0.05, show_default=True,
              help="Chance of accepting H0 when H1 is true, between 0 and 1 (alpha + beta below 1).")
@click.option("--max-games", type=WholeNumber(min=1), default=20000, show_default=True,
              help="Stop without a decision after this many games (an even number: each deal is played twice, "
                   "unless --no-duplicate).")
@workers_option
@click.option("--seed", type=WholeNumber(), default=None,
              help="Seed of the deals (default: drawn at random and printed).")
@rules_option
@click.option("--no-duplicate", is_flag=True, help="Play independent deals instead of each deal twice.")
@click.option("--isolate", is_flag=True,
              help="Run NEW and OLD in processes of their own unless built-in (as isolated:SPEC).")
@click.option("--on-error", type=click.Choice(ON_ERROR_CHOICES), default="stop", show_default=True,
              help="When a strategy fails: stop with its one-line error (the games counted so far are kept with "
                   "--out), or count the game as lost by the failing side and go on.")
@supervision_options
@click.option("--print-every", type=WholeNumber(min=1), default=200, show_default=True,
              help="Print the LLR every this many games.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Save the games the test counted as a run directory (report, plot, replay and run --resume "
                   "work on it).")
@click.option("--resume", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Go on with the comparison whose games --out DIR saved (stopped by Ctrl-C, a kill or a crash), "
                   "with its own settings: its whole parts are counted again and the test goes on after them.")
@click.option("-q", "--quiet", is_flag=True,
              help="No opening line and no progress lines; the test's last line and its verdict still print.")
def compare_command(new, old, elo0, elo1, alpha, beta, max_games, workers, seed, rule_options, no_duplicate,
                    isolate, on_error, time_limit, memory_limit, games_at_once, pin, log_file, print_every,
                    out, resume, quiet) -> None:
    """Play NEW against OLD (--baseline) until a sequential probability ratio test accepts H0 or H1, e.g.
    canasta-sim compare expert --baseline greedy.

    H0: NEW is elo0 Elo stronger than OLD; H1: elo1 stronger.  The verdict says which the results favour over the
    other, and the Elo estimate.  Each deal is played twice with the sides swapped unless --no-duplicate is given.
    See canasta-sim docs matchmaking.
    """
    point = None
    if resume is not None:
        point = resume_point(resume, SAVED_CHUNK_GAMES, log_file)  # in the directory the comparison started in
        entry, settings, ctx, log_file = point.entry, point.settings, click.get_current_context(), point.log_file
        new, old, seed, time_limit, out = entry["new"], entry["baseline"], settings.seed, settings.time_limit, \
            point.directory.path
        elo0, elo1, alpha, beta, max_games = (entry[key] for key in ("elo0", "elo1", "alpha", "beta", "max_games"))
        no_duplicate, on_error, memory_limit, games_at_once = not settings.duplicate, *(
            point.kept(ctx, name, value) for name, value in (
                ("on_error", on_error), ("memory_limit", memory_limit), ("games_at_once", games_at_once)))
    elif new is None or old is None:
        raise fail("compare needs NEW and --baseline OLD (canasta-sim compare expert --baseline greedy), or "
                   "--resume DIR")
    try:
        test = Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    except ValueError as error:
        raise fail(f"--elo0/--elo1/--alpha/--beta: {error}") from None
    pin_cores(pin)
    cap_games_at_once(games_at_once)
    try:
        rules = point.settings.rules if point is not None else rules_given(rule_options)
        new, old = isolation_options((new, old), isolate, memory_limit)
        if point is None:  # a comparison going on keeps the names its saved games have
            new, old = specs_named_from_start((new, old))
        # Loaded here to fail in one line rather than in every worker, to print name@version, and on a resume to
        # refuse other versions.
        labels = loaded_labels((new, old), point)
    except MachineRefusal as error:  # the machine's limit, no spec that cannot be used: exit 1, as a worker's
        raise click.ClickException(str(error)) from None
    except CanastaError as error:
        raise fail(str(error)) from None
    duplicate = not no_duplicate
    if duplicate:  # the pairs a chess-engine tester counts: a cap in the middle of one would drop its first game
        check_even_games("--max-games", max_games, "compare, without --no-duplicate,")
    seed_drawn = seed is None if point is None else bool(point.manifest.get("seed_drawn"))
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    plan = MatchPlan(new, old, seed, rules, duplicate, max_games // (2 if duplicate else 1))
    workers = worker_count(workers, (new, old))
    test_settings = {"new": new, "baseline": old, "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta,
                     "max_games": max_games}
    recorder = None if out is None else RunRecorder(
        out, plan, seed_drawn, plan.observations * plan.games_per_observation, time_limit, on_error, workers,
        memory_limit, test_settings, point, chunk_games=SAVED_CHUNK_GAMES,
        block_games=BLOCK_OBSERVATIONS * plan.games_per_observation)
    close_all()  # this process plays no game (its workers start the bots they play with): no bot idles here
    file_handler = open_log_file(log_file)
    if not quiet:
        model = "duplicate deals, pentanomial" if duplicate else "independent games, trinomial"
        click.echo(f"compare {new} ({labels[0]}) against {old} ({labels[1]}), {model}: elo0 {elo0:g}, elo1 "
                   f"{elo1:g}, alpha {alpha:g}, beta {beta:g}, LLR bounds [{test.lower:.2f}, {test.upper:.2f}], at "
                   f"most {max_games} games, seed {seed}{' (drawn)' if seed_drawn else ''}, rules "
                   f"{rules_text(rules)}, {workers} worker{'s' if workers > 1 else ''}")
        if point is not None:
            click.echo(f"resumed from the {point.games} games saved in {out}: LLR {point.llr:.2f}")
    comparison = Comparison(plan, test, on_error=on_error, print_every=None if quiet else print_every,
                            on_block=None if recorder is None else recorder.on_block)
    first_block = 0 if point is None else comparison.go_on_from(point)
    status, start_error = _play(plan, comparison, first_block, workers, on_error, time_limit, memory_limit,
                                file_handler, recorder, test_settings)
    _conclude(plan, test, comparison, status, start_error, recorder, out)


def _play(plan: MatchPlan, comparison: Comparison, first_block: int, workers: int, on_error: str,
          time_limit: float | None, memory_limit: int | None, file_handler, recorder: RunRecorder | None,
          test_settings: dict) -> tuple[str, str | None]:
    """Play the blocks from ``first_block`` on until the test decides, then save what was counted (``--out``);
    return the status and the error of workers that could not start."""
    schedule = CompareSchedule(plan, time_limit, record=recorder is not None)
    handlers, restore_logging = install_logging(False, False, file_handler)
    status, interrupted, start_error = "complete", False, None
    try:
        if first_block < plan.block_count and not comparison.decision:
            with worker_pool(schedule, workers=min(workers, plan.block_count - first_block), on_error=on_error,
                             log_handlers=handlers, memory_limit=memory_limit) as pool, \
                    stop_on_signals(pool.stop_event) as signals:
                pool.play(range(first_block, plan.block_count), comparison.take)
                interrupted = signals["interrupted"]
    except KeyboardInterrupt:  # a second Ctrl-C: the workers were killed at once
        interrupted = True
    except WorkerStartError as error:  # workers that cannot load the strategies or die before playing
        start_error = str(error)
    except OSError as error:
        # A progress line's reader gone (| head): the comparison stops undecided, kept as interrupted for --resume.
        interrupted = output_closed(error)
        raise
    finally:
        restore_logging()
        counts = comparison.counts
        if comparison.error or start_error:
            status = "stopped"
        elif interrupted and not comparison.decision:
            status = "interrupted"
        if recorder is not None:
            recorder.finish(counts.game_count, status, {
                **test_settings, "llr": comparison.llr, "decision": comparison.decision, "games": counts.game_count,
                "forfeits": comparison.forfeits,
            })
    return status, start_error


def _conclude(plan: MatchPlan, test: Sprt, comparison: Comparison, status: str, start_error: str | None,
              recorder: RunRecorder | None, out: Path | None) -> None:
    """Print where the test ended and its verdict, or the error or interruption that ended it (exiting)."""
    counts, llr, decision = comparison.counts, comparison.llr, comparison.decision
    saved = ""
    if recorder is not None:
        saved = (f"; the {counts.game_count} games counted are saved in {out}" if recorder.manifest is not None
                 else f"; no game was counted, so {out} holds none")
    if comparison.error or start_error or status == "interrupted":
        _counted_facts(comparison)  # of the games counted before the stop: told as a finished test tells them
    if comparison.error or start_error:
        # Where the test stood, as an interruption says it: the LLR so far tells how near a decision it was.
        stood = f"; stopped after {counts.game_count} games: LLR {llr:.2f}, no decision" if counts.game_count else ""
        click.echo(f"Error: {comparison.error or start_error}{stood}{saved}", err=True)
        sys.exit(EXIT_STOPPED)
    if status == "interrupted":
        resume = f"; canasta-sim compare --resume {quote_shown(str(out))} goes on" if recorder is not None and \
            recorder.manifest is not None else ""
        click.echo(f"Interrupted after {counts.game_count} games: LLR {llr:.2f}, no decision{saved}{resume}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    last_line = comparison.last_line
    if _progress_line(counts, llr, test) != last_line:  # show where the test ended
        click.echo(_progress_line(counts, llr, test))
    _counted_facts(comparison)
    click.echo(verdict_line(decision, counts.game_count, plan, test, llr, counts.estimate()))
    if recorder is not None and recorder.manifest is not None:
        click.echo(f"the {counts.game_count} games are saved in {out}: canasta-sim report {out}")


def _counted_facts(comparison: Comparison) -> None:
    """The lines on the games counted that the verdict, an error or an interruption follows: how many a failing
    strategy forfeited and how many the engine's guard ended (:func:`~canasta_sim.runs.summary.hand_cap_line`)."""
    if comparison.forfeits:
        click.echo(f"{comparison.forfeits} games counted were forfeited by a failing strategy (--on-error forfeit)")
    if comparison.hand_capped:
        click.echo(hand_cap_line(comparison.hand_capped, comparison.counts.game_count))
