"""Any OpenSpiel bot as a strategy: the ``openspiel:`` spec form.

=====================================================  ==================================================
spec                                                   the bot
=====================================================  ==================================================
``openspiel:random``                                   OpenSpiel's ``UniformRandomBot``
``openspiel:mcts:simulations=50,uct_c=1.4``            OpenSpiel's Python ``MCTSBot`` (``rollouts``,
                                                       ``playout=random`` or ``expert``, as ``ismcts``)
``openspiel:FILE.py:NAME`` or ``openspiel:module:NAME``  ``NAME(game, player, random_state, **parameters)``
                                                       returns the bot: any object with ``step(state)``
=====================================================  ==================================================

At each decision with more than one allowed action the seat builds the OpenSpiel game ``canasta_sim`` at its
position, with the scope of the current hand (the run's rules; a hand's end valued by pimc's estimate of the chance
of winning the game, ``docs/env.md``), and plays the action ``bot.step(state)`` returns; a compound move is asked one
action at a time.  **What the bot sees.** The state is a world sampled from what the seat has seen
(:func:`canasta_sim.core.search.sample_world`, a new one for every decision): the seat's own hand and the table as
they are, the other hands and the stock dealt anew, so a bot that reads the state's hidden cards (a search that plays
out from it) reads a guess, never the truth.  A bot that calls ``state.resample_from_infostate`` gets further worlds
of the same kind.  ``sees=all`` (any form) gives the bot the true state instead, every hand and the stock's order:
an all-seeing upper bound, not a fair player.  Its strategy is then named ``openspiel:...:all-seeing`` in every
result, and loading it logs a warning saying so; it cannot run ``isolated:``, where the seat's process holds
only what the seat may know.

Every generator a bot gets (``random_state``, a ``numpy.random.RandomState``, and those of the built-in bots'
evaluators) is seeded from the seat's own, so a game is a pure function of its seed.  An action the decision does
not allow is the seat's failure (``illegal``), anything else a bot returns that is no action number ``malformed``.
Needs OpenSpiel (the ``openspiel`` extra (``pip install '.[openspiel]'`` in a checkout)).
"""

from __future__ import annotations

import functools
import inspect
import logging
import math
import numbers
import random
from typing import Any, ClassVar

from canasta_sim.core.view import SeatView
from canasta_sim.env.actions import ACTION_COUNT
from canasta_sim.env.driver import shown
from canasta_sim.env.game_tree import GameTree, hand_text
from canasta_sim.env.ismcts import PLAYOUTS, ExpertPlayouts, SeatSearch, hand_game, numpy_rng, openspiel_modules
from canasta_sim.errors import SeatFailure, StrategyLoadError
from canasta_sim.plugins.loader import import_file, import_named_module
from canasta_sim.plugins.specs import split_target

__all__ = ["BUILT_IN_BOTS", "SEES", "SpielBotStrategy", "spiel_bot_class"]

logger = logging.getLogger(__name__)

SEES = ("seat", "all")
"""``sees=seat`` (the default): worlds sampled from what the seat has seen; ``sees=all``: the true state."""
BUILT_IN_BOTS = ("random", "mcts")
"""The bots named without a file: OpenSpiel's ``UniformRandomBot`` and its Python ``MCTSBot``."""
_MCTS_DEFAULTS = {"simulations": "50", "uct_c": "1.4", "rollouts": "1", "playout": "random"}


class SpielBotStrategy(SeatSearch):
    """A strategy whose every choice an OpenSpiel bot makes; built by :func:`spiel_bot_class`."""

    name = "openspiel"
    # 2: a leaf at a lead of hundreds of thousands of points (greedy going out at -100,000 against it) no longer
    # raises OverflowError from pimc's estimate, which values the game's returns and the expert play-outs.
    version = 2
    description = "An OpenSpiel bot on the OpenSpiel game canasta_sim (needs open_spiel)."
    make_bot: ClassVar[Any]
    """``(game, player, random_state) -> bot``; a subclass sets it."""
    all_seeing: ClassVar[bool] = False
    """Whether the bot gets the true state (``sees=all``) instead of a world sampled from what the seat has seen."""

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        openspiel_modules()
        self._bot = None

    def _root(self, view, decision: str):
        if not self.all_seeing:
            return super()._root(view, decision)
        if type(view) is not SeatView:  # a view rebuilt from a message holds no other hand to see
            raise SeatFailure(f"{self.name} sees every card (sees=all), which needs the game itself; it cannot run "
                              "isolated, where its process holds only what the seat may know", reason="exception")
        world = view._state.copy()  # all-seeing by request: the true hands and stock, copied so the game is untouched
        private = [self._private if seat == view.seat else [f"holds {hand_text(world.hands[seat])}"]
                   for seat in range(4)]
        tree = GameTree.at_position(view.rules, world, view.scores, decision, memory=self._memory.copy(),
                                    public_log=self._public, private_logs=private, scope="hand")
        return hand_game(view.rules).state_at(tree)

    def _search(self, view, root, allowed: list[int]) -> int:
        if self._bot is None:
            self._bot = type(self).make_bot(hand_game(view.rules), view.seat, numpy_rng(self.rng))
        action = self._bot.step(root)
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise SeatFailure(f"the OpenSpiel bot returned {shown(action)}, not an action number; return a whole "
                              f"number 0-{ACTION_COUNT - 1}", reason="malformed")
        if action not in allowed:
            raise SeatFailure(f"the OpenSpiel bot chose action {int(action)}, which this decision does not allow "
                              f"(allowed: {', '.join(map(str, allowed[:10]))}{', ...' if len(allowed) > 10 else ''})",
                              reason="illegal")
        return int(action)


def _random_bot(game, player: int, random_state):
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    return UniformRandomBot(player, random_state)


def _mcts_bot(game, player: int, random_state, *, simulations: int, uct_c: float, rollouts: int, playout: str):
    from open_spiel.python.algorithms import mcts

    if playout == "expert":
        evaluator = ExpertPlayouts(rollouts, random.Random(int(random_state.randint(2**31))))
    else:
        evaluator = mcts.RandomRolloutEvaluator(rollouts, random_state)
    return mcts.MCTSBot(game, uct_c, simulations, evaluator, solve=False, random_state=random_state)


def _mcts_parameters(target: str, given: dict[str, str]) -> dict[str, Any]:
    unknown = sorted(set(given) - set(_MCTS_DEFAULTS))
    if unknown:
        raise StrategyLoadError(f"strategy 'openspiel:mcts' has no parameter {unknown[0]!r}; its parameters: "
                                f"{', '.join([*_MCTS_DEFAULTS, 'sees'])}")
    values = {**_MCTS_DEFAULTS, **given}
    try:
        parameters = {"simulations": int(values["simulations"]), "uct_c": float(values["uct_c"]),
                      "rollouts": int(values["rollouts"]), "playout": values["playout"]}
    except ValueError:
        raise StrategyLoadError(f"strategy '{target}': simulations and rollouts take whole numbers, uct_c a number; "
                                f"got {', '.join(f'{key}={value}' for key, value in given.items())}") from None
    uct_c = parameters["uct_c"]
    if parameters["simulations"] < 1 or parameters["rollouts"] < 1 or not (uct_c >= 0 and math.isfinite(uct_c)):
        raise StrategyLoadError(f"strategy '{target}': simulations and rollouts must be at least 1 and uct_c a finite "
                                f"number 0 or more; got simulations={parameters['simulations']}, "
                                f"rollouts={parameters['rollouts']}, uct_c={parameters['uct_c']}")
    if parameters["playout"] not in PLAYOUTS:
        raise StrategyLoadError(f"strategy '{target}' parameter playout={parameters['playout']!r} is not accepted; "
                                f"use one of: {', '.join(PLAYOUTS)}")
    return parameters


def _factory(target: str, given: dict[str, str]):
    """The bot factory a spec names, its parameters bound."""
    if target == "random":
        if given:
            raise StrategyLoadError(f"strategy 'openspiel:random' takes no parameter but sees; got {', '.join(given)}")
        return _random_bot
    if target == "mcts":
        return functools.partial(_mcts_bot, **_mcts_parameters("openspiel:mcts", given))
    module_part, sep, name = split_target(target)  # a Windows drive's colon is the path's
    if not sep or not module_part or not name:
        raise StrategyLoadError(f"strategy spec 'openspiel:{target}' names no bot; use openspiel:random, "
                                "openspiel:mcts or openspiel:FILE.py:NAME (NAME(game, player, random_state) "
                                "returns the bot)")
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        module = import_file(module_part, "OpenSpiel bot")
    else:
        module = import_named_module(module_part, "OpenSpiel bot")
    factory = getattr(module, name, None)
    if not callable(factory):
        raise StrategyLoadError(f"strategy spec 'openspiel:{target}': {module_part!r} has no callable {name!r}; "
                                "give a function NAME(game, player, random_state, **parameters) returning the bot")
    _check_call(target, name, factory, given)
    return functools.partial(factory, **given) if given else factory


def _check_call(target: str, name: str, factory, given: dict[str, str]) -> None:
    """Refuse, at load, a factory the seat could not call with the spec's parameters: it is called only at the seat's
    first decision, where a parameter it does not take would stop the run as the seat's failure."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # a callable Python cannot describe: its first call will tell
        return
    try:
        signature.bind(None, 0, None, **given)
    except TypeError as error:
        call = ", ".join(["game", "player", "random_state", *(f"{key}={value!r}" for key, value in given.items())])
        raise StrategyLoadError(f"strategy spec 'openspiel:{target}': {name}{signature} cannot be called as "
                                f"{name}({call}): {error}") from None


@functools.cache
def spiel_bot_class(target: str, parameters: tuple[tuple[str, str], ...] = ()) -> type[SpielBotStrategy]:
    """Resolve the part of an ``openspiel:`` spec after ``openspiel:`` to a :class:`SpielBotStrategy` subclass.

    :param target: ``random``, ``mcts``, ``FILE.py:NAME`` or ``module:NAME``.
    :param parameters: the spec's ``KEY=VALUE`` pairs: ``sees`` (``seat`` or ``all``), the rest the bot's.
    :raises StrategyLoadError: naming what is wrong and what is accepted.
    """
    openspiel_modules()
    given = dict(parameters)
    sees = given.pop("sees", "seat")
    if sees not in SEES:
        raise StrategyLoadError(f"strategy 'openspiel:{target}' parameter sees={sees!r} is not accepted; use seat "
                                "(what the seat may know, the default) or all (every card: an upper bound)")
    factory = _factory(target, given)
    name = f"openspiel:{target}" + (":all-seeing" if sees == "all" else "")
    if sees == "all":
        logger.warning("strategy 'openspiel:%s' sees every hidden card (sees=all): an all-seeing upper bound, not a "
                       "fair player; its results are named %s", target, name)
    return type("LoadedSpielBot", (SpielBotStrategy,), {
        "name": name,
        "make_bot": staticmethod(factory),
        "all_seeing": sees == "all",
        "__module__": __name__,
    })
