"""``ismcts``: OpenSpiel's Information Set Monte Carlo Tree Search as a strategy.

At each of its decisions with more than one allowed action the seat builds the OpenSpiel game
``canasta_sim`` (:mod:`canasta_sim.env.openspiel`) at its position, with the scope of the current
hand, and runs ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` on it: every simulation deals the
cards the seat cannot see anew, consistently with what it has seen
(:func:`canasta_sim.core.search.sample_world`, through :meth:`GameTree.resample`), walks the tree of
information sets of all four seats by UCT, and values the leaf it adds by the evaluator's play-outs
to the end of the hand.  A hand's end is valued by pimc's estimate of the chance of winning the game
from the totals it leads to (:func:`canasta_sim.strategies.pimc.match_value`, as ``2 * p - 1``).
A compound move (an opening, a take with extra melds) is searched one action at a time.

Parameters (``ismcts:simulations=200,uct_c=1.5``):

* ``simulations`` (default 50): the bot's simulations per searched action;
* ``uct_c`` (default 1.0, 0 to 10): UCT's exploration constant (returns lie in -1 to 1); its range makes it
  tunable, ``canasta-sim tune ismcts:playout=expert --params uct_c``;
* ``final_policy`` (``max_visit``, ``normalized_visit`` or ``max_value``; default ``max_visit``):
  OpenSpiel's final policy, from which the action played is drawn;
* ``rollouts`` (default 1): the evaluator's play-outs per leaf;
* ``playout`` (``random`` or ``expert``; default ``random``): ``random`` is OpenSpiel's
  ``RandomRolloutEvaluator`` (uniform legal actions to the hand's end); ``expert`` plays the hand out
  with :class:`~canasta_sim.strategies.expert.Expert` in every seat (:func:`canasta_sim.core.search.playout`),
  far faster per play-out and a far better judge;
* ``worlds`` (default 0): the most worlds sampled per searched action, each simulation then starting from one of
  them at random (OpenSpiel's ``max_world_samples``); 0 deals a new world for every simulation;
* ``selection`` (``uct`` or ``puct``; default ``uct``): OpenSpiel's ``child_selection_policy``; ``puct`` weighs
  the exploration term by the evaluator's prior, uniform over the allowed actions for both play-outs unless
  ``expert_prior`` says otherwise;
* ``expert_prior`` (default 0, 0 to 1; only with ``selection=puct``): the share of that prior moved to the action
  expert would take (:func:`expert_prior`); 0 is the uniform prior, the games of ``selection=puct`` before it.

ismcts@3 plays on where ismcts@2 raised OverflowError and forfeited (pimc's estimate of the chance of winning, at a
lead of hundreds of thousands of points, which only rules far from the defaults give); its games are otherwise
ismcts@2's.

Should no world consistent with what the seat saw be found (a partner's ask that says it can go out,
R12.5, when :data:`~canasta_sim.env.game_tree.SAMPLE_TRIES` samples in a row cannot), the seat decides as
expert does, whose memory it keeps for that.  Every generator (the bot's, the evaluator's, the
sampler's) is seeded from the seat's own ``random.Random``, so a game is a pure function of its
seed, like any other.  Needs OpenSpiel, the ``openspiel`` extra (``pip install '.[openspiel]'`` in a
checkout); registered through the ``canasta_sim.strategies`` entry point, since the strategies room may
not import the environments.
"""

from __future__ import annotations

import functools
import random

import numpy as np

from canasta_sim.core.moves import Stop, TakePile
from canasta_sim.core.parameters import Parameter
from canasta_sim.core.phases import ACQUIRE
from canasta_sim.core.scoring import score_hand
from canasta_sim.core.search import PublicMemory, SearchError, playout
from canasta_sim.core.strategy import Strategy
from canasta_sim.core.view import SeatView
from canasta_sim.env.driver import ACQUIRE_DECISION, ANSWER_DECISION, ASK_DECISION, DISCARD_DECISION, MELD_DECISION
from canasta_sim.env.encoding import DecisionOptions, playable_actions
from canasta_sim.env.game_tree import GameTree, deal_text, event_text, hand_text, receipt_text, sample_position
from canasta_sim.errors import StrategyLoadError, install_hint
from canasta_sim.strategies.expert import Expert
from canasta_sim.strategies.pimc import match_value

__all__ = ["FINAL_POLICIES", "PLAYOUTS", "SELECTIONS", "ExpertPlayouts", "Ismcts", "SeatSearch", "expert_prior",
           "hand_game", "numpy_rng", "openspiel_modules"]

FINAL_POLICIES = ("max_visit", "normalized_visit", "max_value")
PLAYOUTS = ("random", "expert")
SELECTIONS = ("uct", "puct")
_STOP = Stop()
_EXPERT_METHODS = {ACQUIRE_DECISION: "choose_acquire", ASK_DECISION: "choose_ask", ANSWER_DECISION: "answer_go_out",
                   MELD_DECISION: "choose_meld", DISCARD_DECISION: "choose_discard"}


def openspiel_modules():
    """The OpenSpiel modules the strategy uses (``pyspiel``, the Python ISMCTS and MCTS, and the game's module), or a
    one-line error saying how to install them."""
    try:
        import pyspiel
        from open_spiel.python.algorithms import ismcts, mcts

        import canasta_sim.env.openspiel as game_module
    except ImportError as error:
        raise StrategyLoadError(
            f"strategy 'ismcts' needs OpenSpiel ({error}); {install_hint('openspiel')}"
        ) from None
    return pyspiel, ismcts, mcts, game_module


def numpy_rng(rng: random.Random) -> np.random.RandomState:
    """A numpy generator (what OpenSpiel's Python bots take) seeded from the seat's generator."""
    return np.random.RandomState(rng.getrandbits(32))


@functools.cache
def hand_game(rules):
    """The OpenSpiel game ``canasta_sim`` under ``rules`` in the scope of one hand (made once per rule set)."""
    _, _, _, game_module = openspiel_modules()
    return game_module.load(**rules.changed_options(), scope="hand")


class ExpertPlayouts:
    """An OpenSpiel evaluator: the hand played out by experts from the node, valued as the tree's returns.

    :param rollouts: play-outs per evaluation, their returns averaged.
    :param rng: the generator each play-out's experts are seeded from.
    :param prior_weight: the share of the prior on expert's choice (:func:`expert_prior`); 0, uniform.
    """

    def __init__(self, rollouts: int, rng: random.Random, prior_weight: float = 0.0) -> None:
        self.rollouts = rollouts
        self.rng = rng
        self.prior_weight = prior_weight

    def evaluate(self, state):
        """The mean returns of ``rollouts`` expert play-outs of the hand from ``state``."""
        tree = state.tree
        if tree.is_over:
            return tree.returns()
        scores = tree.views[0].scores
        total = 0.0
        for _ in range(self.rollouts):
            world = tree.state.copy()
            seed = self.rng.getrandbits(64)
            playout(world, [Expert(random.Random(seed + seat)) for seat in range(4)], scores)
            total += 2.0 * match_value(score_hand(world).totals_after, 0, tree.rules) - 1.0
        value = total / self.rollouts
        return [value, -value, value, -value]

    def prior(self, state):
        """Uniform over the allowed actions, ``prior_weight`` of it moved to expert's choice
        (:func:`expert_prior`)."""
        return expert_prior(state, self.prior_weight)


class _ExpertPrior:
    """An OpenSpiel evaluator: another's evaluations, with :func:`expert_prior` as its prior."""

    def __init__(self, inner, prior_weight: float) -> None:
        self.inner = inner
        self.prior_weight = prior_weight

    def evaluate(self, state):
        """The wrapped evaluator's returns."""
        return self.inner.evaluate(state)

    def prior(self, state):
        """:func:`expert_prior` with this evaluator's weight."""
        return expert_prior(state, self.prior_weight)


def expert_prior(state, weight: float) -> list[tuple[int, float]]:
    """PUCT's prior at a decision of the game: uniform over the allowed actions, with ``weight`` of it moved to the
    next action of the move expert would make there (expert's rules at the node, told of the hand's start there, so
    without its memory of earlier discards); uniform where expert's move does not continue the actions chosen so
    far.  ``weight`` 0 is the uniform prior, exactly."""
    actions = state.legal_actions()
    uniform = 1.0 / len(actions)
    if not weight:
        return [(action, uniform) for action in actions]
    favoured = _expert_action(state.tree)
    share = (1.0 - weight) * uniform
    return [(action, share + (weight if action == favoured else 0.0)) for action in actions]


def _expert_action(tree: GameTree) -> int | None:
    """The next action of expert's move at the tree's decision, or ``None`` where it leaves the chosen prefix."""
    view = tree.views[tree.actor]
    expert = Expert(random.Random(0))  # expert draws nothing from its generator
    expert.on_hand_start(view)
    value = getattr(expert, _EXPERT_METHODS[tree.decision])(view)
    actions = playable_actions(view, tree.decision, value)
    prefix = tree.prefix
    if len(actions) <= len(prefix) or actions[:len(prefix)] != prefix:
        return None
    return actions[len(prefix)]


class SeatSearch(Strategy):
    """A strategy whose decisions an OpenSpiel search makes on the game ``canasta_sim`` (scope ``hand``), rooted at
    the seat's position in a world sampled from what it has seen: the seat's records of the hand, the decisions as
    the game's actions, one at a time, and expert's play where no world can be sampled.  A subclass gives
    :meth:`_search`, the action chosen at a root state."""

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        self._memory: PublicMemory | None = None
        self._public: list[str] = []
        self._private: list[str] = []
        self._hand: tuple[int, ...] = ()
        self._view: SeatView | None = None
        # Decides when no world consistent with what the seat saw can be sampled (see _decide).  Expert draws
        # nothing from its generator, so sharing the seat's leaves the seat's stream as it was.
        self._expert = Expert(self.rng)

    # ------------------------------------------------------------ what the seat has seen

    def on_hand_start(self, view) -> None:
        """Start the hand's records: the table's memory, the public moves, the seat's own cards."""
        self._view = view
        self._expert.on_hand_start(view)
        self._memory = PublicMemory(view)
        self._public = [deal_text(view)]
        self._hand = tuple(view.hand)
        self._private = [f"dealt {hand_text(self._hand)}"]

    def on_event(self, event) -> None:
        """Record a move seen at the table, and the cards this seat received with it."""
        self._expert.on_event(event)
        self._memory.observe(event)
        self._public.append(event_text(event))
        hand = tuple(self._view.hand)
        if not (event.seat == self._view.seat and isinstance(event.move, TakePile)):
            text = receipt_text(self._hand, hand)
            if text:
                self._private.append(text)
        self._hand = hand

    # ------------------------------------------------------------ decisions

    def choose_acquire(self, view):
        """Search how to begin the turn."""
        return self._decide(view, ACQUIRE_DECISION)

    def choose_ask(self, view) -> bool:
        """Search whether to ask the partner."""
        return self._decide(view, ASK_DECISION)

    def answer_go_out(self, view) -> bool:
        """Search the answer to the partner."""
        return self._decide(view, ANSWER_DECISION)

    def choose_meld(self, view):
        """Search a meld (one group, or an opening one group at a time) or done."""
        return self._decide(view, MELD_DECISION)

    def choose_discard(self, view):
        """Search the discard."""
        return self._decide(view, DISCARD_DECISION)

    def _decide(self, view, decision: str):
        options = DecisionOptions.of(view, decision)
        prefix: tuple[int, ...] = ()
        root = None
        while True:
            allowed = options.allowed(prefix)
            if len(allowed) == 1:
                action = allowed[0]
            else:
                try:
                    if root is None:
                        root = self._root(view, decision)
                        for chosen in prefix:
                            root.apply_action(chosen)
                    action = self._search(view, root, allowed)
                except SearchError:
                    # Asked "may I go out?" (R12.5) by a partner whose ask no sampled world bears out, at the root
                    # or in a simulation's resample: nothing to search, so the seat decides the whole move as
                    # expert does (as pimc does there); nothing of the searched prefix was played yet.
                    return getattr(self._expert, _EXPERT_METHODS[decision])(view)
            prefix, value, complete = options.play(prefix, action)
            if complete:
                return value
            if root is not None:
                root.apply_action(action)

    def _root(self, view, decision: str):
        """The OpenSpiel state at this decision, in a world sampled from what the seat has seen."""
        # R13.1's must_stop is not in the view, but it is the only time a stop is allowed after the acquire.
        world = sample_position(view, self._memory, self.rng, must_stop=view.phase != ACQUIRE and view.can(_STOP))
        seat = view.seat
        private = [self._private if other == seat else ["sampled"] for other in range(4)]
        tree = GameTree.at_position(view.rules, world, view.scores, decision, memory=self._memory.copy(),
                                    public_log=self._public, private_logs=private, scope="hand")
        return hand_game(view.rules).state_at(tree)

    def _search(self, view, root, allowed: list[int]) -> int:
        """The action to play at ``root`` (one of ``allowed``, two or more); a subclass searches."""
        raise NotImplementedError


class Ismcts(SeatSearch):
    """Every decision with a choice searched by OpenSpiel's IS-MCTS over the rest of the hand."""

    name = "ismcts"
    version = 3
    description = "OpenSpiel's IS-MCTS over the hand, on the OpenSpiel game canasta_sim (needs open_spiel)."
    parameters = {
        "simulations": 50,
        # A range makes it tunable (canasta-sim tune ismcts:...); play reads the value as before.
        "uct_c": Parameter(1.0, low=0.0, high=10.0, step=0.05,
                           help="UCT's exploration constant (returns lie in -1 to 1)"),
        "final_policy": "max_visit",
        "rollouts": 1,
        "playout": "random",
        "worlds": 0,
        "selection": "uct",
        "expert_prior": 0.0,
    }

    def __init__(self, rng, **parameters) -> None:
        super().__init__(rng, **parameters)
        pyspiel, ismcts, mcts, _ = openspiel_modules()
        if self.simulations < 1:
            raise StrategyLoadError(f"strategy 'ismcts' parameter simulations={self.simulations!r} must be at least 1")
        if self.rollouts < 1:
            raise StrategyLoadError(f"strategy 'ismcts' parameter rollouts={self.rollouts!r} must be at least 1")
        if self.final_policy not in FINAL_POLICIES:
            raise StrategyLoadError(f"strategy 'ismcts' parameter final_policy={self.final_policy!r} is not "
                                    f"accepted; use one of: {', '.join(FINAL_POLICIES)}")
        if self.playout not in PLAYOUTS:
            raise StrategyLoadError(f"strategy 'ismcts' parameter playout={self.playout!r} is not accepted; use "
                                    f"one of: {', '.join(PLAYOUTS)}")
        if self.worlds < 0:
            raise StrategyLoadError(f"strategy 'ismcts' parameter worlds={self.worlds!r} must be 0 (a new world "
                                    "for every simulation) or more")
        if self.selection not in SELECTIONS:
            raise StrategyLoadError(f"strategy 'ismcts' parameter selection={self.selection!r} is not accepted; "
                                    f"use one of: {', '.join(SELECTIONS)}")
        if not 0 <= self.expert_prior <= 1:
            raise StrategyLoadError(f"strategy 'ismcts' parameter expert_prior={self.expert_prior!r} must be from 0 "
                                    "(a uniform prior) to 1 (all of it on expert's choice)")
        if self.expert_prior and self.selection != "puct":
            raise StrategyLoadError(f"strategy 'ismcts' parameter expert_prior={self.expert_prior!r} weighs PUCT's "
                                    "prior, which selection=uct does not read; add selection=puct")
        self._ismcts = ismcts
        self._mcts = mcts
        self._final = {
            "max_visit": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            "normalized_visit": ismcts.ISMCTSFinalPolicyType.NORMALIZED_VISITED_COUNT,
            "max_value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE,
        }[self.final_policy]
        self._bot = None

    def _search(self, view, root, allowed: list[int]) -> int:
        return int(self._searcher(view).step(root))

    def _searcher(self, view):
        if self._bot is None:
            game = hand_game(view.rules)
            if self.playout == "expert":
                evaluator = ExpertPlayouts(self.rollouts, random.Random(self.rng.getrandbits(64)), self.expert_prior)
            else:
                evaluator = self._mcts.RandomRolloutEvaluator(self.rollouts, numpy_rng(self.rng))
                if self.expert_prior:
                    evaluator = _ExpertPrior(evaluator, self.expert_prior)
            selection = {"uct": self._ismcts.ChildSelectionPolicy.UCT, "puct": self._ismcts.ChildSelectionPolicy.PUCT}
            self._bot = self._ismcts.ISMCTSBot(
                game, evaluator, self.uct_c, self.simulations,
                max_world_samples=self.worlds or self._ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
                random_state=numpy_rng(self.rng), final_policy_type=self._final,
                child_selection_policy=selection[self.selection])
            sampler = random.Random(self.rng.getrandbits(64))
            self._bot.set_resampler(lambda state, player: game.state_at(state.tree.resample(player, sampler)))
        return self._bot
