"""Instructions per game of ``isolated:expert`` against greedy, the worker and the bot processes apart.

``python scripts/isolation_instructions.py [--games 64] [--out DIR]`` (two to four minutes) counts with
``valgrind --tool=callgrind``, which the machine's load does not move:

* **the worker**: ``--games`` games of ``isolated:expert`` against greedy (run seed 3,000,000, sides
  alternated) played as one ``run`` worker plays a chunk, side by side
  (:func:`canasta_sim.runs.interleave.play_side_by_side`), less the same process playing none (its start-up,
  the imports, the bots' handshake, and the collection a worker makes once before its first games); the bot
  processes, its children, are not counted with it;
* **a bot process**: the same games played once more with each seat's process writing down what it reads
  (``cmd:sh -c "tee FILE | python -m canasta_sim.plugins.server expert"``); each recorded input is then fed
  to a bot server under callgrind, less a server answering only ``hello``.  Printed per seat's game: a game
  has two isolated seats, each its own process.

It also prints the requests per game and the bytes a seat's process read per game, the share of acquire
requests whose only legal answer was a draw (their ``drawn`` cards shown), a bot process's own
start (a server answering only ``hello``: what every isolated seat's process costs before its first game),
and a digest of the games' results (the same in both plays: recording changes nothing).  ``--out DIR`` keeps
the callgrind files and the recorded inputs.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PLAY = """
import array, hashlib, sys, threading
from canasta_sim.core.rules import Rules
from canasta_sim.plugins.pools import close_all
from canasta_sim.plugins.server import settle_collector
from canasta_sim.runs.interleave import games_at_once, play_side_by_side
from canasta_sim.runs.runner import ChunkPlayer, RunSettings

games, spec = int(sys.argv[1]), sys.argv[2]
settings = RunSettings(games=max(games, 1), seed=3_000_000, specs=(spec, "greedy"), rules=Rules(),
                       chunk_size=max(games, 1))
player = ChunkPlayer(settings, "", "stop", threading.Event())


class Schedule:
    def loaded_strategies(self, chunk=None):
        return player.factories.values()


results = []


def report(game_id, played, error):
    if error is not None:
        raise error
    results.append(repr(played[0].scores))
    return True


if games:
    monitor = memoryview(array.array("d", [0.0] * 3))
    play_side_by_side(lambda game_id: (player.play_game(game_id, monitor), None), range(games),
                      games_at_once(Schedule(), games), monitor, stop_event=threading.Event(), report=report)
else:  # the start-up: a worker settles its collector once, before its first games side by side
    settle_collector()
close_all()
print(hashlib.sha256("".join(results).encode()).hexdigest()[:16])
"""

_HELLO = b'{"type":"hello","protocol":2,"protocols":[1,2],"kinds":[]}\n{"type":"quit"}\n'


def _instructions(out: Path, command: list[str], stdin: Path | None = None) -> int:
    """Instructions callgrind counts for ``command`` (its output file kept at ``out``)."""
    with open(stdin or "/dev/null", "rb") as source:
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *command], stdin=source,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT)
    totals = re.search(rb"^(?:summary|totals): (\d+)", out.read_bytes(), re.MULTILINE)
    return int(totals.group(1))


def main(argv: list[str] | None = None) -> int:
    from protocol_requests import count_requests  # counted as that script counts them (scripts/ is on the path)

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--out", type=Path, default=None, help="keep the callgrind files and inputs here")
    arguments = parser.parse_args(argv)
    games = arguments.games
    if games < 1:
        parser.error("--games must be 1 or more")
    out = arguments.out or Path(tempfile.mkdtemp(prefix="isolation-"))
    out.mkdir(parents=True, exist_ok=True)
    play = out / "play.py"
    play.write_text(_PLAY)
    python = sys.executable

    inputs = out / "inputs"
    inputs.mkdir(exist_ok=True)
    for old in inputs.glob("in.*"):
        old.unlink()
    served = f"tee {inputs}/in.$$ | {shlex.quote(python)} -m canasta_sim.plugins.server expert"
    recorded = subprocess.run([python, str(play), str(games), "cmd:sh -c " + shlex.quote(served)], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.split()[-1]
    worker = _instructions(out / "worker.games", [python, str(play), str(games), "isolated:expert"])
    start = _instructions(out / "worker.none", [python, str(play), "0", "isolated:expert"])
    hello = out / "hello.in"
    hello.write_bytes(_HELLO)
    server = [python, "-m", "canasta_sim.plugins.server", "expert"]
    empty = _instructions(out / "bot.none", server, hello)
    # The load-time handshake's process reads only hello: the seats' processes are those that played.
    played = [path for path in sorted(inputs.glob("in.*")) if b'"type":"game"' in path.read_bytes()]
    bots = sum(_instructions(out / f"bot.{path.name}", server, path) - empty for path in played)
    lines = [line for path in played for line in path.read_bytes().splitlines()]
    decisions = count_requests(lines)[0]
    requests = sum(decisions.values())
    seat_games = 2 * games
    print(f"results digest {recorded} ({games} games, run seed 3,000,000; {len(played)} bot processes)")
    print(f"worker: {(worker - start) / games / 1e6:.2f} million instructions a game")
    print(f"a bot process: {bots / seat_games / 1e6:.2f} million instructions a seat's game")
    read = sum(map(len, lines)) / seat_games / 1000
    print(f"requests: {requests / games:.0f} a game; a seat's process read {read:.1f} KB a game")
    print("requests a game by decision: " + ", ".join(f"{name} {count / games:.1f}" for name, count in
                                                      decisions.most_common()))
    acquires = [line for line in lines if line.startswith(b'{"type":"decide","decision":"acquire"')]
    shown = sum(b'"drawn":' in line for line in acquires)
    share = shown / max(1, len(acquires))
    print(f"acquire requests: {len(acquires) / games:.0f} a game, {share:.0%} of them showing a forced draw's cards")
    cached = "not written (PYTHONDONTWRITEBYTECODE)" if sys.dont_write_bytecode else "cached"
    print(f"a bot process's start, answering hello: {empty / 1e6:.0f} million instructions (bytecode {cached})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
