"""The requests a protocol bot is sent a game, by decision, and how many of them had one legal answer.

``python scripts/protocol_requests.py [SPEC] [--games 200] [--every-decision]`` (a few seconds) plays ``--games``
games of ``SPEC`` (a ``cmd:`` spec; default ``cmd:node examples/protocol/bot.js``) against greedy on one worker, run
seed 4, writing down everything the bot's processes read (``tee``), and prints the requests a game by decision and,
for a bot that asks for legal lists, how many of them listed one legal answer.

``--every-decision`` sets ``choices_only`` to false in the bot's ``ready`` on its way to the arbiter, so that the
bot is asked every decision, as a bot that does not ask for only its choices is: the two runs side by side show
the requests ``choices_only`` saves (``docs/protocol.md``).  The games of the two may differ where the bot's own play
depends on being asked (a generator drawn at every decision).
"""

from __future__ import annotations

import argparse
import collections
import json
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Rewrites the ready line only; every other line passes as it is, flushed at once (the arbiter waits for it).
_ASK_EVERY_DECISION = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    message = json.loads(line) if line.startswith('{') else None\n"
    "    if isinstance(message, dict) and message.get('type') == 'ready':\n"
    "        message['choices_only'] = False\n"
    "        line = json.dumps(message) + '\\n'\n"
    "    sys.stdout.write(line)\n"
    "    sys.stdout.flush()\n"
)


def _count(folder: Path, arguments) -> tuple[collections.Counter, collections.Counter, collections.Counter]:
    """Play the games, the bot's input written down in ``folder``: its requests, those listing one legal answer, and
    those listing their answers, by decision."""
    command = f"tee -a {folder}/in.$$ | {arguments.spec[len('cmd:'):]}"
    if arguments.every_decision:
        command += f" | {shlex.quote(sys.executable)} -c {shlex.quote(_ASK_EVERY_DECISION)}"
    spec = "cmd:sh -c " + shlex.quote(command)
    run = [sys.executable, "-m", "canasta_sim", "run", "--games", str(arguments.games), "--workers", "1", "--seed",
           "4", "-q", "--out", str(folder / "run"), "-s", spec, "-s", "greedy"]
    subprocess.run(run, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return count_requests(line for path in folder.glob("in.*") for line in path.read_bytes().splitlines())


def count_requests(lines: Iterable[bytes]) -> tuple[collections.Counter, collections.Counter, collections.Counter]:
    """Of the lines a bot read: its requests, those listing one legal answer, and those listing their legal
    answers, by decision (``scripts/isolation_instructions.py`` counts an isolated bot's requests with it too)."""
    requests: collections.Counter = collections.Counter()
    single: collections.Counter = collections.Counter()
    listed: collections.Counter = collections.Counter()
    for line in lines:
        message = json.loads(line)
        if message.get("type") != "decide":
            continue
        decision = message["decision"]
        requests[decision] += 1
        if "legal" in message:
            listed[decision] += 1
            single[decision] += len(message["legal"]) == 1
    return requests, single, listed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", nargs="?", default="cmd:node examples/protocol/bot.js")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--every-decision", action="store_true",
                        help="ask the bot every decision, whatever its ready says")
    arguments = parser.parse_args(argv)
    if not arguments.spec.startswith("cmd:"):
        parser.error(f"the spec must be a cmd: spec (a protocol bot); got {arguments.spec!r}")
    if arguments.games < 1:
        parser.error("--games must be 1 or more")
    with tempfile.TemporaryDirectory(prefix="requests-") as name:
        requests, single, listed = _count(Path(name), arguments)
    games = arguments.games
    asked = "every decision" if arguments.every_decision else "as its ready says"
    print(f"{arguments.spec} against greedy, {games} games, asked {asked}")
    print(f"requests: {sum(requests.values()) / games:.1f} a game: " + ", ".join(
        f"{decision} {count / games:.1f}" for decision, count in requests.most_common()))
    if listed:  # only the requests listing their legal answers tell how many they had
        print(f"listing one legal answer: {sum(single.values()) / games:.1f} a game: " + ", ".join(
            f"{decision} {single[decision] / games:.1f}" for decision, _ in requests.most_common()
            if listed[decision]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
