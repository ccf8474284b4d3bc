"""The HTML replay in a real browser: what the page shows after move N is what the engine's state held.

The pages are written by the commands a user runs (``watch --html``, ``replay --html``) and opened from disk
in headless Chromium; the expected positions come from a separate play of the same game with an observer
that copies the engine's own state (counts by kind, melds, pile, stock, whose turn) and its hand results.
"""

from __future__ import annotations

from collections import Counter

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.browser import need_selenium

need_selenium()  # before selenium's imports: skips the module where it is missing (fails in CI)

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from canasta_sim.cli import main  # noqa: E402
from canasta_sim.core.cards import CARD_KIND, JOKER, TWO  # noqa: E402
from canasta_sim.core.engine import GameObserver, play_game  # noqa: E402
from canasta_sim.core.melds import CANASTA_SIZE  # noqa: E402
from canasta_sim.plugins.loader import load_strategy  # noqa: E402
from tests.browser import open_page, page_errors, requests_made  # noqa: E402
from tests.helpers import BROKEN_AT_ONCE_BOT_SOURCE, FLAKY_BOT_SOURCE  # noqa: E402

pytestmark = pytest.mark.timeout(60)

SEED = 5
SPECS = ("greedy", "expert")

READ_TABLE = """
const cards = (root, selector) => [...root.querySelectorAll(selector)].map(c => +c.dataset.kind);
const seats = [0, 1, 2, 3].map(s => {
  const box = document.getElementById("seat-" + s);
  return {counts: box.dataset.counts, kinds: cards(box, ".card[data-card]"),
          backs: box.querySelectorAll(".card.back").length, size: +box.dataset.size,
          toMove: box.classList.contains("to-move")};
});
const melds = [0, 1].map(side => [...document.querySelectorAll("#melds-" + side + " .meld")].map(m => (
  {rank: +m.dataset.rank, parts: [+m.dataset.naturals, +m.dataset.jokers, +m.dataset.deuces],
   canasta: m.dataset.canasta, kinds: cards(m, ".card")})));
const reds = [0, 1].map(side => document.querySelectorAll("#red3-" + side + " .card").length);
const pile = document.getElementById("pile").dataset, turn = document.getElementById("turn").dataset;
const table = document.getElementById("score-table");
const rows = {};
table.querySelectorAll("tr[data-part]").forEach(r => {
  rows[r.dataset.part] = [...r.querySelectorAll("td[data-value]")].map(td => +td.dataset.value); });
return {seats, melds, reds, stock: +document.getElementById("stock").dataset.count,
        pile: {size: +pile.size, top: pile.top === "" ? null : +pile.top, frozen: pile.frozen === "true"},
        actor: turn.actor === "" ? null : +turn.actor, hand: +document.body.dataset.hand,
        frame: +document.body.dataset.frame, step: +document.getElementById("position").dataset.step,
        scoreShown: table.classList.contains("shown"), rows,
        totals: ["a", "b"].map(s => +document.getElementById("score-" + s).dataset.total),
        playing: document.body.dataset.playing === "true"};
"""


class EngineRecord(GameObserver):
    """The engine's own state after the deal and after every move, and each hand's result."""

    def __init__(self) -> None:
        self.hands: list[dict] = []

    def on_hand_start(self, state) -> None:
        self.hands.append({"positions": [self._take(state)], "result": None, "scores_before": state.scores_before})

    def on_move(self, state) -> None:
        self.hands[-1]["positions"].append(self._take(state))

    def on_hand_end(self, state, result) -> None:
        self.hands[-1]["result"] = result

    @staticmethod
    def _take(state) -> dict:
        return {
            "counts": [list(state.hands[seat]) for seat in range(4)],
            "melds": [{rank: list(meld) for rank, meld in state.meld_table(side).items()} for side in (0, 1)],
            "red_threes": [state.red_threes[side] + state.red_threes[side + 2] for side in (0, 1)],
            "pile": (len(state.pile), state.pile[-1] if state.pile else None, state.is_pile_frozen()),
            "stock": len(state.stock),
            "actor": None if state.is_over else state.actor,
        }

    def steps(self) -> list[tuple[int, int]]:
        """(hand, position) of every step of the page: the positions of each hand, then its end."""
        return [(hand, index) for hand, record in enumerate(self.hands)
                for index in range(len(record["positions"]) + 1)]


def engine_record(specs, seed: int) -> EngineRecord:
    loaded = [load_strategy(spec) for spec in specs]
    record = EngineRecord()
    play_game([loaded[0], loaded[1], loaded[0], loaded[1]], seed=seed, observer=record)
    return record


def check_position(shown: dict, record: EngineRecord, hand: int, index: int) -> None:
    """The page's table against the engine's state at (hand, index); the end of a hand shows its last position."""
    positions = record.hands[hand]["positions"]
    expected = positions[min(index, len(positions) - 1)]
    where = f"hand {hand + 1}, step {index}"
    assert (shown["hand"], shown["frame"]) == (hand, index), where
    for seat, seen in enumerate(shown["seats"]):
        counts = expected["counts"][seat]
        assert seen["counts"] == ",".join(map(str, counts)), f"{where}: seat {seat}'s counts"
        on_screen = Counter(seen["kinds"])
        assert [on_screen.get(kind, 0) for kind in range(len(counts))] == counts, f"{where}: seat {seat}'s cards"
        assert seen["size"] == sum(counts) and seen["toMove"] == (expected["actor"] == seat), where
    for side in (0, 1):
        melds = {meld["rank"]: meld["parts"] for meld in shown["melds"][side]}
        assert melds == expected["melds"][side], f"{where}: side {side}'s melds"
        for meld in shown["melds"][side]:
            naturals, jokers, deuces = meld["parts"]
            kinds = Counter(meld["kinds"])
            assert (kinds[meld["rank"]], kinds[JOKER], kinds[TWO]) == (naturals, jokers, deuces), where
            size = naturals + jokers + deuces
            assert meld["canasta"] == ("" if size < CANASTA_SIZE else "mixed" if jokers + deuces else "natural")
    assert shown["reds"] == expected["red_threes"], f"{where}: red 3s"
    size, top, frozen = expected["pile"]
    assert (shown["pile"]["size"], shown["pile"]["frozen"], shown["stock"]) == (size, frozen, expected["stock"]), where
    assert (CARD_KIND[shown["pile"]["top"]] if shown["pile"]["top"] is not None else None) == top, f"{where}: pile top"
    assert shown["actor"] == expected["actor"], f"{where}: whose turn"


def check_score_table(shown: dict, record: EngineRecord, hand: int) -> None:
    result = record.hands[hand]["result"]
    a, b = result.sides
    assert shown["scoreShown"], f"hand {hand + 1}'s end shows no score table"
    assert shown["rows"]["melds (R14.1a)"] == [a.meld_points, b.meld_points]
    assert shown["rows"]["canastas (R14.1b)"] == [a.canasta_bonus, b.canasta_bonus]
    assert shown["rows"]["going out (R14.1c)"] == [a.going_out_bonus, b.going_out_bonus]
    assert shown["rows"]["red 3s (R14.1d)"] == [a.red_three_bonus, b.red_three_bonus]
    assert shown["rows"]["cards in hand (R14.1e)"] == [-a.hand_penalty, -b.hand_penalty]
    assert shown["rows"]["hand"] == [a.score, b.score]
    assert shown["rows"]["total"] == list(result.totals_after) == shown["totals"]


@pytest.fixture(scope="module")
def watched(tmp_path_factory):
    path = tmp_path_factory.mktemp("page") / "game.html"
    args = ["watch", "--seed", str(SEED), "--html", str(path)]
    for spec in SPECS:
        args += ["-s", spec]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return path, engine_record(SPECS, SEED)


def read(driver) -> dict:
    return driver.execute_script(READ_TABLE)


def press(driver, key) -> None:
    ActionChains(driver).send_keys(key).perform()


def test_the_keys_step_through_a_hand_and_every_position_is_the_engines(browser, watched):
    path, record = watched
    open_page(browser, path)
    check_position(read(browser), record, 0, 0)
    first = record.hands[0]["positions"]
    for index in range(1, len(first)):
        press(browser, Keys.ARROW_RIGHT)
        check_position(read(browser), record, 0, index)
    press(browser, Keys.ARROW_RIGHT)  # the hand's end: its last position and its score table
    shown = read(browser)
    check_position(shown, record, 0, len(first))
    check_score_table(shown, record, 0)
    press(browser, Keys.ARROW_RIGHT)
    check_position(read(browser), record, 1, 0)
    assert not read(browser)["scoreShown"]
    for index in (1, 2, 3):
        press(browser, Keys.ARROW_RIGHT)
        check_position(read(browser), record, 1, index)
    press(browser, Keys.ARROW_LEFT)
    check_position(read(browser), record, 1, 2)
    press(browser, Keys.PAGE_DOWN)
    check_position(read(browser), record, 2, 0)
    press(browser, Keys.PAGE_UP)
    check_position(read(browser), record, 1, 0)
    press(browser, Keys.END)
    last = len(record.hands) - 1
    shown = read(browser)
    assert shown["step"] == len(record.steps()) - 1
    check_position(shown, record, last, len(record.hands[last]["positions"]))
    check_score_table(shown, record, last)
    ending = browser.find_element(By.ID, "ending").text
    assert "Game over after" in ending and f"side A {shown['totals'][0]}, side B {shown['totals'][1]}" in ending
    press(browser, Keys.HOME)
    check_position(read(browser), record, 0, 0)


def test_the_buttons_and_the_hand_list_go_where_they_say(browser, watched):
    path, record = watched
    open_page(browser, path)
    browser.find_element(By.ID, "next-hand").click()
    browser.find_element(By.ID, "next-hand").click()
    check_position(read(browser), record, 2, 0)
    for index in range(1, 8):
        browser.find_element(By.ID, "forward").click()
        check_position(read(browser), record, 2, index)
    browser.find_element(By.ID, "back").click()
    check_position(read(browser), record, 2, 6)
    Select(browser.find_element(By.ID, "hand-select")).select_by_value("4")
    check_position(read(browser), record, 4, 0)
    browser.find_element(By.ID, "prev-hand").click()
    check_position(read(browser), record, 3, 0)
    browser.find_element(By.ID, "last").click()
    assert read(browser)["step"] == len(record.steps()) - 1
    browser.find_element(By.ID, "first").click()
    check_position(read(browser), record, 0, 0)


def test_every_hand_ends_with_the_engines_score_table(browser, watched):
    path, record = watched
    open_page(browser, path)
    steps = record.steps()
    for hand, hand_record in enumerate(record.hands):
        end = steps.index((hand, len(hand_record["positions"])))
        browser.execute_script(f"location.hash = '#step={end + 1}'")  # as the page numbers its steps, from 1
        shown = read(browser)
        check_position(shown, record, hand, len(hand_record["positions"]))
        check_score_table(shown, record, hand)
    # Before a hand's end, the scores are those the hand started with.
    browser.execute_script(f"location.hash = '#step={steps.index((2, 5)) + 1}'")
    assert read(browser)["totals"] == list(record.hands[2]["scores_before"])


def test_play_moves_on_at_the_chosen_speed_and_pauses(browser, watched):
    path, record = watched
    open_page(browser, path)
    Select(browser.find_element(By.ID, "speed")).select_by_value("40")
    # The list keeps the focus once chosen, and with it its own keys: Space there opens it, as a keyboard user
    # expects of a focused control (WAI-ARIA practice; this test once pressed Space on the list to play).  A click on
    # the table leaves the list, and then Space plays.
    browser.find_element(By.ID, "table").click()
    assert browser.execute_script("return document.activeElement") == browser.find_element(By.TAG_NAME, "body")
    press(browser, " ")
    WebDriverWait(browser, 5).until(lambda driver: read(driver)["step"] >= 12)
    press(browser, " ")
    shown = read(browser)
    assert not shown["playing"]
    hand, index = record.steps()[shown["step"]]
    check_position(shown, record, hand, index)
    assert read(browser)["step"] == shown["step"]  # paused: it stays


def step_in_address(driver) -> str:
    return driver.execute_script("return location.hash")


@pytest.mark.timeout(60)
def test_the_address_names_the_step_shown_and_back_and_forward_go_to_the_steps_left(browser, watched):
    # The address kept the step the page was opened at: stepping on left it there, so that it could not be copied to
    # share the moment shown, and the same #step link followed again (the address unchanged) did nothing.
    # In a tab of its own: the session's tab holds every page test's history, which Chromium keeps to 50 entries, so
    # that two links more could not count there once the tests before had filled it.
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        path, _ = watched
        open_page(browser, path, "#step=40")
        assert read(browser)["step"] == 39 and step_in_address(browser) == "#step=40"
        entries = browser.execute_script("return history.length")
        for _ in range(3):
            press(browser, Keys.ARROW_RIGHT)
        WebDriverWait(browser, 5).until(lambda driver: step_in_address(driver) == "#step=43")
        assert read(browser)["step"] == 42
        browser.execute_script("location.hash = '#step=40'")  # the link followed again
        WebDriverWait(browser, 5).until(lambda driver: read(driver)["step"] == 39)
        browser.execute_script("location.hash = '#step=10'")
        WebDriverWait(browser, 5).until(lambda driver: read(driver)["step"] == 9)
        press(browser, Keys.PAGE_DOWN)
        hand_start = read(browser)["step"]
        WebDriverWait(browser, 5).until(lambda driver: step_in_address(driver) == f"#step={hand_start + 1}")
        # Two links followed made two entries in the history; the steps taken made none (replaceState).
        assert browser.execute_script("return history.length") == entries + 2
        # Back goes to each link followed as the replay had left it, Forward returns.
        for move, step in ((browser.back, 39), (browser.back, 42), (browser.forward, 39),
                           (browser.forward, hand_start)):
            move()
            WebDriverWait(browser, 5).until(lambda driver, step=step: read(driver)["step"] == step)
            assert step_in_address(browser) == f"#step={step + 1}"
        assert page_errors(browser) == []
    finally:
        browser.close()
        browser.switch_to.window(first)


STEP_THEN_FOLLOW = """
// The address follows a step at once when it was last written a pause ago or more (a page opened on a busy machine,
// read late), else at the pause's end: after one step it may name either.  A second step, in the same script, comes
// within the pause of the first, so the address stays on what the first left, a step behind or two.
const forward = document.getElementById("forward");
forward.click();
const shown = location.hash;
forward.click();
const lagging = [shown, location.hash, +document.getElementById("position").dataset.step];
if (arguments[0] === "link") {
  const link = document.createElement("a");
  link.href = shown;
  document.body.appendChild(link);
  link.click();
} else {  // the address given again, as the address bar or a bookmark gives it
  location.href = location.href.split("#")[0] + shown;
}
return lagging;
"""


@pytest.mark.timeout(60)
@pytest.mark.parametrize("how", ["link", "address"])
def test_a_step_link_goes_to_its_step_while_the_address_still_shows_it(browser, watched, how):
    # Within ADDRESS_PAUSE of a step the address still named the step before it; a link to that step then changed no
    # hash (no hashchange) and did nothing, and the address went on to the step the replay had moved to.
    path, _ = watched
    open_page(browser, path, "#step=40")
    # In one script: the link is followed well within the pause after the steps, whatever the machine's speed.
    shown, address, step = browser.execute_script(STEP_THEN_FOLLOW, how)
    assert step == 41 and address == shown and shown in ("#step=40", "#step=41")  # the address had not caught up
    named = int(shown.removeprefix("#step=")) - 1
    WebDriverWait(browser, 5).until(lambda driver: read(driver)["step"] == named)
    browser.execute_script("return new Promise(function (done) { setTimeout(done, 500); })")  # the pause gone by
    assert read(browser)["step"] == named and step_in_address(browser) == shown
    assert page_errors(browser) == []


COUNT_REWRITES = """
window.rewrites = 0;
const rewrite = history.replaceState.bind(history);
history.replaceState = function () { window.rewrites += 1; return rewrite.apply(null, arguments); };
"""


def test_playing_fast_rewrites_the_address_seldom_and_leaves_it_at_the_step_it_stops_on(browser, watched):
    # Browsers refuse an address rewritten too often (Safari throws past 100 times in 30 seconds): at 40 steps a
    # second the address follows about three times a second.
    path, _ = watched
    open_page(browser, path)
    Select(browser.find_element(By.ID, "speed")).select_by_value("40")
    browser.execute_script(COUNT_REWRITES)
    browser.find_element(By.ID, "play").click()
    WebDriverWait(browser, 5).until(lambda driver: read(driver)["step"] >= 40)
    browser.find_element(By.ID, "play").click()
    stopped = read(browser)["step"]
    WebDriverWait(browser, 5).until(lambda driver: step_in_address(driver) == f"#step={stopped + 1}")
    rewrites = browser.execute_script("return window.rewrites")
    assert 1 <= rewrites <= stopped // 4, (rewrites, stopped)
    assert page_errors(browser) == []


@pytest.mark.parametrize("control, key, name", [
    ("speed", " ", " "), ("hand-select", " ", " "), ("speed", Keys.PAGE_DOWN, "PageDown"), ("speed", Keys.END, "End"),
    ("forward", " ", " "),
])
def test_a_focused_control_keeps_its_own_keys(browser, watched, control, key, name):
    # Space on the focused speed list started playback where a keyboard user expects the list to open (WAI-ARIA
    # practice: a focused control keeps its keys); Space on a focused button played where it presses the button.
    path, _ = watched
    open_page(browser, path)
    browser.execute_script("arguments[0].focus()", browser.find_element(By.ID, control))
    step = read(browser)["step"]
    press(browser, key)
    shown = read(browser)
    press(browser, Keys.ESCAPE)  # closes a list the key opened
    assert not shown["playing"]
    assert shown["step"] == (step + 1 if control == "forward" else step)  # Space pressed the button it was on
    target = browser.find_element(By.ID, control)
    assert browser.execute_script(KEYDOWN, target, name, {}) is True  # the page kept nothing from the control


def test_the_page_loads_nothing_and_sends_no_request(browser, watched):
    path, _ = watched
    text = path.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text and " src=" not in text and " href=" not in text
    open_page(browser, path)
    browser.find_element(By.ID, "next-hand").click()
    press(browser, Keys.END)
    assert requests_made(browser) == [path.as_uri()]
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0


def test_a_replayed_run_game_shows_its_seeds_strategies_and_recorded_end(browser, tmp_path):
    run = tmp_path / "run"
    runner = CliRunner()
    result = runner.invoke(main, ["run", "--games", "2", "--seed", "3", "--workers", "1", "--out", str(run),
                                  "-s", "greedy", "-s", "random", "--rules", "target_score=1000"])
    assert result.exit_code == 0, result.output
    row = [r for r in pq.read_table(run / "games").to_pylist() if r["game_id"] == 1][0]
    page = tmp_path / "game1.html"
    result = runner.invoke(main, ["replay", str(run), "1", "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert f"ending at A {row['score_a']}, B {row['score_b']} as the run recorded" in result.output
    open_page(browser, page)
    meta = browser.find_element(By.ID, "meta")
    assert meta.get_attribute("data-game-seed") == str(row["seed"]) and meta.get_attribute("data-run-seed") == "3"
    labels = {"greedy": load_strategy("greedy").label, "random": load_strategy("random").label}
    side_a, side_b = labels[row["team_a_strategy"]], labels[row["team_b_strategy"]]
    assert meta.get_attribute("data-strategies") == ",".join([side_a, side_b, side_a, side_b])
    # Each fact once: the title names the game ("Game 1 of the run in ..."), the line under it its seeds.
    assert f"Game seed {row['seed']}, run seed 3; played to 1000" in meta.text
    header = browser.find_element(By.TAG_NAME, "header").text
    assert header.count("Game 1 ") + header.count("game 1,") == 1 and header.count(str(row["seed"])) == 1, header
    pair = browser.find_element(By.ID, "duplicate-pair")  # no duplicate deals: nothing said of them
    assert pair.get_attribute("textContent") == "" and not pair.is_displayed()
    changes = browser.find_element(By.ID, "changes")  # played again by what played the run: nothing said of it
    assert changes.get_attribute("textContent") == "" and not changes.is_displayed()
    press(browser, Keys.END)
    assert read(browser)["totals"] == [row["score_a"], row["score_b"]]


def test_a_watched_games_header_gives_its_seed_once(browser, watched):
    # The title said "Canasta, game seed 7" and the line under it "... Game seed 7; played to 5000".
    open_page(browser, watched[0])
    header = browser.find_element(By.TAG_NAME, "header").text
    assert header.count(f"seed {SEED}") == 1 and "Played to 5000; default rules." in header, header
    assert browser.find_element(By.ID, "meta").get_attribute("data-game-seed") == str(SEED)


def test_a_duplicate_deals_replay_names_the_game_it_pairs_with(browser, duplicate_run, tmp_path):
    # The page did not say that its game was one of a pair, the same cards played again with the sides swapped.
    games = {row["game_id"]: row for row in pq.read_table(duplicate_run / "games").to_pylist()}
    for game_id, pair in ((0, 1), (1, 0), (2, 3), (5, 4)):
        page = tmp_path / f"game{game_id}.html"
        result = CliRunner().invoke(main, ["replay", str(duplicate_run), str(game_id), "--html", str(page)])
        assert result.exit_code == 0, result.output
        open_page(browser, page)
        shown = browser.find_element(By.ID, "duplicate-pair")
        mine, other = games[game_id], games[pair]  # the games table pairs them: one deal, the sides swapped
        assert mine["deal_id"] == other["deal_id"] and mine["seed"] == other["seed"]
        sides = [(row["team_a_strategy"], row["team_b_strategy"]) for row in (mine, other)]
        assert sides[0] == sides[1][::-1]
        assert shown.is_displayed() and shown.get_attribute("data-game") == str(pair)
        assert shown.text == f"Duplicate deal: paired with game {pair} (the same cards, sides swapped)."
    assert page_errors(browser) == []


def test_a_public_page_shows_only_the_backs_of_the_hands(browser, tmp_path):
    page = tmp_path / "public.html"
    result = CliRunner().invoke(main, ["watch", "--seed", "2", "--public-only", "--html", str(page)])
    assert result.exit_code == 0, result.output
    open_page(browser, page)
    for _ in range(6):
        press(browser, Keys.ARROW_RIGHT)
    shown = read(browser)
    for seat in shown["seats"]:
        assert seat["kinds"] == [] and seat["counts"] == "" and seat["backs"] == seat["size"] > 0


def test_a_game_that_failed_before_its_deal_shows_the_failure(browser, tmp_path):
    bot = tmp_path / "broken_at_once.py"
    bot.write_text(BROKEN_AT_ONCE_BOT_SOURCE)
    page = tmp_path / "broken.html"
    result = CliRunner().invoke(main, ["watch", "-s", f"{bot}:BrokenAtOnce", "--html", str(page)])
    assert result.exit_code == 1, result.output
    open_page(browser, page)
    ending = browser.find_element(By.ID, "ending")
    assert ending.get_attribute("data-error") == "true" and "it breaks at once" in ending.text
    # With no position to go to, the controls are off and the keys do nothing (they raised a TypeError).
    controls = browser.find_elements(By.CSS_SELECTOR, "#controls button, #controls select")
    assert controls and not any(control.is_enabled() for control in controls)
    for key in (Keys.ARROW_RIGHT, Keys.END, Keys.PAGE_DOWN, " "):
        press(browser, key)
    assert page_errors(browser) == []
    # The narration's header (who played, the seed, the rules) is shown, as for any game.
    assert "Canasta, game seed" in browser.find_element(By.ID, "moves").text


KEYDOWN = """
const [target, key, modifiers] = arguments;
const event = new KeyboardEvent("keydown", Object.assign({key: key, bubbles: true, cancelable: true}, modifiers));
return (target || document.body).dispatchEvent(event);  // false: the page kept the key from the browser
"""


@pytest.mark.parametrize("key, modifiers", [
    ("=", {"ctrlKey": True}), ("+", {"ctrlKey": True}), ("-", {"ctrlKey": True}),  # the browser's zoom
    ("ArrowLeft", {"altKey": True}), ("ArrowRight", {"altKey": True}),  # its back and forward
    ("ArrowLeft", {"metaKey": True}), ("Home", {"ctrlKey": True}),
    ("ArrowDown", {}), ("ArrowUp", {}),  # scrolling the page or the narration, which these keys named no step for
])
def test_keys_the_page_does_not_name_are_left_to_the_browser(browser, watched, key, modifiers):
    # Ctrl with + or − changed the speed instead of zooming, Alt+← stepped back instead of going back a page, and
    # ↓ ↑ jumped a hand, so no key scrolled the page: these keys are the browser's.
    path, _ = watched
    open_page(browser, path)
    press(browser, Keys.ARROW_RIGHT)
    before = read(browser)["step"], browser.find_element(By.ID, "speed").get_attribute("value")
    assert browser.execute_script(KEYDOWN, None, key, modifiers) is True
    assert (read(browser)["step"], browser.find_element(By.ID, "speed").get_attribute("value")) == before



def test_a_forfeits_last_hand_is_marked_stopped_in_the_hand_list_at_the_games_end(browser, tmp_path):
    # The hand a failure cut short kept a blank row in the hand list, as if it were still to be played.
    bot = tmp_path / "flaky.py"
    bot.write_text(FLAKY_BOT_SOURCE)
    page = tmp_path / "forfeit.html"
    result = CliRunner().invoke(main, ["watch", "--seed", "3", "-s", f"{bot}:Flaky", "-s", "greedy",
                                       "--html", str(page)])
    assert result.exit_code == 1 and "flaky failure" in result.output, result.output
    open_page(browser, page)
    shown = ("return [...document.querySelectorAll('#hands-list tr[data-hand]')].map(r => [r.children[1].textContent,"
             " getComputedStyle(r.querySelector('td span')).visibility])")
    before = browser.execute_script(shown)
    press(browser, Keys.END)
    after = browser.execute_script(shown)
    assert before[-1] == ["stopped", "hidden"] and after[-1] == ["stopped", "visible"], (before, after)
    assert all(cell != "stopped" for cell, _ in after[:-1])
