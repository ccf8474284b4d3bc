"""What each chart of ``canasta-sim plot`` shows, in words: the text alternative of its picture.

A chart function says its title and key figures (rates with their 95% intervals, means, ranges, ratings) with
:func:`say` as it draws them, from the same numbers; :func:`chart_words` gives them back for the figure, as the HTML
report's ``alt`` text, so that a reader who does not see the picture is told what it shows, not only its title.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["chart_words", "say"]

_WORDS: weakref.WeakKeyDictionary[Figure, str] = weakref.WeakKeyDictionary()
"""Each drawn chart's words, kept for as long as its figure lives."""


def say(figure: Figure, title: str, *figures: str) -> None:
    """Keep what ``figure`` shows in words: its ``title`` (on one line), then its key ``figures``, a sentence each."""
    sentences = (" ".join(title.split()), *figures)
    _WORDS[figure] = " ".join(f"{sentence}." for sentence in sentences if sentence)


def chart_words(figure: Figure) -> str:
    """What ``figure``, a chart drawn by :mod:`canasta_sim.cli.plot`, shows in words: its title, then its key figures.

    :raises KeyError: for a figure no chart function drew.
    """
    return _WORDS[figure]
