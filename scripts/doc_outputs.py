"""Whether the command outputs the docs show are what those commands print today.

``python scripts/doc_outputs.py`` (about half a minute on two quiet cores) runs each command whose output a page of the
docs shows, as the page writes it, and checks that every line of the page's block is a line of what it printed, in
the same order.  ``--only NAME`` runs one check (``--list`` names them).  It exits 1 if any block differs,
printing the page, the first line not found and what the command printed.

Each check names the page, the command as the page writes it (the check fails if the page no longer does) and the
first line of the output block; or, for a table row that shows the command and the figures it gave (the README's
strengths), every figure of the row's later cells must be among the figures the command prints. The commands run in
a temporary directory, so the ``--out`` folders they name land there; those that read a file of the repository
(``examples/...``) run in the checkout. Only outputs that are a pure function of the command are checked: a game is
a pure function of the rules, the seed and the strategies, so these lines change only when a game or a report's
wording changes, which is when the page must change too.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_BLOCK = re.compile(r"^```[\w-]*\n(.*?)^```", re.M | re.S)
_FIGURE = re.compile(r"[+-]?\d+(?:\.\d+)?%?")


@dataclasses.dataclass(frozen=True)
class Check:
    """One output block of a page and the command that prints it."""

    name: str
    pages: tuple[str, ...]
    command: str
    first_line: str | None  # None: the figures of the table row that shows the command, not a block
    in_checkout: bool = False


CHECKS = (
    Check("summary", ("README.md", "docs/running.md"), "canasta-sim run --games 10000 --seed 2024",
          "strategy  games  wins"),
    Check("duplicate", ("docs/matchmaking.md",),
          "canasta-sim run --games 1000 --seed 1 -s expert -s greedy --duplicate --workers 2 --out results/dup",
          "duplicate deals, expert@1 vs greedy@2"),
    Check("round-robin", ("docs/matchmaking.md",),
          "canasta-sim run --games 300 --seed 1 -s expert -s greedy -s random --workers 2 --out results/rr",
          "cross table (score of the row strategy"),
    Check("compare", ("docs/matchmaking.md",),
          "canasta-sim compare expert --baseline greedy --seed 1 --workers 2 --print-every 100",
          "compare expert (expert@1) against greedy"),
    Check("strength-expert", ("README.md",),
          "canasta-sim run --games 2000 --duplicate -s expert -s greedy --seed 1", None),
    Check("strength-greedy", ("README.md",),
          "canasta-sim run --games 2000 --duplicate -s greedy -s random --seed 1", None),
    Check("strength-self-play", ("README.md",), "canasta-sim run --games 2000 -s expert --seed 1", None),
    Check("ready", ("docs/protocol.md",), 'canasta-sim check-strategy "cmd:python examples/protocol/bot.py"',
          "its ready message:", in_checkout=True),
)


def block_lines(page: str, first_line: str) -> list[str]:
    """The lines of the page's code block whose first line (or first line after a ``$`` command) starts with
    ``first_line``, the command line itself left out."""
    text = (ROOT / page).read_text(encoding="utf-8")
    for match in _BLOCK.finditer(text):
        lines = match.group(1).splitlines()
        if lines and lines[0].startswith("$ "):
            lines = lines[1:]
        if lines and lines[0].startswith(first_line):
            return lines
    raise SystemExit(f"{page}: no code block starts with {first_line!r}; update scripts/doc_outputs.py with the page")


def row_figures(page: str, command: str) -> list[str]:
    """The figures (``75.9%``, ``+199.3``, ``6.32``) in the cells after the command's in the table row that shows
    it, each to be found among the figures the command prints."""
    for line in (ROOT / page).read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.split("|")]
        if line.startswith("|") and f"`{command}`" in cells:
            return _FIGURE.findall(" ".join(cells[cells.index(f"`{command}`") + 1:]))
    raise SystemExit(f"{page}: no table row shows `{command}`; update scripts/doc_outputs.py with the page")


def first_missing(expected: list[str], printed: list[str]) -> str | None:
    """The first expected line that is not a line of ``printed`` after the one before it was found, else None."""
    position = 0
    for line in expected:
        try:
            position = printed.index(line, position) + 1
        except ValueError:
            return line
    return None


def run_check(check: Check, canasta_sim: str) -> bool:
    """Run the check's command once and compare each of its pages' blocks with what it printed."""
    for page in check.pages:
        if check.command not in (ROOT / page).read_text(encoding="utf-8"):
            print(f"{check.name}: {page} no longer shows `{check.command}`; update scripts/doc_outputs.py")
            return False
    argv = [canasta_sim, *shlex.split(check.command)[1:]]
    with tempfile.TemporaryDirectory(prefix="doc-outputs-") as folder:
        done = subprocess.run(argv, cwd=ROOT if check.in_checkout else folder, capture_output=True, text=True,
                              timeout=1800, check=False)
    printed = (done.stdout + done.stderr).splitlines()
    good = True
    for page in check.pages:
        if check.first_line is None:
            figures = set(_FIGURE.findall("\n".join(printed)))
            missing = next((figure for figure in row_figures(page, check.command) if figure not in figures), None)
        else:
            missing = first_missing(block_lines(page, check.first_line), printed)
        if missing is None:
            print(f"{check.name}: {page} shows what `{check.command}` prints")
        else:
            good = False
            print(f"{check.name}: {page} shows a line `{check.command}` did not print (exit code {done.returncode}):\n"
                  f"  {missing}\nit printed:\n" + "\n".join(f"  {line}" for line in printed))
    return good


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", choices=[check.name for check in CHECKS],
                        help="run this check only (repeatable)")
    parser.add_argument("--list", action="store_true", help="name the checks and their commands, and stop")
    options = parser.parse_args(argv)
    if options.list:
        for check in CHECKS:
            print(f"{check.name:12} {', '.join(check.pages)}: {check.command}")
        return 0
    canasta_sim = shutil.which("canasta-sim", path=str(Path(sys.executable).parent)) or shutil.which("canasta-sim")
    if canasta_sim is None:
        print("canasta-sim is not installed beside this Python: pip install -e . first")
        return 2
    chosen = [check for check in CHECKS if not options.only or check.name in options.only]
    good = True
    for check in chosen:
        good = run_check(check, canasta_sim) and good
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
