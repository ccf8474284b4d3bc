"""The HTML replay's record (no browser needed): its positions are the engine's, a forfeit is kept, the page
is small and self-contained, and the commands' errors are one line."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from canasta_sim.cli import main
from canasta_sim.core.engine import GameObserver, play_game
from canasta_sim.core.rules import Rules
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.terminal.html_replay import record_game
from canasta_sim.terminal.narrate import narrate_game
from tests.helpers import BROKEN_AT_ONCE_BOT_SOURCE
from tests.page_checks import markup_problems

pytestmark = pytest.mark.timeout(120)

FAILING_BOT = '''
from canasta_sim.strategies.greedy import Greedy


class Failing(Greedy):
    """Greedy until its sixth discard, which raises."""

    name = "failing"

    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        self.discards = 0

    def choose_discard(self, view):
        self.discards += 1
        if self.discards == 6:
            raise RuntimeError("the sixth discard fails")
        return super().choose_discard(view)
'''



def _players(*specs):
    loaded = [load_strategy(spec) for spec in specs]
    return [loaded[0], loaded[1], loaded[0], loaded[1]] if len(loaded) == 2 else loaded * 4


def _document(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


class _Counts(GameObserver):
    def __init__(self) -> None:
        self.positions: list[list] = []

    def on_hand_start(self, state) -> None:
        self.positions.append([self._take(state)])

    def on_move(self, state) -> None:
        self.positions[-1].append(self._take(state))

    @staticmethod
    def _take(state):
        return [list(hand) for hand in state.hands], len(state.stock), list(state.pile), state.actor


def test_the_record_is_the_engines_position_after_every_move_and_its_narration_is_watchs():
    players = _players("greedy", "expert")
    labels, names = [p.label for p in players], [p.spec for p in players]
    recorded = record_game(players, seed=14, labels=labels, names=names)
    engine = _Counts()
    play_game(players, seed=14, names=names, observer=engine)
    assert recorded.error is None and len(recorded.recorder.hands) == len(engine.positions) == 10
    lines: list[str] = []
    narrate_game(players, seed=14, labels=labels, names=names, write=lines.append)
    recorded_lines = list(recorded.recorder.header)
    for hand, expected in zip(recorded.recorder.hands, engine.positions, strict=True):
        frames = hand["frames"]
        assert len(frames) == len(expected) + 1 and frames[-1]["move"] == "end"
        carried: dict = {}
        for frame, (counts, stock, pile, actor) in zip(frames, expected, strict=False):
            carried.update(frame)  # each position stores only what changed
            assert [carried[f"k{seat}"] for seat in range(4)] == counts and carried["stock"] == stock
            assert carried["pile"][0] == len(pile) and carried["actor"] in (actor, (actor + 2) % 4, None)
        recorded_lines += [line for frame in frames for line in frame["lines"]]
    recorded_lines += [""] + recorded.recorder.footer
    assert recorded_lines == lines  # the same narration as watch, split by move


def test_a_ten_hand_game_is_a_small_self_contained_page(tmp_path):
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["watch", "--seed", "14", "-s", "greedy", "-s", "expert", "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert "10 hands" in result.output
    text = page.read_text(encoding="utf-8")
    assert len(text.encode()) < 1_000_000, len(text.encode())
    assert "<script src" not in text and "<link" not in text and "url(" not in text and "@import" not in text
    document = _document(text)
    assert document["game_seed"] == "14" and len(document["hands"]) == 10
    assert [seat["strategy"] for seat in document["seats"]] == [
        load_strategy(spec).label for spec in ("greedy", "expert", "greedy", "expert")]


def test_a_forfeit_is_written_up_to_the_failure(tmp_path):
    bot = tmp_path / "failing.py"
    bot.write_text(FAILING_BOT)
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["watch", "--seed", "3", "-s", f"{bot}:Failing", "-s", "greedy",
                                       "--html", str(page)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"wrote {page} up to the failure" in result.output and "the sixth discard fails" in result.output
    document = _document(page.read_text(encoding="utf-8"))
    assert "the sixth discard fails" in document["ending"]["error"]
    assert document["hands"] and document["hands"][-1]["end"] is None


def test_a_strategy_failing_before_the_deal_still_gives_a_page(tmp_path):
    bot = tmp_path / "broken_at_once.py"
    bot.write_text(BROKEN_AT_ONCE_BOT_SOURCE)
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["watch", "-s", f"{bot}:BrokenAtOnce", "--html", str(page)])
    assert result.exit_code == 1 and "it breaks at once" in result.output
    document = _document(page.read_text(encoding="utf-8"))
    assert document["hands"] == [] and "it breaks at once" in document["ending"]["error"]


def test_public_pages_hold_no_hidden_card(tmp_path):
    players = _players("greedy")
    recorded = record_game(players, seed=2, labels=[p.label for p in players], names=[p.spec for p in players],
                           shown_seats=())
    for hand in recorded.recorder.hands:
        for frame in hand["frames"]:
            assert all(frame.get(f"h{seat}") is None and frame.get(f"k{seat}") is None for seat in range(4))
            # The public narration names no card in a hand: no "Hands:" block, no hand at the turn's header.
            assert not any(line == "Hands:" or re.match(r"Turn \d+: .* cards?: ", line) for line in frame["lines"])
            draws = [line for line in frame["lines"] if re.match(r"  \w+ draws [^3]", line)]
            assert all(" draws from the stock" in line for line in draws)


@pytest.mark.parametrize("place, reason", [("missing/game.html", "No such file or directory"),
                                           ("afile/game.html", "Not a directory"),
                                           ("/proc/game.html", "No such file or directory")])
def test_an_unwritable_page_is_a_usage_error_in_one_line(tmp_path, place, reason):
    # It exited 1, where an unusable plot --out or run --log-file exits 2.
    (tmp_path / "afile").write_text("a file, not a folder")
    page = tmp_path / place
    result = CliRunner().invoke(main, ["watch", "--html", str(page)])
    assert result.exit_code == 2, result.output
    assert result.output == f"Error: --html {page}: {reason}\n"


def test_markup_in_a_name_cannot_break_out_of_the_page():
    players = _players("greedy")
    odd = "</script><!--<script>alert(1)</script>"
    recorded = record_game(players, seed=1, labels=[odd] * 4, names=[odd] * 4)
    page = recorded.html(title=f"<b>{odd}</b>")
    assert page.count("</script>") == 2 and "<!--<script>" not in page  # the data element's and the script's
    document = _document(page)
    assert document["title"] == f"<b>{odd}</b>" and document["seats"][0]["strategy"] == odd
    assert "<title>&lt;b&gt;&lt;/script&gt;" in page


def test_the_pages_changed_rules_are_spelled_as_rules_takes_them_and_the_narration_says_them():
    # The header showed str(value): "allow_wild_only_melds=True", where --rules and the narration say "true".
    players = _players("greedy")
    rules = Rules.from_options(["allow_wild_only_melds=true", "black_three_freezes_pile=true", "target_score=1500"])
    recorded = record_game(players, seed=6, rules=rules, labels=[p.label for p in players],
                           names=[p.spec for p in players])
    changed = recorded.document(title="t")["rules_changed"]
    assert changed == {"target_score": "1500", "allow_wild_only_melds": "true", "black_three_freezes_pile": "true"}
    assert Rules.from_options(f"{key}={value}" for key, value in changed.items()) == rules
    words = ", ".join(f"{key}={value}" for key, value in changed.items())
    assert f"Rules changed from the defaults: {words}." in recorded.recorder.header


@pytest.fixture(scope="module")
def bare_page(tmp_path_factory) -> str:
    """The cheapest whole page: a game stopped before its deal (the template, its script and every card's data)."""
    folder = tmp_path_factory.mktemp("bare")
    bot = folder / "broken_at_once.py"
    bot.write_text(BROKEN_AT_ONCE_BOT_SOURCE)
    result = CliRunner().invoke(main, ["watch", "-s", f"{bot}:BrokenAtOnce", "--html", str(folder / "game.html")])
    assert result.exit_code == 1, result.output
    return (folder / "game.html").read_text(encoding="utf-8")


def test_the_page_gives_a_screen_reader_its_language_names_and_every_header_cells_scope(bare_page):
    # The tables the script draws (the scores, the hand list, a hand's score table) had header cells without a scope
    # and their rows' names in plain cells: a screen reader could not say which side or part a figure belongs to.
    assert markup_problems(bare_page) == []
    drawn = re.findall(r'el\("th"[^;]*', bare_page)
    assert len(drawn) >= 3 and all('"scope"' in call for call in drawn), drawn


def test_no_suit_and_no_three_is_told_by_colour_alone_r1_3(bare_page):
    # Hearts and diamonds are drawn red, spades and clubs black: each card carries its suit's glyph and its words
    # too, so that a reader who does not see red tells the suits apart, red 3s from black 3s included.
    from canasta_sim.core.cards import CARD_COUNT, JOKER

    assert 'const SUITS = "\\u2660\\u2665\\u2666\\u2663";' in bare_page
    assert 'node.appendChild(el("span", {"class": "suit"}, SUITS[suit]));' in bare_page  # each card but a joker
    glyphs, threes = "\u2660\u2665\u2666\u2663", {}
    for card, (kind, suit, text, words) in enumerate(_document(bare_page)["cards"]):
        if kind == JOKER:
            continue
        assert text.endswith(glyphs[suit]) and words.endswith(("spades", "hearts", "diamonds", "clubs")[suit]), card
        if text[:-1] == "3":
            threes.setdefault(kind, set()).add(text[-1])
    assert card == CARD_COUNT - 1
    assert sorted(threes.values(), key=sorted) == [{"\u2660", "\u2663"}, {"\u2665", "\u2666"}], threes
