"""What isolation costs: expert in its own processes against greedy, beside the same matchup in-process.

``python scripts/bench_isolation.py [--rounds 6] [--games 4] [--floor /path/to/floor.py]`` plays rounds
of a few games of each matchup in turn (A B C D A B C D ..., so that a machine's changing load falls on
all of them alike) with the same seeds, and prints for each:

* games per second of wall-clock time on one worker (the bot processes wait while the engine runs, and
  the other way round, so one worker keeps about one core busy);
* games per CPU-second: CPU time of this process plus the bot processes (from ``/proc``), the cost per
  core whatever else the machine runs;
* the ratio of each to the in-process matchup.

A last row plays ``isolated:expert`` with each bot process replaced by a bot server called directly in
this process: what serialising the views and rebuilding them costs without pipes and process switches.

``--floor PATH`` (or the environment variable ``CANASTA_SIM_FLOOR_SCRIPT``) runs the pure-Python floor
script before and after, so the figures can be set beside it.
``scripts/bench.py`` calls :func:`isolation_cost` for its rows.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim.core.engine import play_game  # noqa: E402
from canasta_sim.plugins.loader import load_strategy  # noqa: E402
from canasta_sim.plugins.proxy import close_all  # noqa: E402

MATCHUPS = {
    "expert vs greedy, in-process": "expert",
    "expert isolated vs greedy": "isolated:expert",
    "examples/protocol/bot.py vs greedy": f"cmd:{sys.executable} {ROOT / 'examples' / 'protocol' / 'bot.py'}",
    "examples/protocol/bot.js vs greedy": f"cmd:node {ROOT / 'examples' / 'protocol' / 'bot.js'}",
}


def _bot_seconds(loaded) -> float:
    """CPU seconds used so far by the bot processes of a loaded bot spec (0 for an in-process one)."""
    pool = getattr(loaded.cls, "pool", None)
    if pool is None:
        return 0.0
    total = 0.0
    for bot in pool.seats.values():
        if bot.process is None:
            continue
        fields = Path(f"/proc/{bot.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


class _Loopback:
    """Stands in for a bot process: hands each message to a bot server in this very process, so a matchup
    measures the protocol's serialising and view rebuilding without pipes or process switches."""

    def __init__(self, spec: str) -> None:
        from canasta_sim.plugins.server import BotServer

        self.server = BotServer(spec)
        self.replies: list[bytes] = []
        self.process = self  # "running" for the proxy

    def write(self, data: bytes, deadline) -> None:
        from canasta_sim.plugins.protocol import encode

        for line in data.splitlines():
            reply = self.server.handle(json.loads(line))
            if reply is not None:
                self.replies.append(encode(reply)[:-1])

    def read_line(self, deadline) -> bytes:
        return self.replies.pop(0)

    def stderr_tail(self) -> str:
        return ""


def loopback(spec: str):
    """``isolated:SPEC`` loaded, its processes replaced by :class:`_Loopback` (one per seat)."""
    loaded = load_strategy(f"isolated:{spec}")
    pool = loaded.cls.pool
    pool.acquire = lambda seat, owner: _Loopback(spec)
    pool.owns = lambda seat, owner: True
    return loaded


def _own_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def isolation_cost(rounds: int, games: int, *, include_node: bool = True) -> dict:
    """Play ``rounds`` interleaved rounds of ``games`` games of each matchup; return the figures by matchup."""
    matchups = {label: spec for label, spec in MATCHUPS.items() if include_node or "bot.js" not in label}
    greedy = load_strategy("greedy")
    loaded = {label: load_strategy(spec) for label, spec in matchups.items()}
    loaded["expert through the protocol, no pipes"] = loopback("expert")
    totals = {label: {"games": 0, "wall": 0.0, "cpu": 0.0} for label in loaded}
    for strategy in loaded.values():  # start each bot's processes before timing
        play_game([strategy, greedy, strategy, greedy], seed=1)
    for round_number in range(rounds):
        for label, strategy in loaded.items():
            wall = time.perf_counter()
            cpu = _own_seconds() + _bot_seconds(strategy)
            for game in range(games):
                seed = 3_000_000 + round_number * games + game
                players = [strategy, greedy] * 2 if game % 2 == 0 else [greedy, strategy] * 2
                play_game(players, seed=seed)
            totals[label]["wall"] += time.perf_counter() - wall
            totals[label]["cpu"] += _own_seconds() + _bot_seconds(strategy) - cpu
            totals[label]["games"] += games
    close_all()
    base = totals["expert vs greedy, in-process"]
    figures = {}
    for label, total in totals.items():
        figures[label] = {
            "games": total["games"],
            "games_per_second": round(total["games"] / total["wall"], 2),
            "games_per_cpu_second": round(total["games"] / total["cpu"], 2),
            "wall_ratio": round(total["wall"] / base["wall"], 2),
            "cpu_ratio": round(total["cpu"] / base["cpu"], 2),
        }
    return figures


FLOOR_VARIABLE = "CANASTA_SIM_FLOOR_SCRIPT"
"""Environment variable naming the pure-Python floor script (``/work/shared/bench/floor.py`` on the team's
machine): a fixed hand loop whose speed says how fast plain Python runs on the machine right now."""


def floor(path: Path) -> float:
    """Hands per second of the pure-Python floor script at ``path``, measured now."""
    output = subprocess.run([sys.executable, str(path), "2"], capture_output=True, text=True, timeout=120, check=True)
    return float(output.stdout.split()[0])


def pure_python_floor() -> float | None:
    """:func:`floor` of the script named by :data:`FLOOR_VARIABLE`, or ``None`` when it names none."""
    path = os.environ.get(FLOOR_VARIABLE)
    return floor(Path(path)) if path else None


def main(argv: list[str] | None = None) -> int:
    """Measure and print the table (and JSON with ``--json``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--games", type=int, default=4, help="games per matchup per round")
    parser.add_argument("--floor", type=Path, default=None, help="the floor script, run before and after")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.floor:
        os.environ[FLOOR_VARIABLE] = str(args.floor)
    before = pure_python_floor()
    figures = isolation_cost(args.rounds, args.games)
    after = pure_python_floor()
    for label, row in figures.items():
        print(f"{label:<40} {row['games_per_second']:6.2f} games/s (x{row['wall_ratio']:.2f} time)   "
              f"{row['games_per_cpu_second']:6.2f} games per CPU-second (x{row['cpu_ratio']:.2f} CPU)")
    if before is not None:
        print(f"floor: {before:,.0f} hands/s before, {after:,.0f} after")
        figures["floor_hands_per_second"] = [before, after]
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
