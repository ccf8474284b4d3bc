"""Strategies whose code leaves something behind (loaded by file spec, in-process and isolated, in
tests/arbiter/test_strategy_side_effects.py): an exception that cannot print itself, a message of megabytes, a move
record of its own class, at a decision or in the constructor.  Each plays like greedy until then."""

from __future__ import annotations

from canasta_sim.core.moves import Discard
from canasta_sim.strategies.greedy import Greedy


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no text")


class RaisesUnprintable(Greedy):
    name = "raises-unprintable"

    def choose_discard(self, view):
        raise _Unprintable()


class BuildsUnprintable(Greedy):
    """Its constructor raises the exception that cannot print itself."""

    name = "builds-unprintable"

    def __init__(self, rng, **parameters):
        raise _Unprintable()


class RaisesMegabytes(Greedy):
    name = "raises-megabytes"

    def choose_discard(self, view):
        raise RuntimeError("x" * 5_000_000)


class _OwnDiscard(Discard):
    def __str__(self):
        raise RuntimeError("no text")

    def __repr__(self):
        raise RuntimeError("no repr")


class ReturnsItsOwnRecord(Greedy):
    name = "returns-its-own-record"

    def choose_discard(self, view):
        return _OwnDiscard(Greedy.choose_discard(self, view).card)
