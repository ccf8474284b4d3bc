"""A decision's legal answers as the bot protocol lists them, and the one legal answer of a decision that has one.

The arbiter's side of a request's ``legal`` list (a bot whose ``ready`` asks for lists) and of ``choices_only`` (a
bot asked only the decisions with more than one legal answer; ``docs/protocol.md``), both read from the seat's view.
A list holds moves (their text is what the request carries) and ``None`` for ``null``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from canasta_sim.plugins.protocol import null_meld_is_legal

__all__ = ["CHOICE", "LISTINGS", "LAZY_LISTINGS", "only_answer"]


def _acquires(view) -> list:
    return list(view.legal_acquires())


def _asks(view) -> list:
    return ["ask", None]


def _answers(view) -> list:
    return ["answer yes", "answer no"]


def _melds(view) -> list:
    # null ends the melding, and is legal unless a binding yes obliges the player to go out (R12.5).
    return [*view.legal_melds(), None] if null_meld_is_legal(view) else list(view.legal_melds())


def _discards(view) -> list:
    return list(view.legal_discards())


LISTINGS: dict[str, Callable[[Any], list]] = {
    "acquire": _acquires, "ask": _asks, "answer": _answers, "meld": _melds, "discard": _discards,
}
"""Each decision's legal answers, as its request lists them."""


def _meld_answers(view) -> Iterator:
    # null first: whether the answers are one then needs only the first legal meld.
    if null_meld_is_legal(view):
        yield None
    yield from view.legal_melds()


LAZY_LISTINGS: dict[str, Callable[[Any], Iterable]] = {
    "acquire": lambda view: view.legal_acquires(), "meld": _meld_answers, "discard": lambda view: view.legal_discards(),
}
"""The legal answers, lazily, of each decision that may have a single one (an ask or an answer decision has two)."""


CHOICE = object()
"""What :func:`only_answer` returns for a decision with more than one legal answer."""


def only_answer(answers: Iterable) -> Any:
    """The one legal answer the lazy listing ``answers`` holds, or :data:`CHOICE` when it holds several (or none)."""
    answers = iter(answers)
    first = next(answers, CHOICE)
    if first is not CHOICE and next(answers, CHOICE) is CHOICE:
        return first
    return CHOICE
