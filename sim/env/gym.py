"""A Gymnasium environment for one learning seat; the other three seats are played by strategies.

>>> from canasta_sim.env.gym import CanastaGymEnv
>>> env = CanastaGymEnv(partner="greedy", opponents="random", rules={"target_score": 500})
>>> observation, info = env.reset(seed=3)
>>> observation["observation"].shape, bool(info["action_mask"].any())
((211,), True)

The learning seat's observations, actions and masks are those of the PettingZoo environment
(:mod:`canasta_sim.env.aec`, ``docs/env.md``); its partner and both opponents are any strategy specs
(built-ins, files, plugins, ``policy:`` specs), asked for their decisions exactly as the engine asks
them.  A strategy that fails raises :class:`~canasta_sim.errors.StrategyError`.  Needs
the ``rl`` extra (``pip install '.[rl]'`` in a checkout).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from canasta_sim.core.engine import MAX_HANDS_PER_GAME
from canasta_sim.core.rules import Rules
from canasta_sim.env.driver import (
    GameDriver,
    GameSeeds,
    as_rules,
    check_reward,
    hand_info,
    hand_rewards,
    missing_extra,
    shown,
)

try:  # an extra, not a core dependency
    import gymnasium
    from gymnasium import spaces
except ModuleNotFoundError as error:
    raise missing_extra(error, "the Gymnasium environment", "rl") from None
from canasta_sim.env.actions import ACTION_COUNT, action_number, action_text
from canasta_sim.env.encoding import DecisionOptions, decision_shown, observation_bounds, observation_vector
from canasta_sim.env.positions import reset_start
from canasta_sim.env.render import RENDER_MODES, check_render_mode, render_text, table_text
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.specs import is_bot_spec

__all__ = ["ENV_ID", "NO_WINNER", "CanastaGymEnv"]

NO_WINNER = -1
"""``info["winner"]`` of an episode that ended without one: a draw, or an action the mask did not allow."""


def _end_mask() -> np.ndarray:
    """The mask of an episode's last observation: every action.

    A vector environment asks every sub-environment for an action at every step, the step after an episode's end
    included (Gymnasium's default autoreset ignores that action and resets): a mask allowing nothing left a masked
    sampler nothing to draw from (a division by zero, or a softmax of -inf everywhere).  pgx does the same at its
    terminal states.  No action is played: ``step`` after the end raises.
    """
    return np.ones(ACTION_COUNT, np.int8)


def _spec(option: str, spec: object) -> str:
    """``spec`` if it is a strategy spec's text; a class (as ``play_game`` takes) or anything else is refused in one
    line naming the option (it failed as an ``AttributeError`` inside the loader)."""
    if not isinstance(spec, str):
        raise ValueError(f"{option}={shown(spec)} is not accepted; use a strategy spec as text: a built-in such as "
                         "'greedy', 'FILE.py:Class', 'module:Class' or 'policy:FILE.py:NAME'")
    return spec


class CanastaGymEnv(gymnasium.Env):
    """Partnership canasta for one learning seat.

    :param partner: the strategy spec of the learning seat's partner.
    :param opponents: the strategy spec of both opponents.
    :param seat: the learning seat, 0-3 (side A is seats 0 and 2).
    :param rules: a :class:`~canasta_sim.core.rules.Rules`, a mapping of rule options, or ``None``.
    :param reward: ``"hand"`` (the side's hand score minus the other's, at each hand's end) or ``"game"``
        (+1, -1 or 0 at the game's end).
    :param max_hands: hands after which a game is cut short (``truncated``).
    :param on_illegal: what an action the mask does not allow does: ``"terminate"`` ends the episode with
        ``illegal_reward`` and ``info["illegal_action"]`` (what Gymnasium's checker and unmasked learners
        need), ``"raise"`` raises ``ValueError``.
    :param illegal_reward: the reward of an illegal action under ``on_illegal="terminate"``; by default a loss
        worse than games end with: -1 under ``reward="game"`` (a loss), and twice the target score below zero under
        ``reward="hand"``, whose rewards are points (no margin of 2,000 games of expert against random reached
        7,100 at the default target of 5,000; -1 there made an illegal first action a nearly free resignation:
        masked random play against expert returns about -2,300 a game).
    :param render_mode: ``None``, ``"ansi"`` (:meth:`render` returns the table as the learning seat sees it, as
        text) or ``"human"`` (``reset`` and ``step`` print it).
    """

    # Gymnasium's checker asks for a frame rate once there are render modes; a text frame is printed as each step
    # comes, so the rate is nominal, as for Gymnasium's own text games.
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(self, *, partner: str = "greedy", opponents: str = "greedy", seat: int = 0,
                 rules: Rules | Mapping | None = None, reward: str = "hand",
                 max_hands: int = MAX_HANDS_PER_GAME, on_illegal: str = "terminate",
                 illegal_reward: float | None = None, render_mode: str | None = None) -> None:
        self.render_mode = check_render_mode(render_mode)
        if not isinstance(on_illegal, str) or on_illegal not in ("terminate", "raise"):
            raise ValueError(f"on_illegal={shown(on_illegal)} is not accepted; use 'terminate' or 'raise'")
        self.on_illegal = on_illegal
        if isinstance(seat, bool) or not isinstance(seat, numbers.Integral) or not 0 <= seat <= 3:
            raise ValueError(f"seat={shown(seat)} is not accepted; use 0, 1, 2 or 3")
        self.seat = int(seat)
        self.rules = as_rules(rules)
        self.reward_kind = check_reward(reward)
        if illegal_reward is None:
            illegal_reward = -1.0 if self.reward_kind == "game" else -2.0 * self.rules.target_score
        # A NaN or infinite reward poisons every return it enters; text failed inside float() without the option's name.
        elif (isinstance(illegal_reward, bool) or not isinstance(illegal_reward, numbers.Real)
              or not math.isfinite(illegal_reward)):
            raise ValueError(f"illegal_reward={shown(illegal_reward)} is not accepted; use a finite number, or None "
                             "for a loss worse than games end with")
        self.illegal_reward = float(illegal_reward)
        loaded_partner = load_strategy(_spec("partner", partner))
        loaded_opponents = load_strategy(_spec("opponents", opponents))
        players = [None] * 4
        names = ["agent"] * 4
        players[(seat + 2) % 4], names[(seat + 2) % 4] = loaded_partner, loaded_partner.spec
        for other in ((seat + 1) % 4, (seat + 3) % 4):
            players[other], names[other] = loaded_opponents, loaded_opponents.spec
        self._loaded_seats = (loaded_partner, loaded_opponents)
        self.driver = GameDriver(self.rules, players=players, names=names, max_hands=max_hands)
        low, high = observation_bounds(self.rules, self.driver.max_hands)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self._seeds = GameSeeds()
        self._options: DecisionOptions | None = None
        self._prefix: tuple[int, ...] = ()
        self._carried = 0.0
        self._carried_hands: tuple = ()
        self._unreported_end = False
        self._illegal: int | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict[str, np.ndarray], dict]:
        """Deal a new game (with ``seed``: the deal of ``play_game(..., seed=seed)``); play the other
        seats up to the learning seat's first decision.

        :param options: ``None``, or ``{"position": position}`` to start the game at a
            :class:`~canasta_sim.env.positions.Position` (of this environment's rules) instead of a deal: the strategy
            seats are seeded and the next hands dealt from ``seed`` as from a dealt start.
        :raises PositionError: (a ``ValueError``) for other options, or a position of other rules or after
            ``max_hands``.
        """
        start = reset_start(options, self.rules, self.driver.max_hands, strict=True)
        game_seed = self._seeds.next(seed)  # checked and made an int first: Gymnasium's own refuses a numpy one
        super().reset(seed=None if seed is None else game_seed)
        self._unreported_end, self._illegal = False, None  # first: a strategy failing in the deal leaves no end due
        self.driver.reset(game_seed, start)
        # A hand the other seats finish before the learning seat's first decision counts in its first step.
        self._carried = self._rewards(self.driver.hands)
        self._carried_hands = tuple(self.driver.hands)
        self._unreported_end = self.driver.is_over
        if self._unreported_end:
            # The other seats ended the game before the learning seat had a decision (a low target, a hand cap of
            # one): reset cannot say so, so the first step, whatever its action, reports the end and plays nothing.
            self._carried += self._game_reward()
            observation, info = self._end_observation(), self._end_info()
        else:
            observation, info = self._prepare()
        self._show()
        return observation, {**info, **hand_info(())}  # the hands ended so far are paid, and marked, by the next step

    def _prepare(self):
        driver = self.driver
        self._options = DecisionOptions.of(driver.view(self.seat), driver.decision)
        self._prefix = ()
        return self._decision_seen()

    def _decision_seen(self) -> tuple[dict[str, np.ndarray], dict]:
        """The observation and the info of the learning seat's decision, its action mask built once for both (a copy
        in the info: a learner masking one array in place leaves the other as it was)."""
        driver, mask = self.driver, self._options.mask(self._prefix)
        observation = {"observation": observation_vector(driver.view(self.seat), driver.decision, self._prefix),
                       "action_mask": mask}
        return observation, {"action_mask": mask.copy(), "decision": decision_shown(driver.decision, self._prefix)}

    def _end_observation(self) -> dict[str, np.ndarray]:
        self._options = None
        return {"observation": observation_vector(self.driver.view(self.seat), None), "action_mask": _end_mask()}

    def _end_info(self) -> dict:
        driver = self.driver
        # -1, not None, for no winner (a draw, or an episode an illegal action ended): a vector environment batches
        # ``winner`` into an array of the first ended sub-environment's type, and an int array cannot hold None.
        winner = NO_WINNER if driver.winner is None else driver.winner
        return {"action_mask": _end_mask(), "decision": None, "scores": driver.totals,
                "winner": winner, "termination": driver.termination}

    def _game_reward(self) -> float:
        """The ``"game"`` reward of the ended game for the learning seat's side: +1, -1 or 0 (0 under ``"hand"``)."""
        winner = self.driver.winner
        if self.reward_kind != "game" or winner is None:
            return 0.0
        return 1.0 if winner == self.seat % 2 else -1.0

    def action_masks(self) -> np.ndarray:
        """The current action mask as booleans (the method MaskablePPO of sb3-contrib looks for); every action
        once the episode has ended.

        :raises ValueError: before the first :meth:`reset`, or after a strategy seat failed: there is no episode to
            mask.
        """
        self.driver.check_started()
        if self.driver.failure is not None:  # no episode is under way, nor has one ended
            raise ValueError(self.driver.idle_message)
        if self._options is None:
            return _end_mask().astype(bool)
        return self._options.mask(self._prefix).astype(bool)

    def _rewards(self, finished) -> float:
        if self.reward_kind != "hand":
            return 0.0
        return float(sum(hand_rewards(result)[self.seat % 2] for result in finished))

    def render(self) -> str | None:
        """The table as the learning seat sees it, with the decision due or the game's end: returned as text under
        ``render_mode="ansi"``, printed under ``"human"``."""
        if self.render_mode is None:
            return None
        ended = None
        if self._illegal is not None:
            ended = f"The episode ended on action {self._illegal}, which the mask did not allow."
        chosen = [action_text(action) for action in self._prefix] if self._options is not None else []
        return render_text(self.render_mode, table_text(self.driver, self.seat, chosen=chosen, ended=ended))

    def _show(self) -> None:
        if self.render_mode == "human":
            self.render()

    def close(self) -> None:
        """End the game and let its strategy seats go: an ``isolated:`` or ``cmd:`` partner's or opponent's process
        ends now, not when the environment is garbage-collected.  Closing again does nothing; ``reset()`` deals anew."""
        self.driver.close()
        for loaded in self._loaded_seats:
            if is_bot_spec(loaded.spec):
                # The spec's pool keeps the process its handshake started for a first game: an environment closed
                # before any reset left it running until Python's exit (its class, and so the pool, live on).
                loaded.cls.pool.release()
        self._options, self._prefix, self._unreported_end = None, (), False
        self._carried, self._carried_hands = 0.0, ()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict]:
        """Play ``action`` for the learning seat, then the other seats up to its next decision.

        :raises ValueError: when the action mask does not allow ``action`` (under ``on_illegal="raise"``), or when no
            episode is under way: before the first :meth:`reset`, after the episode's end, or after a strategy's
            failure.
        :raises StrategyError: when the partner or an opponent fails; the game stops there, until :meth:`reset`.
        """
        result = self._step(action)
        self._show()
        return result

    def _step(self, action):
        if self._unreported_end:
            return self._report_end(action)
        if self._options is None or self.driver.failure is not None:
            raise ValueError(self.driver.idle_message)
        number = action_number(action)  # not an action at all is an error of the caller, not a move of the game
        try:
            self._prefix, value, complete = self._options.play(self._prefix, number)
        except ValueError:
            if self.on_illegal == "raise":
                raise
            return self._illegal_end(number)
        reward, hands = self._take_carried()
        if complete:
            finished = self.driver.decide(value)
            reward += self._rewards(finished)
            hands += tuple(finished)
            driver = self.driver
            if driver.is_over:
                truncated = driver.termination == "hand_cap"
                return (self._end_observation(), reward + self._game_reward(), not truncated, truncated,
                        {**self._end_info(), **hand_info(hands)})
            self._options = DecisionOptions.of(driver.view(self.seat), driver.decision)
        observation, info = self._decision_seen()
        return observation, reward, False, False, {**info, **hand_info(hands)}

    def _illegal_end(self, number: int):
        """The episode's end on an action the mask does not allow: ``illegal_reward``, plus the reward of the hands
        held over for this step (they were played and scored, so their reward is paid all the same)."""
        self._illegal = number
        reward, hands = self._take_carried()
        return self._end_observation(), reward + self.illegal_reward, True, False, {
            **self._end_info(), **hand_info(hands), "illegal_action": number}

    def _take_carried(self) -> tuple[float, tuple]:
        """The reward and the hands held over for the next step, handed over once."""
        carried = self._carried, self._carried_hands
        self._carried, self._carried_hands = 0.0, ()
        return carried

    def _report_end(self, action):
        """The step of a game the other seats ended before the learning seat's first decision: ``action`` (any the
        space holds: the end mask allows every one) is not played; the episode ends with the game's rewards."""
        number = action_number(action)
        if not 0 <= number < ACTION_COUNT:  # outside the space, so outside the end mask too
            if self.on_illegal == "raise":
                raise ValueError(f"action {number} is outside 0-{ACTION_COUNT - 1}")
            self._unreported_end = False
            return self._illegal_end(number)
        self._unreported_end = False
        reward, hands = self._take_carried()
        truncated = self.driver.termination == "hand_cap"
        return self._end_observation(), reward, not truncated, truncated, {**self._end_info(), **hand_info(hands)}


ENV_ID = "canasta_sim/Canasta-v0"
"""The id :func:`gymnasium.make` knows :class:`CanastaGymEnv` by once this module is imported (its keyword arguments
pass through: ``gymnasium.make(ENV_ID, opponents="expert")``); the version moves when the environment's behaviour
does."""

if ENV_ID not in gymnasium.registry:  # importing the module again (a reload) must not register it twice
    # By name, not the class: Gymnasium writes a spec as JSON (EnvSpec.to_json), and a callable cannot be written.
    gymnasium.register(id=ENV_ID, entry_point=f"{CanastaGymEnv.__module__}:{CanastaGymEnv.__name__}")
