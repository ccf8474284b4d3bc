"""The HTML replay's accessibility basics in a real browser: controls named in words, every part reachable and
operable from the keyboard, headings in order, and text that reads against its background."""

from __future__ import annotations

import io
import re

import pytest

from tests.browser import need_selenium

need_selenium()  # before selenium's imports: skips the module where it is missing (fails in CI)

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from tests.browser import AXE_INSTALL, audited_at_widths, axe_script, left_to_review, open_page  # noqa: E402

pytestmark = pytest.mark.timeout(60)


def press(driver, key) -> None:
    ActionChains(driver).send_keys(key).perform()


def test_every_control_is_named_in_words(browser, page):
    # The buttons' names were their glyphs ("|◀", "◀◀"): a screen reader read out shapes; the hand list had a title
    # for its only label.
    open_page(browser, page)
    for control in browser.find_elements(By.CSS_SELECTOR, "#controls button, #controls select"):
        name = control.accessible_name
        assert re.search(r"[a-z]{4}", name), (control.get_attribute("id"), name)
    hand = browser.find_element(By.ID, "hand-select")
    assert browser.execute_script("return arguments[0].labels.length > 0 || arguments[0].hasAttribute('aria-label')",
                                  hand)


def test_the_hand_list_is_operable_from_the_keyboard(browser, page):
    # Its rows answered a click only: no key reached them, nor scrolled the list.
    open_page(browser, page)
    browser.execute_script("document.activeElement.blur()")
    for _ in range(30):
        press(browser, Keys.TAB)
        focused = browser.switch_to.active_element
        if focused.get_attribute("data-hand") == "2":
            break
    else:
        pytest.fail("Tab never reaches the hand list's third hand")
    assert focused.accessible_name == "hand 3"
    press(browser, Keys.ENTER)
    assert browser.execute_script("return [+document.body.dataset.hand, +document.body.dataset.frame]") == [2, 0]


def test_the_narration_and_its_score_tables_can_be_focused_and_scrolled_from_the_keyboard(browser, page):
    open_page(browser, page)
    log = browser.find_element(By.ID, "log")
    assert log.get_attribute("tabindex") == "0" and log.accessible_name == "narration"
    press(browser, Keys.PAGE_DOWN)
    press(browser, Keys.ARROW_LEFT)  # the first hand's end, whose score table is wider than the narration
    table = browser.find_element(By.CSS_SELECTOR, "#moves li.current .columns")
    assert table.get_attribute("tabindex") == "0"
    table.click()
    step = browser.find_element(By.ID, "position").get_attribute("data-step")
    press(browser, Keys.ARROW_RIGHT)  # scrolls the focused table sideways, not the game a move on
    assert browser.find_element(By.ID, "position").get_attribute("data-step") == step
    # The browser scrolls smoothly: wait for it to move.
    WebDriverWait(browser, 5).until(lambda driver: driver.execute_script("return arguments[0].scrollLeft", table) > 0)


def test_headings_go_down_one_level_at_a_time_and_no_header_cell_is_empty(browser, page):
    # The seats' headings were h3 under the page's h1, the melds' h4; the scores' corner header cell was empty.
    open_page(browser, page)
    levels = browser.execute_script("return [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]"
                                    ".map(h => +h.tagName[1])")
    assert levels[0] == 1 and all(after <= before + 1 for before, after in zip(levels, levels[1:], strict=False))
    assert browser.execute_script("return [...document.querySelectorAll('th')].filter(th => !th.textContent.trim())"
                                  ".length") == 0


def _luminance(rgb) -> float:
    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(v) for v in rgb[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def test_the_piles_notes_read_against_the_table(browser, page):
    # The yellow note ("frozen for side B until it melds") stood on the green table at 3.96:1; small text needs 4.5.
    from PIL import Image

    open_page(browser, page)
    note = browser.find_element(By.CSS_SELECTOR, "#pile .frozen-note")
    # At the deal neither side has melded: the pile is frozen against both (R8.1c), not only the side to move.
    assert note.text == "pile 1, frozen for sides A and B until they meld", note.text
    box = note.rect
    color = browser.execute_script("return getComputedStyle(arguments[0]).color", note)
    text = [int(v) for v in re.findall(r"\d+", color)[:3]]
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    ratio = browser.execute_script("return window.devicePixelRatio")
    # Near the note's top left corner: its own background, above and left of its first letter.
    background = shot.getpixel((int((box["x"] + 3) * ratio), int((box["y"] + 1) * ratio)))
    lighter, darker = sorted([_luminance(text), _luminance(background)], reverse=True)
    assert (lighter + 0.05) / (darker + 0.05) >= 4.5, (text, background)


def test_every_card_is_named_in_words(browser, page):
    # A card was its glyphs: a screen reader read a red queen as "Q black diamond suit", the suit's Unicode name.
    from canasta_sim.terminal.html_replay import card_words

    open_page(browser, page, "#step=60")
    cards = browser.find_elements(By.CSS_SELECTOR, ".card[data-card]")
    assert len(cards) > 20
    for shown in cards[:12] + browser.find_elements(By.CSS_SELECTOR, ".meld .card"):
        assert shown.accessible_name == card_words(int(shown.get_attribute("data-card")))
    assert {card_words(card) for card in (0, 13, 40, 104)} == {"two of spades", "two of hearts", "three of clubs",
                                                                "joker"}


def test_axe_finds_nothing_serious_in_a_replay_on_a_phone_a_tablet_or_a_desktop(browser, page):
    # White on the melds' patch at the table's light centre read at 4.4:1 (small text needs 4.5; axe could not judge
    # it on the gradient), and each hand's number in the hand list was a 12 x 16 px target, 12 px from the next.
    found = audited_at_widths(browser, page, "#step=302", (375, 820, 1400))  # the third hand's end
    assert found == {375: [], 820: [], 1400: []}, found


def test_the_current_hand_and_move_are_told_in_words_not_by_their_yellow_alone(browser, page):
    # The hand list's current row and the narration's current move were marked by a yellow background only.
    open_page(browser, page, "#step=95")
    current = browser.execute_script("""return [...document.querySelectorAll("[aria-current]")].map(node =>
      [node.tagName, node.getAttribute("aria-current"), node.dataset.hand || node.dataset.frame,
       node.classList.contains("current")])""")
    assert sorted(current) == [["LI", "step", "4", True], ["TR", "true", "1", True]], current


SAID = """const said = document.getElementById("said"), current = document.querySelector("#moves li.current");
return [said && said.getAttribute("role"), said && said.textContent, "step " + (+document.getElementById("position")
        .dataset.step + 1) + ": " + current.textContent, document.getElementById("log").getAttribute("aria-live")];"""


def test_a_screen_reader_hears_the_move_stepped_to_and_not_a_whole_hand_at_a_jump(browser, page):
    # The narration was a live log: a step forward was read out, a step back not at all, and End or PageDown read
    # every move of the hand they reached, a hundred at once.
    open_page(browser, page)
    heard = []
    for key in (Keys.ARROW_RIGHT, Keys.ARROW_LEFT, Keys.END):
        press(browser, key)
        heard.append(browser.execute_script(SAID))
    for role, said, expected, live in heard:
        assert role == "status" and said == expected and live == "off", (said, expected, live)
    assert heard[0][1].startswith("step 2: 1. ") and heard[1][1].startswith("step 1: Hand 1: deal"), heard


# Each suited card that no other card covers (the last of its group or meld), with the box of its suit's sign.
UNCOVERED_SUITS = """
return [...document.querySelectorAll(".card:not(.wild) > span:last-child")].filter(sign => {
  const next = sign.parentElement.nextElementSibling;
  return !(next && next.classList.contains("card"));
}).map(sign => { const box = sign.getBoundingClientRect();
  return [sign.parentElement.getAttribute("aria-label"), box.left, box.top, box.right, box.bottom]; });
"""


def _ink(shot, box, ratio: float) -> tuple[int, int]:
    """The width and height in CSS pixels of what is drawn in ``box`` on a card's cream (#fffef8)."""
    left, top, right, bottom = (round(value * ratio) for value in box)
    area = shot.crop((left, top, right, bottom))
    inked = [(x, y) for x in range(area.width) for y in range(area.height)
             if sum(abs(a - b) for a, b in zip(area.getpixel((x, y)), (255, 254, 248), strict=True)) > 120]
    if not inked:
        return 0, 0
    xs, ys = [x for x, _ in inked], [y for _, y in inked]
    return round((max(xs) - min(xs) + 1) / ratio), round((max(ys) - min(ys) + 1) / ratio)


def test_the_suits_signs_are_drawn_large_enough_to_tell_apart(browser, page):
    # At the rank's 11.5 px the sign was a 5 x 7 px speck (a diamond 5 px wide), measured as Chromium draws it.
    from PIL import Image

    open_page(browser, page, "#step=60")
    signs = browser.execute_script(UNCOVERED_SUITS)
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    ratio = browser.execute_script("return window.devicePixelRatio")
    drawn = {name: _ink(shot, box, ratio) for name, *box in signs}
    assert {name.split(" of ")[1] for name in drawn} == {"spades", "hearts", "diamonds", "clubs"}, drawn
    assert all(height >= 10 and width >= 7 for width, height in drawn.values()), drawn


TRANSPORT = ("first", "prev-hand", "back", "play", "forward", "next-hand", "last")
KEYS = {"first": "Home", "prev-hand": "PageUp", "back": "ArrowLeft", "play": "Space", "forward": "ArrowRight",
        "next-hand": "PageDown", "last": "End"}
# The focused button's tip: its text, and whether it is drawn whole inside the window.
TIP = """
const button = document.activeElement, tip = getComputedStyle(button, "::after"), box = button.getBoundingClientRect();
const left = box.left + button.clientLeft + parseFloat(tip.left);
const top = box.top + button.clientTop + parseFloat(tip.top);
const text = /^"([^"]*)"/.exec(tip.content);  // its text, before its alternative for a screen reader ("")
return [button.id, tip.display !== "none" && text ? text[1] : null,
        left >= 0 && top >= 0 && left + parseFloat(tip.width) <= innerWidth
          && top + parseFloat(tip.height) <= innerHeight,
        +document.getElementById("position").dataset.step, document.body.dataset.playing === "true"];
"""


def _metrics(driver, width: int) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": False})


@pytest.mark.parametrize("width", [1400, 820])  # the controls beside the narration; fixed at a tablet's foot
def test_the_transport_buttons_are_reached_told_and_pressed_from_the_keyboard_with_a_visible_tip(browser, page, width):
    # Their glyphs were their only visible label (axe left "|◀" against "start of the game" to a person to review),
    # and a title showed their words to a mouse only, after a wait: a keyboard user saw shapes.
    _metrics(browser, width)
    try:
        open_page(browser, page, "#step=61")
        browser.find_element(By.ID, "title").click()  # the focus starts at the page's top
        seen = []
        for _ in range(12):
            press(browser, Keys.TAB)
            focused = browser.switch_to.active_element
            if focused.get_attribute("id") in TRANSPORT:
                seen.append([*browser.execute_script(TIP), focused.accessible_name,
                             focused.get_attribute("aria-keyshortcuts")])
                press(browser, Keys.ENTER)
                seen[-1] += browser.execute_script(TIP)[3:]
                if focused.get_attribute("id") == "play":
                    press(browser, " ")  # pause again
            if focused.get_attribute("id") == "last":
                break
        escaped = (press(browser, Keys.ESCAPE), browser.execute_script(TIP)[1])[1]
        ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        again = browser.execute_script(TIP)[:2]
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert [row[0] for row in seen] == list(TRANSPORT), seen
    steps = browser.execute_script("return +document.getElementById('position').textContent.split(' of ')[1]")
    for button, tip, inside, _, _, name, keys, _, _ in seen:
        # The tip says the name a screen reader says, and the key; the name is in words, never the glyphs.
        assert keys == KEYS[button] and tip.startswith(name + " ") and tip.endswith(")") and inside, seen
    after = {row[0]: (row[7], row[8]) for row in seen}  # the step shown and whether it plays, after Enter
    assert after["first"] == after["prev-hand"] == after["back"] == (0, False), after
    assert after["play"][1] and after["forward"][0] >= 1 and after["next-hand"][0] > after["forward"][0], after
    assert after["last"] == (steps - 1, False), after
    assert escaped is None and again == ["next-hand", "next hand (PageDown)"], (escaped, again)


def test_a_transport_buttons_tip_shows_under_the_mouse(browser, page):
    open_page(browser, page)
    assert browser.execute_script("return matchMedia('(hover: hover)').matches")  # a mouse's screen (tests/browser.py)
    shown = "return getComputedStyle(document.getElementById('first'), '::after').content"
    assert browser.execute_script(shown) == "none"
    ActionChains(browser).move_to_element(browser.find_element(By.ID, "first")).perform()
    try:
        assert browser.execute_script(shown).startswith('"start of the game (Home)"')
    finally:
        ActionChains(browser).move_to_element(browser.find_element(By.ID, "title")).perform()


def test_axe_leaves_nothing_about_the_controls_to_review(browser, page):
    # The glyphs were the buttons' text: axe could not tell whether "|◀" is part of "start of the game" (WCAG 2.5.3,
    # label in name) and left each transport button to a person.
    axe = axe_script()
    if axe is None:
        pytest.skip(f"the accessibility audit needs axe-core: {AXE_INSTALL}")
    open_page(browser, page)
    assert left_to_review(browser, axe, "#controls") == []


def test_a_tap_on_a_touch_screen_leaves_no_tip_over_the_table(browser, page):
    # The tip showed on any :hover, which a tap leaves on the button: on a phone it stayed after every tap.  A touch
    # screen is emulated as DevTools does it (touch events, and a screen with no hover).
    shown = "return getComputedStyle(document.getElementById('first'), '::after').content"
    browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    try:
        open_page(browser, page, "#step=5")
        assert browser.execute_script("return matchMedia('(hover: none)').matches")  # a touch screen's
        x, y = browser.execute_script("const box = document.getElementById('first').getBoundingClientRect(); "
                                      "return [box.left + box.width / 2, box.top + box.height / 2]")
        browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        browser.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        tapped = browser.execute_script("return [document.querySelector('#first:hover') !== null, "
                                        "+document.getElementById('position').dataset.step]")
        after_tap = browser.execute_script(shown)
    finally:
        browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
    assert tapped == [True, 0], tapped  # the tap pressed the button, and left it under :hover
    assert after_tap == "none", after_tap
