"""A round robin of ten strategies published as ``report --format html``: its cross table on a desktop's width."""

from __future__ import annotations

import pytest

from tests.browser import need_selenium

need_selenium()  # before the imports that need it: skips the module where it is missing (fails in CI)

from canasta_sim.analysis.sections import format_markdown  # noqa: E402
from canasta_sim.cli.report_html import _SCRIPT, _STYLE, markdown_html  # noqa: E402
from canasta_sim.runs.matchmaking import MatchmakingResults  # noqa: E402
from canasta_sim.runs.ratings import CrossTable, fit_ratings  # noqa: E402
from tests.browser import open_page  # noqa: E402

TEN = ("expert", "greedy", "random", "first_bot.py:MyBot", "drawer.py:Drawer", "my_bot.py:MyBot",
       "expert:aggression=0.9", "expert:freeze=0", "expert:ask_cards=0", "expert:wild_take_pile=10")
"""An organizer's ten: the built-ins, three files of their own and four settings of expert."""


def _ten_strategies_sections() -> str:
    table = CrossTable(TEN)
    for i, first in enumerate(TEN):
        for j in range(i + 1, len(TEN)):
            wins = 20 if j - i > 5 else 11 + (i + j) % 7  # some pairs 100% (the widest cells), the rest in between
            table.add(first, TEN[j], first, count=wins)
            table.add(first, TEN[j], TEN[j], count=20 - wins)
    return format_markdown(MatchmakingResults(cross_table=table, ratings=tuple(fit_ratings(table))))


@pytest.mark.timeout(60)
def test_ten_strategies_cross_table_fits_a_desktop_width_unscrolled(browser, tmp_path):
    # It scrolled sideways at 1280 px, five of its ten columns out of sight: each cell's score, interval and games on
    # one line, and the columns as wide as the strategies' specs.
    page = tmp_path / "sections.html"
    page.write_text(f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><style>{_STYLE}</style></head>'
                    f'<body><main><div id="sections">{markdown_html(_ten_strategies_sections())}</div></main>'
                    f"<script>{_SCRIPT}</script></body></html>", encoding="utf-8")
    size = browser.get_window_size()
    browser.set_window_size(1280, 900)
    try:
        open_page(browser, page)
        boxes = browser.execute_script(
            "return [...document.querySelectorAll('#sections .table-box')].map(b => [b.scrollWidth, b.clientWidth,"
            " b.querySelector('tr').children.length])")
    finally:
        browser.set_window_size(size["width"], size["height"])
    matrix = boxes[0]
    assert matrix[2] == 11 and matrix[0] <= matrix[1], boxes
