"""What decides a game, copied to tell whether strategy code changed it, and which strategies are trusted.

:class:`GameFingerprint` copies what decides the game (hands, stock, pile, melds, red 3s, whose turn
it is, the rule set, ...) after every change the engine makes, and tells whether anything differs
after strategy code ran: a difference is tampering.  Comparing after every single call would cost
too much, so the engine compares before each change it makes and, when both sides were called since
the last comparison, replays the game comparing after every call to find who changed it.

:class:`CodeWatch` notices, between games, that strategy code rebound a function or class of the
engine's modules (monkeypatching) and puts the originals back.
"""

from __future__ import annotations

import sys
from operator import methodcaller

__all__ = ["CodeWatch", "GameFingerprint", "defined_in", "is_trusted", "is_trusted_class", "trust_builtin_strategies"]

_TRUSTED: frozenset[type] = frozenset()


def trust_builtin_strategies(classes) -> None:
    """Trust these classes as canasta-sim's own built-in strategies (:mod:`canasta_sim.strategies` calls it
    with its built-ins when it is imported, so the arbiter never imports the layer above it)."""
    global _TRUSTED
    _TRUSTED = _TRUSTED | frozenset(classes)


def is_trusted(player) -> bool:
    """Whether ``player`` is an instance of one of canasta-sim's own built-in strategies (exactly those
    classes, not subclasses).

    Their calls are not fingerprinted: they are the project's code, reviewed and tested to keep to the view
    (tests/arbiter/test_fingerprint.py plays them with every call checked), so a tournament of built-ins
    pays nothing for the guard.  Every other strategy's calls are checked.  In one process this is no wall
    against a strategy that means harm (it could rebind this module too); a process of its own is
    (``isolated:``).
    """
    return type(player) in _TRUSTED


def is_trusted_class(cls: type) -> bool:
    """Whether ``cls`` is one of canasta-sim's own built-in strategy classes (see :func:`is_trusted`)."""
    return cls in _TRUSTED


# Whose turn it is and what governs it (seat, phase, pile_freezers, rules, requirements, scores_before, dealer):
# compared by value (mostly identity) after strategy code ran.  A method of the hand state, a C call compiled.
_CONTROL = methodcaller("control")


class GameFingerprint:
    """A copy of what decides a hand, to tell whether strategy code changed it.

    It covers the cards (the four hands, the stock in order, the discard pile, both sides' melds, the
    red 3s laid and the hand sizes), whose turn and phase it is, the pile's freezing cards, the rule set,
    the scores and the initial-meld requirements: everything that decides who wins.  The statistics
    counters (pile takes, turns, ...) and the views' caches are left out, to keep the check cheap.

    :meth:`take` after every change the engine makes (the melds, the costliest part, are copied again
    only when the engine's own ``meld_changes`` counter moved); :meth:`changed` compares the live state
    with the copy and names the first part that differs, or returns ``""``.
    """

    __slots__ = ("state", "hands", "stock", "pile", "melds", "meld_changes", "control", "red_threes",
                 "hand_sizes", "melded")

    CONTROL = _CONTROL
    """Reads the scalar parts (whose turn, phase, rules, scores, requirements) as one tuple."""

    def __init__(self, state) -> None:
        self.state = state
        self.meld_changes = -1
        self.stock = state.stock.copy()
        self.take()

    def take(self) -> None:
        """Copy the state as the engine left it (the engine's ``_Seats.apply`` inlines this; keep them alike)."""
        state = self.state
        self.hands = list(map(list.copy, state.hands))
        # The engine only ever pops the stock, and the copy equalled it before the engine's change.
        del self.stock[len(state.stock):]
        self.pile = state.pile.copy()
        if state.meld_changes != self.meld_changes:
            self.meld_changes = state.meld_changes
            self.melds = [list(map(list.copy, side)) for side in state.melds]
        self.control = _CONTROL(state)
        self.red_threes = state.red_threes.copy()
        self.hand_sizes = state.hand_sizes.copy()
        self.melded = state.side_has_melded.copy()

    def changed(self) -> str:
        """Name what differs from the copy (``""`` when nothing does)."""
        state = self.state
        if (state.hands == self.hands and state.stock == self.stock and state.pile == self.pile
                and state.melds == self.melds and _CONTROL(state) == self.control
                and state.red_threes == self.red_threes and state.hand_sizes == self.hand_sizes
                and state.side_has_melded == self.melded):
            return ""
        for name, what in (("hands", "a hand"), ("stock", "the stock"), ("pile", "the discard pile"),
                           ("melds", "the melds"), ("red_threes", "the red 3s laid"),
                           ("hand_sizes", "the hand sizes"), ("melded", "whether a side has melded")):
            live = getattr(state, "side_has_melded" if name == "melded" else name)
            if live != getattr(self, name):
                return what
        return "whose turn it is, the phase, the rules, the scores or the meld requirements"


# The modules a game runs through: a strategy that rebinds their functions or classes changes other games.
_WATCHED_MODULES = tuple(f"canasta_sim.core.{name}" for name in (
    "cards", "rules", "moves", "melds", "going_out", "melding", "pile", "state", "legal", "scoring", "view", "strategy",
    "engine")) + ("canasta_sim.arbiter.clock", "canasta_sim.arbiter.monitor", "canasta_sim.arbiter.fingerprint",
                  "canasta_sim.errors")


class CodeWatch:
    """Notices, after a game, that strategy code rebound a function or class of the engine's modules, or an
    attribute of the run's strategy classes (monkeypatching), and puts the originals back.

    It is checked between games, not between calls (about a thousand identity checks), so it cannot say
    which call did it: :meth:`check` names what changed and, when the new value is a function, the file
    that defined it, from which the runner finds the strategy.  Changes that do not rebind a name (an
    object's state, a list mutated in place) are beyond it: only processes of their own prevent those.

    :param classes: the run's strategy classes; their whole class hierarchy is watched.
    """

    def __init__(self, classes) -> None:
        owners: list = [sys.modules[name] for name in _WATCHED_MODULES if name in sys.modules]
        for module in list(owners):
            owners.extend(value for value in vars(module).values()
                          if isinstance(value, type) and value.__module__ == module.__name__)
        self.owners = []
        self._seen: set[int] = set()
        self._watch(owners)
        self.add(classes)

    def add(self, classes) -> None:
        """Watch these strategy classes' hierarchies too, from now on (``tune`` loads its strategies as they come)."""
        self._watch(klass for cls in classes for klass in cls.__mro__ if klass is not object)

    def _watch(self, owners) -> None:
        for owner in owners:
            if id(owner) not in self._seen:
                self._seen.add(id(owner))
                # Functions, classes and other callables only: module-level caches may change legitimately.
                entries = {name: value for name, value in vars(owner).items()
                           if callable(value) or isinstance(value, (staticmethod, classmethod, property))}
                # The values' identities, compared in one go: the values are kept in ``entries``, so no other
                # object can take one of these ids, and an id compares as a number (a replacement's __eq__ is
                # never asked).
                names = tuple(entries)
                self.owners.append((owner, entries, len(vars(owner)), names, list(map(id, entries.values()))))

    def check(self) -> list[tuple[str, object]]:
        """What was rebound since the watch began, as ``(owner.name, new value)``, each put back as it was."""
        changed = []
        for owner, entries, size, names, identities in self.owners:
            current = vars(owner)
            if len(current) == size and list(map(id, map(current.get, names))) == identities:
                continue
            label = getattr(owner, "__qualname__", getattr(owner, "__name__", "?"))
            for name, value in entries.items():
                if current.get(name) is not value:
                    changed.append((f"{label}.{name}", current.get(name)))
                    _restore(owner, name, value)
            for name in [name for name in current if name not in entries]:
                if callable(current[name]) and not name.startswith("__"):
                    changed.append((f"{label}.{name}", current[name]))
                    _restore(owner, name, None)
        return changed


def _restore(owner, name: str, value) -> None:
    if isinstance(owner, type):
        if value is None:
            delattr(owner, name)
        else:
            setattr(owner, name, value)
    elif value is None:
        del vars(owner)[name]
    else:
        vars(owner)[name] = value


def defined_in(value) -> str | None:
    """The file that defined a function (or a method's function), if it can be told."""
    function = getattr(value, "__func__", value)
    code = getattr(function, "__code__", None)
    return None if code is None else code.co_filename
