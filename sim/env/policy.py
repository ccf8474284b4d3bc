"""Any ``(observation, action_mask) -> action`` callable as a strategy: the ``policy:`` spec form.

=================================================  ============================================
spec                                               policy
=================================================  ============================================
``policy:path/to/file.py:act``                     the callable ``act`` in that file
``policy:package.module:act``                      the callable ``act`` in an importable module
``policy:path/to/file.py:load:weights=w.npz``      ``load(weights='w.npz')``, called once per
                                                   process, returns the callable
=================================================  ============================================

The callable gets the seat's observation vector and action mask (numpy arrays, exactly as the
environments of :mod:`canasta_sim.env` give them, ``docs/env.md``) and returns an action number the
mask allows; a compound move (an opening, a take with extra melds) asks it once per action.  A
callable that takes a keyword argument ``rng`` also gets the seat's own :class:`random.Random`, so a
sampling policy is reproducible from the game's seed like any strategy.  Anything it raises
(``exception``), a value that is no action number (``malformed``) or an action the mask does not allow
(``illegal``) is the seat's failure, reported by the engine like any strategy's.

``canasta-sim run``, ``compare`` and round robins load ``policy:`` specs like any other spec (the
loader finds this form through the ``canasta_sim.spec_forms`` entry point), in every worker process.
"""

from __future__ import annotations

import inspect
import uuid
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

from canasta_sim.core.strategy import Strategy
from canasta_sim.env.actions import ACTION_COUNT, action_number
from canasta_sim.env.driver import (
    ACQUIRE_DECISION,
    ANSWER_DECISION,
    ASK_DECISION,
    DISCARD_DECISION,
    MELD_DECISION,
    shown,
)
from canasta_sim.env.encoding import DecisionOptions, observation_vector
from canasta_sim.errors import SeatFailure, StrategyLoadError, error_text
from canasta_sim.plugins.loader import import_file, import_named_module
from canasta_sim.plugins.specs import split_target

__all__ = ["PolicyStrategy", "policy_strategy_class"]


class PolicyStrategy(Strategy):
    """A strategy whose every action comes from :attr:`policy`; built by :func:`policy_strategy_class`."""

    name = "policy"
    version = 1
    description = "A trained policy: a callable (observation, action_mask) -> action."
    policy: ClassVar[Callable[..., Any]]
    """The callable; a subclass sets it."""
    takes_rng: ClassVar[bool] = False
    """Whether the callable takes the keyword argument ``rng``."""
    spec_source: ClassVar[tuple[str, tuple[tuple[str, str], ...], str]] = ("", (), "")
    """The spec's target and parameters the class was built from, and the key it is known by in this process."""

    def __reduce__(self):
        # The class is built when the spec loads, so pickle cannot find it by its name: a seat pickles as its spec and
        # its state (an environment holding it pickles, and copies, so), and is rebuilt on the very class it had when
        # unpickled in this process, on the class the spec loads in another.
        return (_unpickled_seat, type(self).spec_source, self.__dict__)

    def _choose(self, view, decision: str):
        options = DecisionOptions.of(view, decision)
        prefix: tuple[int, ...] = ()
        while True:
            observation = observation_vector(view, decision, prefix)
            mask = options.mask(prefix)
            if self.takes_rng:
                action = type(self).policy(observation, mask, rng=self.rng)
            else:
                action = type(self).policy(observation, mask)
            # Charged as a strategy's answer would be (docs/strategies.md, Failures), not as an exception: the
            # policy's code raised nothing, and a traceback would show only this adapter's frames.
            try:
                number = action_number(action)
            except TypeError:
                raise SeatFailure(f"the policy returned {shown(action)}, not an action number; return a whole number "
                                  f"0-{ACTION_COUNT - 1}", reason="malformed") from None
            try:
                prefix, value, complete = options.play(prefix, number)
            except ValueError as error:  # the mask does not allow it
                raise SeatFailure(f"the policy's {error}", reason="illegal") from None
            if complete:
                return value

    def choose_acquire(self, view):
        """Ask the policy how to begin the turn."""
        return self._choose(view, ACQUIRE_DECISION)

    def choose_ask(self, view) -> bool:
        """Ask the policy whether to ask the partner."""
        return self._choose(view, ASK_DECISION)

    def answer_go_out(self, view) -> bool:
        """Ask the policy for the answer to the partner."""
        return self._choose(view, ANSWER_DECISION)

    def choose_meld(self, view):
        """Ask the policy for a meld (one group, or a whole opening) or ``done``."""
        return self._choose(view, MELD_DECISION)

    def choose_discard(self, view):
        """Ask the policy for the discard."""
        return self._choose(view, DISCARD_DECISION)


def policy_strategy_class(target: str, parameters: tuple[tuple[str, str], ...] = ()) -> type[Strategy]:
    """Resolve the part of a ``policy:`` spec after ``policy:`` to a :class:`PolicyStrategy` subclass.

    :param target: ``FILE.py:NAME`` or ``module:NAME``.
    :param parameters: the spec's ``KEY=VALUE`` pairs; when given, ``NAME`` is called with them (as text)
        and must return the policy.
    :raises StrategyLoadError: naming what is wrong and what is accepted.
    """
    module_part, sep, name = split_target(target)  # a Windows drive's colon is the path's
    if not sep or not module_part or not name:
        raise StrategyLoadError(
            f"policy spec 'policy:{target}' needs a target; use policy:FILE.py:NAME or policy:module:NAME, "
            "optionally followed by :KEY=VALUE[,KEY=VALUE...] to call NAME with them"
        )
    obj = getattr(_import(module_part), name, None)
    if obj is None:
        raise StrategyLoadError(f"policy spec 'policy:{target}': {module_part!r} has no {name!r}")
    if parameters:
        if not callable(obj):
            raise StrategyLoadError(f"policy spec 'policy:{target}': {name!r} is not callable, so it cannot take "
                                    "the spec's parameters")
        try:
            obj = obj(**dict(parameters))
        except Exception as error:  # the user's factory failed: reported with the spec
            raise StrategyLoadError(
                f"policy spec 'policy:{target}': {name}({', '.join(f'{k}={v!r}' for k, v in parameters)}) failed: "
                f"{error_text(error)}"
            ) from None
    if not callable(obj) or isinstance(obj, type):
        raise StrategyLoadError(
            f"policy spec 'policy:{target}': {name!r} is not a policy; a policy is a callable "
            "(observation, action_mask) -> action (for a Strategy class, drop the 'policy:' prefix)"
        )
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):  # some callables (builtins) have no signature: they get no rng
        signature = None
    takes_rng = signature is not None and "rng" in signature.parameters
    try:
        if signature is not None:
            signature.bind(None, None, **({"rng": None} if takes_rng else {}))
    except TypeError as error:  # a factory named without parameters, say: found now, not at the first decision
        raise StrategyLoadError(
            f"policy spec 'policy:{target}': {name!r} cannot be called as (observation, action_mask): {error}; "
            "a factory is called only with the spec's parameters, policy:FILE.py:NAME:KEY=VALUE"
        ) from None
    key = uuid.uuid4().hex
    loaded = type("LoadedPolicy", (PolicyStrategy,), {
        "name": f"policy:{target}",
        "policy": staticmethod(obj),
        "takes_rng": takes_rng,
        "spec_source": (target, tuple(parameters), key),
        "__module__": __name__,
    })
    _LOADED[key] = loaded
    return loaded


_LOADED: weakref.WeakValueDictionary[str, type[PolicyStrategy]] = weakref.WeakValueDictionary()
"""The policy classes of this process by their key, for an unpickled seat to find the class it had."""


def _unpickled_seat(target: str, parameters: tuple[tuple[str, str], ...], key: str) -> PolicyStrategy:
    """A pickled seat's object, its state to be restored: of the class it had if this process built it, else of
    the class its spec loads here (once for every seat of that class)."""
    cls = _LOADED.get(key)
    if cls is None:
        cls = policy_strategy_class(target, parameters)
        _LOADED[key] = cls
    return cls.__new__(cls)


def _import(module_part: str):
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        return import_file(module_part, "policy")  # the loader's: once per process, one module name in every one
    return import_named_module(module_part, "policy")
