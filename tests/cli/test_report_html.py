"""The pieces of ``report --format html`` that need no browser: which games it replays, and its Markdown tables
turned into HTML (the page itself is checked in a browser in tests/html)."""

from __future__ import annotations

import pandas as pd

from canasta_sim.cli.report_html import games_worth_seeing, markdown_html


def test_games_worth_seeing_are_the_widest_the_longest_and_a_forfeit():
    games = pd.DataFrame({"game_id": [0, 1, 2, 3], "margin": [100, -900, 300, 0], "hands": [3, 2, 7, 0],
                          "termination": ["target", "target", "target", "forfeit"]})
    assert games_worth_seeing(games) == [(1, "the largest margin (900 points)"), (2, "the longest game (7 hands)"),
                                         (3, "a forfeit")]
    both = games.assign(hands=[3, 9, 7, 0])
    assert games_worth_seeing(both)[0] == (1, "the largest margin (900 points) and the longest game (9 hands)")


def test_markdown_becomes_escaped_html_tables_each_in_a_box_that_scrolls():
    text = "### A <b> heading\n\n| name | score |\n|---|---:|\n| x\\|y | <1% |\nplain & line"
    assert markdown_html(text) == (
        "<h3>A &lt;b&gt; heading</h3>\n<div class=\"table-box\"><table><tr><th class=\"text\">name</th>"
        "<th class=\"number\">score</th></tr><tr><td class=\"text\">x|y</td><td class=\"number\">&lt;1%</td></tr>"
        "</table></div>\n<p>plain &amp; line</p>")
