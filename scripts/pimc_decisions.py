"""What pimc's settings are worth, decision by decision, from a few games instead of thousands.

A match between pimc and expert needs about 600 games to tell 60% from 52%, because a game's result
is mostly the luck of the deal.  This script measures what a setting gains at each decision instead.
It plays ``--games`` games of a recording pimc against expert; at every decision pimc searches it
scores all of up to ``--width`` candidates in ``--worlds`` sampled worlds (common random numbers, as
pimc does) and keeps every candidate's value in every world.  A setting ``(samples S, confidence c,
width w)`` is then replayed offline on those values: it chooses from ``S`` of the worlds exactly as
pimc does (expert's choice unless another candidate leads it by ``c`` standard errors), and the
choice is valued on the *other* worlds, which it never saw (an unbiased estimate of the value of its
choice under expert play-outs).  The gain of a setting is that value less the value of expert's own
choice, in the evaluation's units (an estimated chance of winning the game, see ``pimc.match_value``);
added up over a game's decisions of one side it estimates the change in that side's chance of winning.
``oracle`` is the best candidate by the held-out worlds themselves: an upper bound, and biased upward.

Decision kinds are pimc's (acquire, discard, go_out, answer) and, with ``--melds``, ``meld``: at each
meld expert makes that is not going out, the meld against holding every meld back for the turn.

    python scripts/pimc_decisions.py --games 8 --worlds 48 --out results/pimc_decisions.json
    python scripts/pimc_decisions.py --analyse results/pimc_decisions.json

The values are under expert play-outs for all four seats and uniform sampling of hidden cards, so the
figures measure what the search can see, not the real games' results; they rank settings cheaply.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from canasta_sim.core.engine import derive_seed, play_game  # noqa: E402
from canasta_sim.strategies import Expert, Pimc  # noqa: E402
from canasta_sim.strategies.pimc import SCREEN_LEAD, _Apply, _leads, _pick, _PlayoutExpert  # noqa: E402


class _HoldMelds(_PlayoutExpert):
    """pimc's play-out expert, except that it lays nothing more during one given turn."""

    def __init__(self, rng, memory, turn: int) -> None:
        super().__init__(rng, memory)
        self.turn = turn

    def choose_meld(self, view):
        """Nothing during the held turn; as expert afterwards."""
        return None if view.turn_count == self.turn else super().choose_meld(view)


class _Hold:
    """Candidate: lay nothing more this turn."""

    def __init__(self, turn: int) -> None:
        self.turn = turn

    def play(self, state, seat, memory) -> None:
        """No move of its own."""

    def prepare(self, players, seat) -> None:
        players[seat] = _HoldMelds(players[seat].rng, players[seat].start, self.turn)


AS_PIMC2 = {"screen": 0, "melds": 0}
"""Every world valued (no screening) and expert's melds laid (none searched), as pimc@2 did: pimc's defaults are
pimc@5's, which would value only its first 24 worlds of most decisions and search the melds this script records."""


class _Recorder(Pimc):
    """pimc that values every candidate in many worlds, records the values, and plays as pimc@2 would
    from its first twelve worlds."""

    records: list = []
    play_samples = 12
    record_melds = False  # not pimc's own ``melds`` parameter, which an instance's setting would hide

    def _score(self, view, candidates, worlds, *, need_going_out=False):
        values = self._values(view, candidates, worlds)
        kind = self._kind
        _Recorder.records.append({"kind": kind, "values": values})
        return choose([row[: self.play_samples] for row in values], 1.0)

    def choose_acquire(self, view):
        self._kind = "acquire"
        return super().choose_acquire(view)

    def choose_discard(self, view):
        self._kind = "discard"
        return super().choose_discard(view)

    def wants_to_go_out(self, view):
        self._kind = "go_out"
        return super().wants_to_go_out(view)

    def answer_go_out(self, view):
        self._kind = "answer"
        return super().answer_go_out(view)

    def choose_meld(self, view):
        move = super().choose_meld(view)
        if not self.record_melds or move is None or view.partner_answer is True:
            return move
        if self._going_out(view, view.hand_number, view.turn_count):  # decided once a turn, before this meld
            return move
        candidates = [_Apply(move), _Hold(view.turn_count)]
        try:
            values = self._values(view, candidates, self._worlds(view, self.samples))
        except StopIteration:  # holding back left a hand expert cannot discard from in some world
            _Recorder.records.append({"kind": "meld_failed", "values": [[0.0], [0.0]]})
            return move
        _Recorder.records.append({"kind": "meld", "values": values})
        return move  # melds are recorded, not searched: the game goes on as expert's


class _TruthRecorder(_Recorder):
    """Records, at each searched decision, each candidate's values in sampled worlds under every
    sampler in ``avoids`` (avoid weights), and in ``truth`` copies of the real hand state with the
    stock shuffled: the hidden hands as they really are.  Reading the real state is what a
    measurement may do and a strategy may not (pimc itself never does)."""

    avoids = (1.0, 0.25)
    truth = 16
    sampled = 16

    def _score(self, view, candidates, worlds, *, need_going_out=False):
        need = self._kind == "answer" and view.rules.ask_partner_yes_forces_out
        record = {"kind": self._kind, "sampled": {}}
        for weight in self.avoids:
            self.avoid, self.samples = weight, self.sampled
            found = self._worlds(view, self.samples, need_going_out=need)
            if not found:
                return 0
            record["sampled"][str(weight)] = self._values(view, candidates, found)
        real = view._state
        rng = random.Random(self.rng.getrandbits(64))
        truths = []
        for _ in range(self.truth):
            world = real.copy()
            rng.shuffle(world.stock)
            truths.append((world, rng.getrandbits(64)))
        record["truth"] = self._values(view, candidates, truths)
        _Recorder.records.append(record)
        # The game goes on as pimc would play it from the first sampler's first worlds.
        first = record["sampled"][str(self.avoids[0])]
        return choose([row[: self.play_samples] for row in first], 1.0)


def record_truth_game(seed: int, number: int, width: int, sampled: int, truth: int, avoids: tuple) -> dict:
    """Game ``number`` with a truth recorder (pimc side A on even numbers), its records."""
    _Recorder.records = []
    _TruthRecorder.avoids, _TruthRecorder.sampled, _TruthRecorder.truth = avoids, sampled, truth

    def build(rng):
        return _TruthRecorder(rng, samples=1, width=width, **AS_PIMC2)

    players = [build, Expert, build, Expert] if number % 2 == 0 else [Expert, build, Expert, build]
    play_game(players, seed=derive_seed(seed, f"deal{number // 2}"))
    return {"number": number, "records": _Recorder.records}


def analyse_truth(path: Path, samples: list[int], confidences: list[float], widths: list[int],
                  screens: list[int]) -> None:
    """Print each setting's gain over expert's choice, valued in the real hidden hands."""
    data = json.loads(path.read_text())
    games = len(data["games"])
    records = [record for game in data["games"] for record in game["records"]]
    kinds = sorted({record["kind"] for record in records})
    weights = list(records[0]["sampled"]) if records else []
    print(f"{path}: {games} games, {len(records)} decisions; weights {weights}")
    for width in widths:
        for weight in weights:
            for count in samples:
                for screen in screens:
                    if screen >= count:
                        continue
                    for confidence in [*confidences, "truth"]:
                        per_kind = {kind: [] for kind in kinds}
                        changed = 0
                        worlds = 0
                        for record in records:
                            truth = [sum(row) / len(row) for row in record["truth"][:width]]
                            sampled = record["sampled"][weight][:width]
                            if confidence == "truth":
                                index, used = max(range(len(truth)), key=truth.__getitem__), 0
                            else:
                                index, used = choose_screened(sampled, count, screen, confidence)
                            changed += index != 0
                            worlds += used
                            per_kind[record["kind"]].append(truth[index] - truth[0])
                        every = [gain for gains in per_kind.values() for gain in gains]
                        mean = sum(every) / len(every)
                        error = math.sqrt(sum((g - mean) ** 2 for g in every) / (len(every) - 1) / len(every))
                        text = "  ".join(f"{kind} {100 * sum(g) / games:+.2f}" for kind, g in per_kind.items())
                        label = "truth-best" if confidence == "truth" else f"c={confidence}"
                        interval = 100 * 1.96 * error * len(every) / games
                        print(f"width {width} avoid {weight} samples {count:>2} screen {screen:>2} {label:>10}: "
                              f"per game {100 * sum(every) / games:+.2f} (+-{interval:.2f})"
                              f" points of win chance, changed {100 * changed / len(every):.1f}%, "
                              f"{worlds / len(every):.1f} worlds a decision; by kind: {text}")
                        if confidence == "truth":
                            break


def choose_screened(values: list[list[float]], count: int, screen: int, confidence: float) -> tuple[int, int]:
    """pimc@3's rule on recorded values: the first ``screen`` worlds, then all ``count`` when some candidate
    leads the first by more than ``SCREEN_LEAD`` standard errors (0: no screening); the choice and the
    worlds it used."""
    if screen and len(values) > 1:
        first = [row[:screen] for row in values]
        if not any(mean > SCREEN_LEAD * error for mean, error in _leads(first)):
            return choose(first, confidence), screen
    return choose([row[:count] for row in values], confidence), count if len(values) > 1 else 0


def choose(values: list[list[float]], confidence: float) -> int:
    """pimc's rule: candidate 0 unless another's mean paired lead over it exceeds ``confidence`` errors."""
    return _pick(_leads(values), confidence)


def record_game(seed: int, number: int, worlds: int, width: int, melds: bool) -> dict:
    """Game ``number`` (duplicate: pimc side A on even numbers), its records."""
    _Recorder.records = []
    _Recorder.record_melds = melds

    def build(rng):
        return _Recorder(rng, samples=worlds, width=width, **AS_PIMC2)

    side = number % 2
    players = [build, Expert, build, Expert] if side == 0 else [Expert, build, Expert, build]
    result = play_game(players, seed=derive_seed(seed, f"deal{number // 2}"))
    return {"number": number, "won": None if result.winner is None else result.winner == side,
            "records": _Recorder.records}


def analyse(path: Path, samples: list[int], confidences: list[float], widths: list[int], splits: int) -> None:
    """Print the gain of each setting, per decision kind and per game."""
    data = json.loads(path.read_text())
    games = len(data["games"])
    records = [record for game in data["games"] for record in game["records"]]
    failed = sum(record["kind"] == "meld_failed" for record in records)
    if failed:
        print(f"{failed} meld decisions could not be valued (a world where holding back leaves no legal discard)")
    records = [record for record in records if record["kind"] != "meld_failed"]
    total_worlds = len(records[0]["values"][0]) if records else 0
    kinds = sorted({record["kind"] for record in records})
    counts = ", ".join(f"{kind} {sum(record['kind'] == kind for record in records)}" for kind in kinds)
    print(f"{path}: {games} games, {len(records)} decisions, {total_worlds} worlds each; "
          f"by kind: {counts}")
    rng = random.Random(0)
    # The same splits of worlds for every setting: the comparisons between settings are paired.
    plans = [[rng.sample(range(total_worlds), total_worlds) for _ in range(splits)] for _ in records]
    for width in widths:
        for count in samples:
            if count >= total_worlds:
                continue
            for confidence in [*confidences, "oracle"]:
                per_kind = {kind: [] for kind in kinds}
                changed = 0
                for record, orders in zip(records, plans, strict=True):
                    values = record["values"][:width]
                    if len(values) < 2:
                        per_kind[record["kind"]].append(0.0)
                        continue
                    gains = []
                    for order in orders:
                        seen, held = order[:count], order[count:]
                        truth = [sum(row[i] for i in held) / len(held) for row in values]
                        if confidence == "oracle":
                            index = max(range(len(values)), key=truth.__getitem__)
                        else:
                            index = choose([[row[i] for i in seen] for row in values], confidence)
                        changed += index != 0
                        gains.append(truth[index] - truth[0])
                    per_kind[record["kind"]].append(sum(gains) / len(gains))
                every = [gain for gains in per_kind.values() for gain in gains]
                mean = sum(every) / len(every)
                error = math.sqrt(sum((g - mean) ** 2 for g in every) / (len(every) - 1) / len(every))
                # Both seats of a side are recorded: a game's gain for the side is the sum over its decisions.
                per_game = sum(every) / games
                kinds_text = "  ".join(f"{kind} {1000 * sum(g) / games:+.1f}" for kind, g in per_kind.items())
                label = confidence if confidence == "oracle" else f"c={confidence}"
                print(f"width {width} samples {count:>2} {label:>7}: per game {100 * per_game:+.2f} points of win "
                      f"chance (+-{100 * 1.96 * error * len(every) / games:.2f}), changed "
                      f"{100 * changed / len(every) / splits:.1f}% of decisions; per game x1000 by kind: {kinds_text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--worlds", type=int, default=48)
    parser.add_argument("--width", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--melds", action="store_true", help="also record expert's melds against holding them back")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "pimc_decisions.json")
    parser.add_argument("--analyse", type=Path)
    parser.add_argument("--samples", type=int, nargs="*", default=[4, 8, 16, 24, 32])
    parser.add_argument("--confidence", type=float, nargs="*", default=[0.0, 0.5, 1.0, 1.5, 2.0])
    parser.add_argument("--widths", type=int, nargs="*", default=[2, 3, 5])
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--screens", type=int, nargs="*", default=[0],
                        help="with --truth: first batches of worlds to screen with (0: none; pimc@3 screens 8)")
    parser.add_argument("--truth", type=int, default=0,
                        help="value candidates in this many copies of the real hidden hands (stock shuffled)")
    parser.add_argument("--avoids", type=float, nargs="*", default=[1.0, 0.25], help="samplers' avoid weights")
    arguments = parser.parse_args()
    if arguments.analyse and arguments.truth:
        analyse_truth(arguments.analyse, arguments.samples, arguments.confidence, arguments.widths, arguments.screens)
        return
    if arguments.truth:
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=arguments.workers) as pool:
            futures = [pool.submit(record_truth_game, arguments.seed, number, arguments.width, arguments.worlds,
                                   arguments.truth, tuple(arguments.avoids)) for number in range(arguments.games)]
            games = [future.result() for future in futures]
        arguments.out.parent.mkdir(parents=True, exist_ok=True)
        arguments.out.write_text(json.dumps({"command": " ".join(sys.argv), "games": games}) + "\n")
        decisions = sum(len(game["records"]) for game in games)
        print(f"{arguments.out}: {decisions} decisions, {time.perf_counter() - start:.0f} s")
        return
    if arguments.analyse:
        analyse(arguments.analyse, arguments.samples, arguments.confidence, arguments.widths, arguments.splits)
        return
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=arguments.workers) as pool:
        futures = [pool.submit(record_game, arguments.seed, number, arguments.worlds, arguments.width, arguments.melds)
                   for number in range(arguments.games)]
        games = [future.result() for future in futures]
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps({"command": " ".join(sys.argv), "games": games}) + "\n")
    print(f"{arguments.out}: {sum(len(g['records']) for g in games)} decisions in {len(games)} games, "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
