"""``canasta-sim compare NEW --baseline OLD``: play until a sequential probability ratio test decides.

Games are played in blocks, in worker processes, and their results are taken in game order whatever
the number of workers, so the verdict depends only on the seed and the settings.  By default every
deal is played twice, NEW on side A and then on side B with the same cards (:mod:`canasta_sim.matchmaking`),
and the test counts pairs (pentanomial model, :mod:`canasta_sim.sprt`); ``--no-duplicate`` plays independent
games, sides alternated, and counts games (trinomial model).  The log-likelihood ratio is checked
after every pair (or game) and printed every ``--print-every`` games; the last line is the verdict.
The exit code is 0 for any verdict, 1 when a strategy fails, 2 for bad input and 130 on Ctrl-C.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator

import click

from canasta_sim.commands.run import OneLineErrorCommand, fail, isolation_options
from canasta_sim.engine import derive_seed, play_game
from canasta_sim.errors import CanastaError, StrategyError
from canasta_sim.loader import load_strategy
from canasta_sim.matchmaking import deal_seed
from canasta_sim.rules import Rules
from canasta_sim.runner import default_workers
from canasta_sim.sprt import ResultCounts, Sprt

__all__ = ["MatchPlan", "compare_command", "play_observations", "verdict_line"]

BLOCK_OBSERVATIONS = 5
"""Deals (or single games) per task sent to a worker: small, so the test stops soon after deciding."""

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
            return [(seed, 0), (seed, 1)]
        return [(derive_seed(self.seed, f"game{observation}"), observation % 2)]

    @property
    def block_count(self) -> int:
        """Number of blocks of :data:`BLOCK_OBSERVATIONS` observations."""
        return math.ceil(self.observations / BLOCK_OBSERVATIONS)


class BlockPlayer:
    """Plays blocks of a plan; built once per worker, loading the strategies from their specs."""

    def __init__(self, plan: MatchPlan) -> None:
        self.plan = plan
        self.new = load_strategy(plan.new)
        self.old = load_strategy(plan.old)

    def play(self, block: int) -> tuple[list[tuple[float, ...]], str | None]:
        """NEW's scores (1 win, 0.5 draw, 0 loss) per observation of a block, and the failure that cut it short."""
        plan = self.plan
        start = block * BLOCK_OBSERVATIONS
        results = []
        for observation in range(start, min(start + BLOCK_OBSERVATIONS, plan.observations)):
            scores = []
            for seed, new_side in plan.games(observation):
                first, second = (self.new, self.old) if new_side == 0 else (self.old, self.new)
                names = [first.spec, second.spec] * 2
                try:
                    result = play_game([first, second, first, second], seed=seed, rules=plan.rules, names=names)
                except StrategyError as error:
                    return results, str(error)
                scores.append(0.5 if result.winner is None else float(result.winner == new_side))
            results.append(tuple(scores))
        return results, None


_player: BlockPlayer | None = None


def _initialize_worker(plan: MatchPlan) -> None:
    global _player
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _player = BlockPlayer(plan)


def _play_in_worker(block: int) -> tuple[list[tuple[float, ...]], str | None]:
    return _player.play(block)


def play_observations(plan: MatchPlan, workers: int) -> Iterator[tuple[float, ...]]:
    """Yield NEW's scores per observation, in order, playing blocks in ``workers`` processes.

    Closing the generator (the test decided) terminates the workers: what they are playing is not needed.

    :raises CanastaError: when a strategy fails; the message is the :class:`StrategyError`'s.
    """
    if workers <= 1 or plan.block_count <= 1:
        player = BlockPlayer(plan)
        for block in range(plan.block_count):
            results, error = player.play(block)
            yield from results
            if error:
                raise CanastaError(error)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = context.Pool(min(workers, plan.block_count), initializer=_initialize_worker, initargs=(plan,))
    try:
        for results, error in pool.imap(_play_in_worker, range(plan.block_count), chunksize=1):
            yield from results
            if error:
                raise CanastaError(error)
    finally:
        pool.terminate()
        pool.join()


def _progress_line(counts: ResultCounts, llr: float, test: Sprt) -> str:
    return (f"games {counts.game_count:6d}  {counts.text()}  LLR {llr:6.2f} [{test.lower:.2f}, {test.upper:.2f}]  "
            f"{counts.estimate()}")


def verdict_line(decision: str | None, games: int, plan: MatchPlan, test: Sprt, llr: float) -> str:
    """The plain last line: which hypothesis was accepted after how many games, or that none was."""
    if decision == "H1":
        return (f"H1 accepted after {games} games: {plan.new} is stronger than {plan.old} by at least "
                f"elo1 = {test.elo1:g} Elo (rather than elo0 = {test.elo0:g})")
    if decision == "H0":
        return (f"H0 accepted after {games} games: {plan.new} is not stronger than {plan.old} by elo1 = "
                f"{test.elo1:g} Elo (its gain is nearer elo0 = {test.elo0:g})")
    return (f"no decision after {games} games (the --max-games cap): LLR {llr:.2f} is still between "
            f"{test.lower:.2f} and {test.upper:.2f}")


@click.command("compare", cls=OneLineErrorCommand)
@click.argument("new")
@click.option("--baseline", "old", required=True, metavar="SPEC", help="The strategy NEW is tested against.")
@click.option("--elo0", type=float, default=0.0, show_default=True, help="Elo difference of H0 (no gain).")
@click.option("--elo1", type=float, default=10.0, show_default=True, help="Elo difference of H1 (the hoped-for gain).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Chance of accepting H1 when H0 is true.")
@click.option("--beta", type=float, default=0.05, show_default=True, help="Chance of accepting H0 when H1 is true.")
@click.option("--max-games", type=click.IntRange(min=1), default=20000, show_default=True,
              help="Stop without a decision after this many games.")
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Worker processes (default: all cores).")
@click.option("--seed", type=int, default=None, help="Seed of the deals (default: drawn at random and printed).")
@click.option("--rules", "rule_options", multiple=True, metavar="KEY=VALUE", help="Rule-set option (repeatable).")
@click.option("--no-duplicate", is_flag=True, help="Play independent deals instead of each deal twice.")
@click.option("--isolate", is_flag=True,
              help="Run NEW and OLD in processes of their own unless built-in (as isolated:SPEC).")
@click.option("--memory-limit", type=click.IntRange(min=1), default=None, metavar="MB",
              help="Address-space limit of each strategy process (isolated:, cmd: specs), in MiB.")
@click.option("--print-every", type=click.IntRange(min=1), default=200, show_default=True,
              help="Print the LLR every this many games.")
def compare_command(new, old, elo0, elo1, alpha, beta, max_games, workers, seed, rule_options, no_duplicate,
                    isolate, memory_limit, print_every) -> None:
    """Play NEW against OLD (--baseline) until a sequential probability ratio test accepts H0 or H1.

    H0: NEW is elo0 Elo stronger than OLD; H1: elo1 stronger.  Each deal is played twice with the
    sides swapped unless --no-duplicate is given.  See docs/matchmaking.md.
    """
    try:
        test = Sprt(elo0=elo0, elo1=elo1, alpha=alpha, beta=beta)
    except ValueError as error:
        raise fail(f"--elo0/--elo1/--alpha/--beta: {error}") from None
    try:
        rules = Rules.from_options(rule_options)
        new, old = isolation_options((new, old), isolate, memory_limit)
        # Loaded here to fail in one line rather than in every worker, and to print name@version.
        labels = [load_strategy(spec).label for spec in (new, old)]
    except CanastaError as error:
        raise fail(str(error)) from None
    duplicate = not no_duplicate
    if duplicate and max_games < 2:
        raise fail("--max-games must be at least 2 with duplicate deals (each deal is two games)")
    seed_drawn = seed is None
    if seed_drawn:
        seed = int.from_bytes(os.urandom(4), "big")
    plan = MatchPlan(new, old, seed, rules, duplicate, max_games // (2 if duplicate else 1))
    workers = workers or default_workers()
    changed = ", ".join(f"{key}={value}" for key, value in rules.changed_options().items()) or "default"
    model = "duplicate deals, pentanomial" if duplicate else "independent games, trinomial"
    click.echo(f"compare {new} ({labels[0]}) against {old} ({labels[1]}), {model}: elo0 {elo0:g}, "
               f"elo1 {elo1:g}, alpha {alpha:g}, beta {beta:g}, LLR bounds [{test.lower:.2f}, {test.upper:.2f}], "
               f"at most {max_games} games, seed {seed}{' (drawn)' if seed_drawn else ''}, rules {changed}, "
               f"{workers} worker{'s' if workers > 1 else ''}")
    counts = ResultCounts()
    llr = 0.0
    decision = None
    printed_at = 0  # the multiple of --print-every last passed
    last_line = ""
    observations = play_observations(plan, workers)
    try:
        for scores in observations:
            if duplicate:
                counts.add_pair(*scores)
            else:
                counts.add_game(scores[0])
            llr = test.llr(counts)
            decision = test.decide(llr)
            if counts.game_count - printed_at >= print_every or decision:
                printed_at = counts.game_count - counts.game_count % print_every
                last_line = _progress_line(counts, llr, test)
                click.echo(last_line)
            if decision:
                break
    except CanastaError as error:
        click.echo(f"Error: {error}", err=True)
        sys.exit(EXIT_STOPPED)
    except KeyboardInterrupt:
        click.echo(f"Interrupted after {counts.game_count} games: LLR {llr:.2f}, no decision", err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        observations.close()
    if _progress_line(counts, llr, test) != last_line:  # show where the test ended
        click.echo(_progress_line(counts, llr, test))
    click.echo(verdict_line(decision, counts.game_count, plan, test, llr))
