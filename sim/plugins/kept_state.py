"""What a strategy keeps between games outside its instances: the globals of its own modules and their classes'
attributes.

A process plays many games, and each game builds new instances, so what a game leaves there is the one way it can
change the games the same process plays after it: a run's results would then depend on how its games were shared out
among workers, and a resumed run or a replay would not give the same games.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
import threading
import time
import types
from collections.abc import Callable

from canasta_sim.arbiter.clock import HAS_ALARM, DecisionClock, DecisionTimeout
from canasta_sim.errors import UserInterrupt

_OWN = ("builtins", "canasta_sim")
"""Top-level packages whose modules are not a strategy's own: Python's builtins and canasta-sim, whose built-ins and
bot proxies (the class of an ``isolated:`` spec, whose state lives in its own process) are defined there."""

_PROXY_MODULE = "canasta_sim.plugins.proxy"
"""Where a bot process's class is defined: its kept state is what its process claims (:func:`note_claim`)."""

CLAIMED_NAMES = 16
"""Names a bot process's claims count for each bot, at most, whatever it sends: each is told once a run anyway."""

_CLAIMED_LENGTH = 80
"""Characters of a claimed name kept, after escaping: a name, never a payload."""

_CLAIMED = b"claimed"

_claims: dict[str, dict[str, None]] = {}
"""The names each bot (by its pool's label, the spec it was started for) claimed changed in this process's life."""


def _class_dict(cls: type):
    """A class's own namespace, read past its metaclass's ``__getattribute__`` and its ``__module__`` property."""
    return type.__getattribute__(cls, "__dict__")


def kept_state(cls: type) -> dict[str, bytes | int | None]:
    """Each global of the modules that define ``cls`` and its parents (canasta-sim's own left out), and each attribute
    of the classes those modules define, as ``Class.attribute``: as a digest of its pickled bytes, or by identities
    where it does not pickle (a lambda, a list of them: :func:`_identities`); ``None`` as ``None``, a value not loaded
    yet (:func:`changed_names`)."""
    state: dict[str, bytes | int | None] = {}
    pool = vars(cls).get("pool") if cls.__module__ == _PROXY_MODULE else None
    if pool is not None:  # a bot process's class: its claims, the state being in its own process
        state.update(dict.fromkeys(_claims.get(pool.label, ()), _CLAIMED))
    for name in dict.fromkeys(part.__module__ for part in cls.__mro__):
        module = sys.modules.get(name)
        if module is None or name.partition(".")[0] in _OWN:
            continue
        for key, value in list(vars(module).items()):
            # By its type and the class's own dict, never its attributes: a strategy's metaclass or __class__ may
            # run its code (a SystemExit) when read, and a bot server reads its state before its handshake.
            if key.startswith("__") or issubclass(type(value), types.ModuleType):
                continue
            state[key] = _pickled(value)
            if issubclass(type(value), type):
                own = _class_dict(value)
                if type(own.get("__module__")) is str and own["__module__"] == name:
                    state.update((f"{key}.{attribute}", _pickled(held)) for attribute, held in list(own.items())
                                 if not attribute.startswith("__"))
    return state


def watched(cls: type) -> bool:
    """Whether :func:`kept_state` of ``cls`` may find anything but claims: one of its modules is the strategy's own
    (a bot server serving a built-in then looks at nothing after its games)."""
    return any(part.__module__.partition(".")[0] not in _OWN for part in cls.__mro__)


def note_claim(label: str, names: object) -> None:
    """Take a bot process's claim that its strategy changed what it keeps between games (its answer's ``kept``):
    untrusted, so bounded and escaped; anything but a list of texts is no claim, ignored, and never charged, for a
    claim is only ever warned of, as in-process."""
    if type(names) is not list:
        return
    held = _claims.setdefault(label, {})
    for name in names[:CLAIMED_NAMES]:
        if len(held) >= CLAIMED_NAMES:
            return
        if type(name) is str and name:
            name = name[:_CLAIMED_LENGTH]
            shown = name if name.isprintable() else name.encode("unicode_escape").decode("ascii")
            held[shown[:_CLAIMED_LENGTH]] = None


def forget_claims(label: str) -> None:
    """Forget what the bot ``label`` claimed, its run having ended: on a Dask worker, which outlives runs, the next
    run's processes of the same spec claim the same names, which its watch would otherwise take as kept already."""
    _claims.pop(label, None)


def changed_names(before: dict[str, bytes | int | None], after: dict[str, bytes | int | None]) -> list[str]:
    """The names whose value differs between two :func:`kept_state` of one class, added and removed ones included.

    A name that held ``None`` before is loaded, not changed, whatever it holds after: a model read from its file at
    the first decision (``_MODEL = None`` at import) is the same for every game after it, and is compared from then
    on (:meth:`KeptStateWatch.changes`; ``check-strategy`` compares game 0's replay with its first play)."""
    return sorted(name for name in before.keys() | after.keys()
                  if before.get(name) != after.get(name) and not (name in before and before[name] is None))


def _pickled(value) -> bytes | int | None:
    if value is None:
        return None  # not yet loaded: see changed_names
    buffers: list[pickle.PickleBuffer] = []
    try:
        # A numpy array's data is handed over as a buffer of its own, read where it lies: a model of hundreds of MB
        # held in a global is digested after every task without a copy that would double its memory.
        pickled = pickle.dumps(value, pickle.HIGHEST_PROTOCOL, buffer_callback=buffers.append)
        digest = hashlib.blake2b(pickled, digest_size=16)
        for buffer in buffers:
            digest.update(buffer.raw())
    except (UserInterrupt, DecisionTimeout):  # the user's Ctrl-C, the look's own clock (_looked)
        raise
    except BaseException:  # the strategy's own object refuses to pickle, however (a SystemExit): judged by identities
        return _identities(value)
    # A digest, not the bytes: a model's weights held in a global are not kept twice for the whole run.
    return digest.digest()


_CONTAINERS = (list, tuple, dict, set, frozenset)


def _identities(value) -> bytes | int:
    """What a value that does not pickle is compared by: its identity, and for a list, tuple, dict or set (of just
    that type, so that reading it runs no strategy code) the identities of what it holds, so that a function appended
    to a list of them is a change."""
    if type(value) not in _CONTAINERS:
        return id(value)
    try:
        held = [part for pair in value.items() for part in pair] if type(value) is dict else list(value)
    except RuntimeError:  # changed meanwhile by a thread of the strategy's: its identity only, this once
        return id(value)
    digest = hashlib.blake2b(id(value).to_bytes(8, "little"), digest_size=16)
    for part in held:
        digest.update(id(part).to_bytes(8, "little"))
    return digest.digest()


_LOOK_SPACING = 20
"""A worker looks at kept state again only after this many times the last look's cost in play: a twentieth of its
time at most.  A model of 50 MB in a global costs about 0.07 s a look, where a tuning's task plays 8 games in about
0.1 s: looking after each task tripled a tuning's time."""


LOOK_LIMIT = 60.0
"""Seconds one look at a strategy's kept state may take.  A look pickles what the strategy keeps, which runs the
strategy's own code (a ``__reduce__``, a ``__getstate__``) outside any decision's clock: one that never returned
stopped its worker between games, with no line said and nothing charged.  Past it the strategy is no longer watched
in this process, said once (:meth:`KeptStateWatch.unread`).  A model of a few GB digests in a few seconds."""


def _looked(cls: type, limit: float) -> dict[str, bytes | int | None] | None:
    """:func:`kept_state` of ``cls``, or ``None`` where it took over ``limit`` seconds."""
    if not watched(cls):
        # Nothing of the strategy's own is pickled (a built-in, or an isolated: seat's claims), so nothing can hang.
        return kept_state(cls)
    if HAS_ALARM and threading.current_thread() is threading.main_thread():
        # A run's worker and a bot process look in their main thread, where the decision clock's SIGALRM stops even a
        # sleep in C.  Not a thread of the look's own: one started in a worker forked from a threaded parent (pytest,
        # a notebook's kernel) under --memory-limit never reported its start, and the worker waited for good.
        clock = DecisionClock(limit)
        clock.start()
        try:
            return kept_state(cls)
        except DecisionTimeout:
            return None
        finally:
            clock.stop()
    # A Dask worker's task thread, or a system without the alarm: the look in a daemon thread of its own, left to end
    # or not (the decision clock's watchdog could not stop a sleep in C there).
    found: list = []

    def look() -> None:
        try:
            found.append(kept_state(cls))
        except BaseException as error:  # handed to the caller, as if raised there
            found.append(error)

    thread = threading.Thread(target=look, name="kept state look", daemon=True)
    thread.start()
    thread.join(limit)
    if not found:
        return None
    if isinstance(found[0], BaseException):
        raise found[0]
    return found[0]


class KeptStateWatch:
    """The state :func:`kept_state` finds for each strategy of a process, from when the watch is built; each change
    told once."""

    def __init__(self, strategies: dict[str, type], clock: Callable[[], float] = time.monotonic) -> None:
        self._classes = dict(strategies)
        self._clock = clock
        self._unread: list[str] = []
        self._before: dict[str, dict[str, bytes | int | None]] = {}
        for spec, cls in strategies.items():
            state = _looked(cls, LOOK_LIMIT)
            if state is None:
                self._give_up(spec)
            else:
                self._before[spec] = state
        self._told: set[tuple[str, str]] = set()
        self._next_look = clock()

    def _give_up(self, spec: str) -> None:
        del self._classes[spec]
        self._unread.append(spec)

    def unread(self) -> list[str]:
        """The specs given up since the last call, a look at what they keep having taken over :data:`LOOK_LIMIT`."""
        given_up, self._unread = self._unread, []
        return given_up

    def changes(self, look_now: bool = False) -> list[tuple[str, list[str]]]:
        """Each spec whose strategy's kept state changed since the watch began in a name not told before, with every
        name changed; nothing when the last look was too recent for its cost (:data:`_LOOK_SPACING`), the changes
        then told at the next look, unless ``look_now`` (the worker's end)."""
        started = self._clock()
        if started < self._next_look and not look_now:
            return []
        found = []
        for spec, cls in list(self._classes.items()):
            now = _looked(cls, LOOK_LIMIT)
            if now is None:
                self._give_up(spec)
                continue
            before = self._before[spec]
            changed = changed_names(before, now)
            before.update((name, now[name]) for name, held in list(before.items()) if held is None and name in now)
            if not {(spec, name) for name in changed} <= self._told:
                self._told.update((spec, name) for name in changed)
                found.append((spec, changed))
        ended = self._clock()
        self._next_look = ended + _LOOK_SPACING * (ended - started)
        return found


def kept_state_warning(spec: str, names: list[str]) -> str:
    """The warning a run gives where strategy ``spec``, played in a worker's own process, changed the kept state
    ``names`` (:meth:`KeptStateWatch.changes`)."""
    return (f"strategy {spec!r} changed what its class or module keeps from one game to the next ({', '.join(names)}) "
            "in a worker: its games depend on the games that worker played before them, so this run's results change "
            "with --workers, and a resume or a replay does not give them again; keep what a game learns on self, a new "
            "instance each game (canasta-sim docs strategies)")


def unread_warning(spec: str) -> str:
    """The warning a run gives where a look at what strategy ``spec`` keeps took over :data:`LOOK_LIMIT`
    (:meth:`KeptStateWatch.unread`)."""
    return (f"strategy {spec!r}: reading what its class or module keeps from one game to the next took over "
            f"{LOOK_LIMIT:g} s in a worker, in its own code (a __reduce__ or __getstate__ that does not return): it is "
            "no longer watched there, so a change of it is not told (canasta-sim docs strategies)")
