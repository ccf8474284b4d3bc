"""``report --format html`` in a real browser: the same tables as the Markdown report, every chart drawn, and
replays of the games worth seeing that end where the run's record does; nothing fetched."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from tests.browser import need_selenium

need_selenium()  # before selenium's imports: skips the module where it is missing (fails in CI)

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from canasta_sim.analysis import load_run  # noqa: E402
from canasta_sim.cli import main  # noqa: E402
from canasta_sim.cli.plot import charts_for  # noqa: E402
from canasta_sim.cli.report_html import games_worth_seeing  # noqa: E402
from tests.browser import PHONE, audited_at_widths, open_page, page_errors, requests_made  # noqa: E402
from tests.helpers import FLAKY_BOT_SOURCE  # noqa: E402

pytestmark = pytest.mark.timeout(120)

READ_TABLES = """
const table = (root) => [...root.querySelectorAll("tr")].map(r => [...r.children].map(c => c.textContent));
return {summary: [...document.querySelectorAll("#summary table")].map(table),
        sections: [...document.querySelectorAll("#sections table")].map(table),
        charts: [...document.querySelectorAll("img[data-chart]")].map(i => [i.dataset.chart, i.naturalWidth,
                                                                            i.src.slice(0, 22)]),
        replays: [...document.querySelectorAll("details[data-replay]")].map(d => +d.dataset.game)};
"""


def _run(folder, *args):
    result = CliRunner().invoke(main, ["run", "--seed", "4", "--workers", "1", "--rules", "target_score=1000",
                                       "--out", str(folder), "-q", *args])
    assert result.exit_code == 0, result.output
    return folder


@pytest.fixture(scope="module")
def round_robin(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("report") / "rr", "--games", "12", "-s", "greedy", "-s", "random",
                "-s", "expert")


@pytest.fixture(scope="module")
def with_forfeits(tmp_path_factory):
    folder = tmp_path_factory.mktemp("forfeits")
    (folder / "flaky.py").write_text(FLAKY_BOT_SOURCE)
    return _run(folder / "run", "--games", "16", "-s", f"{folder / 'flaky.py'}:Flaky", "-s", "greedy",
                "--on-error", "forfeit")


def _markdown_tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            if not line.startswith("|---"):
                current.append([cell.strip() for cell in line.strip()[1:-1].split("|")])
        elif current:
            tables.append(current)
            current = []
    return tables


def _page(run, tmp_path, *options):
    result = CliRunner().invoke(main, ["report", str(run), "--format", "html", *options])
    assert result.exit_code == 0, result.output
    page = tmp_path / "report.html"
    page.write_text(result.output, encoding="utf-8")
    markdown = CliRunner().invoke(main, ["report", str(run), "--format", "markdown"]).output
    return page, _markdown_tables(markdown)


@pytest.fixture(scope="module")
def round_robin_page(round_robin, tmp_path_factory):
    """The round robin's report page and the Markdown report's tables, made once for the tests that only read it."""
    return _page(round_robin, tmp_path_factory.mktemp("round-robin-page"))


def _open_replay(browser, game_id: int) -> None:
    details = browser.find_element(By.CSS_SELECTOR, f"details[data-game='{game_id}']")
    details.find_element(By.TAG_NAME, "summary").click()
    browser.switch_to.frame(details.find_element(By.TAG_NAME, "iframe"))
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    browser.find_element(By.ID, "last").click()


def test_the_report_page_has_the_reports_tables_charts_and_replays(browser, round_robin, round_robin_page):
    page, markdown = round_robin_page
    open_page(browser, page)
    shown = browser.execute_script(READ_TABLES)
    assert shown["summary"] + shown["sections"] == markdown  # the same cells as the Markdown report
    expected = list(charts_for(load_run(round_robin)))
    assert [chart[0] for chart in shown["charts"]] == expected and "ratings" in expected
    assert all(width > 300 and src == "data:image/png;base64," for _, width, src in shown["charts"])
    games = pq.read_table(round_robin / "games").to_pandas()
    picks = games_worth_seeing(games)
    assert shown["replays"] == [game_id for game_id, _ in picks] and picks
    for game_id, _ in picks:
        _open_replay(browser, game_id)
        row = games[games.game_id == game_id].iloc[0]
        totals = [int(browser.find_element(By.ID, f"score-{side}").get_attribute("data-total")) for side in "ab"]
        assert totals == [row.score_a, row.score_b]
        assert browser.find_element(By.ID, "meta").get_attribute("data-game-seed") == str(row.seed)
        browser.switch_to.default_content()
    assert all(url == page.as_uri() or url.startswith(("data:", "about:")) for url in requests_made(browser))
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0


def test_the_replays_of_duplicate_deals_name_the_games_they_pair_with(browser, duplicate_run, round_robin_page,
                                                                      tmp_path):
    # Neither the list of replays nor a replay said that a game was one of a duplicate pair.
    page, _ = _page(duplicate_run, tmp_path)
    open_page(browser, page)
    picks = games_worth_seeing(pq.read_table(duplicate_run / "games").to_pandas())
    assert picks
    for game_id, _ in picks:
        pair = game_id ^ 1  # deal k is games 2k and 2k + 1
        details = browser.find_element(By.CSS_SELECTOR, f"details[data-game='{game_id}']")
        summary = details.find_element(By.TAG_NAME, "summary").text
        assert summary.endswith(f"; duplicate deal: paired with game {pair} (sides swapped)"), summary
        _open_replay(browser, game_id)
        shown = browser.find_element(By.ID, "duplicate-pair").get_attribute("textContent")
        assert f"paired with game {pair} " in shown, shown
        browser.switch_to.default_content()
    assert page_errors(browser) == []
    page, _ = round_robin_page  # a run without duplicate deals says nothing of them
    open_page(browser, page)
    assert "duplicate deal" not in browser.find_element(By.ID, "replays").text


def test_a_forfeit_is_among_the_games_worth_seeing_and_its_replay_stops_at_the_failure(browser, with_forfeits,
                                                                                        tmp_path):
    games = pq.read_table(with_forfeits / "games").to_pandas()
    forfeits = games[games.termination == "forfeit"]
    assert len(forfeits), "the flaky strategy forfeited no game: pick another seed"
    page, _ = _page(with_forfeits, tmp_path, "--run-strategy-code")  # its flaky strategy is a file: replayed only so
    open_page(browser, page)
    first = int(forfeits.game_id.iloc[0])
    details = browser.find_element(By.CSS_SELECTOR, f"details[data-game='{first}']")
    assert "a forfeit" in details.text
    _open_replay(browser, first)
    ending = browser.find_element(By.ID, "ending")
    assert ending.get_attribute("data-error") == "true" and "flaky failure" in ending.text
    browser.switch_to.default_content()


def test_the_report_fits_a_phones_width_in_one_main_landmark(phone, round_robin_page):
    # The page had no viewport: a phone laid it out 980 px wide and shrank it, its tables wider still; and no
    # landmark held its content.
    page, _ = round_robin_page
    open_page(phone, page)
    shown = phone.execute_script("""
      const wide = [...document.querySelectorAll("body *")].filter(n => n.getBoundingClientRect().right > 376
                                                                   && !n.parentNode.closest(".table-box"));
      return {width: document.documentElement.scrollWidth, wide: wide.slice(0, 5).map(n => n.tagName + n.id),
              mains: document.querySelectorAll("main").length,
              outside: [...document.body.children].filter(n => !["MAIN", "SCRIPT"].includes(n.tagName)).length};
    """)
    assert shown["width"] <= PHONE[0] and shown["wide"] == [], shown
    assert shown["mains"] == 1 and shown["outside"] == 0, shown
    # A table wider than the screen scrolls inside its own box, which the keyboard can reach.
    boxes = phone.execute_script("return [...document.querySelectorAll('.table-box')].filter("
                                 "b => b.scrollWidth > b.clientWidth).map(b => b.tabIndex)")
    assert boxes and all(index == 0 for index in boxes)


def test_an_opened_replay_takes_the_keys_the_report_names(browser, round_robin_page):
    # Opening a replay left the focus on its summary: the arrows did nothing, and Space closed the replay again.
    page, _ = round_robin_page
    open_page(browser, page)
    details = browser.find_element(By.CSS_SELECTOR, "details[data-replay]")
    details.find_element(By.TAG_NAME, "summary").click()
    frame = details.find_element(By.TAG_NAME, "iframe")
    browser.switch_to.frame(frame)
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    browser.switch_to.default_content()
    WebDriverWait(browser, 5).until(lambda d: d.execute_script("return document.activeElement.tagName") == "IFRAME")
    for key in (Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, " "):
        ActionChains(browser).send_keys(key).perform()
    assert details.get_attribute("open") == "true"
    browser.switch_to.frame(frame)
    shown = browser.execute_script("return [+document.getElementById('position').dataset.step,"
                                   " document.body.dataset.playing]")
    browser.switch_to.default_content()
    assert shown[0] >= 2 and shown[1] == "true", shown


PRINT_WIDTH = 718
"""An A4 sheet's printable width in CSS pixels (210 mm at 96 per inch, less the browser's default margins)."""


def test_a_printed_report_keeps_every_column_of_its_tables(browser, round_robin_page):
    # On paper a table box cannot scroll: the summary lost its columns past "pile takes/hand".
    page, _ = round_robin_page
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": PRINT_WIDTH, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        open_page(browser, page)
        cut = browser.execute_script("""
          return [...document.querySelectorAll(".table-box table")].filter(
            t => t.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map(t => t.id ||
            t.rows[0].textContent)""")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert cut == []


def test_a_printed_report_says_how_to_print_each_replay_and_its_button_prints_the_replay_alone(browser,
                                                                                              round_robin,
                                                                                              round_robin_page):
    # Printed, the report showed each replay as its closed summary line and nothing said how to print one (and an
    # opened one printed as a screenful cut by its frame).
    page, _ = round_robin_page
    open_page(browser, page)
    games = [int(d.get_attribute("data-game")) for d in browser.find_elements(By.CSS_SELECTOR, "details[data-replay]")]
    shown = "return [...document.querySelectorAll(arguments[0])].map(n => getComputedStyle(n).display)"
    assert set(browser.execute_script(shown, ".print-only")) == {"none"}  # on screen: no word of paper
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        notes = browser.execute_script("return [...document.querySelectorAll('.print-only')].map(n => "
                                       "[+n.dataset.game, getComputedStyle(n).display, n.textContent])")
        printed = browser.execute_script(shown, ".replay-print, iframe")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert [note[0] for note in notes] == games and {note[1] for note in notes} == {"block"}
    assert set(printed) == {"none"}  # neither the button nor a frame cut to one screen
    # The run by its folder's name: a published page names no folder of the machine that wrote it.
    assert all(f"canasta-sim replay {round_robin.name} {game} --html game{game}.html" in text
               and "print this replay" in text for game, _, text in notes)
    # The button prints the replay's own page, not the report around it.
    details = browser.find_element(By.CSS_SELECTOR, "details[data-replay]")
    details.find_element(By.TAG_NAME, "summary").click()
    frame = details.find_element(By.TAG_NAME, "iframe")
    WebDriverWait(browser, 10).until(lambda d: frame.get_attribute("data-loaded") == "true")
    browser.execute_script("const w = arguments[0].contentWindow; w.printed = 0; w.print = () => w.printed++;"
                           "window.printed = 0; window.print = () => window.printed++;", frame)
    details.find_element(By.CSS_SELECTOR, ".replay-print button").click()
    assert browser.execute_script("return [arguments[0].contentWindow.printed, window.printed]", frame) == [1, 0]


def test_axe_finds_nothing_serious_in_the_report_on_a_phone_or_a_desktop(browser, round_robin_page):
    page, _ = round_robin_page
    found = audited_at_widths(browser, page, "", (375, 1400))
    assert found == {375: [], 1400: []}, found
