"""``canasta-sim compare NEW --baseline OLD``: play until a sequential probability ratio test decides.

Games are played in blocks, in worker processes, and their results are taken in game order whatever
the number of workers, so the verdict depends only on the seed and the settings.  By default every
deal is played twice, NEW on side A and then on side B with the same cards (:mod:`canasta_sim.matchmaking`),
and the test counts pairs (pentanomial model, :mod:`canasta_sim.sprt`); ``--no-duplicate`` plays independent
games, sides alternated, and counts games (trinomial model).  The log-likelihood ratio is checked
after every pair (or game) and printed every ``--print-every`` games; the last line is the verdict.
The exit code is 0 for any verdict, 1 when a strategy fails, 2 for bad input and 130 on Ctrl-C.

With ``--out DIR`` the games counted are saved as a run directory, exactly the one ``canasta-sim run``
writes for the same seed, games and strategies (its ``run.json`` holds that command), so ``report``,
``plot``, ``replay`` and ``run --resume DIR --games N`` work on it.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pyarrow.compute as pc

from canasta_sim.commands.run import (
    OneLineErrorCommand,
    _new_manifest,
    _now,
    fail,
    isolation_options,
    reproducing_command,
)
from canasta_sim.engine import derive_seed, play_game
from canasta_sim.errors import CanastaError, StrategyError
from canasta_sim.loader import load_strategy
from canasta_sim.matchmaking import deal_seed
from canasta_sim.records import ChunkRecorder
from canasta_sim.rules import Rules
from canasta_sim.runner import RunSettings, default_workers
from canasta_sim.sprt import ResultCounts, Sprt
from canasta_sim.storage import RunDirectory

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
    """Plays blocks of a plan; built once per worker, loading the strategies from their specs.

    :param record: also return each block's ``games`` and ``hands`` rows (for ``--out``).
    """

    def __init__(self, plan: MatchPlan, record: bool = False) -> None:
        self.plan = plan
        self.record = record
        self.new = load_strategy(plan.new)
        self.old = load_strategy(plan.old)

    def play(self, block: int) -> tuple[list[tuple[float, ...]], str | None, tuple | None]:
        """NEW's scores (1 win, 0.5 draw, 0 loss) per observation of a block, the failure that cut it short,
        and (when recording) the block's ``games`` and ``hands`` tables."""
        plan = self.plan
        start = block * BLOCK_OBSERVATIONS
        results = []
        recorder = ChunkRecorder() if self.record else None
        error_text = None
        for observation in range(start, min(start + BLOCK_OBSERVATIONS, plan.observations)):
            scores = []
            for index, (seed, new_side) in enumerate(plan.games(observation)):
                first, second = (self.new, self.old) if new_side == 0 else (self.old, self.new)
                names = [first.spec, second.spec] * 2
                try:
                    result = play_game([first, second, first, second], seed=seed, rules=plan.rules, names=names)
                except StrategyError as error:
                    error_text = str(error)
                    break
                scores.append(0.5 if result.winner is None else float(result.winner == new_side))
                if recorder is not None:
                    # The numbering of `canasta-sim run`: game 2k + index of deal k, or game k.
                    game_id = observation * plan.games_per_observation + index
                    recorder.add_game(game_id, result, (first.spec, second.spec), observation)
            if error_text is not None:
                break
            results.append(tuple(scores))
        return results, error_text, (recorder.tables() if recorder is not None else None)


_player: BlockPlayer | None = None


def _initialize_worker(plan: MatchPlan, record: bool = False) -> None:
    global _player
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _player = BlockPlayer(plan, record)


def _play_in_worker(block: int) -> tuple[list[tuple[float, ...]], str | None, tuple | None]:
    return _player.play(block)


def play_observations(
    plan: MatchPlan, workers: int, on_block: Callable[[int, tuple], None] | None = None
) -> Iterator[tuple[float, ...]]:
    """Yield NEW's scores per observation, in order, playing blocks in ``workers`` processes.

    Closing the generator (the test decided) terminates the workers: what they are playing is not needed.

    :param on_block: called with each block's index and ``(games, hands)`` tables before its scores are
        yielded; recording is on only when it is given.
    :raises CanastaError: when a strategy fails; the message is the :class:`StrategyError`'s.
    """
    record = on_block is not None

    def handle(block: int, outcome) -> Iterator[tuple[float, ...]]:
        results, error, tables = outcome
        if record and tables is not None and tables[0].num_rows:
            on_block(block, tables)
        yield from results
        if error:
            raise CanastaError(error)

    if workers <= 1 or plan.block_count <= 1:
        player = BlockPlayer(plan, record)
        for block in range(plan.block_count):
            yield from handle(block, player.play(block))
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    pool = context.Pool(min(workers, plan.block_count), initializer=_initialize_worker, initargs=(plan, record))
    try:
        for block, outcome in enumerate(pool.imap(_play_in_worker, range(plan.block_count), chunksize=1)):
            yield from handle(block, outcome)
    finally:
        pool.terminate()
        pool.join()


class _RunRecorder:
    """Saves the games a comparison counted as a run directory (``--out``), block by block as chunks."""

    def __init__(self, path: Path, plan: MatchPlan, seed_drawn: bool, max_games: int) -> None:
        self.directory = RunDirectory(path)
        if self.directory.path.exists() and not self.directory.is_empty():
            raise fail(f"--out {path} is not empty; choose a new or empty directory")
        try:
            self.settings = RunSettings(games=max_games, seed=plan.seed, specs=(plan.new, plan.old), rules=plan.rules,
                                        chunk_size=BLOCK_OBSERVATIONS * plan.games_per_observation,
                                        duplicate=plan.duplicate)
        except ValueError as error:
            raise fail(f"--out: these games cannot be saved as a run: {error}") from None
        self.loaded = list(self.settings.load_strategies().values())
        self.seed_drawn = seed_drawn
        self.manifest: dict | None = None
        self.last: tuple[int, tuple] | None = None

    def on_block(self, block: int, tables: tuple) -> None:
        """Write a block's games as chunk ``block`` (the last one is cut to the games counted at the end)."""
        if self.manifest is None:
            self.directory.create()
            self.manifest = _new_manifest(self.settings, self.loaded, self.seed_drawn, self.directory.path)
            self.manifest["sessions"].append({"started_at": _now(), "command": "compare"})
            self.directory.write_manifest(self.manifest)
        self.directory.write_chunk(block, *tables)
        self.last = (block, tables)

    def finish(self, games_counted: int, status: str, comparison: dict) -> None:
        """Keep only the ``games_counted`` games the test used and record the run as ``canasta-sim run`` would."""
        if self.manifest is None:
            return
        if self.last is not None:
            block, (games, hands) = self.last
            if games.num_rows and games["game_id"][games.num_rows - 1].as_py() >= games_counted:
                keep_games = games.filter(pc.less(games["game_id"], games_counted))
                keep_hands = hands.filter(pc.less(hands["game_id"], games_counted))
                self.directory.write_chunk(block, keep_games, keep_hands)
        settings = dataclasses.replace(self.settings, games=max(games_counted, 1))
        self.manifest.update(games=settings.games, chunks=settings.chunk_count,
                             command=reproducing_command(settings, self.directory.path), status=status,
                             ended_at=_now(), games_done=sum(self.directory.chunk_game_counts().values()),
                             on_error="stop", compare=comparison)
        self.manifest["sessions"][-1].update(ended_at=self.manifest["ended_at"], status=status)
        self.directory.write_manifest(self.manifest)


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
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Save the games the test counted as a run directory (report, plot, replay and run --resume "
                   "work on it).")
def compare_command(new, old, elo0, elo1, alpha, beta, max_games, workers, seed, rule_options, no_duplicate,
                    isolate, memory_limit, print_every, out) -> None:
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
    recorder = None if out is None else _RunRecorder(out, plan, seed_drawn,
                                                     plan.observations * plan.games_per_observation)
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
    observations = play_observations(plan, workers, None if recorder is None else recorder.on_block)
    status = "complete"
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
        status = "stopped"
        click.echo(f"Error: {error}", err=True)
        sys.exit(EXIT_STOPPED)
    except KeyboardInterrupt:
        status = "interrupted"
        click.echo(f"Interrupted after {counts.game_count} games: LLR {llr:.2f}, no decision", err=True)
        sys.exit(EXIT_INTERRUPTED)
    finally:
        observations.close()
        if recorder is not None:
            recorder.finish(counts.game_count, status, {
                "new": new, "baseline": old, "elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta,
                "max_games": max_games, "llr": llr, "decision": decision, "games": counts.game_count,
            })
    if _progress_line(counts, llr, test) != last_line:  # show where the test ended
        click.echo(_progress_line(counts, llr, test))
    click.echo(verdict_line(decision, counts.game_count, plan, test, llr))
    if recorder is not None and recorder.manifest is not None:
        click.echo(f"the {counts.game_count} games are saved in {out}: canasta-sim report {out}")
