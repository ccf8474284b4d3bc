"""``canasta-sim report RUN_DIR --format html``: the report as one self-contained page.

The page carries what the other formats carry, from the same functions: the run's header, the summary and
the paired results, cross table and ratings (:func:`~canasta_sim.runs.summary.format_summary` and
:func:`~canasta_sim.analysis.sections.format_markdown`, their Markdown tables turned into HTML tables),
then every chart of ``canasta-sim plot`` as an inline PNG, and the replays of a few games worth seeing (the
largest margin, the longest game, a forfeit if there was one), each the page ``replay --html`` writes,
kept base64-encoded in the report and put into a frame when opened.  Nothing is fetched: no network,
server or other file.
"""

from __future__ import annotations

import base64
import html
import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import pandas as pd

from canasta_sim.analysis import strategy_names
from canasta_sim.analysis.sections import CROSS_TABLE_CORNER
from canasta_sim.cli.plot import chart_words, charts_for
from canasta_sim.cli.plot_data import ChartData
from canasta_sim.cli.replay import changes_since_run, ending_words, game_setup, recorded_run_game
from canasta_sim.cli.replaying import start_directory, started_elsewhere
from canasta_sim.plugins.outside_code import code_run_by
from canasta_sim.runs.runner import settings_from_manifest
from canasta_sim.runs.shown_commands import quote_shown
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.terminal.played import spec_shown

__all__ = ["folder_name", "games_worth_seeing", "markdown_html", "report_page"]

_REPLAY_COLUMNS = ["seed", "score_a", "score_b", "forfeit_team", "forfeit_reason", "error"]
"""The columns of ``games`` a replay and its heading read besides the charts' (the seed plays the game again)."""

CHART_DPI = 80
"""Resolution of the inline charts: sharp on a screen, about 40 kB each."""

_STYLE = """
body { margin: 0 auto; max-width: 1100px; padding: 10px 16px; font: 14px/1.4 system-ui, sans-serif; color: #222; }
h1, p, summary { overflow-wrap: anywhere; }  /* a run's folder or a strategy's file may be one long word */
/* A table wider than the window scrolls in its own box instead of widening the page. */
.table-box { max-width: 100%; overflow-x: auto; }
.table-box:focus-visible { outline: 2px solid #2f5fb3; }
h1 { font-size: 20px; } h2 { font-size: 17px; border-bottom: 1px solid #ccc; margin-top: 26px; } h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border: 1px solid #d4d4d4; padding: 3px 7px; } th { background: #f0efe9; }
td.number, th.number { text-align: right; } td.number { white-space: nowrap; }
.charts img { display: block; max-width: 100%; margin: 8px 0 18px; border: 1px solid #eee; }
details { margin: 8px 0; border: 1px solid #ccc; border-radius: 6px; padding: 6px 10px; }
summary { cursor: pointer; font-weight: 600; }
iframe { width: 100%; height: 860px; max-height: 85vh; border: 1px solid #bbb; margin-top: 6px; }
.replay-print { margin: 6px 0 0; }
.print-only { display: none; }
@media (max-width: 600px) { body { padding: 6px 8px; } details { padding: 6px; } }
.note { color: #7a3b00; }
/* A round robin's cross table: each cell's score, interval and games stacked, the interval kept whole, and the
   column's name broken after its punctuation, so that ten strategies fit a desktop's width unscrolled. */
.matrix { font-size: 12px; } .matrix th, .matrix td { padding: 3px 4px; }
.matrix td.number { white-space: normal; } .matrix .interval { white-space: nowrap; }
/* On paper a box cannot scroll: a table wider than the sheet lost its last columns.  Smaller and allowed to wrap,
   the widest (a round robin's summary) fits an A4 or Letter sheet upright. */
@media print {
  body { max-width: none; padding: 0; }
  .table-box { overflow: visible; }
  table { font-size: 9px; } th, td { padding: 2px 3px; } td.number { white-space: normal; }
  /* A replay is a page of its own, in a frame that paper cuts to one screen: printed, each says how to print it. */
  .print-only { display: block; } .replay-print, iframe { display: none; }
}
"""

_SCRIPT = """
"use strict";
// Each replay is a whole page kept as base64 (UTF-8); it becomes its frame's document when first opened.  An
// opened replay takes the focus, so that the keys the report names step it (the summary kept them: the arrows
// did nothing and Space closed the replay again).
document.querySelectorAll("details[data-replay]").forEach(function (details) {
  // The replay's own page printed (its position, hand list and whole narration), not the report around it.
  details.querySelector(".replay-print button").addEventListener("click", function () {
    const frame = details.querySelector("iframe");
    if (frame.dataset.loaded === "true") frame.contentWindow.print();
    else frame.addEventListener("load", function () { frame.contentWindow.print(); }, {once: true});
  });
  details.addEventListener("toggle", function () {
    const frame = details.querySelector("iframe");
    if (!details.open) return;
    if (frame.srcdoc) { frame.contentWindow.focus(); return; }
    const text = document.getElementById(details.dataset.replay).textContent;
    const bytes = Uint8Array.from(atob(text.trim()), function (c) { return c.charCodeAt(0); });
    frame.addEventListener("load", function () { frame.dataset.loaded = "true"; frame.contentWindow.focus(); },
                           {once: true});
    frame.srcdoc = new TextDecoder().decode(bytes);
  });
});
// A table box that scrolls takes focus, so that the keyboard scrolls it as the mouse does.
function focusableTables() {
  document.querySelectorAll(".table-box").forEach(function (box) {
    if (box.scrollWidth > box.clientWidth) box.tabIndex = 0; else box.removeAttribute("tabindex");
  });
}
focusableTables();
window.addEventListener("resize", focusableTables);
document.body.setAttribute("data-ready", "true");
"""


def markdown_html(text: str) -> str:
    """The report's Markdown (``###`` headings, pipe tables, plain lines) as HTML; cells and lines are escaped."""
    out: list[str] = []
    table: list[list[str]] = []

    def cells(line: str) -> list[str]:
        inner = line.strip()[1:-1].replace("\\|", "\0")
        return [cell.strip().replace("\0", "|") for cell in inner.split("|")]

    def flush() -> None:
        if not table:
            return
        header, alignment, *body = table
        right = [spec.endswith(":") for spec in alignment]
        matrix = header[0] == CROSS_TABLE_CORNER
        # A matrix's column names are specs with no space in them: breaks after punctuation let them narrow.
        name = _breakable if matrix else html.escape
        rows = ["<tr>" + "".join(f'<th scope="col" class="{"number" if r else "text"}">{name(c)}</th>'
                                 for c, r in zip(header, right, strict=True)) + "</tr>"]
        rows += ["<tr>" + "".join(f'<td class="{"number" if r else "text"}">{_figures(c) if r else html.escape(c)}'
                                  "</td>" for c, r in zip(row, right, strict=True)) + "</tr>" for row in body]
        kind = ' class="matrix"' if matrix else ""
        out.append(f'<div class="table-box"><table{kind}>' + "".join(rows) + "</table></div>")
        table.clear()

    for line in text.splitlines():
        if line.startswith("|"):
            table.append(cells(line))
            continue
        flush()
        if line.startswith("### "):
            out.append(f"<h3>{html.escape(line[4:])}</h3>")
        elif line.strip():
            out.append(f"<p>{html.escape(line.strip())}</p>")
    flush()
    return "\n".join(out)


def _breakable(name: str) -> str:
    """A name escaped, a line allowed to break after each ``:``, ``=``, ``_`` or ``.``."""
    return re.sub(r"([:=_.])", r"\1<wbr>", html.escape(name))


def _figures(cell: str) -> str:
    """A cell of figures escaped, each ``[low, high]`` interval in a span that keeps it on one line."""
    return re.sub(r"(\[[^\]]*\])", r'<span class="interval">\1</span>', html.escape(cell))


def games_worth_seeing(games: pd.DataFrame) -> list[tuple[int, str]]:
    """``(game_id, why)`` for the game with the largest margin, the longest game and the first forfeit; a game
    picked for two reasons is listed once with both."""
    picked: dict[int, list[str]] = {}
    played = games[games["termination"] != "forfeit"]
    if len(played):
        widest = played.loc[played["margin"].abs().idxmax()]
        margin = abs(int(widest["margin"]))
        picked.setdefault(int(widest["game_id"]), []).append(f"the largest margin ({margin} points)")
        longest = played.loc[played["hands"].idxmax()]
        picked.setdefault(int(longest["game_id"]), []).append(f"the longest game ({int(longest['hands'])} hands)")
    forfeits = games[games["termination"] == "forfeit"]
    if len(forfeits):
        picked.setdefault(int(forfeits["game_id"].iloc[0]), []).append("a forfeit")
    return [(game_id, " and ".join(reasons)) for game_id, reasons in picked.items()]


class _WorthSeeing:
    """:func:`games_worth_seeing` of a whole run fed part by part (in game order), with the rows of those games: only
    the rows that could still be picked are kept, each part's best beside the best so far."""

    def __init__(self) -> None:
        self.rows = pd.DataFrame()

    def add(self, games: pd.DataFrame) -> None:
        """Add the next part's ``games``."""
        candidates = pd.concat([self.rows, games], ignore_index=True) if len(self.rows) else games
        chosen = {game_id for game_id, _ in games_worth_seeing(candidates)}
        self.rows = candidates[candidates["game_id"].isin(chosen)].reset_index(drop=True)


def _chart_images(run: ChartData) -> list[str]:
    images = []
    for name, draw in charts_for(run).items():
        buffer = io.BytesIO()
        figure = draw(run)
        figure.savefig(buffer, format="png", dpi=CHART_DPI)
        data = base64.b64encode(buffer.getvalue()).decode("ascii")
        # Its title and key figures in words: its title alone told a reader who cannot see it nothing of them.
        images.append(f'<img id="chart-{name}" data-chart="{name}" alt="{html.escape(chart_words(figure))}" '
                      f'src="data:image/png;base64,{data}">')
    return images


def _heading(game_id: int, why: str, row: dict[str, Any], names: dict[str, str], pair: int | None) -> str:
    """A replay's title: its sides by the names the charts use, the score, how the game ended (which side
    forfeited, and why, for a forfeit) and, for a duplicate deal, the game it pairs with."""
    ending = str(row["termination"])
    if ending == "forfeit":
        ending = f"forfeit by side {row['forfeit_team']}: {row['forfeit_reason']}"
    else:
        ending = ending_words(ending)
    side_a, side_b = (names.get(row[column], row[column]) for column in ("team_a_strategy", "team_b_strategy"))
    heading = f"Game {game_id}, {why}: side A {side_a} {row['score_a']}, side B {side_b} {row['score_b']} ({ending})"
    return heading if pair is None else f"{heading}; duplicate deal: paired with game {pair} (sides swapped)"


def _replays(run_dir: Path, manifest: dict[str, Any], games: pd.DataFrame, run_code: bool = False) -> list[str]:
    """The games worth seeing, each replayed from its row of ``games`` (read with the charts' columns and
    ``_REPLAY_COLUMNS``; the rows :class:`_WorthSeeing` kept are enough); with ``run_code``, those of strategies that
    are not canasta-sim's own too."""
    directory = RunDirectory(run_dir)
    settings = settings_from_manifest(manifest, str(directory.manifest_path))
    recorded = games.set_index("game_id")
    # Bots named relative to where the run started are started from there, as replay starts them.
    with start_directory(manifest, settings, directory)[0]:
        return _replayed_games(Path(folder_name(run_dir)), manifest, settings, recorded, games_worth_seeing(games),
                               run_code)


def folder_name(run_dir: Path) -> str:
    """The run's folder by its own name, as the published reports (Markdown, HTML) name it: the path it was given by
    (``/home/alice/club/results/rr``) names one machine's folders, a home and a user among them, which a page put on
    a website should not, and which mean nothing where the folder is unzipped."""
    return Path(os.path.abspath(run_dir)).name


def _replayed_games(run_dir: Path, manifest: dict[str, Any], settings, recorded: pd.DataFrame,
                    chosen: Sequence[tuple[int, str]], run_code: bool = False) -> list[str]:
    """Each chosen ``(game_id, why)`` replayed from its ``recorded`` row (indexed by game id), as the report
    shows it; a game whose strategies run code that is not canasta-sim's own (a file, a module, a command the run
    names) only with ``run_code``, else a line naming it and the command that replays it."""
    names = strategy_names(manifest)
    parts = []
    warned: set[str] = set()  # each once for the report, where each replay said it again
    for index, (game_id, why) in enumerate(chosen):
        # The row read with the run serves the replay too, as the Python values find_game gives replay (to_dict).
        row = {"game_id": game_id, **recorded.loc[game_id].to_dict()}
        pair = settings.duplicate_pair(game_id)
        heading = _heading(game_id, why, row, names, pair)
        command = html.escape(f"canasta-sim replay {quote_shown(str(run_dir))} {game_id} --html game{game_id}.html")
        outside = None if run_code else _outside_code(manifest, settings, row)
        if outside is not None:
            # A folder from someone else names whatever they wrote: a report reads it, and runs none of it.
            parts.append(f'<p class="note" data-game="{game_id}">{html.escape(heading)}: not replayed here, as it '
                         f"would run {html.escape(outside)}; <code>{command}</code> replays it, naming what it runs "
                         "first (or report with --run-strategy-code)</p>")
            continue
        try:
            players, game = game_setup(manifest, settings, row)
            changes = changes_since_run(manifest, players)
            for change in sorted(set(changes) - warned):
                click.echo(f"Warning: {change}; the report's replays may differ.", err=True)
            warned.update(changes)
            page = recorded_run_game(players, game, row).html(
                title=f"Game {game_id} of the run in {run_dir}", run_seed=manifest.get("seed"), game_id=game_id,
                source=str(run_dir), duplicate_pair=pair, changes=changes)
        except click.ClickException as error:  # the strategies or the engine changed since the run: say so
            parts.append(f'<p class="note" data-game="{game_id}">{html.escape(heading)}: no replay, '
                         f"{html.escape(error.message)}</p>")
            continue
        encoded = base64.b64encode(page.encode("utf-8")).decode("ascii")
        parts.append(f'<details data-replay="replay-{index}" data-game="{game_id}"><summary>{html.escape(heading)}'
                     f'</summary><p class="replay-print"><button type="button">print this replay</button></p>'
                     f'<iframe title="replay of game {game_id}"></iframe></details>'
                     f'<p class="print-only" data-game="{game_id}">Not printed here: open this replay on screen and '
                     f'press its “print this replay” button, or write it as a page of its own with '
                     f'<code>{command}</code> and print that.</p>'
                     f'<script type="text/plain" id="replay-{index}">{encoded}</script>')
    return parts


def _outside_code(manifest: dict[str, Any], settings, row: dict[str, Any]) -> str | None:
    """What replaying ``row``'s game would run that is not canasta-sim's own, in words; ``None`` when nothing."""
    specs = (str(row["team_a_strategy"]), str(row["team_b_strategy"]))
    start = started_elsewhere(manifest, specs)
    found = [code for spec in dict.fromkeys(specs) if (code := code_run_by(spec, settings.file_of(spec), start))]
    return " and ".join(found) or None


def _strategies_table(manifest: dict[str, Any]) -> str:
    names = strategy_names(manifest)
    rows = ["<tr>" + "".join(f'<th scope="col">{name}</th>' for name in ("spec", "strategy", "class", "parameters"))
            + "</tr>"]
    for entry in manifest.get("strategies", []):
        parameters = ", ".join(f"{key}={value}" for key, value in (entry.get("parameters") or {}).items())
        # A played game's spec without its decisions, which filled the cell with the person's every move.
        rows.append(f"<tr><td>{html.escape(spec_shown(str(entry.get('spec'))))}</td>"
                    f"<td>{html.escape(names.get(entry.get('spec'), str(entry.get('spec'))))}</td>"
                    f"<td>{html.escape(str(entry.get('class', '')))}</td><td>{html.escape(parameters)}</td></tr>")
    return '<div class="table-box"><table id="strategies">' + "".join(rows) + "</table></div>"


def report_page(run_dir: Path, manifest: dict[str, Any], header: Sequence[str], summary_markdown: str,
                sections_markdown: str, run_code: bool = False) -> str:
    """The whole page: ``header`` (the report's first lines), the strategies, the summary and sections (the
    Markdown report's tables), the charts and the replays of the games worth seeing (with ``run_code``, those of
    strategies that are not canasta-sim's own too: :func:`_replayed_games`)."""
    # Part by part, each part read once: the charts read tallies, and the games worth seeing keep their rows alone.
    worth_seeing = _WorthSeeing()
    run = ChartData.of_directory(run_dir, games_columns=_REPLAY_COLUMNS, on_games=worth_seeing.add)
    body = [f"<h1>{html.escape(header[0])}</h1>", *(f"<p>{html.escape(line)}</p>" for line in header[1:]),
            "<h2>Strategies</h2>", _strategies_table(manifest),
            '<h2>Summary</h2><div id="summary">', markdown_html(summary_markdown), "</div>"]
    if sections_markdown:
        # The sections present (duplicate deals, a round robin's cross table and ratings) head themselves.
        body += ['<h2>Matchups</h2><div id="sections">',
                 markdown_html(sections_markdown), "</div>"]
    body += ['<h2>Charts</h2><div class="charts">', *_chart_images(run), "</div>",
             '<h2>Games worth seeing</h2><div id="replays">',
             "<p>Each opens as the page <code>canasta-sim replay RUN_DIR GAME --html FILE</code> writes: the table "
             "after every move (keys: ← →, PageUp/PageDown, Home/End, Space); its “print this replay” button prints "
             "that page, its narration whole.</p>",
             *_replays(run_dir, manifest, worth_seeing.rows, run_code), "</div>"]
    policy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        # Without it a phone lays the page out 980 px wide and shrinks it to the screen.
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">',
        f"<title>{html.escape(header[0])}</title><style>{_STYLE}</style></head><body><main>",
        *body, f"</main><script>{_SCRIPT}</script>", "</body></html>",
    ])
