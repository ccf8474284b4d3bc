"""The vocabulary of a hand's progress: its phases and the reasons it can end."""

from __future__ import annotations

__all__ = [
    "ACQUIRE",
    "ANSWER",
    "END_RED_THREE_LAST_CARD",
    "END_STOCK_EXHAUSTED",
    "END_TURN_CAP",
    "END_WENT_OUT",
    "OVER",
    "PLAY",
]

ACQUIRE = "acquire"
"""The turn begins: draw, take the pile, or stop on an empty stock (R6.1, R13.3)."""
PLAY = "play"
"""After acquiring: ask the partner, meld, then discard (R6.1, R12.5)."""
ANSWER = "answer"
"""The partner answers an ask (R12.5)."""
OVER = "over"
"""The hand has ended."""

END_WENT_OUT = "went_out"
"""A player went out (R12.3)."""
END_STOCK_EXHAUSTED = "stock_exhausted"
"""A turn began on an empty stock and the pile was not taken (R13.3)."""
END_RED_THREE_LAST_CARD = "red_three_last_card"
"""The last stock card was a red 3 (R13.1)."""
END_TURN_CAP = "turn_cap"
"""The engine's guard against a hand without end (never reached by legal play)."""
