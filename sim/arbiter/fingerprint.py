"""Which strategies are trusted, and the watch over the engine's code.

The copy of what decides a hand, which the engine compares around strategy code's calls (tampering with
the game's objects), reads the hand state, so it lives in the core (:mod:`canasta_sim.core.fingerprint`);
:func:`is_trusted` says whose calls it leaves unchecked.

:class:`CodeWatch` notices, between games, that strategy code rebound a function or class of the
engine's modules (monkeypatching) and puts the originals back.
"""

from __future__ import annotations

import itertools
import operator
import sys

__all__ = ["CodeWatch", "defined_in", "is_trusted", "is_trusted_class", "trust_builtin_strategies"]

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
    (tests/arbiter/test_arbiter.py plays them with every call checked), so a tournament of built-ins
    pays nothing for the guard.  Every other strategy's calls are checked.  In one process this is no wall
    against a strategy that means harm (it could rebind this module too); a process of its own is
    (``isolated:``).
    """
    return type(player) in _TRUSTED


def is_trusted_class(cls: type) -> bool:
    """Whether ``cls`` is one of canasta-sim's own built-in strategy classes (see :func:`is_trusted`)."""
    return cls in _TRUSTED


# The modules a game runs through: a strategy that rebinds their functions or classes changes other games.
_WATCHED_MODULES = tuple(f"canasta_sim.core.{name}" for name in (
    "cards", "rules", "moves", "melds", "going_out", "melding", "pile", "state", "legal", "scoring", "view", "strategy",
    "fingerprint", "engine")) + ("canasta_sim.arbiter.clock", "canasta_sim.arbiter.monitor",
                                 "canasta_sim.arbiter.fingerprint", "canasta_sim.errors")


class CodeWatch:
    """Notices, after a game, that strategy code rebound a function or class of the engine's modules, or an
    attribute of the run's strategy classes (monkeypatching), and puts the originals back.

    It is checked between games, not between calls (about two thousand identity checks), so it cannot say
    which call did it: :meth:`check` names what changed and, when the new value is a function, the file
    that defined it, from which the runner finds the strategy.  Changes that do not rebind a name (an
    object's state, a list mutated in place) are beyond it: only processes of their own prevent those.

    :param classes: the run's strategy classes; their whole class hierarchy is watched.
    """

    def __init__(self, classes) -> None:
        owners: list = [sys.modules[name] for name in _WATCHED_MODULES if name in sys.modules]
        # The rest of canasta-sim as loaded now (the runner, the guard itself, the bot proxies), and the generator
        # class every seat's ``self.rng`` is: rebinding its methods changes an opponent's play in later games.
        owners.extend(module for name, module in list(sys.modules.items())
                      if name.startswith("canasta_sim.") and name not in _WATCHED_MODULES and module is not None)
        # Found among the loaded modules, not imported: the arbiter draws no random numbers (the core's seats do).
        generator = getattr(sys.modules.get("random"), "Random", None)
        if generator is not None:
            owners.append(generator)
        for module in list(owners):
            owners.extend(value for value in vars(module).values()
                          if isinstance(value, type) and value.__module__ == module.__name__)
        self.owners = []
        """``(owner, its watched entries, its namespace's size)`` as the watch began."""
        self._seen: set[int] = set()
        self._spaces: list = []
        self._sizes: list[int] = []
        self._readers: list = []
        self._identities: list[int] = []
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
                self.owners.append((owner, entries, len(vars(owner))))
                # Flat over every owner, so that check() reads them in a few C loops: about two thousand entries
                # once every canasta-sim module is watched, which a Python loop per owner took nearly twice as long
                # to read.  vars() of a module is its dict, and of a class a live view of it.
                self._spaces.append(vars(owner))
                self._sizes.append(len(vars(owner)))
                self._readers.append(_reader(tuple(entries)))
                # The values' identities: the values are kept in ``entries``, so no other object can take one of
                # these ids, and an id compares as a number (a replacement's __eq__ is never asked).
                identities = list(map(id, entries.values()))
                self._identities.extend(identities * 2 if len(identities) == 1 else identities)  # as _reader reads

    def check(self) -> list[tuple[str, object]]:
        """What was rebound since the watch began, as ``(owner.name, new value)``, each put back as it was."""
        if list(map(len, self._spaces)) == self._sizes:
            try:
                values = itertools.chain.from_iterable(map(operator.call, self._readers, self._spaces))
                if list(map(id, values)) == self._identities:
                    return []
            except KeyError:  # a watched name deleted: found below
                pass
        changed = []
        for owner, entries, size in self.owners:
            current = vars(owner)
            if len(current) == size and all(current.get(name) is value for name, value in entries.items()):
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


def _reader(names: tuple[str, ...]):
    """A function of a namespace giving the values of ``names`` in it, always as a tuple (one C call)."""
    if len(names) == 1:
        return operator.itemgetter(names[0], names[0])  # a pair: itemgetter of one name gives the value bare
    return operator.itemgetter(*names) if names else (lambda space: ())


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
