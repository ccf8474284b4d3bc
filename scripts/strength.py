"""One strategy against another on duplicate deals, with the decision time of each beside the win rate.

Plays ``--games`` games of ``SPEC`` against ``--against`` (each deal twice, the sides swapped, as
``canasta-sim run --duplicate``) in ``--workers`` processes, times every decision each side is asked on
the process's own clock, and measures this machine's pure-Python floor (``scripts/floor.py``, the project's
floor copied unchanged, or ``--floor-script``) before and after, so that decision times are also given scaled to a
machine whose floor is 5,000 hands/s (ms x floor / 5000, the floor the mean of the two readings).  Each decision
is timed twice: on the wall clock, and in the process's own CPU time, which other work sharing the
machine's cores does not inflate (the floor is read while the games are not running).
``--max-minutes`` starts no game after that long, so a run on a busy machine ends in time; the
figures then say how many games were played (a deal whose second game did not finish is left out).

    python scripts/strength.py ismcts:simulations=20,playout=expert --against expert --games 40 --workers 2
    python scripts/strength.py pimc --against ismcts:simulations=20,playout=expert --games 40 --out results/x.json
    python scripts/strength.py - --paired results/a.json results/b.json    # two runs of one --seed, deal by deal
    python scripts/strength.py pimc --games 20 --rules target_score=1000    # short games, under other rules

The games are those of ``canasta-sim run -s SPEC -s AGAINST --duplicate --seed S`` (the same deal seeds and sides),
under ``--rules`` as ``run`` takes them.  The win rate's interval is Wilson's over the games, counted as independent
as ``run``'s summary counts them: usually wider than an interval from deal-to-deal variation (``--paired`` gives
one for the difference of two runs).

A run cut short by ``--max-minutes`` after game N-1 goes on with ``--first N`` (the same deals: game ``n`` is
always deal ``n // 2``), and ``--combine`` adds the parts up:

    python scripts/strength.py pimc --games 1000 --seed 3 --first 542 --out results/rest.json
    python scripts/strength.py - --combine results/first.json results/rest.json --out results/all.json

The combined figures keep every game's points, so a combined run pairs with another by deal (``--paired``).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim.core._compiled import accelerator  # noqa: E402
from canasta_sim.core.engine import play_game  # noqa: E402
from canasta_sim.core.rules import Rules  # noqa: E402
from canasta_sim.errors import RulesError, StrategyLoadError  # noqa: E402
from canasta_sim.plugins.loader import LoadedStrategy, load_strategy  # noqa: E402
from canasta_sim.runs.matchmaking import deal_of, deal_seed  # noqa: E402
from canasta_sim.runs.summary import wilson_interval  # noqa: E402

FLOOR_SCRIPT = ROOT / "scripts" / "floor.py"
REFERENCE_FLOOR = 5000.0
DECISIONS = ("choose_acquire", "choose_ask", "answer_go_out", "choose_meld", "choose_discard")


def timed(spec: str, totals: list[float]) -> LoadedStrategy:
    """``spec`` loaded, its class wrapped so that every decision adds ``[count, seconds, CPU seconds]`` to
    ``totals`` (the wall clock's, and this process's own CPU time, which other work on the machine does not
    inflate).  The wrapper is a subclass: it inherits the strategy's name, version and description."""
    loaded = load_strategy(spec)

    def wrap(name: str):
        method = getattr(loaded.cls, name)

        def decide(self, view):
            start, cpu = time.perf_counter(), time.process_time()
            try:
                return method(self, view)
            finally:
                totals[0] += 1
                totals[1] += time.perf_counter() - start
                totals[2] += time.process_time() - cpu

        return decide

    cls = type(f"Timed{loaded.cls.__name__}", (loaded.cls,), {name: wrap(name) for name in DECISIONS})
    return LoadedStrategy(loaded.spec, cls, loaded.parameters)


def play_one(spec: str, against: str, seed: int, rules: Rules, number: int) -> dict:
    """Game ``number`` of ``canasta-sim run -s SPEC -s AGAINST --duplicate --seed SEED``: deal ``number // 2``,
    ``spec`` as side A on even numbers, side B on odd ones."""
    mine, theirs = [0, 0.0, 0.0], [0, 0.0, 0.0]
    side = number % 2
    first, second = timed(spec, mine), timed(against, theirs)
    players = [first, second, first, second] if side == 0 else [second, first, second, first]
    result = play_game(players, seed=deal_seed(seed, deal_of(number, True)), rules=rules)
    points = 0.5 if result.winner is None else float(result.winner == side)
    return {"number": number, "points": points, "hands": len(result.hands), "mine": mine, "theirs": theirs}


def measure_floor(script: Path) -> float | None:
    """This machine's pure-Python floor in hands/s right now, or ``None`` without the script."""
    if not script.exists():
        return None
    output = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=True)
    return float(output.stdout.split()[-1])


def play_games(play, arguments: tuple, games: int, workers: int, max_minutes: float, *,
               progress: bool = False, first: int = 0) -> list[dict]:
    """``play(*arguments, number)`` for games ``first .. games - 1`` in ``workers`` processes, starting none after
    ``max_minutes`` (0: no limit); the results of whole duplicate pairs (a deal whose second game did not
    finish is left out); with ``progress``, the games so far and their mean points go to stderr."""
    deadline = time.perf_counter() + max_minutes * 60 if max_minutes > 0 else math.inf
    results = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending = set()
        number = first
        while number < games or pending:
            while number < games and len(pending) < workers and time.perf_counter() < deadline:
                pending.add(pool.submit(play, *arguments, number))
                number += 1
            if not pending:
                break
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            results.extend(future.result() for future in done)
            if progress:
                share = sum(result["points"] for result in results) / len(results)
                print(f"{len(results)} games, {share:.3f}", file=sys.stderr, flush=True)
            if time.perf_counter() >= deadline:
                number = games  # start nothing new; finish what is running
    numbers = {result["number"] for result in results}
    return [result for result in results if result["number"] ^ 1 in numbers]


def run(spec: str, against: str, games: int, seed: int, workers: int, max_minutes: float, floor: Path,
        first: int = 0, rules: Rules | None = None) -> dict:
    """Play games ``first .. games - 1`` under ``rules`` (the default rule set when ``None``) and return the figures."""
    rules = rules or Rules()
    floor_before = measure_floor(floor)
    start = time.perf_counter()
    results = play_games(play_one, (spec, against, seed, rules), games, workers, max_minutes, progress=True,
                         first=first)
    floor_after = measure_floor(floor)
    played = len(results)
    points = sum(result["points"] for result in results)
    low, high = wilson_interval(round(points), played) if played else (0.0, 0.0)
    floors = [value for value in (floor_before, floor_after) if value is not None]
    floor_mean = sum(floors) / len(floors) if floors else None

    def timing(key: str) -> dict:
        count = sum(result[key][0] for result in results)
        seconds = sum(result[key][1] for result in results)
        cpu = sum(result[key][2] for result in results)
        mean = 1000 * seconds / count if count else None
        cpu_mean = 1000 * cpu / count if count else None

        def scale(value):
            return value * floor_mean / REFERENCE_FLOOR if value is not None and floor_mean else None

        return {"decisions": count, "mean_decision_ms": mean, "mean_decision_ms_at_floor_5000": scale(mean),
                "mean_decision_cpu_ms": cpu_mean, "mean_decision_cpu_ms_at_floor_5000": scale(cpu_mean)}

    return {
        "spec": spec, "against": against, "seed": seed, "rules": rules.changed_words(), "first": first,
        "games_asked": games, "games": played,
        "points": points,
        "win_rate": points / played if played else None, "interval_95": [low, high],
        "hands": sum(result["hands"] for result in results),
        "points_by_game": {result["number"]: result["points"] for result in sorted(results, key=lambda r: r["number"])},
        "timing": {"spec": timing("mine"), "against": timing("theirs")},
        "floor_before": floor_before, "floor_after": floor_after,
        "wall_seconds": round(time.perf_counter() - start, 1), "build": accelerator.describe(),
        "labels": [load_strategy(spec).label, load_strategy(against).label],
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
    }


def combine(parts: list[dict]) -> dict:
    """Parts of one measurement (the same strategies, versions and seed; disjoint games) added up: the
    win rate and its interval over all their games, each part's decision timing as it was measured."""
    keys = {(part["labels"][0], part["labels"][1], part["seed"], tuple(_rules_of(part))) for part in parts}
    if len(keys) != 1:
        raise SystemExit(f"strength.py: --combine needs parts of one measurement (labels, seed and rules); "
                         f"got {sorted(keys)}")
    by_game: dict[str, float] = {}
    for part in parts:
        overlap = by_game.keys() & part["points_by_game"].keys()
        if overlap:
            raise SystemExit(f"strength.py: --combine parts share games {sorted(overlap, key=int)[:5]}; each game once")
        by_game.update(part["points_by_game"])
    played, points = len(by_game), sum(by_game.values())
    low, high = wilson_interval(round(points), played)
    return {"spec": parts[0]["spec"], "labels": parts[0]["labels"], "seed": parts[0]["seed"],
            "rules": _rules_of(parts[0]), "games": played,
            "points": points, "win_rate": points / played, "interval_95": [low, high],
            "hands": sum(part["hands"] for part in parts),
            "parts": [{"command": part["command"], "games": part["games"], "timing": part["timing"],
                       "floor_before": part["floor_before"], "floor_after": part["floor_after"]} for part in parts],
            "points_by_game": {number: by_game[number] for number in sorted(by_game, key=int)}}


def paired(first: dict, second: dict) -> dict:
    """The difference of two runs' win rates on the deals both played (the same ``--seed``): the mean
    per-deal difference of points and its 95% interval (normal, from the spread of the per-deal
    differences; the deals' shared luck cancels)."""
    if first["seed"] != second["seed"]:
        raise SystemExit(f"the runs dealt different deals (seeds {first['seed']} and {second['seed']})")
    if _rules_of(first) != _rules_of(second):
        raise SystemExit(f"the runs played under different rules ({' '.join(_rules_of(first)) or 'default'} and "
                         f"{' '.join(_rules_of(second)) or 'default'})")
    a, b = first["points_by_game"], second["points_by_game"]
    deals = sorted({int(number) // 2 for number in a} & {int(number) // 2 for number in b})
    differences = [(a[str(2 * deal)] + a[str(2 * deal + 1)] - b[str(2 * deal)] - b[str(2 * deal + 1)]) / 2
                   for deal in deals]
    count = len(differences)
    mean = sum(differences) / count if count else 0.0
    spread = math.sqrt(sum((value - mean) ** 2 for value in differences) / (count - 1)) if count > 1 else 0.0
    half = 1.96 * spread / math.sqrt(count) if count else 0.0
    return {"deals": count, "difference": mean, "interval_95": [mean - half, mean + half],
            "first": first["labels"][0], "second": second["labels"][0]}


def _rules_of(figures: dict) -> list[str]:
    """The ``--rules`` words a saved run played under (none before the option existed: the default rules)."""
    return figures.get("rules", [])


_SAVED_FIELDS = ("labels", "seed", "points_by_game")
"""What ``--combine`` and ``--paired`` read of a saved run (``--out``); parts also need their timing fields."""


def saved_run(path: Path) -> dict:
    """A run saved with ``--out``, read back; a file that is not one stops with one line naming what is wrong."""
    try:
        figures = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise SystemExit(f"strength.py: {str(path)!r} cannot be read as JSON: {error}") from None
    missing = [field for field in _SAVED_FIELDS if not isinstance(figures, dict) or field not in figures]
    if missing:
        raise SystemExit(f"strength.py: {str(path)!r} is not a run saved with --out (it lacks "
                         f"{', '.join(missing)}); a run of this version's strength.py saves one")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("spec", help="the strategy measured")
    parser.add_argument("--against", default="expert", help="its opponent (default expert)")
    parser.add_argument("--games", type=int, default=100, help="games (even: duplicate pairs)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-minutes", type=float, default=0.0, help="start no game after this long (0: no limit)")
    parser.add_argument("--first", type=int, default=0, help="the first game number played (to go on after a cut run)")
    parser.add_argument("--combine", type=Path, nargs="+", metavar="JSON",
                        help="add up saved parts of one measurement instead of playing (SPEC is ignored)")
    parser.add_argument("--rules", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option, as canasta-sim run takes it (repeatable; e.g. target_score=1000)")
    parser.add_argument("--floor-script", type=Path, default=FLOOR_SCRIPT)
    parser.add_argument("--out", type=Path, help="write the figures to this JSON file too")
    parser.add_argument("--paired", type=Path, nargs=2, metavar="JSON",
                        help="compare two saved runs on their common deals instead of playing (SPEC is ignored)")
    args = parser.parse_args()
    if args.paired:
        runs = [saved_run(path) for path in args.paired]
        print(json.dumps(paired(*runs), indent=2))
        return
    if args.combine:
        figures = combine([saved_run(path) for path in args.combine])
    else:
        if args.games % 2:  # the last deal would be played once, and a deal counts only as a pair
            parser.error(f"--games must be even (each deal is played twice, the sides swapped); got {args.games}")
        if not 0 <= args.first < args.games or args.first % 2:
            parser.error(f"--first must be an even game number below --games ({args.games}); got {args.first}")
        try:
            rules = Rules.from_options(args.rules)
        except RulesError as error:
            parser.error(str(error))
        for spec in (args.spec, args.against):  # refused here in one line, not in a worker's traceback
            try:
                load_strategy(spec)
            except StrategyLoadError as error:
                parser.error(str(error))
        figures = run(args.spec, args.against, args.games, args.seed, args.workers, args.max_minutes,
                      args.floor_script, args.first, rules)
    text = json.dumps(figures, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
