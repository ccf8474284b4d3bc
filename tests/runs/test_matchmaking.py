"""Duplicate deals, round robins and ``canasta-sim compare`` end to end."""

import json
import math
import re
from collections import Counter

import pandas as pd
import pytest
from click.testing import CliRunner

from canasta_sim.analysis.sections import format_markdown, paired_records
from canasta_sim.cli import main
from canasta_sim.cli.compare import MatchPlan, verdict_line
from canasta_sim.core.engine import GameObserver, play_game
from canasta_sim.core.rules import Rules
from canasta_sim.runs.local_backend import run_chunks
from canasta_sim.runs.matchmaking import (
    MatchmakingResults,
    PairedAccumulator,
    deal_seed,
    matchmaking_report,
    round_robin_pairs,
    scheduled_sides,
)
from canasta_sim.runs.runner import RunSettings
from canasta_sim.runs.sprt import EloEstimate, ResultCounts, Sprt
from canasta_sim.runs.storage import RunDirectory
from canasta_sim.strategies import Greedy, RandomPlay

QUICK = Rules(target_score=1000)  # R15.1 with a low target keeps games short
VERDICT = re.compile(r"^(H1 accepted after \d+ games: .+|H0 accepted after \d+ games: .+|no decision after .+)$")


class _Decks(GameObserver):
    """Records each hand's dealer and stacked deck (R3.1)."""

    def __init__(self) -> None:
        self.hands = []

    def on_hand_start(self, state) -> None:
        self.hands.append((state.dealer, state.deck))


def test_round_robin_gives_every_pair_equal_games_with_sides_alternated():
    specs = ("a", "b", "c", "d")
    games = [scheduled_sides(specs, game) for game in range(2 * len(round_robin_pairs(4)) * 3)]
    assert Counter(frozenset(sides) for sides in games) == {frozenset(pair): 6 for pair in
                                                            [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"),
                                                             ("b", "d"), ("c", "d")]}
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert second == (first[1], first[0])  # games 2k and 2k+1: same pair, sides swapped
    assert scheduled_sides(("x", "y"), 3) == ("y", "x") and scheduled_sides(("x",), 3) == ("x", "x")


def test_duplicate_settings_share_a_deal_seed_between_games_2k_and_2k_plus_1():
    settings = RunSettings(games=6, seed=9, specs=("greedy", "random"), rules=QUICK, chunk_size=3, duplicate=True)
    assert [settings.deal_id(game) for game in range(6)] == [0, 0, 1, 1, 2, 2]
    assert settings.game_seed(4) == settings.game_seed(5) == deal_seed(9, 2) != settings.game_seed(3)
    assert settings.manifest_fields()["duplicate"] is True
    with pytest.raises(ValueError, match="two or more different strategies"):
        RunSettings(games=6, seed=9, specs=("greedy",), rules=QUICK, chunk_size=3, duplicate=True)


def test_the_two_games_of_a_deal_get_the_same_cards_with_the_strategies_swapped(tmp_path):
    # Chunks of 3 games split deal 1 across two chunks: pairing must not depend on the chunking.
    settings = RunSettings(games=6, seed=9, specs=("greedy", "random"), rules=QUICK, chunk_size=3, duplicate=True)
    directory = RunDirectory(tmp_path / "run")
    assert run_chunks(settings, directory, list(range(settings.chunk_count)), workers=1) == (False, None)
    games = pd.read_parquet(directory.games_path).sort_values("game_id").reset_index(drop=True)
    for first, second in zip(games.iloc[::2].itertuples(), games.iloc[1::2].itertuples(), strict=True):
        assert first.deal_id == second.deal_id == first.game_id // 2
        assert first.seed == second.seed and first.first_dealer == second.first_dealer  # R2.2: same lot
        assert (first.team_a_strategy, first.team_b_strategy) == ("greedy", "random")
        assert (second.team_a_strategy, second.team_b_strategy) == ("random", "greedy")
    # Replaying one deal both ways: every hand both games reach is dealt from the same deck (R3.1).
    seed = int(games.seed[0])
    decks = []
    for players in ([Greedy, RandomPlay] * 2, [RandomPlay, Greedy] * 2):
        observer = _Decks()
        play_game(players, seed=seed, rules=QUICK, observer=observer)
        decks.append(observer.hands)
    assert decks[0][0] == decks[1][0]
    common = min(len(decks[0]), len(decks[1]))
    assert decks[0][:common] == decks[1][:common]


def _paired_result(rows: list[tuple]):
    """The one paired result of ``new`` against ``old`` over games ``rows`` (PairedAccumulator's columns, the
    termination ``target`` where a row leaves it out)."""
    accumulator = PairedAccumulator(["new", "old"])
    rows = [row if len(row) == 6 else (*row, "target") for row in rows]
    accumulator.add(pd.DataFrame(rows, columns=["deal_id", "team_a_strategy", "team_b_strategy", "winner", "margin",
                                                "termination"]))
    (result,) = accumulator.results()
    return result


def _three_deals(second_winner: str, second_points: int) -> list[tuple]:
    """Three deals, each with new winning its first game as side A by 500 and the same second game."""
    return [row for deal in range(3)
            for row in ((deal, "new", "old", "A", 500), (deal, "old", "new", second_winner, second_points))]


def test_paired_report_measures_the_variance_pairing_removes():
    # Three deals split 1-1 (the cards decided) and one won twice: pairing removes most of the variance.
    rows = []
    for deal, (first_winner, second_winner) in enumerate([("A", "A"), ("B", "B"), ("A", "A"), ("A", "B")]):
        rows.append((deal, "new", "old", first_winner, 300 if first_winner == "A" else -300))
        rows.append((deal, "old", "new", second_winner, 100 if second_winner == "A" else -100))
    result = _paired_result(rows)
    assert (result.first, result.deals, result.counts.pairs) == ("new", 4, [0, 0, 3, 0, 1])
    assert result.score == pytest.approx(5 / 8)
    # Per game: 5 wins in 8, variance 15/64; per deal: means 1/2, 1/2, 1/2, 1, variance 3/64.
    assert result.score_reduction == pytest.approx(1 - (3 / 64) / (15 / 64 / 2))
    assert result.equivalent_games == pytest.approx((15 / 64) * 4 / (3 / 64))
    assert "variance reduction against unpaired play" in result.text()


def test_a_paired_report_of_games_all_won_by_one_side_claims_no_equivalent_games():
    # Every game had the same result, so the variance pairing removes is unknown: the line read "win score n/a (as
    # precise as inf unpaired games)", an infinite precision beside the n/a it came from.
    result = _paired_result(_three_deals("B", -400))
    line = result.text().splitlines()[-1]
    assert "win score n/a (every game had the same result)" in line and "inf" not in line, line


def test_deals_that_all_gave_the_same_points_have_no_score_interval():
    # The normal approximation's interval was [100.0%, 100.0%]: a certainty three deals cannot give, beside an Elo
    # interval already n/a for the same reason.
    result = _paired_result(_three_deals("B", -400))
    assert result.score == 1.0 and math.isnan(result.score_low) and math.isnan(result.score_high)
    assert "new scores 100.0% [n/a, n/a] per game, +inf Elo [n/a]" in result.text(), result.text()


def test_a_paired_report_of_deals_all_split_claims_no_equivalent_games():
    # Every deal split 1-1, so the games varied but the deals did not: pairing removed all the variance, and no
    # number of unpaired games matches that. The line read "win score 100.0% (as precise as inf unpaired games)",
    # where the Markdown report says n/a and JSON null.
    result = _paired_result(_three_deals("A", 400))
    assert result.counts.pairs == [0, 0, 3, 0, 0]
    line = result.text().splitlines()[-1]
    assert "win score 100.0% (every deal gave the same points)" in line and "inf" not in line, line


def test_paired_margin_counts_only_deals_whose_two_games_were_played_out():
    # A forfeited game's totals stop at the failure, so the summary leaves its margin out; the paired result averaged
    # it in (+33.7 per game where the summary said +70.1), and its margin variance reduction with it.
    rows = [(0, "new", "old", "A", 300, "target"), (0, "old", "new", "B", -100, "target"),
            (1, "new", "old", "B", -50, "forfeit"), (1, "old", "new", "A", 200, "target"),
            (2, "new", "old", "A", 400, "target"), (2, "old", "new", "A", 100, "target")]
    result = _paired_result(rows)
    assert result.counts.pairs == [1, 0, 1, 0, 1]  # every game still counts in the score, forfeits as losses
    assert result.margin == pytest.approx((300 + 100 + 400 - 100) / 4) and result.margin_deals == 2
    # Per game margins 300, 100, 400, -100 (variance 36875); per deal 200, 150 (variance 625).
    assert result.margin_reduction == pytest.approx(1 - 625 / (36875 / 2))
    assert "mean margin +175.0 per game, over the 2 deals with no forfeit" in result.text(), result.text()
    (record,) = paired_records(MatchmakingResults(paired=(result,)))
    assert (record["deals"], record["margin_deals"], record["mean_margin"]) == (3, 2, 175.0)
    assert "| +175.0 (2 deals with no forfeit) |" in format_markdown(MatchmakingResults(paired=(result,)))


def test_one_deal_measures_no_variance_reduction():
    # A deal's variance over one deal is 0, so a single deal split 1-1 claimed that pairing removed all the score's
    # variance and the margin's ("margin 100.0%"), where one deal has no variation between deals to measure.
    result = _paired_result([(0, "new", "old", "A", 500), (0, "old", "new", "A", 300)])
    assert math.isnan(result.score_reduction) and math.isnan(result.margin_reduction)
    assert math.isnan(result.equivalent_games)
    line = result.text().splitlines()[-1]
    assert line.endswith("win score n/a (one deal: no variation between deals to measure), margin n/a"), line


def test_duplicate_run_prints_the_paired_result(tmp_path):
    result = CliRunner().invoke(main, ["run", "--games", "8", "--seed", "4", "-s", "greedy", "-s", "random",
                                       "--duplicate", "--rules", "target_score=1000", "--workers", "1", "-q",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "duplicate deals, greedy@2 vs random@2: 4 deals (8 games)" in result.output
    assert "variance reduction against unpaired play" in result.output
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert manifest["duplicate"] is True and "--duplicate" in manifest["command"]


def test_round_robin_run_prints_a_cross_table_and_ratings(tmp_path):
    result = CliRunner().invoke(main, ["run", "--games", "12", "--seed", "2", "-s", "greedy", "-s", "random",
                                       "-s", "expert", "--rules", "target_score=1000", "--workers", "1", "-q",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "cross table" in result.output and "ratings (Bradley-Terry fit" in result.output
    games = pd.read_parquet(tmp_path / "run" / "games")
    pairs = Counter(frozenset(row) for row in zip(games.team_a_strategy, games.team_b_strategy, strict=True))
    assert sorted(pairs.values()) == [4, 4, 4] and json.loads((tmp_path / "run" / "run.json").read_text())[
        "matchup"] == "round_robin"
    assert matchmaking_report(RunDirectory(tmp_path / "run"), ("greedy", "random", "expert"), False).count("n=4") == 6


def test_repeated_specs_in_a_round_robin_are_a_one_line_error(tmp_path):
    result = CliRunner().invoke(main, ["run", "--games", "4", "-s", "greedy", "-s", "random", "-s", "greedy",
                                       "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and "different strategies" in result.output and "Usage" not in result.output


@pytest.mark.parametrize(("strategies", "fewest"), [(3, 6), (4, 12)])
def test_a_round_robin_too_short_for_every_pair_to_play_is_a_one_line_error(tmp_path, strategies, fewest):
    # Games 2k and 2k + 1 go to pair k: with fewer, a strategy played no game and was still rated.
    specs = [word for spec in ["greedy", "random", "expert", "pimc"][:strategies] for word in ("-s", spec)]
    result = CliRunner().invoke(main, ["run", "--games", str(fewest - 1), *specs, "--out", str(tmp_path / "run")])
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert f"a round robin of {strategies} strategies needs at least {fewest} games" in result.output
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("strategies", "games", "even", "pairs"), [(3, 7, "6 or 8", 3), (4, 13, "12 or 14", 6)])
def test_a_round_robin_of_an_odd_number_of_games_is_a_one_line_error(tmp_path, strategies, games, even, pairs):
    # Games 2k and 2k + 1 go to pair k, sides swapped: --games 7 gave the first pair a third game, on the same side as
    # its first, and rated it on one game more than the others, without a word.
    specs = [word for spec in ["greedy", "random", "expert", "pimc"][:strategies] for word in ("-s", spec)]
    result = CliRunner().invoke(main, ["run", "--games", str(games), *specs, "--out", str(tmp_path / "run")])
    assert result.exit_code == 2, result.output
    assert result.output == (f"Error: --games {games}: a round robin plays each pair two games in turn, sides swapped, "
                             f"so give an even number of games ({even}; a multiple of {2 * pairs} gives each of its "
                             f"{pairs} pairs as many)\n")
    assert not (tmp_path / "run").exists()


def _compare(*extra):
    arguments = ["compare", "greedy", "--baseline", "random", "--rules", "target_score=1000", "--seed", "3",
                 "--max-games", "24", "--print-every", "10", *extra]
    return CliRunner().invoke(main, arguments)


def test_compare_prints_the_llr_as_it_goes_and_ends_with_a_verdict():
    one = _compare("--workers", "1")
    assert one.exit_code == 0, one.output
    lines = one.output.splitlines()
    assert VERDICT.match(lines[-1]), lines[-1]
    assert any(line.startswith("games ") and "LLR" in line for line in lines)
    # Results are taken in game order, so the verdict does not depend on the number of workers.
    two = _compare("--workers", "2")
    assert two.exit_code == 0 and two.output.splitlines()[1:] == lines[1:]


def test_a_quiet_compare_prints_only_where_the_test_ended_and_its_verdict():
    loud = _compare("--workers", "1")
    quiet = _compare("--workers", "1", "-q")
    assert quiet.exit_code == 0, quiet.output
    assert quiet.output.splitlines() == loud.output.splitlines()[-2:], quiet.output
    assert quiet.output.startswith("games ") and "LLR" in quiet.output.splitlines()[0]


def test_compare_says_a_strategy_clearly_behind_is_weaker_not_only_short_of_elo1():
    # "its gain is nearer elo0" read as "about equal" for a strategy hundreds of Elo behind.
    weaker = CliRunner().invoke(main, ["compare", "random", "--baseline", "greedy", "--seed", "3", "--workers", "1"])
    assert weaker.exit_code == 0, weaker.output
    verdict = weaker.output.splitlines()[-1]
    assert VERDICT.match(verdict) and " random is weaker than greedy, by " in verdict, verdict
    level = CliRunner().invoke(main, ["compare", "greedy", "--baseline", "greedy", "--seed", "1", "--workers", "1"])
    said = level.output.splitlines()[-1]
    assert said.startswith("H0 accepted after 204 games: the results favour H0 (greedy +0 Elo against greedy) over "
                           "H1 (+10 Elo); estimate +0.0 Elo"), level.output


@pytest.mark.parametrize("decision, words", [
    ("H1", "H1 accepted after 208 games: the results favour H1 (new +10 Elo against old) over H0 (+0 Elo); estimate "
           "+213.9 Elo [+169.5, +265.6]"),
    ("H0", "H0 accepted after 208 games: the results favour H0 (new +0 Elo against old) over H1 (+10 Elo); estimate "
           "+213.9 Elo [+169.5, +265.6]"),
])
def test_a_verdict_says_which_hypothesis_the_results_favour_and_the_estimate_not_a_bound(decision, words):
    # H1 accepted read "new is stronger than old by at least elo1 = 10 Elo": the test shows only that H1 is favoured
    # over H0 (a gain between elo0 and elo1 accepts either), and the size of the gain is the estimate.
    plan = MatchPlan("new", "old", 1, Rules(), True, 10000)
    estimate = EloEstimate(213.9, 169.5, 265.6, 0.77)
    assert verdict_line(decision, 208, plan, Sprt(), 2.95, estimate) == words
    assert "at least" not in verdict_line(decision, 208, plan, Sprt(), 2.95)


def test_compare_does_not_call_a_gain_below_a_positive_elo0_weaker():
    # expert is about 200 Elo stronger than greedy: short of elo0 = 280, yet no weaker than greedy.
    result = CliRunner().invoke(main, ["compare", "expert", "--baseline", "greedy", "--seed", "1", "--workers", "1",
                                       "--elo0", "280", "--elo1", "300"])
    assert result.exit_code == 0, result.output
    verdict = result.output.splitlines()[-1]
    assert VERDICT.match(verdict) and verdict.startswith("H0 accepted"), verdict
    assert "weaker" not in verdict and "expert's gain over greedy is below elo0 = 280 Elo: +" in verdict, verdict


def test_compare_without_duplicate_deals_counts_single_games():
    result = _compare("--workers", "1", "--no-duplicate", "--elo1", "400")
    assert result.exit_code == 0, result.output
    assert "independent games, trinomial" in result.output and "pairs" not in result.output
    assert VERDICT.match(result.output.splitlines()[-1])


def test_compare_rejects_an_empty_hypothesis_interval_in_one_line():
    result = _compare("--elo0", "10", "--elo1", "5")
    assert result.exit_code == 2 and "elo0 must be below elo1" in result.output and "Usage" not in result.output


def test_compare_stops_with_a_one_line_error_when_a_strategy_fails(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(
        "from canasta_sim.strategies.greedy import Greedy\n\n\n"
        "class Broken(Greedy):\n"
        "    name = 'broken'\n\n"
        "    def choose_discard(self, view):\n"
        "        raise RuntimeError('no discard today')\n"
    )
    result = CliRunner().invoke(main, ["compare", f"{path}:Broken", "--baseline", "random", "--seed", "1",
                                       "--max-games", "10", "--workers", "1", "--rules", "target_score=1000"])
    assert result.exit_code == 1 and "no discard today" in result.output


@pytest.mark.timeout(60)
def test_compare_ends_a_test_new_lost_every_game_of_with_a_verdict_and_a_finite_bound():
    # It ended "estimate -inf Elo [n/a]": no verdict on the size, and an interval that said nothing.
    result = CliRunner().invoke(main, ["compare", "random", "--baseline", "expert", "--seed", "6", "--workers", "1",
                                       "--elo1", "200", "-q", "--rules", "target_score=1000"])
    assert result.exit_code == 0, result.output
    verdict = result.output.splitlines()[-1]
    assert VERDICT.match(verdict) and verdict.endswith(
        "; random lost all 10 games (5 deals, each 0-2): random is weaker than expert, by at least 34.4 Elo "
        "(a one-sided 95% bound; the Elo estimate itself is unbounded)"), verdict
    assert "inf" not in verdict.replace("unbounded", "")


@pytest.mark.parametrize("pairs, duplicate, decision, end", [
    ([0, 0, 0, 0, 101], True, "H1", "new won all 202 games (101 deals, each 2-0): new is stronger than old, by at "
                                    "least 608.5 Elo (a one-sided 95% bound; the Elo estimate itself is unbounded)"),
    ([101, 0, 0, 0, 0], True, "H0", "new lost all 202 games (101 deals, each 0-2): new is weaker than old, by at "
                                    "least 608.5 Elo (a one-sided 95% bound; the Elo estimate itself is unbounded)"),
    ([2, 0, 0, 0, 0], True, "H0", "new lost all 4 games (2 deals, each 0-2): the Elo estimate is unbounded, and "
                                  "2 deals are too few to bound it at 95%"),
    ([101, 0, 0], False, "H0", "new lost all 101 games: new is weaker than old, by at least 608.5 Elo (a one-sided "
                               "95% bound; the Elo estimate itself is unbounded)"),
])
def test_a_verdict_on_games_all_lost_or_all_won_gives_a_finite_bound_not_an_infinite_estimate(pairs, duplicate,
                                                                                              decision, end):
    counts = ResultCounts()
    for category, count in enumerate(pairs):
        for _ in range(count):
            if duplicate:
                counts.add_pair(category / 4, category / 4)
            else:
                counts.add_game(category / 2)
    plan = MatchPlan("new", "old", 1, Rules(), duplicate, 10000)
    line = verdict_line(decision, counts.game_count, plan, Sprt(), 0.0, counts.estimate())
    assert line.startswith(f"{decision} accepted after {counts.game_count} games: ") and line.endswith("; " + end), line


def test_a_weaker_verdict_whose_interval_reaches_a_score_of_0_reads_its_open_end_as_a_bound():
    # The interval's end past a score of 0% printed as a raw "inf": "by 578.0 Elo [479.8, inf]".
    plan = MatchPlan("new", "old", 1, Rules(), True, 10000)
    estimate = EloEstimate(-578.0, -math.inf, -479.8, 0.04)
    line = verdict_line("H0", 202, plan, Sprt(), -2.95, estimate)
    assert line.endswith("; new is weaker than old, by 578.0 Elo [at least 479.8]"), line
    assert str(EloEstimate(578.0, 479.8, math.inf, 0.96)) == "+578.0 Elo [at least +479.8]"
    assert str(EloEstimate(-578.0, -math.inf, -479.8, 0.04)) == "-578.0 Elo [at most -479.8]"


@pytest.mark.parametrize("pairs, end", [
    ([5, 0, 0, 0, 0], "; new lost all 10 games (5 deals, each 0-2): new is weaker than old, by at least 34.4 Elo (a "
                      "one-sided 95% bound; the Elo estimate itself is unbounded)"),
    ([0, 0, 0, 0, 2], "; new won all 4 games (2 deals, each 2-0): the Elo estimate is unbounded, and 2 deals are too "
                      "few to bound it at 95%"),
])
def test_a_test_stopped_by_max_games_on_games_all_lost_or_all_won_gives_the_same_bound(pairs, end):
    # A decided test gave the bound; one stopped by --max-games said only "no decision", with no size at all.
    counts = ResultCounts()
    for category, count in enumerate(pairs):
        for _ in range(count):
            counts.add_pair(category / 4, category / 4)
    plan = MatchPlan("new", "old", 1, Rules(), True, counts.game_count // 2)
    line = verdict_line(None, counts.game_count, plan, Sprt(), -1.0, counts.estimate())
    assert line.startswith(f"no decision after {counts.game_count} games (the --max-games cap): ") and line.endswith(
        end), line
