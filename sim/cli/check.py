"""``canasta-sim check-strategy``: play a few games with a strategy and report anything wrong with it."""

from __future__ import annotations

import functools
import itertools
import logging
import signal
import sys
import time

import click

from canasta_sim.arbiter import MONITOR_GAME
from canasta_sim.cli.options import SECONDS, WholeNumber, rules_given, rules_option, rules_text
from canasta_sim.core.engine import derive_seed, first_dealer, play_game
from canasta_sim.errors import CanastaError, MachineRefusal, StrategyError, UserInterrupt
from canasta_sim.plugins.kept_state import changed_names, kept_state
from canasta_sim.plugins.loader import borrows_built_in_name, load_strategy, machines_doing
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.process import STOP_GRACE
from canasta_sim.plugins.proxy import ProcessStrategy
from canasta_sim.plugins.specs import isolate_spec, machine_refusal
from canasta_sim.runs.failure_log import watch_here
from canasta_sim.runs.supervised_game import play_supervised
from canasta_sim.strategies import BUILTIN

EXIT_INTERRUPTED = 130
EXIT_MACHINE_REFUSED = 3
"""The exit code when the machine refuses a bot a process, a thread or a pipe (a low ``ulimit -u`` or ``ulimit -n``),
or keeps ending a game in a built-in's calls (:data:`MACHINE_DEATHS`): neither the strategy's problem (1) nor a spec
that cannot be used (2)."""

OPPONENTS = ("greedy", "random")
"""The built-in strategies a checked strategy plays against, in turn."""


@click.command("check-strategy")
@click.argument("spec")
@click.option("--games", type=WholeNumber(min=1), default=8, show_default=True, help="Games to play.")
@click.option(
    "--seed", type=WholeNumber(), default=0, show_default=True,
    help="Seed of the check; game k uses derive_seed(seed, 'check<k>').",
)
@click.option(
    "--time-limit", type=SECONDS, default=1.0, show_default=True,
    help="Seconds one decision may take; a decision still running then is stopped, so the check never hangs.",
)
@click.option("-v", "--verbose", is_flag=True,
              help="Also show what the strategies printed, a bot's stderr included (without it, only how many "
                   "characters); failures and their tracebacks are shown either way.")
@rules_option
@click.option("--isolate", is_flag=True, help="Run SPEC in a process of its own unless built-in (as isolated:SPEC).")
@click.pass_context
def check_command(
    context: click.Context, spec: str, games: int, seed: int, time_limit: float, rule_options: tuple[str, ...],
    verbose: bool,
    isolate: bool,
) -> None:
    """Load SPEC (e.g. my_bot.py:MyBot; canasta-sim strategies lists the names and the forms of a spec), play 8
    games (--games) against greedy and random with sides alternated, and report any failure (an exception, a
    malformed or illegal decision, an overrun of the time limit) or a game that does not replay identically from
    its seed.  Exits 1 when something is wrong, 2 when SPEC or a rule option cannot be used, 3 when the machine
    refuses a bot a process (its limit, named) or keeps killing a game during a built-in's move.

    Each game is played in a process of its own: a strategy that crashes, exits or hangs is reported
    like any other failure.  A failure's traceback (the strategy's own lines) follows its one-line
    description."""
    try:
        rules = rules_given(rule_options)
        if isolate:
            spec = isolate_spec(spec, BUILTIN)
        checked = load_strategy(spec)
        opponents = [load_strategy(name) for name in OPPONENTS]
    except MachineRefusal as error:
        click.echo(f"Error: {error}", err=True)
        context.exit(EXIT_MACHINE_REFUSED)
    except CanastaError as error:
        click.echo(f"Error: {error}", err=True)  # as click and every other command say it
        context.exit(2)
    met = dict.fromkeys(_opponent(index, OPPONENTS) for index in range(min(games, 2 * len(OPPONENTS))))
    # Checked under several rule variants, a bot's outputs were otherwise alike, as compare's header names them.
    under = f" under rules {rules_text(rules)}" if rules.changed_options() else ""
    click.echo(f"checking {checked.spec} ({checked.label}): {games} game{'s' * (games != 1)} against "
               f"{', '.join(met)}{under}")
    if issubclass(checked.cls, ProcessStrategy):  # what a bot's author can change to make it faster
        click.echo(f"its ready message: {checked.cls.protocol_summary()} (canasta-sim docs protocol)")
    # This process plays no game (each game's own process starts its bots): its handshake's bot ends now, and
    # how it ends is the one ending seen here.
    ending_problems = sum(_ended_badly(bot) for bot in close_all())
    borrowed = _borrowed_name(checked)
    if borrowed is not None:
        click.echo(borrowed, err=True)
        ending_problems += 1
    printed = _PrintedHandler(verbose)
    runner_log = logging.getLogger("canasta_sim.runs.runner")
    runner_log.addHandler(printed)
    # The games' processes send back what was printed as an INFO record, which a logger left at the default
    # WARNING level would drop before the handler saw it.
    previous_level = runner_log.level
    runner_log.setLevel(logging.INFO)
    previous = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    for number in previous:
        signal.signal(number, _interrupt)
    try:
        problems, finished, wins, slowest = _check(checked, opponents, games, seed, rules, time_limit)
        problems += ending_problems
    except UserInterrupt:
        click.echo("Interrupted", err=True)
        context.exit(EXIT_INTERRUPTED)
    except MachineRefusal as error:  # the machine's limit, not the strategy's problem: said alone, with its own code
        click.echo(f"Error: {error}", err=True)
        context.exit(EXIT_MACHINE_REFUSED)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        runner_log.removeHandler(printed)
        runner_log.setLevel(previous_level)
    slowest_text = f"; slowest game {slowest * 1000:.0f} ms" if finished else ""
    click.echo(f"{finished} of {games} game{'s' * (games != 1)} finished; won {wins:g}{slowest_text}")
    if printed.characters and not verbose:
        click.echo(f"the strategies printed {printed.characters} characters (shown with -v)")
    if problems:
        click.echo(f"{problems} problem{'s' * (problems != 1)} found", err=True)
        context.exit(1)
    click.echo("no problems found")


def _borrowed_name(checked) -> str | None:
    """The problem of a strategy that is no built-in but goes by a built-in's name (a copy of ``strategies/expert.py``
    that kept ``name = "expert"``): its results would be recorded, and compared, as the built-in's; ``None`` when
    its name is its own or it is the built-in itself (``isolated:expert`` included)."""
    builtin = BUILTIN.get(checked.cls.name)
    if builtin is None or checked.cls is builtin or not borrows_built_in_name(checked.spec, checked.cls.name):
        return None
    return (f"problem: it is named {builtin.name!r}, as the built-in {builtin.name} is, so its results would be "
            f"recorded as {checked.label} and read as the built-in's; give the class a name of its own "
            "(name = \"my-bot\")")


def _ended_badly(bot, where: str = "the bot process") -> bool:
    """Report a bot process that did not end as docs/protocol.md's Endings asks; whether it did not."""
    if bot.outstayed:
        click.echo(f"problem: {where} was still running {STOP_GRACE:g} s after 'quit' and the end of its "
                   "input, and was killed (canasta-sim docs protocol, Endings)", err=True)
    if bot.left_processes:
        click.echo(f"problem: {where} exited leaving processes it started running; they were killed "
                   "(canasta-sim docs protocol, Endings)", err=True)
    return bot.outstayed or bot.left_processes


class _Endings:
    """How a game's bot processes ended, sent back from the game's own process (the processes cannot be)."""

    def __init__(self, bots) -> None:
        self.outstayed = any(bot.outstayed for bot in bots)
        self.left_processes = any(bot.left_processes for bot in bots)


def _interrupt(number, frame) -> None:
    # The user's own Ctrl-C or SIGTERM: not a KeyboardInterrupt, which would be a strategy's failure.
    raise UserInterrupt()


class _PrintedHandler(logging.Handler):
    """Counts (and under -v shows) what the strategies printed, which the game's process logs."""

    def __init__(self, verbose: bool) -> None:
        super().__init__(logging.INFO)
        self.verbose = verbose
        self.characters = 0

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        self.characters += len(text)
        if self.verbose:
            click.echo(text, err=True)


def _without_lines(play, monitor, send):
    """``play(monitor)``, a game that writes no lines, as :func:`play_supervised` calls it (a lambda would not reach a
    spawned process)."""
    return play(monitor)


def _play(players, game_seed, rules, names, time_limit, times, checked, monitor):
    """The game played ``times`` times in a row in one process (a replay must not depend on what the
    first play left behind), or the failure that ended it; how the bot processes it started ended; and the names
    of what the game changed in the ``checked`` strategy's class's own modules (:func:`kept_state`), each play
    compared with the state before it: a model loaded at the first play is judged by what the replay does to it.

    ``checked`` is the loaded strategy, not its class: a spawned game process loads it again with the players (it is
    one of them, so the class watched is the class played)."""
    checked = checked.cls
    states = [kept_state(checked)]

    def play():
        result = play_game(players, seed=game_seed, rules=rules, names=names, time_limit=time_limit, monitor=monitor)
        states.append(kept_state(checked))
        return result

    if monitor is not None:  # in the game's own process, whose output goes back as what the strategies printed
        # A bot's stderr is logged as it is read; here it joins what the strategies printed.
        bots_log = logging.getLogger("canasta_sim.bots")
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        bots_log.addHandler(handler)
        bots_log.setLevel(logging.INFO)
    try:
        outcome = [play() for _ in range(times)]
    except StrategyError as error:
        # The machine refusing a bot seat's process is sent back as itself: the command stops, blaming no strategy.
        outcome = machine_refusal(error) or error
        states.append(kept_state(checked))
    # Ended here, not when the process exits: its last stderr lines are read, and how it ended is judged.  The
    # game's clock stops first: the bots' grace period after quit is no decision's time.
    if monitor is not None:
        monitor[MONITOR_GAME] = -1
    changed = sorted({name for before, after in itertools.pairwise(states) for name in changed_names(before, after)})
    return outcome, _Endings(close_all() if monitor is not None else []), changed


def _kept(changed: list[str], index: int, reported: set[str]) -> bool:
    """Report what game ``index`` changed of what its strategy keeps between games, unless an earlier game's report
    (``reported``, updated) named it all; whether it was reported."""
    if not set(changed) <= reported:
        reported.update(changed)
        click.echo(f"problem in game {index}: it changed what its class or module keeps from one game to the next "
                   f"({', '.join(changed[:_KEPT_SHOWN])}{', ...' if len(changed) > _KEPT_SHOWN else ''}), so a "
                   "game would depend on the games its process played before: a run's results would change with "
                   "--workers; keep what a game learns on self, a new instance each game", err=True)
        return True
    return False


_KEPT_SHOWN = 5


def _charge(names, game_seed, seat, decision, reason, message) -> StrategyError:
    error = StrategyError(message, spec=names[seat], seat=seat, game_seed=game_seed, decision=decision, reason=reason)
    error.first_dealer = first_dealer(game_seed)
    return error


MACHINE_DEATHS = 3
"""Times one game may meet the machine's doing in a built-in's call (:func:`machines_doing`) before the check ends."""


def _machines_doing(result) -> str | None:
    """:func:`machines_doing` of the failure that ended a supervised game (its process's death, or what it raised)."""
    failure = result if isinstance(result, StrategyError) else result[0]
    return machines_doing(failure) if isinstance(failure, StrategyError) else None


def _opponent(index: int, opponents):
    """Game ``index``'s opponent: two games against each in turn, one on each side."""
    return opponents[(index // 2) % len(opponents)]


def _check(checked, opponents, games, seed, rules, time_limit) -> tuple[int, int, float, float]:
    problems = 0
    wins = 0.0
    finished = 0
    slowest = 0.0
    kept: set[str] = set()  # what the strategy keeps between games, reported
    for index in range(games):
        opponent = _opponent(index, opponents)
        swapped = index % 2  # sides alternate: the checked strategy plays side A, then side B
        side_a, side_b = (opponent, checked) if swapped else (checked, opponent)
        game_seed = derive_seed(seed, f"check{index}")
        players = [side_a, side_b, side_a, side_b]
        names = [player.spec for player in players]
        # Game 0 is played twice in one process: the same seed must give the same game.
        play = functools.partial(_play, players, game_seed, rules, names, time_limit, 2 if index == 0 else 1,
                                 checked)
        charge = functools.partial(_charge, names, game_seed)
        for attempt in itertools.count(1):
            start = time.perf_counter()
            result = play_supervised(functools.partial(_without_lines, play), charge, time_limit,
                                     f"game {index} against {opponent.spec}")
            machines = _machines_doing(result)
            if machines is None:
                break
            # The machine's doing, as a run's supervisor judges it: played again, and a game meeting it every time
            # ends the check as the machine's limit does.
            if attempt == MACHINE_DEATHS:
                raise MachineRefusal(f"{machines} (game {index}, {attempt} times)")
            click.echo(f"game {index}: {machines}; played again", err=True)
        if not isinstance(result, StrategyError):
            result, endings, changed = result
            if isinstance(result, MachineRefusal):
                raise result
            problems += _ended_badly(endings, f"a bot process of game {index}") + _kept(changed, index, kept)
        if not isinstance(result, StrategyError):
            result, *again = result
        if isinstance(result, StrategyError):
            problems += 1
            click.echo(f"problem in game {index} against {opponent.spec}: {result} (reason: {result.reason})", err=True)
            if result.traceback:
                click.echo(result.traceback.rstrip(), err=True)
            click.echo(watch_here(game_seed, (side_a.spec, side_b.spec), rules), err=True)
            continue
        slowest = max(slowest, (time.perf_counter() - start) / (1 + len(again)))
        finished += 1
        if result.winner is None:
            wins += 0.5
        elif result.winner == swapped:
            wins += 1
        if again:
            # The same seed must give the same game: a strategy that used global random state,
            # the clock or memory kept between games would play differently the second time.
            if again[0] != result:
                problems += 1
                click.echo(
                    f"problem in game {index}: replaying seed {game_seed} gave a different game; a strategy "
                    "must draw randomness only from self.rng and keep no state between games",
                    err=True,
                )
    return problems, finished, wins, slowest
