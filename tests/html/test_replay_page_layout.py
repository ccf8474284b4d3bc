"""The HTML replay's layout in a real browser: on a phone's width nothing is wider than the screen, and stepping
scrolls the narration only, never the page away from the table."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tests.browser import need_selenium

need_selenium()  # before selenium's imports: skips the module where it is missing (fails in CI)

import io  # noqa: E402

from PIL import Image  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from canasta_sim.cli import main  # noqa: E402
from tests.browser import PHONE, open_page, page_errors, printed_sheets  # noqa: E402
from tests.helpers import BROKEN_AT_ONCE_BOT_SOURCE  # noqa: E402

pytestmark = pytest.mark.timeout(60)

# Every box wider than the screen or reaching past its right edge, by id or class.
OVERFLOWING = """
const width = arguments[0], out = [];
for (const node of document.querySelectorAll("body *")) {
  const box = node.getBoundingClientRect();
  if (box.width && (box.left < -1 || box.right > width + 1)) out.push((node.id || node.className) + " " + box.right);
}
return {scrollWidth: document.documentElement.scrollWidth, out: out.slice(0, 10)};
"""

SCROLLS = """
const log = document.getElementById("log").getBoundingClientRect();
const item = document.querySelector("#moves li.current").getBoundingClientRect();
// On a phone the visible part of the page (the visual viewport) moves apart from the layout: count both.
return {x: window.scrollX + visualViewport.offsetLeft, y: window.scrollY + visualViewport.offsetTop,
        shown: item.top >= log.top - 1 && item.bottom <= log.bottom + 1};
"""


def press(driver, key, times: int = 1) -> None:
    for _ in range(times):
        ActionChains(driver).send_keys(key).perform()


def test_a_duplicate_deals_page_fits_a_phones_width_with_its_pair_named(phone, duplicate_run, tmp_path):
    page = tmp_path / "paired.html"
    result = CliRunner().invoke(main, ["replay", str(duplicate_run), "1", "--html", str(page)])
    assert result.exit_code == 0, result.output
    open_page(phone, page)
    shown = phone.execute_script(OVERFLOWING, PHONE[0])
    assert shown["scrollWidth"] <= PHONE[0] and shown["out"] == [], shown
    assert phone.execute_script("return document.getElementById('duplicate-pair').getBoundingClientRect().height") > 0


def test_at_a_phone_width_nothing_is_wider_than_the_screen(phone, page):
    # The table kept 640 px and the narration 380 px side by side: a phone showed a third of the page at a time.
    open_page(phone, page)
    for key in (Keys.HOME, Keys.PAGE_DOWN, Keys.END):  # a deal, a later hand's start, the game's end
        press(phone, key)
        shown = phone.execute_script(OVERFLOWING, PHONE[0])
        assert shown["scrollWidth"] <= PHONE[0] and shown["out"] == [], shown
    # Wherever the page is scrolled, the controls are on the screen (they were below a table taller than it).
    for place in ("0", "document.body.scrollHeight / 2"):
        phone.execute_script(f"window.scrollTo(0, {place})")
        bar = phone.execute_script("const box = document.getElementById('controls').getBoundingClientRect();"
                                   "return [box.top, box.bottom, visualViewport.height]")
        assert 0 <= bar[0] and bar[1] <= bar[2], bar
    assert page_errors(phone) == []


def test_stepping_scrolls_the_narration_and_never_the_page(phone, page):
    # Each step called scrollIntoView on the narration's line, which scrolled the page too: on a phone, where the
    # narration is below the table (or beside it, off the screen), every step took the table out of sight.
    open_page(phone, page)
    phone.execute_script("window.scrollTo(0, 0)")
    for _ in range(3):
        press(phone, Keys.ARROW_RIGHT, times=12)
        shown = phone.execute_script(SCROLLS)
        assert (shown["x"], shown["y"]) == (0, 0) and shown["shown"], shown


def test_on_a_desktop_the_page_stays_where_it_was_scrolled(browser, page):
    open_page(browser, page)
    browser.set_window_size(1280, 500)
    try:
        press(browser, Keys.ARROW_RIGHT, times=3)
        browser.execute_script("window.scrollTo(0, 100)")
        for _ in range(3):
            press(browser, Keys.ARROW_RIGHT, times=10)  # within the first hand, whose table keeps its height
            shown = browser.execute_script(SCROLLS)
            assert shown["y"] == 100 and shown["shown"], shown
    finally:
        browser.set_window_size(1400, 900)


def test_the_narrations_score_table_keeps_its_columns(browser, page):
    # The narration wrapped the score table's 72 columns to its width: "A South &" on one line, "North" on the
    # next, each figure on a line of its own.
    open_page(browser, page)
    press(browser, Keys.PAGE_DOWN)
    press(browser, Keys.ARROW_LEFT)  # the first hand's end
    block = browser.execute_script("""
      const block = document.querySelector("#moves li.current .columns");
      if (!block) return null;
      return {lines: block.textContent.split("\\n"), height: block.getBoundingClientRect().height,
              line: parseFloat(getComputedStyle(block).lineHeight), overflow: getComputedStyle(block).overflowX,
              aside: document.getElementById("aside").getBoundingClientRect().width};
    """)
    assert block is not None, "the end of a hand shows no score table in the narration"
    assert block["lines"][0].split() == ["A", "South", "&", "North", "B", "West", "&", "East"]
    assert block["lines"][-1].split()[0] == "total" and len(block["lines"]) == 8
    # One screen line per line of text (the block scrolls sideways instead of wrapping), and a scroll bar's room.
    assert block["height"] <= len(block["lines"]) * block["line"] + 20, block
    assert block["overflow"] == "auto" and block["aside"] == 380  # the narration's column is no wider for it


def test_a_long_strategy_path_wraps_instead_of_widening_a_phones_page(phone, tmp_path):
    # A file spec is one long word in the header and in the failure's message: it ran past the screen's edge.
    folder = tmp_path / ("a_rather_long_folder_name_for_bots" + "_and_more" * 3) / "another_level_of_folders"
    folder.mkdir(parents=True)
    bot = folder / "a_strategy_with_a_long_file_name.py"
    bot.write_text(BROKEN_AT_ONCE_BOT_SOURCE)
    path = tmp_path / "broken.html"
    result = CliRunner().invoke(main, ["watch", "-s", f"{bot}:BrokenAtOnce", "--html", str(path)])
    assert result.exit_code == 1 and str(bot) in result.output
    open_page(phone, path)
    shown = phone.execute_script(OVERFLOWING, PHONE[0])
    assert shown["scrollWidth"] <= PHONE[0] and shown["out"] == [], shown


# At every step, each card that reaches past the box it belongs to (a meld's coloured box, a hand's group, the red 3s).
CARDS_OUTSIDE = """
const out = [], steps = +document.getElementById("position").textContent.split(" of ")[1];
document.getElementById("first").click();
for (let step = 0; step < steps; step++) {
  for (const card of document.querySelectorAll(".meld .card, .group .card, .red3s .card")) {
    const box = card.parentElement.getBoundingClientRect(), at = card.getBoundingClientRect();
    if (at.left < box.left - 0.5 || at.right > box.right + 0.5) out.push([step, card.parentElement.className,
                                                                      card.title]);
  }
  document.getElementById("forward").click();
}
return out.slice(0, 5);
"""


def test_every_card_lies_inside_its_meld_and_its_group(browser, page):
    # Each card overlapped the next by a negative right margin, the last card of a meld too (the meld's tag, not a
    # card, is its last span): the last card reached past the meld's coloured box by 11 px, so that a natural or
    # mixed canasta's colour stopped short of its last card and the meld touched the next.
    open_page(browser, page)
    assert browser.execute_script(CARDS_OUTSIDE) == []
    assert page_errors(browser) == []


HIGHLIGHT = (255, 243, 191)  # #fff3bf, the current hand's row and the current narration line


def test_the_current_hand_is_highlighted_across_its_row_while_its_scores_stay_hidden(browser, page):
    # The scores of a hand not yet played to its end were hidden cell by cell, and a hidden cell paints no
    # background: the current hand's row was highlighted on its number alone.
    open_page(browser, page)
    row = browser.find_element(By.CSS_SELECTOR, '#hands-list tr[data-hand="0"]')
    for cell in row.find_elements(By.TAG_NAME, "td"):  # the hand's number heads the row; these are its scores
        image = Image.open(io.BytesIO(cell.screenshot_as_png)).convert("RGB")
        assert image.getpixel((image.width // 2, image.height // 2)) == HIGHLIGHT
    shown = "return [...arguments[0].querySelectorAll('td span')].map(s => getComputedStyle(s).visibility)"
    assert browser.execute_script(shown, row) == ["hidden"] * 4  # the first hand is under way: no spoiler
    browser.find_element(By.ID, "next-hand").click()  # the first hand is over: its scores show, unhighlighted
    assert browser.execute_script(shown, row) == ["visible"] * 4
    assert "current" not in row.get_attribute("class")


PRINTED = """
const shown = (id) => getComputedStyle(document.getElementById(id)).display !== "none";
const whole = (id) => { const box = document.getElementById(id); return box.scrollHeight <= box.clientHeight + 1; };
return {controls: shown("controls"), hands: whole("hands-list"), log: whole("log"),
        colours: getComputedStyle(document.getElementById("table")).printColorAdjust};
"""


def test_a_printed_page_shows_the_position_its_hands_and_narration_whole_without_the_controls(browser, page):
    # Printed, the controls bar (fixed at a narrow page's foot) came out on every sheet over the lines beneath it,
    # the hand list and the narration were cut to their boxes on screen, and where the browser prints no backgrounds
    # (its default) the table's white text lay on white paper.
    open_page(browser, page, "#step=200")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        printed = browser.execute_script(PRINTED)
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert printed == {"controls": False, "hands": True, "log": True, "colours": "exact"}


HAND_ENDS = """
// Each hand's last step: the step before the next hand's deal, and the game's last.
const ends = [], hands = document.getElementById("hand-select"), step = () => +document.getElementById("position")
  .dataset.step + 1;
for (let hand = 1; hand < hands.options.length; hand++) {
  hands.value = hand; hands.dispatchEvent(new Event("change"));
  document.getElementById("back").click();
  ends.push(step());
}
document.getElementById("last").click();
return ends.concat([step()]);
"""


@pytest.mark.timeout(90)
def test_at_every_hands_end_the_table_and_its_score_table_print_on_one_sheet(browser, page):
    # In the screen's three columns the melds took four rows in the middle one: at a hand's end the score table did
    # not fit under South on the first sheet, went on to the next, and the first ended with the table's green, empty,
    # below South (Chromium's PDF, on Letter and on A4 alike).
    open_page(browser, page)
    ends = browser.execute_script(HAND_ENDS)
    assert len(ends) >= 4, ends
    browser.execute_script("document.getElementById('aside').style.display = 'none'")  # the header and table alone
    sheets = {}
    for step in ends:
        browser.execute_script(f"location.hash = '#step={step}'")
        WebDriverWait(browser, 5).until(lambda driver, step=step: driver.execute_script(
            "return +document.getElementById('position').dataset.step + 1") == step)
        for paper in ("Letter", "A4") if step == ends[-1] else ("Letter",):  # Letter's sheet is the shorter
            sheets[step, paper] = printed_sheets(browser, paper)
    assert set(sheets.values()) == {1}, sheets


def test_the_hand_list_keeps_the_current_hand_in_sight(browser, page):
    # In a long game the list's box showed the first hands only: at hand 41 of 45 its row was out of sight.
    open_page(browser, page)
    browser.execute_script("document.getElementById('hands-list').style.maxHeight = '60px'")  # a long game's list
    seen = []
    for key in (Keys.END, Keys.HOME):
        press(browser, key)
        seen.append(browser.execute_script("""
          const list = document.getElementById("hands-list").getBoundingClientRect();
          const row = document.querySelector("#hands-list tr.current").getBoundingClientRect();
          return [document.querySelectorAll("#hands-list tr[data-hand]").length, +document.body.dataset.hand,
                  row.top >= list.top - 1 && row.bottom <= list.bottom + 1];"""))
    hands = seen[0][0]
    assert hands >= 4 and seen == [[hands, hands - 1, True], [hands, 0, True]]


def test_the_hand_lists_header_stays_in_sight_in_a_long_game(browser, page):
    # The list scrolls in its box to the current hand, and its header row scrolled away with the first hands: late
    # in a long game the columns (A, B, total A, total B) had no names.
    open_page(browser, page)
    browser.execute_script("document.getElementById('hands-list').style.maxHeight = '60px'")  # a long game's list
    press(browser, Keys.END)
    shown = browser.execute_script("""
      const list = document.getElementById("hands-list"), box = list.getBoundingClientRect();
      const head = list.querySelector("th").getBoundingClientRect();
      const at = document.elementFromPoint(head.left + head.width / 2, head.top + head.height / 2);
      return [list.scrollTop > 0, head.top >= box.top - 1 && head.bottom <= box.bottom + 1, at && at.tagName];""")
    assert shown == [True, True, "TH"], shown


def test_at_a_hands_end_its_score_table_leaves_south_where_it_was_in_a_900_px_window(browser, page):
    # The hand's score table came under the melds in the middle column, pushing South's hand (the cards it is left
    # holding, counted against its side) below the fold of a 1400 x 900 window at the hand's end.
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    try:
        open_page(browser, page)
        places = []
        for key in (Keys.PAGE_DOWN, Keys.ARROW_LEFT, Keys.ARROW_LEFT):  # the first hand's end, then the move before
            press(browser, key)
            places.append(browser.execute_script("""
              const south = document.getElementById("seat-0").getBoundingClientRect();
              const table = document.getElementById("score-table");
              return [document.body.dataset.frame, Math.round(south.top), south.bottom <= innerHeight,
                      table.classList.contains("shown") && table.getBoundingClientRect().bottom <= innerHeight];"""))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    (_, _, south_seen, table_seen), (_, top_before, _, _) = places[1], places[2]
    assert south_seen and table_seen and places[1][1] == top_before, places


def test_the_controls_bar_at_a_narrow_windows_foot_covers_the_hand_lists_header(browser, page):
    # The header kept at the top of the hand list's box was drawn over the controls fixed at the window's foot: where
    # the list passed under the bar, its column names hid the bar's line of keys.
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 860, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    try:
        open_page(browser, page, "#step=90")  # the first hand's end: the table is long, the list below the fold
        on_top = browser.execute_script("""
          const bar = document.getElementById("controls").getBoundingClientRect();
          const head = document.querySelector("#hands-list th");
          window.scrollBy(0, head.getBoundingClientRect().top - (bar.top + bar.height / 2));  // the header under it
          const at = head.getBoundingClientRect();
          const shown = document.elementFromPoint(at.left + at.width / 2, at.top + at.height / 2);
          return shown.closest("#controls") !== null;
        """)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert on_top


SCORE_TABLE = """
const table = document.getElementById("score-table"), south = document.getElementById("seat-0");
// How many lines a cell's text takes: its height less its padding, in lines of its font.
const lines = cell => { const style = getComputedStyle(cell), padding = parseFloat(style.paddingTop)
  + parseFloat(style.paddingBottom);
  return Math.round((cell.getBoundingClientRect().height - padding) / parseFloat(style.lineHeight)); };
const box = table.getBoundingClientRect(), around = document.getElementById("table").getBoundingClientRect();
return {heads: [...table.querySelectorAll("thead th")].map(th => [th.textContent, lines(th)]),
        cells: [...table.querySelectorAll("tbody th, tbody td")].map(cell => [cell.textContent, lines(cell)]),
        // A figure, its note, a part's name or its rule broken over two lines: an inline box with two rectangles.
        broken: [...table.querySelectorAll("tbody span")].filter(s => s.getClientRects().length > 1)
                  .map(s => s.textContent),
        inside: box.left >= around.left - 1 && box.right <= around.right + 1,
        after_south: box.top >= south.getBoundingClientRect().bottom};
"""


def test_a_hands_score_table_keeps_its_figures_and_names_on_one_line_at_every_width_and_on_paper(browser, page):
    # "A South & North" wrapped to two lines (three on paper) in the side column between 700 and 1060 px wide; and on
    # a phone the table came before South's hand, the hand it counts.  Then its figures and names did, in that column
    # and on paper: "300 (1" over "mixed)", "cards in" over "hand" over "(R14.1e)".
    shown = {}
    try:
        open_page(browser, page, "#step=302")  # the third hand's end: "1000 (2 natural)", the widest figure
        for width, media in ((375, ""), (700, ""), (701, ""), (900, ""), (1060, ""), (1061, ""), (1400, ""),
                             (717, "print")):
            metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 700}
            browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
            browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": media})
            shown[width, media] = browser.execute_script(SCORE_TABLE)
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert ["1000 (2 natural)", 1] in shown[900, ""]["cells"], shown[900, ""]
    for where, table in shown.items():
        assert len(table["heads"]) == 3 and all(lines == 1 for _, lines in table["heads"]), (where, table)
        assert not table["broken"] and table["inside"], (where, table)
    for where in ((701, ""), (900, ""), (1060, ""), (717, "print")):  # the table's width under South: one line each
        assert all(lines == 1 for _, lines in shown[where]["cells"]), (where, shown[where])
    assert shown[375, ""]["after_south"] and shown[700, ""]["after_south"] and shown[900, ""]["after_south"], shown
