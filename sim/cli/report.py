"""``canasta-sim report RUN_DIR``: a run's summary, as printed at the end of the run, in five formats.

Every format carries the same figures: the per-strategy summary and, for duplicate deals and round robins,
the paired results, the cross table and the ratings (:mod:`canasta_sim.analysis.sections`).  The HTML page
adds the charts and the replays of a few games (:mod:`canasta_sim.cli.report_html`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from canasta_sim.analysis import entrants_of, strategy_names
from canasta_sim.analysis.sections import as_printed, format_csv, format_markdown, sections_json
from canasta_sim.cli.continuing import resume_playing
from canasta_sim.cli.options import (
    OneLineErrorCommand,
    changed_rules_text,
    fail,
    interrupted_as_the_users,
    refuse_tuning_directory,
)
from canasta_sim.cli.outputs import check_output_folder, echo_whole, is_standard_output, write_output
from canasta_sim.cli.report_html import folder_name, report_page
from canasta_sim.cli.report_markdown import markdown_charts
from canasta_sim.errors import CanastaError
from canasta_sim.runs.matchmaking import matchmaking_results
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.sprt import Sprt
from canasta_sim.runs.storage import RunDirectory, recorded_label, whole_entry
from canasta_sim.runs.summary import format_summary, hand_cap_line, summarize_run

__all__ = ["compare_line", "missing_parts", "report_command", "run_description"]

FORMATS = ("text", "markdown", "csv", "json", "html")


def _code_changes(strategies: list) -> list[dict[str, Any]]:
    """The strategies whose code changed under the same version between sessions (``file_code_changes`` in
    ``run.json``): ``spec``, ``label`` and the ``sessions`` that began with other code."""
    changes = []
    for entry in strategies:
        noted = entry.get("file_code_changes") if isinstance(entry, dict) else None
        if isinstance(noted, list) and noted:
            changes.append({"spec": entry.get("spec"), "label": recorded_label(entry) or entry.get("spec"),
                            "sessions": [change.get("session") for change in noted if isinstance(change, dict)]})
    return changes


def run_description(manifest: dict[str, Any], games_read: int) -> dict[str, Any]:
    """The facts about a run that a report shows above its table (and puts under ``run`` in JSON)."""
    strategies = manifest.get("strategies", [])
    return {
        "strategies": [recorded_label(entry) or entry.get("spec") for entry in strategies],
        "specs": [entry.get("spec") for entry in strategies],
        "matchup": manifest.get("matchup"),
        "seed": manifest.get("seed"),
        "games_planned": manifest.get("games"),
        "games_done": games_read,
        "status": manifest.get("status"),
        "rules_changed": manifest.get("rules_changed", {}),
        "engine_version": manifest.get("engine_version"),
        "code_changes": _code_changes(strategies),
        "started_at": manifest.get("started_at"),
        "ended_at": manifest.get("ended_at"),
        "command": manifest.get("command"),
        # The sequential test whose games these are (compare --out): its verdict is the reason the run exists.
        **({"compare": manifest["compare"]} if isinstance(manifest.get("compare"), dict) else {}),
    }


def compare_line(comparison: dict[str, Any] | None) -> list[str]:
    """The verdict of ``canasta-sim compare`` as one line, for the games it saved; none for another run."""
    if comparison is None:
        return []
    try:
        test = Sprt(float(comparison["elo0"]), float(comparison["elo1"]), float(comparison["alpha"]),
                    float(comparison["beta"]))
        games, llr = int(comparison["games"]), float(comparison["llr"])
    except (KeyError, TypeError, ValueError):
        return []  # an entry some other tool wrote: the report goes on without it
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted"}.get(comparison.get("decision"), "no decision")
    return [f"compare {comparison.get('new')} against {comparison.get('baseline')}: {verdict} after {games} games, "
            f"LLR {llr:.2f} [{test.lower:.2f}, {test.upper:.2f}] (elo0 {test.elo0:g}, elo1 {test.elo1:g}, "
            f"alpha {test.alpha:g}, beta {test.beta:g})"]


def forfeit_reasons(directory: RunDirectory) -> dict[str, dict[str, int]]:
    """How many games each strategy forfeited, by reason (the ``forfeit_reason`` column), for the report."""
    counts: dict[str, dict[str, int]] = {}
    for _, games, _ in directory.iter_chunks(None, ["game_id"]):
        if "forfeit_reason" not in games.column_names:
            continue  # a run written before the column existed
        rows = games.select(["team_a_strategy", "team_b_strategy", "forfeit_team", "forfeit_reason"]).to_pylist()
        for row in rows:
            if row["forfeit_team"] is not None:
                spec = row["team_a_strategy"] if row["forfeit_team"] == "A" else row["team_b_strategy"]
                reasons = counts.setdefault(spec, {})
                reasons[row["forfeit_reason"]] = reasons.get(row["forfeit_reason"], 0) + 1
    return counts


def _forfeit_lines(reasons: dict[str, dict[str, int]]) -> list[str]:
    return [f"forfeits of {spec}: " + ", ".join(f"{count} {reason}" for reason, count in sorted(by_reason.items()))
            for spec, by_reason in sorted(reasons.items())]


_MISSING_SHOWN = 5
"""Chunks the header names when parts are missing; the rest are counted."""


def missing_parts(directory: RunDirectory, manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The parts the run should hold and does not, one record (``chunk``, ``parts``) per chunk: every chunk of a run
    ``run.json`` calls complete, and any chunk with a ``games`` part, must have its ``hands`` part and, in a run
    recording decisions (``record_decisions``), its ``decisions`` part.

    :raises DamagedPartError: for a ``decisions`` part that cannot be read (the summary reads the other parts).
    """
    chunks = manifest.get("chunks")
    finished = manifest.get("status") == "complete" and isinstance(chunks, int) and not isinstance(chunks, bool)
    missing = directory.missing_parts(chunks if finished else None,
                                      with_decisions=bool(manifest.get("record_decisions")))
    return [{"chunk": chunk, "parts": names} for chunk, names in missing.items()]


def _code_change_line(change: dict[str, Any]) -> str:
    sessions = change["sessions"]
    return (f"code changed: {change['label']} ({change['spec']}) began session{'s' if len(sessions) > 1 else ''} "
            f"{', '.join(map(str, sessions))} with other code, its version the same; if its play changed, the run's "
            "games are of more than one play")


def _missing_lines(missing: list[dict[str, Any]], path: Path, description: dict[str, Any]) -> list[str]:
    if not missing:
        return []
    named = [f"{' and '.join(record['parts'])} of chunk {record['chunk']}" for record in missing[:_MISSING_SHOWN]]
    more = len(missing) - len(named)
    listed = "; ".join(named) + (f"; and parts of {more} more chunks" if more else "")
    return [f"parts missing: {listed}; {resume_playing(description, path, 'plays their chunks again')}"]


def _no_writer(description: dict[str, Any], path: Path) -> str:
    """What the header adds to a run.json's "running" that no process is writing: killed, not going on."""
    if description.get("being_written") is not False:
        return ""
    if "compare" in description:
        going_on = f"canasta-sim compare --resume {quote_shown(str(path))} goes on with it"
    else:  # a run of another engine, which run --resume refuses, is named so
        going_on = resume_playing(description, path, "goes on with it")
    return f" in run.json, yet no process is writing it: it was killed or its machine stopped; {going_on}"


def _header(description: dict[str, Any], path: Path, names: dict[str, str]) -> list[str]:
    # Named as the charts name them: two settings of one strategy share name@version, so each adds its spec.
    labels = [names[spec] for spec in description["specs"]]
    if len(labels) >= 3:
        matchup = f"round robin of {', '.join(labels)}"
    else:
        matchup = " vs ".join(labels) if len(labels) == 2 else f"{labels[0] if labels else '?'} (mirror match)"
    rules = changed_rules_text(description["rules_changed"])
    engine = "not recorded" if description["engine_version"] is None else description["engine_version"]
    return [
        f"run {path}: {matchup}",
        f"games {description['games_done']} of {description['games_planned']} ({description['status']}"
        f"{_no_writer(description, path)}"
        f"{', but parts are missing' if description.get('missing_parts') else ''}), "
        f"seed {description['seed']}, rules {rules}, engine {engine}",
        *map(_code_change_line, description.get("code_changes", [])),
        *_missing_lines(description.get("missing_parts", []), path, description),
        *compare_line(description.get("compare")),
        # Beside the forfeits: how games ended that the figures count as any other.
        *filter(None, [hand_cap_line(description.get("hand_capped", 0), description["games_done"])]),
        *_forfeit_lines({names.get(spec, spec): reasons
                         for spec, reasons in description.get("forfeit_reasons", {}).items()}),
    ]


@click.command("report", cls=OneLineErrorCommand)
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--format", "style", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text (aligned table), markdown (with --output FILE, the charts as PNG files beside it), csv "
                   "(one row per strategy, every figure), json, or html (one self-contained page: the tables, the "
                   "charts and replays of a few games).")
@click.option("-o", "--output", "output_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              metavar="FILE", help="Write the report to FILE; without it, or with -, to standard output.")
@click.option("--run-strategy-code", "run_code", is_flag=True,
              help="With --format html, replay games whose strategies are not canasta-sim's own or installed too (a "
                   "file, a module or a cmd: command the run names), which runs that code as you; without it a report "
                   "runs nothing a run's folder names (canasta-sim docs security).")
def report_command(run_dir: Path, style: str, output_file: Path | None, run_code: bool) -> None:
    """Print the summary of the run in RUN_DIR (finished, interrupted or still going); it runs no code the run's
    folder names."""
    if is_standard_output(output_file):  # -o - is what no --output gives, the terminal's refusal of a page included
        output_file = None
    if output_file is not None:
        check_output_folder("--output", output_file)
    elif style == "html" and stdout_is_terminal():
        # A page of a few hundred kB of markup, scrolled past in a terminal, is never what was wanted: refused before
        # its replays are played, while a pipe or a redirect still gets it.
        raise fail("--format html writes a whole page, not for a terminal: give --output FILE "
                   f"(canasta-sim report {quote_shown(str(run_dir))} --format html --output report.html) or redirect "
                   "standard output to a file")
    directory = RunDirectory(run_dir)
    refuse_tuning_directory(run_dir)
    try:
        manifest = directory.read_manifest()
        whole_entry(manifest, "games", str(directory.manifest_path))  # the header shows it ("games 40 of forty")
    except CanastaError as error:
        raise fail(str(error)) from None
    rows, games_read, hand_capped = summarize_run(directory, entrants_of(manifest))
    if not games_read:
        raise fail(f"run {str(run_dir)!r} has no finished games yet; nothing to report")
    description = run_description(manifest, games_read)
    description["hand_capped"] = hand_capped
    # The paired result of duplicate deals, the cross table and ratings of a round robin, in every format.
    results = matchmaking_results(directory, description["specs"], bool(manifest.get("duplicate")))
    description["forfeit_reasons"] = forfeit_reasons(directory)
    description["missing_parts"] = missing_parts(directory, manifest)
    if description["status"] == "running":  # going on, or killed: run.json cannot tell, the directory's holder can
        description["being_written"] = directory.is_claimed()
    if style == "json":
        summary = json.loads(format_summary(rows, "json", extra={"run": description}))
        text = json.dumps({**summary, **sections_json(results)}, indent=2)
        _deliver(text, output_file)
        return
    if style == "csv":
        _deliver(format_csv(rows, results, changed_rules_text(description["rules_changed"])), output_file)
        return
    names = strategy_names(manifest)
    rows, results = as_printed(rows, results, names)
    written = f"Wrote {output_file}."
    # A page to publish names the run by its folder's name alone, the terminal's text by the path as it was given.
    header = _header(description, run_dir if style == "text" else Path(folder_name(run_dir)), names)
    if style == "html":
        with interrupted_as_the_users():  # its replays play games: Ctrl-C there is the user's, not a bot's failure
            text = report_page(run_dir, manifest, header, format_summary(rows, "markdown"), format_markdown(results),
                               run_code)
    elif style == "markdown":
        sections = format_markdown(results)
        if output_file is not None:  # written beside it as files: to standard output, the charts have nowhere to go
            charts, folder = markdown_charts(run_dir, output_file)
            sections = "\n\n".join(filter(None, [sections, charts]))
            written = f"Wrote {output_file} and its charts in {folder}."
        else:  # said apart from the report, which a redirect may be publishing: the charts it lacks are one option away
            click.echo("note: a Markdown report on standard output has no charts, which would have nowhere to go: "
                       "--output FILE writes them as PNG files beside it, linked from it", err=True)
        text = "\n\n".join(["  \n".join(header), format_summary(rows, "markdown"), *([sections] if sections else [])])
    else:
        additions = results.text()
        text = "\n".join([*header, "", format_summary(rows, "text"), *(["", additions] if additions else [])])
    _deliver(text, output_file, written)


def stdout_is_terminal() -> bool:
    """Whether standard output is a terminal (not a pipe or a file)."""
    return sys.stdout.isatty()


def _deliver(text: str, output_file: Path | None, written: str | None = None) -> None:
    """Print the report, or write it to ``--output FILE`` and say so (``written``: what was written)."""
    if output_file is None:
        echo_whole(text + "\n")
        return
    write_output("--output", output_file, text + "\n", written or f"Wrote {output_file}.")
