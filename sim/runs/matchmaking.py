"""Who plays whom with which cards: duplicate deals and round robins, and what the report adds for them.

**Schedule.** Game ``g`` of a run belongs to deal ``g // 2`` when deals are duplicated, and is its own
deal otherwise (:func:`deal_of`).  Games ``2k`` and ``2k + 1`` are played by the same two strategies
with the sides swapped (side A is seats 0 and 2, R1.1); with three or more strategies (a round robin)
they are played by the ``k``-th pair of :func:`round_robin_pairs`, cycling, so every pair plays
equally often, sides alternated, and the assignment depends on nothing but the game number.

**Duplicate deals.** Both games of a deal are played with the deal's seed
(``derive_seed(run_seed, f"deal{k}")``).  The engine draws the first dealer and every shuffle from
a generator seeded by the game's seed alone, so the two games see the same cards in the same seats
hand by hand (as long as both last that many hands): what one strategy was dealt in the first game,
the other is dealt in the second.

**Report.** For duplicate deals, :class:`PairedAccumulator` gives each pair of strategies' paired
result (the score per game with an interval computed from deal-to-deal variation) and the variance
reduction against unpaired play: the variance of a paired deal's mean score compared with what two
independent games would have (the per-game variance halved), measured on the same games.  For round
robins, the report adds the cross table and the ratings of :mod:`canasta_sim.runs.ratings`.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence

from canasta_sim.core.engine import derive_seed
from canasta_sim.runs.ratings import CrossTable, Rating, fit_ratings, format_cross_table, format_ratings, ranked
from canasta_sim.runs.sprt import ResultCounts
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.runs.summary import Z_95

__all__ = [
    "MatchmakingResults",
    "PairedAccumulator",
    "PairedResult",
    "cross_table_of_run",
    "deal_of",
    "deal_seed",
    "first_spec_side",
    "matchmaking_report",
    "matchmaking_results",
    "round_robin_pairs",
    "scheduled_sides",
]


def round_robin_pairs(count: int) -> list[tuple[int, int]]:
    """Every pair of ``count`` entrants as index pairs, in a fixed order.

    >>> round_robin_pairs(3)
    [(0, 1), (0, 2), (1, 2)]
    """
    return list(itertools.combinations(range(count), 2))


def scheduled_sides(specs: Sequence[str], game_id: int) -> tuple[str, str]:
    """The specs playing side A and side B in game ``game_id``.

    One spec plays itself; two swap sides on odd games; three or more play a round robin whose
    ``k``-th game pair (games ``2k`` and ``2k + 1``) goes to pair ``k`` modulo the number of pairs.

    >>> [scheduled_sides(("x", "y", "z"), game) for game in range(4)]
    [('x', 'y'), ('y', 'x'), ('x', 'z'), ('z', 'x')]
    """
    if len(specs) <= 2:
        first, second = specs[0], specs[-1]
    else:
        pairs = round_robin_pairs(len(specs))
        i, j = pairs[(game_id // 2) % len(pairs)]
        first, second = specs[i], specs[j]
    return (second, first) if first_spec_side(game_id) else (first, second)


def first_spec_side(game_id: int) -> int:
    """The side (0 for A, 1 for B) of the first of two specs in game ``game_id``: A in even games, B in odd ones, as
    :func:`scheduled_sides` places them, so each duplicate deal's two games and each pair of games swap the sides."""
    return game_id % 2


def deal_of(game_id: int, duplicate: bool) -> int:
    """The deal of game ``game_id``: shared by games ``2k`` and ``2k + 1`` when deals are duplicated."""
    return game_id // 2 if duplicate else game_id


def deal_seed(run_seed: int, deal: int) -> int:
    """The game seed of both games of duplicate deal ``deal``."""
    return derive_seed(run_seed, f"deal{deal}")


# --- the paired result of duplicate deals ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PairedResult:
    """What the duplicate deals between ``first`` and ``second`` showed, from ``first``'s point of view."""

    first: str
    second: str
    counts: ResultCounts
    """Games and pairs (pentanomial) of ``first``."""
    score: float
    """``first``'s mean score per game (a draw counting half)."""
    score_low: float
    score_high: float
    """The 95% interval of the score, from the variation between deals (normal approximation, clipped to [0, 1]);
    ``nan`` when every deal gave the same points."""
    score_reduction: float
    """1 - (variance of a deal's mean score) / (per-game variance / 2): the share of the variance of the
    score that pairing removed."""
    equivalent_games: float
    """Unpaired games that would give the paired estimate's precision."""
    margin: float
    """``first``'s mean final margin per game, points, over the deals whose two games were both played out (a
    forfeited game's totals stop at the failure); ``nan`` when there are none."""
    margin_reduction: float
    """The same share for the final margin, over the same deals."""
    margin_deals: int | None = None
    """The deals those two figures count, both games played out (``None``: every deal)."""

    @property
    def deals(self) -> int:
        """Complete deals (both games played)."""
        return sum(self.counts.pairs)

    @property
    def second_score(self) -> float:
        """``second``'s mean score per game, from the counts: ``1 - score`` in floats could print 23.3% beside the
        summary's 23.2% for the same 93 wins in 400 games (``0.2325``, both numbers rounding a half)."""
        points = sum(count * (4 - index) for index, count in enumerate(self.counts.pairs))
        return points / (4 * self.deals) if self.deals else math.nan

    def text(self) -> str:
        """Four lines for the printed report."""
        estimate = self.counts.estimate()
        pairs = "/".join(str(count) for count in self.counts.pairs)
        return "\n".join([
            f"duplicate deals, {self.first} vs {self.second}: {self.deals} deals ({2 * self.deals} games)",
            f"  paired result: {self.first} scores {_percent(self.score)} "
            f"[{_percent(self.score_low)}, {_percent(self.score_high)}] per game, {estimate}",
            f"  deals by {self.first}'s points 0/0.5/1/1.5/2 (of 2): {pairs}; {self._margin_words()}",
            f"  variance reduction against unpaired play: win score {self._score_precision()}, "
            f"margin {_percent(self.margin_reduction)}",
        ])

    def _margin_words(self) -> str:
        if self.margin_deals in (None, self.deals):
            return f"mean margin {self.margin:+z.1f} per game"
        if not self.margin_deals:
            return "mean margin n/a (no deal had both games played out)"
        return f"mean margin {self.margin:+z.1f} per game, over the {self.margin_deals} deals with no forfeit"

    def _score_precision(self) -> str:
        if self.deals < 2:
            return "n/a (one deal: no variation between deals to measure)"
        if math.isnan(self.score_reduction):  # no variance to reduce: no equivalent number of games either
            return "n/a (every game had the same result)"
        if math.isinf(self.equivalent_games):  # the deals did not vary: no number of unpaired games is as precise
            return f"{_percent(self.score_reduction)} (every deal gave the same points)"
        return f"{_percent(self.score_reduction)} (as precise as {self.equivalent_games:.0f} unpaired games)"


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f}%"


class _Moments:
    """Count, sum and sum of squares of a series: its mean and (population) variance."""

    __slots__ = ("count", "total", "squares")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.squares = 0.0

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.squares += value * value

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else math.nan

    @property
    def variance(self) -> float:
        if not self.count:
            return math.nan
        return max(self.squares / self.count - self.mean**2, 0.0)


def _reduction(per_game: _Moments, per_deal: _Moments) -> float:
    # Two independent games would give the deal's mean a variance of per_game.variance / 2.  One deal has no
    # variation between deals to measure: its variance of 0 would claim that pairing removed everything.
    if not per_game.variance or per_deal.count < 2:
        return math.nan
    return 1.0 - per_deal.variance / (per_game.variance / 2.0)


def _equivalent_games(game_variance: float, per_deal: _Moments) -> float:
    """Unpaired games as precise as the deals: infinite when the deals did not vary, ``nan`` under two deals."""
    if per_deal.count < 2:
        return math.nan
    return game_variance * per_deal.count / per_deal.variance if per_deal.variance else math.inf


class PairedAccumulator:
    """Matches the two games of each duplicate deal, fed with ``games`` rows chunk by chunk.

    :param order: the entrants; a pair's result is told from the point of view of the one given first.
    """

    COLUMNS = ["deal_id", "team_a_strategy", "team_b_strategy", "winner", "margin", "termination"]
    """Columns of ``games`` it reads."""

    def __init__(self, order: Sequence[str]) -> None:
        self._rank = {spec: index for index, spec in enumerate(order)}
        self._waiting: dict[int, tuple[str, str, float, int | None]] = {}
        self._matchups: dict[tuple[str, str], dict] = {}

    def add(self, games) -> None:
        """Add rows of the ``games`` table (a pyarrow table or a DataFrame)."""
        frame = games.select(self.COLUMNS).to_pandas() if hasattr(games, "to_pandas") else games[self.COLUMNS]
        for deal, side_a, side_b, winner, margin, termination in frame.itertuples(index=False):
            first, second = sorted((side_a, side_b), key=lambda spec: self._rank.get(spec, len(self._rank)))
            score = 0.5 if winner == "draw" else float((winner == "A") == (side_a == first))
            # A forfeited game's totals stop at the failure: its margin is no final margin, as in the summary.
            own_margin = None if termination == "forfeit" else int(margin) if side_a == first else -int(margin)
            other = self._waiting.pop(int(deal), None)
            if other is None:
                self._waiting[int(deal)] = (first, second, score, own_margin)
                continue
            if other[:2] != (first, second):
                raise ValueError(f"deal {deal} was played by {other[0]} vs {other[1]} and by {first} vs {second}; "
                                 "the run does not hold duplicate deals")
            matchup = self._matchups.setdefault((first, second), {
                "counts": ResultCounts(), "game_scores": _Moments(), "deal_scores": _Moments(),
                "game_margins": _Moments(), "deal_margins": _Moments(),
            })
            matchup["counts"].add_pair(other[2], score)
            for value in (other[2], score):
                matchup["game_scores"].add(value)
            matchup["deal_scores"].add((other[2] + score) / 2)
            if other[3] is not None and own_margin is not None:  # margins pair only where both games were played out
                for margin_value in (other[3], own_margin):
                    matchup["game_margins"].add(margin_value)
                matchup["deal_margins"].add((other[3] + own_margin) / 2)

    def results(self) -> list[PairedResult]:
        """The paired result of every pair of strategies with complete deals, in entrant order."""
        results = []
        for (first, second), matchup in sorted(self._matchups.items(),
                                               key=lambda item: tuple(self._rank.get(s, 0) for s in item[0])):
            deal_scores = matchup["deal_scores"]
            # Deals that all gave the same points leave the normal approximation nothing to go on: its interval
            # would have no width, a certainty no finite number of deals gives, so it is n/a as the Elo's is.
            half = Z_95 * math.sqrt(deal_scores.variance / deal_scores.count)
            game_variance = matchup["game_scores"].variance
            equivalent = _equivalent_games(game_variance, deal_scores)
            results.append(PairedResult(
                first=first,
                second=second,
                counts=matchup["counts"],
                score=deal_scores.mean,
                score_low=max(0.0, deal_scores.mean - half) if deal_scores.variance else math.nan,
                score_high=min(1.0, deal_scores.mean + half) if deal_scores.variance else math.nan,
                score_reduction=_reduction(matchup["game_scores"], deal_scores),
                equivalent_games=equivalent,
                margin=matchup["game_margins"].mean,
                margin_reduction=_reduction(matchup["game_margins"], matchup["deal_margins"]),
                margin_deals=matchup["deal_margins"].count,
            ))
        return results


# --- round robins -----------------------------------------------------------------------------------

_CROSS_COLUMNS = ["team_a_strategy", "team_b_strategy", "winner"]


def _add_to_cross_table(table: CrossTable, games) -> None:
    frame = games.select(_CROSS_COLUMNS).to_pandas() if hasattr(games, "to_pandas") else games[_CROSS_COLUMNS]
    for (side_a, side_b, winner), count in frame.value_counts(sort=False).items():
        table.add(side_a, side_b, None if winner == "draw" else side_a if winner == "A" else side_b, count=int(count))


def cross_table_of_run(directory: RunDirectory, specs: Sequence[str]) -> CrossTable:
    """The cross table of a run's games, read chunk by chunk."""
    table = CrossTable(specs)
    for _, games, _ in directory.iter_chunks(_CROSS_COLUMNS, ["game_id"]):
        _add_to_cross_table(table, games)
    return table


@dataclasses.dataclass(frozen=True)
class MatchmakingResults:
    """What a run's report adds to the per-strategy summary: every format and the notebook API show these.

    :ivar paired: the paired result of each pair of strategies (runs with ``--duplicate``), else empty.
    :ivar cross_table: the results between every pair (round robins), else ``None``.
    :ivar ratings: the fitted ratings, one per entrant in the run's order (round robins), else empty.
    """

    paired: tuple[PairedResult, ...] = ()
    cross_table: CrossTable | None = None
    ratings: tuple[Rating, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.paired) or self.cross_table is not None

    def ranking(self) -> list[str]:
        """The entrants strongest first, as the ratings rank them (ties in the run's order); the cross table's order in
        every report and chart, so that a page showing both reads them alike."""
        return [rating.name for _, rating in ranked(self.ratings)] or list(self.cross_table.names if self.cross_table
                                                                            else ())

    def renamed(self, names: Mapping[str, str]) -> MatchmakingResults:
        """The same results with each spec called ``names[spec]`` (unchanged where ``names`` has none): the printed
        reports name the strategies as their headers and charts do (:func:`canasta_sim.analysis.strategy_names`)."""
        paired = tuple(dataclasses.replace(result, first=names.get(result.first, result.first),
                                           second=names.get(result.second, result.second)) for result in self.paired)
        ratings = tuple(dataclasses.replace(entry, name=names.get(entry.name, entry.name)) for entry in self.ratings)
        table = None if self.cross_table is None else self.cross_table.renamed(names)
        return MatchmakingResults(paired, table, ratings)

    def text(self) -> str:
        """The sections as printed by ``canasta-sim run`` and ``report`` ('' when there are none)."""
        sections = [result.text() for result in self.paired]
        if self.cross_table is not None:
            sections.append("cross table (score of the row strategy against the column one, 95% interval):\n"
                            + format_cross_table(self.cross_table, self.ranking()))
            sections.append("ratings (Bradley-Terry fit, Elo relative to the mean, 95% interval):\n"
                            + format_ratings(self.ratings))
        return "\n\n".join(sections)


def matchmaking_results(directory: RunDirectory, specs: Sequence[str], duplicate: bool) -> MatchmakingResults:
    """Read a run's paired results (duplicate deals) and cross table and ratings (round robins).

    :param specs: the run's strategy specs in the order given.
    :param duplicate: whether the run duplicated its deals.
    """
    paired: list[PairedResult] = []
    if duplicate and len(set(specs)) >= 2:
        accumulator = PairedAccumulator(specs)
        for _, games, _ in directory.iter_chunks(PairedAccumulator.COLUMNS, ["game_id"]):
            accumulator.add(games)
        paired = accumulator.results()
    if len(specs) >= 3:
        table = cross_table_of_run(directory, specs)
        if table.games.sum():
            return MatchmakingResults(tuple(paired), table, tuple(fit_ratings(table)))
    return MatchmakingResults(tuple(paired))


def matchmaking_report(directory: RunDirectory, specs: Sequence[str], duplicate: bool) -> str:
    """What the printed summary adds for duplicate deals and round robins ('' for a plain run).

    :param specs: the run's strategy specs in the order given.
    :param duplicate: whether the run duplicated its deals.
    """
    return matchmaking_results(directory, specs, duplicate).text()
