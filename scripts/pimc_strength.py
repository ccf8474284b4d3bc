"""pimc's strength against expert and its decision time, by samples per decision.

For each ``--samples`` value it plays ``--games`` games of ``pimc:samples=S`` against ``expert``, each
deal twice with the sides swapped (duplicate deals, as ``canasta-sim run --duplicate``), in worker
processes, and times every decision pimc is asked (all of them, and the searched ones: acquire,
discard, ask, answer) on the process's own clock.  This machine's pure-Python floor (``scripts/floor.py``, the
project's floor copied unchanged, or ``--floor-script``) is measured before and after, so that decision times
can be scaled to a machine whose floor is 5,000 hands/s (time x floor / 5000).

Each samples value writes ``results/pimc_strength/samples_S.json``; ``--chart`` then draws every
file found there into one PNG (win rate with its 95% Wilson interval, and the mean decision time).
``--max-minutes`` stops starting new games after that long, so a run on a busy machine ends in time;
the figures then say how many games were played.

    python scripts/pimc_strength.py --samples 4 --games 100 --workers 2
    python scripts/pimc_strength.py --samples 4 --games 20 --rules target_score=1000   # short games, other rules
    python scripts/pimc_strength.py --chart docs/img/pimc_strength.png

``--rules KEY=VALUE`` (repeatable) plays every game, the timing rounds' included, under that rule set, as
``canasta-sim run --rules`` takes it.  Figures under other rules go to a folder of their own,
``results/pimc_strength/KEY=VALUE,.../`` (so they never overwrite the default rules' figures), record the rules
they were measured under, and ``--chart`` with the same ``--rules`` draws them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim.core._compiled import accelerator  # noqa: E402
from canasta_sim.core.engine import derive_seed, play_game  # noqa: E402
from canasta_sim.core.rules import Rules  # noqa: E402
from canasta_sim.errors import RulesError, StrategyLoadError  # noqa: E402
from canasta_sim.runs.summary import wilson_interval  # noqa: E402
from canasta_sim.strategies import Expert, Pimc  # noqa: E402

sys.path.insert(0, str(ROOT / "scripts"))
from strength import measure_floor, play_games  # noqa: E402  (the duplicate-deal pool and the floor, shared)

OUT = ROOT / "results" / "pimc_strength"
"""Where the figures under the default rules go; those under other rules go to a folder inside (:func:`out_folder`)."""
FLOOR_SCRIPT = ROOT / "scripts" / "floor.py"
REFERENCE_FLOOR = 5000.0
_SEARCHED = ("choose_acquire", "choose_discard", "choose_ask", "answer_go_out")
_ALL = (*_SEARCHED, "choose_meld")


class _TimedPimc(Pimc):
    """pimc that adds up the time of each of its decisions (the class holds the process's totals)."""

    totals: dict[str, list[float]] = {}


def _timed(name: str):
    method = getattr(Pimc, name)

    def decide(self, view):
        start = time.perf_counter()
        value = method(self, view)
        entry = _TimedPimc.totals.setdefault(name, [0, 0.0])
        entry[0] += 1
        entry[1] += time.perf_counter() - start
        return value

    return decide


for _name in _ALL:
    setattr(_TimedPimc, _name, _timed(_name))


PIMC3 = {"melds": 0, "horizon": 0, "screen": 8, "width": 3}
"""pimc@3's settings other than its samples, which docs/search.md's chart measures: pimc's defaults are a later
version's (pimc@5: play-outs cut at 12 turns, melds searched, 24 worlds first, 4 candidates)."""


def _factory(samples: int, policy: str):
    def build(rng):
        return _TimedPimc(rng, samples=samples, policy=policy, **PIMC3)

    return build


def play_one(samples: int, policy: str, seed: int, rules: Rules, number: int) -> dict:
    """Game ``number`` under ``rules``: deal ``number // 2`` with pimc as side A on even numbers, side B on odd
    ones."""
    _TimedPimc.totals = {}
    pimc_side = number % 2
    game_seed = derive_seed(seed, f"deal{number // 2}")
    pimc = _factory(samples, policy)
    players = [pimc, Expert, pimc, Expert] if pimc_side == 0 else [Expert, pimc, Expert, pimc]
    result = play_game(players, seed=game_seed, rules=rules)
    points = 0.5 if result.winner is None else float(result.winner == pimc_side)
    return {"number": number, "points": points, "hands": len(result.hands), "timing": _TimedPimc.totals}


def measure(samples: int, games: int, seed: int, workers: int, policy: str, max_minutes: float, floor: Path,
            rules: Rules | None = None) -> dict:
    """Play the games for one samples value under ``rules`` (the default rule set when ``None``) and return the
    figures."""
    rules = rules or Rules()
    floor_before = measure_floor(floor)
    start = time.perf_counter()
    results = play_games(play_one, (samples, policy, seed, rules), games, workers, max_minutes)
    floor_after = measure_floor(floor)
    played = len(results)
    points = sum(result["points"] for result in results)
    timing = {name: [0, 0.0] for name in _ALL}
    for result in results:
        for name, (count, seconds) in result["timing"].items():
            timing[name][0] += count
            timing[name][1] += seconds
    decisions = sum(count for count, _ in timing.values())
    seconds = sum(total for _, total in timing.values())
    searched = sum(timing[name][0] for name in _SEARCHED)
    searched_seconds = sum(timing[name][1] for name in _SEARCHED)
    wins = round(points)  # Wilson on whole wins; draws (half points) are rare under play_another_hand
    low, high = wilson_interval(wins, played) if played else (0.0, 0.0)
    floors = [value for value in (floor_before, floor_after) if value is not None]
    floor_mean = sum(floors) / len(floors) if floors else None
    mean_ms = 1000 * seconds / decisions if decisions else None
    return {
        "samples": samples,
        "policy": policy,
        "seed": seed,
        "rules": rules.changed_words(),
        "games_asked": games,
        "games": played,
        "points": points,
        "win_rate": points / played if played else None,
        "interval_95": [low, high],
        "hands": sum(result["hands"] for result in results),
        "decisions": decisions,
        "mean_decision_ms": mean_ms,
        "searched_decisions": searched,
        "mean_searched_decision_ms": 1000 * searched_seconds / searched if searched else None,
        "per_decision": {name: {"count": count, "mean_ms": 1000 * total / count if count else None}
                         for name, (count, total) in timing.items()},
        "floor_before": floor_before,
        "floor_after": floor_after,
        "mean_decision_ms_at_floor_5000": mean_ms * floor_mean / REFERENCE_FLOOR if mean_ms and floor_mean else None,
        "wall_seconds": round(time.perf_counter() - start, 1),
        "build": accelerator.describe(),
        "version": Pimc.label(),
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
    }


class _TimeUp(Exception):
    """Raised from inside a decision when a timing round is over."""


def timing(samples: int, seconds: float, rounds: int, floor: Path, policy: str, rules: Rules | None = None) -> dict:
    """Mean decision time of ``pimc:samples=S`` under ``rules`` (the default rule set when ``None``) in this
    process, each round between two floor measurements.

    On a busy machine the floor moves from minute to minute; a round of ``seconds`` seconds of play
    between two floors is scaled by their mean, and the rounds are then pooled.
    """
    rules = rules or Rules()
    pooled_ms = []
    raw_ms = []
    floors = []
    seed = 0
    for _ in range(rounds):
        before = measure_floor(floor)
        _TimedPimc.totals = {}
        stop_at = time.perf_counter() + seconds

        build = _factory(samples, policy)
        original = _TimedPimc.choose_discard

        def guarded(self, view, _original=original, _stop_at=stop_at):
            if time.perf_counter() > _stop_at:
                raise _TimeUp
            return _original(self, view)

        _TimedPimc.choose_discard = guarded
        try:
            while time.perf_counter() < stop_at:
                try:
                    play_game([build, Expert, build, Expert], seed=derive_seed(seed, "timing"), rules=rules)
                except Exception as error:  # the engine wraps _TimeUp in a StrategyError
                    if not isinstance(error.__cause__, _TimeUp):
                        raise
                seed += 1
        finally:
            _TimedPimc.choose_discard = original
        after = measure_floor(floor)
        count = sum(entry[0] for entry in _TimedPimc.totals.values())
        total = sum(entry[1] for entry in _TimedPimc.totals.values())
        if not count:
            continue
        mean = 1000 * total / count
        raw_ms.append(mean)
        floors.append((before, after))
        if before and after:
            pooled_ms.append(mean * (before + after) / 2 / REFERENCE_FLOOR)
    return {
        "samples": samples,
        "rules": rules.changed_words(),
        "rounds": [{"mean_decision_ms": ms, "floor_before": pair[0], "floor_after": pair[1]}
                   for ms, pair in zip(raw_ms, floors, strict=True)],
        "mean_decision_ms_at_floor_5000": sum(pooled_ms) / len(pooled_ms) if pooled_ms else None,
    }


def out_folder(rules: Rules) -> Path:
    """The folder of the figures measured under ``rules``: :data:`OUT`, or a folder inside named by the rules
    changed (``target_score=1000,ask_partner=off``)."""
    words = rules.changed_words()
    return OUT / ",".join(words) if words else OUT


def chart(path: Path, headline: Path | None = None, headline_samples: int = Pimc.parameters["samples"],
          folder: Path = OUT) -> None:
    """Draw every ``samples_*.json`` of ``folder`` into one PNG, with a ``canasta-sim run`` of pimc
    against expert (``headline``, at ``headline_samples``) as a point of its own when given."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted((json.loads(file.read_text()) for file in folder.glob("samples_*.json")),
                  key=lambda row: row["samples"])
    rows = [row for row in rows if row["games"]]
    if not rows:
        raise SystemExit(f"no figures in {folder}: run with --samples first")
    rule_sets = sorted({" ".join(row.get("rules", [])) or "default" for row in rows})
    if len(rule_sets) > 1:
        raise SystemExit(f"pimc_strength.py: the figures in {folder} were measured under different rules "
                         f"({'; '.join(rule_sets)}); chart one rule set at a time")
    samples = [row["samples"] for row in rows]
    rates = [100 * row["win_rate"] for row in rows]
    lows = [rate - 100 * row["interval_95"][0] for rate, row in zip(rates, rows, strict=True)]
    highs = [100 * row["interval_95"][1] - rate for rate, row in zip(rates, rows, strict=True)]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.errorbar(samples, rates, yerr=[lows, highs], fmt="o-", capsize=4)
    left.axhline(50, color="grey", linewidth=0.8)
    left.axhline(60, color="grey", linewidth=0.8, linestyle="--")
    left.set_xscale("log", base=2)
    left.set_xticks(samples, [str(value) for value in samples])
    left.set_xlabel("most sampled worlds per decision (`samples`)")
    left.set_ylabel("pimc win rate against expert, % (95% interval)")
    for value, rate, row in zip(samples, rates, rows, strict=True):
        left.annotate(f"{row['games']} games", (value, rate), textcoords="offset points", xytext=(6, -12), fontsize=8)
    if headline is not None:
        from canasta_sim.analysis import load_run

        games = load_run(headline).games
        won = int(games["winner_strategy"].str.startswith("pimc").sum())
        low, high = wilson_interval(won, len(games))
        rate = 100 * won / len(games)
        left.errorbar([headline_samples], [rate], yerr=[[rate - 100 * low], [100 * high - rate]], fmt="D",
                      color="tab:red", capsize=4, label=f"canasta-sim run (default), {len(games)} games")
        left.legend(fontsize=8)
        ticks = sorted(set(samples) | {headline_samples})
        left.set_xticks(ticks, [str(value) for value in ticks])
        print(f"canasta-sim run {headline}: {len(games)} games, {rate:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]")
    # Decision times: the --timing rounds where measured (each between two floors), else the match's own.
    timed = {}
    for file in folder.glob("timing_*.json"):
        figures = json.loads(file.read_text())
        if figures["mean_decision_ms_at_floor_5000"]:
            timed[figures["samples"]] = figures["mean_decision_ms_at_floor_5000"]
    by_samples = {row["samples"]: row for row in rows}
    every = sorted(set(timed) | set(by_samples))
    scaled = [timed.get(value) or by_samples[value]["mean_decision_ms_at_floor_5000"] for value in every]
    right.plot(every, scaled, "o-", label="all decisions")
    searched = [(value, ms * by_samples[value]["mean_searched_decision_ms"] / by_samples[value]["mean_decision_ms"])
                for value, ms in zip(every, scaled, strict=True) if value in by_samples]
    right.plot([value for value, _ in searched], [ms for _, ms in searched], "s--",
               label="searched decisions (same scale)")
    right.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xticks(every, [str(value) for value in every])
    right.set_xlabel("most sampled worlds per decision (`samples`)")
    right.set_ylabel("mean decision time, ms (scaled to floor 5000)")
    right.legend()
    builds = sorted({row.get("build", "pure Python") for row in rows})
    versions = sorted({row.get("version", "pimc@1") for row in rows})
    figure.suptitle(f"{', '.join(versions)} against expert, duplicate deals, rules {rule_sets[0]}, "
                    f"{'; '.join(builds)}, one core per game", fontsize=9)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    for row in rows:
        print(f"samples {row['samples']:>3}: {row['games']} games, {100 * row['win_rate']:.1f}% "
              f"[{100 * row['interval_95'][0]:.1f}%, {100 * row['interval_95'][1]:.1f}%], "
              f"{row['mean_decision_ms']:.1f} ms a decision here ({row['mean_searched_decision_ms']:.1f} ms searched), "
              f"floor {row['floor_before']}->{row['floor_after']}, "
              f"{row['mean_decision_ms_at_floor_5000'] or float('nan'):.1f} ms at floor 5000 "
              f"({_scaled_range(row)}); timing rounds: {timed.get(row['samples'], 'none')}")


def _scaled_range(row: dict) -> str:
    """The mean decision time scaled by the floor before and by the floor after: how far the floor moved."""
    floors = [value for value in (row["floor_before"], row["floor_after"]) if value]
    if not floors:
        return "no floor measured"
    low, high = (row["mean_decision_ms"] * value / REFERENCE_FLOOR for value in (min(floors), max(floors)))
    return f"{low:.1f} to {high:.1f} ms by the floor before or after alone"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, nargs="*", default=[], help="samples per decision to measure")
    parser.add_argument("--games", type=int, default=100, help="games per samples value (even: duplicate pairs)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--policy", default="expert", help="pimc's play-out policy")
    parser.add_argument("--max-minutes", type=float, default=0.0, help="start no game after this long (0: no limit)")
    parser.add_argument("--rules", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule option, as canasta-sim run takes it (repeatable; e.g. target_score=1000)")
    parser.add_argument("--floor-script", type=Path, default=FLOOR_SCRIPT)
    parser.add_argument("--timing", type=float, metavar="SECONDS",
                        help="only time decisions: rounds of this many seconds of play, each between two floors")
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds per samples value")
    parser.add_argument("--chart", type=Path, help="draw the chart of every measured samples value into this PNG")
    parser.add_argument("--headline", type=Path, help="a canasta-sim run of pimc against expert to add to the chart")
    arguments = parser.parse_args()
    if arguments.games < 2 or arguments.games % 2:
        parser.error(f"--games {arguments.games}: use an even number of at least 2 (duplicate pairs)")
    try:
        rules = Rules.from_options(arguments.rules)
    except RulesError as error:
        parser.error(str(error))
    for samples in arguments.samples:  # refused here in one line, not in a worker's traceback
        try:
            _factory(samples, arguments.policy)(random.Random(0))
        except StrategyLoadError as error:
            parser.error(str(error))
    folder = out_folder(rules)
    folder.mkdir(parents=True, exist_ok=True)
    if arguments.timing:
        for samples in arguments.samples:
            figures = timing(samples, arguments.timing, arguments.rounds, arguments.floor_script, arguments.policy,
                             rules)
            (folder / f"timing_{samples}.json").write_text(json.dumps(figures, indent=2) + "\n")
            print(json.dumps(figures))
        return
    for samples in arguments.samples:
        figures = measure(samples, arguments.games, arguments.seed, arguments.workers, arguments.policy,
                          arguments.max_minutes, arguments.floor_script, rules)
        (folder / f"samples_{samples}.json").write_text(json.dumps(figures, indent=2) + "\n")
        print(json.dumps({key: figures[key] for key in ("samples", "games", "win_rate", "interval_95",
                                                         "mean_decision_ms", "mean_searched_decision_ms",
                                                         "floor_before", "floor_after")}))
    if arguments.chart:
        chart(arguments.chart, arguments.headline, folder=folder)


if __name__ == "__main__":
    main()
