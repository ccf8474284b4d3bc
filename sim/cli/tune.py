"""``canasta-sim tune SPEC``: find better values of a strategy's parameters by SPSA.

Each iteration plays two candidates around the current values against each other on the same deals
(sides swapped), or both against ``--against SPEC``, and moves the values towards the side that
scored better (:mod:`canasta_sim.tuning.spsa` for the update rule and its gains, :mod:`canasta_sim.tuning.iteration` for
the games).  The trajectory is written to ``DIR/trajectory.parquet`` after every iteration and the
settings to ``DIR/tune.json``; ``canasta-sim plot DIR`` draws it.  The last line printed is the tuned
strategy as a ready spec.

Ctrl-C or SIGTERM stop the workers as they stop ``run``'s: each finishes the game it is playing, those
still busy two seconds later (a strategy looping with no ``--time-limit``) are killed, and the iteration
being played is dropped; a second Ctrl-C stops at once.  Either way every finished iteration is kept and
``--resume DIR`` continues exactly where it stopped.  Exit codes: 0 done, 1 a strategy failed, 2 bad
input, 130 interrupted.

The games are played in supervised worker processes (:mod:`canasta_sim.runs.supervisor`), as ``run`` plays
them: a strategy that raises, exits, crashes or outlives ``--time-limit`` loses its game with a reason
(``--on-error forfeit``) or ends the tuning with a one-line error (``stop``), and what strategies print
goes to the log (``--log-file``), never to the output.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import os
import shlex
import sys
from pathlib import Path

import click
from tqdm import tqdm

from canasta_sim.cli import RESUMED_WITH, WRITTEN_TO
from canasta_sim.cli.command_logging import install_logging
from canasta_sim.cli.options import (
    STRATEGY_SPECS,
    OneLineErrorCommand,
    WholeNumber,
    cap_games_at_once,
    counted,
    default_folder_made,
    fail,
    limit_memory,
    open_log_file,
    pin_cores,
    refuse_isolating_resume,
    rules_given,
    rules_option,
    rules_options,
    rules_text,
    supervision_options,
    worker_count,
    workers_option,
)
from canasta_sim.cli.outputs import is_standard_output, print_then_stop
from canasta_sim.cli.replaying import (
    limit_options,
    note_outside_code,
    out_named,
    recorded_games_at_once,
    recorded_memory_limit,
    recorded_start,
    same_strategies_as_run,
    specs_named_from_start,
    start_command,
    started_elsewhere,
)
from canasta_sim.core._compiled import accelerator
from canasta_sim.core.parameters import format_value
from canasta_sim.core.rules import Rules
from canasta_sim.errors import CanastaError, MachineRefusal
from canasta_sim.plugins.specs import isolate_spec
from canasta_sim.runs.interleave import games_at_once_cap
from canasta_sim.runs.shown_commands import join_shown, quote_shown
from canasta_sim.runs.storage import claimed_directory
from canasta_sim.runs.summary import hand_cap_line
from canasta_sim.runs.supervisor import WorkerStartError
from canasta_sim.strategies import BUILTIN
from canasta_sim.tuning.iteration import ON_ERROR_CHOICES, TunedStrategy
from canasta_sim.tuning.run import (
    TuningDirectory,
    TuningOutcome,
    TuningSettings,
    check_versions,
    final_fields,
    is_tuning_run,
    new_manifest,
    outcome_on_disk,
    run_tuning,
)
from canasta_sim.tuning.spsa import SettingError

__all__ = ["tune_command"]

EXIT_STOPPED = 1
EXIT_INTERRUPTED = 130
DEFAULT_GAMES = 20000
DEFAULT_GAMES_PER_ITERATION = 16

# Options fixed by the run: on --resume they may be repeated only with the recorded value.
_SETTING_OPTIONS = {
    "spec": "SPEC", "against": "--against", "games": "--games", "games_per_iteration": "--games-per-iteration",
    "params": "--params", "seed": "--seed", "rules": "--rules", "learning_rate": "--learning-rate",
    "perturbation": "--perturbation", "stability": "--stability", "on_error": "--on-error",
    "time_limit": "--time-limit",
}


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).astimezone().isoformat(timespec="seconds")


def _default_out() -> Path:
    """``results/tune-<date-time>``, made now (:func:`~canasta_sim.cli.options.default_folder_made`)."""
    return default_folder_made(Path("results") / f"tune-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}")


def reproducing_command(settings: TuningSettings, path: Path, memory_limit: int | None = None) -> str:
    """The command line that plays exactly this tuning (its seed included) into ``path``, with the session's
    ``--memory-limit`` and ``--games-at-once`` (as this process hands it to its workers), which decide which
    strategies fail."""
    words = ["canasta-sim", "tune", settings.spec, "--games", str(settings.games), "--games-per-iteration",
             str(settings.games_per_iteration), "--seed", str(settings.seed)]
    if settings.against is not None:
        words += ["--against", settings.against]
    if settings.params is not None:
        words += ["--params", ",".join(settings.params)]
    words += rules_options(settings.rules)
    words += ["--learning-rate", format_value(settings.learning_rate), "--perturbation",
              format_value(settings.perturbation)]
    if settings.stability is not None:
        words += ["--stability", format_value(settings.stability)]
    if settings.on_error != "stop":
        words += ["--on-error", settings.on_error]
    if settings.time_limit is not None:
        words += ["--time-limit", format_value(settings.time_limit)]
    return start_command(shlex.join([*words, *limit_options(memory_limit), "--out", out_named(path)]),
                         (settings.spec, settings.against))


def _parse_params(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _resumed_settings(resume: Path, given: dict,
                      stack: contextlib.ExitStack) -> tuple[TuningDirectory, dict, TuningSettings]:
    """The resumed tuning's directory, ``tune.json`` and settings, refused in one line when ``given`` options differ;
    when its spec names a file relative to the directory the tuning started in, that directory is made the working
    one until ``stack`` closes (the tuning's own directory made absolute first), as a resumed run's strategies start
    where the run did."""
    directory = TuningDirectory(resume)
    try:
        manifest = directory.read_manifest()
        settings = TuningSettings.from_manifest(manifest, str(directory.manifest_path))
    except CanastaError as error:
        raise fail(f"--resume: {error}") from None
    recorded = {
        "spec": settings.spec, "against": settings.against, "games": settings.games,
        "games_per_iteration": settings.games_per_iteration, "params": settings.params, "seed": settings.seed,
        "rules": settings.rules, "learning_rate": settings.learning_rate, "perturbation": settings.perturbation,
        "stability": settings.stability, "on_error": settings.on_error, "time_limit": settings.time_limit,
    }
    # Judged here, before the move to the start folder: a strategy path typed again means a file from where it was
    # typed, as run --resume reads it.
    differences = [f"{option} {_as_given(key, recorded[key])}, not {_as_given(key, given[key])}"
                   for key, option in _SETTING_OPTIONS.items() if _differs(key, given[key], recorded[key], manifest)]
    if differences:
        raise fail(f"--resume {resume}: the tuning was made with other settings ({'; '.join(differences)}); "
                   "resume it without those options or start a new tuning")
    try:
        started = started_elsewhere(manifest, (settings.spec, settings.against))
        if started is not None:
            directory = TuningDirectory(directory.path.absolute())
            stack.enter_context(contextlib.chdir(started))
        for change in check_versions(manifest, settings, directory.path):
            click.echo(f"Warning: {directory.path}: {change}; if its play changed, the iterations played now are not "
                       "played as the first ones were: raise its version and start a new tuning", err=True)
    except CanastaError as error:
        raise fail(f"--resume: {error}") from None
    return directory, manifest, settings


def _differs(key: str, given, recorded, manifest: dict) -> bool:
    """Whether an option repeated on ``--resume`` differs from the tuning's: a file spec is the tuning's when it names
    the same file, as ``run --resume`` judges it (:func:`~canasta_sim.cli.replaying.same_strategies_as_run`), found
    from the directory the resume is typed in."""
    if given is None or given == recorded:
        return False
    return key not in ("spec", "against") or not same_strategies_as_run((given,), manifest, (recorded,))


def _named_specs(*specs: str | None) -> tuple[str | None, ...]:
    """The specs as the tuning names them in ``tune.json``, its trajectory and what it prints
    (:func:`~canasta_sim.cli.replaying.specs_named_from_start`: a file by its path from the start folder or the home),
    so that a published tuning names no one's home."""
    return tuple(None if spec is None else specs_named_from_start((spec,))[0] for spec in specs)


def _kept_option(recorded, directory: TuningDirectory, manifest: dict) -> int | None:
    """``recorded(manifest, where)``: an option of the tuning's last session (:mod:`canasta_sim.cli.replaying`), which
    ``--resume`` keeps unless given, as ``run --resume`` does (``--memory-limit``, ``--games-at-once``: they decide
    which strategies fail, and so the iterations' results); a malformed entry refused in one line."""
    try:
        return recorded(manifest, str(directory.manifest_path))
    except CanastaError as error:
        raise fail(f"--resume: {error}") from None


def _as_given(key: str, value) -> str:
    """A setting as its option takes it (a message shows it): not Python's ``None``, tuples or rule sets."""
    if key == "params":
        return "(every parameter with a range)" if value is None else ",".join(value)
    if key == "rules":
        return rules_text(value)
    return format_value(value)


def _new_settings(given: dict, out: Path | None) -> tuple[TuningDirectory, dict, TuningSettings]:
    if given["spec"] is None:
        raise fail("tune needs a strategy SPEC to tune (e.g. canasta-sim tune expert), or --resume DIR")
    seed_drawn = given["seed"] is None
    seed = int.from_bytes(os.urandom(4), "big") if seed_drawn else given["seed"]
    defaults = {"games": DEFAULT_GAMES, "games_per_iteration": DEFAULT_GAMES_PER_ITERATION, "rules": Rules(),
                "learning_rate": 0.3, "perturbation": 0.2, "on_error": "stop"}
    chosen = {key: defaults[key] if given[key] is None else given[key] for key in defaults}
    spec, against = _named_specs(given["spec"], given["against"])
    try:
        settings = TuningSettings(spec=spec, params=given["params"], against=against, seed=seed,
                                  stability=given["stability"], time_limit=given["time_limit"], **chosen)
    except SettingError as error:  # named as the field of the update rule: told as the option the user typed
        raise fail(error.told_as(_SETTING_OPTIONS.get(error.field, error.field))) from None
    except ValueError as error:
        raise fail(str(error)) from None
    directory = TuningDirectory(out if out is not None else _default_out())
    if directory.path.exists() and not directory.path.is_dir():
        raise fail(f"--out {directory.path} is a file, not a directory")
    if directory.path.is_dir() and any(directory.path.iterdir()):
        hint = f"; continue it with --resume {directory.path}" if is_tuning_run(directory.path) else ""
        raise fail(f"--out {directory.path} is not empty; choose a new or empty directory{hint}")
    try:
        manifest = new_manifest(settings, reproducing_command(settings, directory.path), seed_drawn,
                                directory=recorded_start((settings.spec, settings.against)))
    except MachineRefusal as error:  # the machine's limit, no spec that cannot be used: exit 1, as a worker's
        raise click.ClickException(str(error)) from None
    except CanastaError as error:
        raise fail(str(error)) from None
    return directory, manifest, settings


@click.command("tune", cls=OneLineErrorCommand)
@click.argument("spec", required=False)
@click.option("--against", default=None, metavar="SPEC",
              help="Play both candidates against this strategy (default: the two candidates play each other; "
                   f"{STRATEGY_SPECS}).")
@click.option("--games", type=WholeNumber(min=1), default=None,
              help=f"Total games to play (the budget; default {DEFAULT_GAMES}).")
@click.option("--games-per-iteration", type=WholeNumber(min=1), default=None,
              help=f"Games per SPSA iteration: a multiple of 2 head to head, of 4 with --against "
                   f"(default {DEFAULT_GAMES_PER_ITERATION}).")
@click.option("--params", default=None, metavar="A,B",
              help="Parameters to tune, by name, comma-separated (default: every parameter with a declared range; "
                   "canasta-sim strategies SPEC lists them with their ranges).")
@click.option("--seed", type=WholeNumber(), default=None,
              help="Seed of the deals and perturbations (default: drawn at random, printed and recorded).")
@workers_option
@rules_option
@click.option("--learning-rate", type=float, default=None,
              help="SPSA step gain a, in fractions of each range per unit of result (default 0.3).")
@click.option("--perturbation", type=float, default=None,
              help="SPSA perturbation c: the first perturbation as a fraction of each range (default 0.2).")
@click.option("--stability", type=float, default=None,
              help="SPSA stability constant A (default: a tenth of the iterations).")
@click.option("--on-error", type=click.Choice(ON_ERROR_CHOICES), default=None,
              help="When a strategy fails: stop (default; finished iterations are kept) or forfeit the game.")
@click.option("--isolate", is_flag=True,
              help="Run SPEC and --against in processes of their own unless built-in (as isolated:SPEC).")
@supervision_options(resumed="the tuning")
@click.option("--out", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Directory for tune.json and trajectory.parquet (default: results/tune-<date-time>).")
@click.option("--resume", type=click.Path(path_type=Path), default=None, metavar="DIR",
              help="Continue the tuning in DIR with the settings of its tune.json, and the --memory-limit it last "
                   "played with unless given.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no messages; the results still print.")
@click.pass_context
def tune_command(ctx: click.Context, spec, against, games, games_per_iteration, params, seed, workers, rule_options,
                 learning_rate, perturbation, stability, on_error, isolate, time_limit, memory_limit, games_at_once,
                 pin, log_file, out, resume, quiet) -> None:
    """Tune SPEC's parameters by SPSA and print the tuned strategy as a spec.

    Each iteration plays two candidates around the current values on the same deals, each deal with
    the sides swapped, and moves the values towards the better one.  See canasta-sim docs tuning.
    """
    try:
        rules = rules_given(rule_options) if rule_options else None
    except CanastaError as error:
        raise fail(str(error)) from None
    pin_cores(pin)
    if isolate:
        spec, against = (None if named is None else isolate_spec(named, BUILTIN) for named in (spec, against))
    given = {"spec": spec, "against": against, "games": games, "games_per_iteration": games_per_iteration,
             "params": _parse_params(params), "seed": seed, "rules": rules, "learning_rate": learning_rate,
             "perturbation": perturbation, "stability": stability, "on_error": on_error, "time_limit": time_limit}
    here = Path.cwd()
    if log_file is not None and not is_standard_output(log_file):
        log_file = log_file.absolute()  # where the user said, should a resume start the strategies elsewhere
    with contextlib.ExitStack() as stack:
        if resume is not None:
            if out is not None and Path(out).resolve() != Path(resume).resolve():
                raise fail(f"--out {out} and --resume {resume} name different directories; give only --resume")
            directory, manifest, settings = _resumed_settings(resume, given, stack)
            made = tuple(named for named in (settings.spec, settings.against) if named is not None)
            if isolate:
                refuse_isolating_resume(resume, made, "tuning")
            note_outside_code(manifest, made, (), "resuming the tuning")  # from its start folder, moved to
            if ctx.get_parameter_source("memory_limit") != click.core.ParameterSource.COMMANDLINE:
                memory_limit = _kept_option(recorded_memory_limit, directory, manifest)
            if ctx.get_parameter_source("games_at_once") != click.core.ParameterSource.COMMANDLINE:
                games_at_once = _kept_option(recorded_games_at_once, directory, manifest)
        else:
            directory, manifest, settings = _new_settings(given, out)
        limit_memory(memory_limit)  # the bot processes of isolated: and cmd: specs get the limit too
        cap_games_at_once(games_at_once)
        file_handler = open_log_file(log_file)
        workers = worker_count(workers, (settings.spec, settings.against or settings.spec))
        stack.enter_context(claimed_directory(directory.path))  # a second tuning or resume into it is refused
        _tune(settings, directory, manifest, workers=workers, quiet=quiet, memory_limit=memory_limit,
              file_handler=file_handler, started_from=None if Path.cwd() == here else str(Path.cwd()))


def _tune(settings: TuningSettings, directory: TuningDirectory, manifest: dict, *, workers: int, quiet: bool,
          memory_limit: int | None = None, file_handler: logging.Handler | None = None,
          started_from: str | None = None) -> None:
    say = (lambda text: None) if quiet else (lambda text: click.echo(text, err=True))
    tuned, _ = TunedStrategy.from_spec(settings.spec, settings.params)
    table = directory.read_trajectory()
    done = 0 if table is None else table.num_rows
    session = {"started_at": _now(), "ended_at": None, "workers": workers, "iterations_played": 0,
               "status": "running", "build": accelerator.describe(), "memory_limit": memory_limit}
    if (cap := games_at_once_cap()) is not None:
        session.update(games_at_once=cap)
    manifest.setdefault("sessions", []).append(session)
    manifest["command"] = reproducing_command(settings, directory.path, memory_limit)  # this session's options
    manifest["status"] = "running"
    resume_hint = f"canasta-sim tune --resume {quote_shown(str(directory.path))}"
    click.get_current_context().meta[RESUMED_WITH] = resume_hint  # if the disk refuses tune.json or the trajectory
    directory.write_manifest(manifest)
    opponent = f"against {settings.against}" if settings.against else "head to head"
    say(f"tune {settings.spec} ({manifest['strategy']['label']}): {', '.join(tuned.names)}; {opponent}, "
        f"{counted(settings.iterations, 'iteration')} of {counted(settings.games_per_iteration, 'game')}, "
        f"seed {settings.seed}{' (drawn)' if manifest.get('seed_drawn') else ''}, {counted(workers, 'worker')} "
        f"-> {directory.path}")
    if done:
        say(f"resuming: {counted(done, 'iteration')} already played")
    show_bar = not quiet and sys.stderr.isatty()
    bar = tqdm(total=settings.iterations, initial=done, unit="it", disable=not show_bar, file=sys.stderr,
               dynamic_ncols=True, smoothing=0.1)
    played = {"iterations": 0}

    def on_iteration(row, values) -> None:
        played["iterations"] += 1
        bar.update(1)
        bar.set_postfix_str(", ".join(f"{name}={format_value(value)}"
                                      for name, value in zip(tuned.names, values, strict=True)), refresh=False)

    error, advice = None, f"fix the strategy and run {resume_hint}, or start again with --on-error forfeit"
    outcome: TuningOutcome | None = None
    handlers, restore_logging = install_logging(quiet, False, file_handler)
    try:
        outcome = run_tuning(settings, directory, workers=workers, on_iteration=on_iteration,
                             memory_limit=memory_limit, log_handlers=handlers, stop_on_signals=True)
    except KeyboardInterrupt:
        pass  # a second Ctrl-C: the finished iterations are on disk; the summary below reads them
    except CanastaError as failure:  # a TuningError for a strategy failure, or a strategy that no longer loads
        error = str(failure)
        # Workers that cannot start or keep dying, a machine refusing a bot its process: no forfeit would help.
        if isinstance(failure, (WorkerStartError, MachineRefusal)):
            advice = f"{resume_hint} goes on"
    finally:
        bar.close()
        restore_logging()
    if outcome is None:
        # Stopped inside an iteration: what counts is what the trajectory on disk holds.
        try:
            outcome = outcome_on_disk(settings, directory, "stopped" if error else "interrupted")
        except CanastaError as failure:  # the strategy no longer loads: the trajectory on disk is still whole
            click.echo(f"Error: {error or failure}; finished iterations are kept in {directory.path}", err=True)
            sys.exit(EXIT_STOPPED)
    session.update(ended_at=_now(), iterations_played=played["iterations"], status=outcome.status)
    manifest.update(final_fields(outcome))
    directory.write_manifest(manifest)
    stopped = None
    if error:
        stopped = f"Error: {' '.join(error.split())}; finished iterations are kept; {advice}", EXIT_STOPPED
    elif outcome.status == "interrupted":
        stopped = f"Interrupted: finished iterations are kept; continue with {resume_hint}", EXIT_INTERRUPTED
    click.get_current_context().meta[WRITTEN_TO] = (  # told if the outcome cannot be printed
        f"the tuning is written to {quote_shown(str(directory.path))} (its tune.json's final_spec is the tuned "
        "strategy)")
    print_then_stop(lambda: _print_outcome(settings, manifest, outcome, started_from, memory_limit), stopped)


def _print_outcome(settings: TuningSettings, manifest: dict, outcome: TuningOutcome,
                   started_from: str | None = None, memory_limit: int | None = None) -> None:
    """The summary, the suggested check and the tuned spec; ``started_from``: the directory a resume started the
    strategies in (the tuning's own), where the check must start too; ``memory_limit``: the session's, which the
    check carries as it carries the clock."""
    parameters = {entry["name"]: entry for entry in manifest["parameters"]}
    played = f"{outcome.iterations_done} of {counted(outcome.iterations, 'iteration')}"
    click.echo(f"{played} ({counted(outcome.games_done, 'game')}), {outcome.status}:")
    width = max(len(name) for name in outcome.names)
    for name, start, value in zip(outcome.names, outcome.start, outcome.values, strict=True):
        entry = parameters[name]
        click.echo(f"  {name:<{width}}  {format_value(start):>6} -> {format_value(value):<6}  "
                   f"(range {format_value(entry['low'])} to {format_value(entry['high'])})")
    if outcome.hand_capped:  # results of games that never ended steered the values
        click.echo(hand_cap_line(outcome.hand_capped, outcome.capped_known))
    # Checked against its starting point, whatever it was tuned against: whether the tuning gained is that question
    # (beating a fixed opponent says nothing of a gain when the start beat it too).  Under the same rules, clock,
    # memory limit, games at once and choice on failure, which decide the games (which strategies fail, and what a
    # failure counts for); not on the tuning's workers: they decide no game of either command, a resume may have
    # changed them for its own session, and compare's default (a worker per core) suits a check.
    if outcome.start == outcome.values:
        # A compare of the start against itself would only measure noise.
        click.echo("nothing to check: the values are the starting ones")
    else:
        words = ["canasta-sim", "compare", outcome.spec, "--baseline", settings.spec, *rules_options(settings.rules)]
        if settings.time_limit is not None:
            words += ["--time-limit", format_value(settings.time_limit)]
        if settings.on_error != "stop":
            words += ["--on-error", settings.on_error]
        check = join_shown([*words, *limit_options(memory_limit)])
        shown = check if started_from is None else start_command(check, (settings.spec,), quote_shown)
        click.echo(f"check it: {shown}")
    click.echo(outcome.spec)

