"""Strategies whose returned values run their own code when the engine reads them (loaded by file spec too).

Each plays like greedy until its first discard (or, for the ask, its first ask), where it returns its trap: a value
whose ``repr``, fields, ``__class__``, iteration or class's metaclass raises, SystemExit and the like included.
"""

from __future__ import annotations

from canasta_sim.core.moves import Discard, Meld, MeldGroup
from canasta_sim.errors import StrategyError
from canasta_sim.strategies.greedy import Greedy


class _ExitingDiscard(Discard):
    """A discard of the strategy's own class whose card and repr raise what no engine code catches by accident."""

    @property
    def card(self):
        raise SystemExit(4)

    def __repr__(self):
        raise KeyboardInterrupt


class _NoRecord:
    """No move at all: its repr and the field its class names for matching raise."""

    __match_args__ = ("field",)

    def __repr__(self):
        raise SystemExit(2)

    @property
    def field(self):
        raise GeneratorExit


class _PosesAsADiscard:
    """Reading its class runs its code: ``isinstance`` reads ``__class__``."""

    @property
    def __class__(self):
        raise SystemExit(6)


class _Groups(list):
    """Groups in a list whose iteration raises."""

    def __iter__(self):
        raise SystemExit(9)


class _NamedByItsMetaclass(type):
    @property
    def __module__(cls):
        raise SystemExit(8)

    @property
    def __match_args__(cls):
        raise SystemExit(8)


class _GuardsItsClass(type):
    """Runs its own code for every attribute of its classes, and raises for those that name or describe them (others
    pass: a test that searches the process's objects asks each for its ``__class__``)."""

    def __getattribute__(cls, name):
        if name in ("__name__", "__qualname__", "__module__", "__match_args__", "__repr__"):
            raise SystemExit(11)
        return type.__getattribute__(cls, name)


class _Guarded(metaclass=_GuardsItsClass):
    """Every attribute of its class runs its metaclass's code."""


class _NoBool(metaclass=_NamedByItsMetaclass):
    def __repr__(self):
        raise SystemExit(8)


class DiscardsItsOwnExitingRecord(Greedy):
    name = "discards-its-own-exiting-record"

    def choose_discard(self, view):
        return _ExitingDiscard(super().choose_discard(view).card)


class DiscardsNoRecord(Greedy):
    name = "discards-no-record"

    def choose_discard(self, view):
        return _NoRecord()


class DiscardsAPoser(Greedy):
    name = "discards-a-poser"

    def choose_discard(self, view):
        return _PosesAsADiscard()


class MeldsGroupsThatExit(Greedy):
    name = "melds-groups-that-exit"

    def choose_meld(self, view):
        move = super().choose_meld(view)
        return None if move is None else Meld(_Groups(move.groups))


class MeldsAGroupOfItsOwn(Greedy):
    name = "melds-a-group-of-its-own"

    def choose_meld(self, view):
        class ExitingGroup(MeldGroup):
            @property
            def cards(self):
                raise SystemExit(10)

        move = super().choose_meld(view)
        return None if move is None else Meld(tuple(ExitingGroup(group.rank, group.cards) for group in move.groups))


class AsksWithNoBool(Greedy):
    name = "asks-with-no-bool"

    def choose_ask(self, view):
        return _NoBool()


class BlamesSeatOne(Greedy):
    name = "blames-seat-one"

    def choose_discard(self, view):
        raise StrategyError("it was seat 1", spec="greedy", seat=1, game_seed=0, decision="discard")


class ExitsAtItsDiscard(Greedy):
    name = "exits-at-its-discard"

    def choose_discard(self, view):
        raise SystemExit(3)


class _FramingGroup(MeldGroup):
    """A legal group whose printing and comparing raise: in another seat's call, that seat would be charged."""

    def __repr__(self):
        raise SystemExit(12)

    __str__ = __repr__

    def __eq__(self, other):
        raise SystemExit(12)

    __hash__ = MeldGroup.__hash__


class MeldsGroupsThatFrameOthers(Greedy):
    """Melds legal groups of its own class in a list it empties after each meld is accepted."""

    name = "melds-groups-that-frame-others"

    def __init__(self, rng, **parameters):
        super().__init__(rng, **parameters)
        self._laid: list = []

    def choose_meld(self, view):
        self._laid.clear()  # the list of the meld before, which the engine has accepted
        move = super().choose_meld(view)
        if move is None:
            return None
        self._laid.extend(_FramingGroup(group.rank, group.cards) for group in move.groups)
        return Meld(self._laid)


class HearsMelds(Greedy):
    """Greedy that keeps every meld it hears of and prints each, as a listener may."""

    name = "hears-melds"
    heard: list = []

    def on_event(self, event):
        super().on_event(event)
        move = getattr(event, "move", None)
        if type(move) is Meld:
            str(move), move == move  # noqa: B015 - what a listener may do with a move it hears
            HearsMelds.heard.append(move)
