"""The PettingZoo AEC environment: four agents, one per seat, one decision per step.

>>> from canasta_sim.env import canasta_env
>>> env = canasta_env(rules={"target_score": 500})
>>> env.reset(seed=7)
>>> observation, reward, terminated, truncated, info = env.last()
>>> observation["observation"].shape, int(observation["action_mask"].sum()) >= 1
((211,), True)

A game is one episode.  The deal of ``reset(seed=s)`` is the deal of ``play_game(..., seed=s)`` (``s`` 0 or more, as
Gymnasium's seeding takes; a negative seed is refused, as it is there); later resets without a seed draw their game
seeds from a generator seeded by the last given seed.
Every decision goes through the engine (:mod:`canasta_sim.env.driver`); the encodings are those of
:mod:`canasta_sim.env.encoding` (``docs/env.md``).  Needs the ``rl`` extra (``pip install '.[rl]'`` in a checkout).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ModuleNotFoundError as error:
    raise missing_extra(error, "the PettingZoo environment", "rl") from None
from canasta_sim.env.actions import ACTION_COUNT, action_number, action_text
from canasta_sim.env.encoding import DecisionOptions, observation_bounds, observation_vector
from canasta_sim.env.positions import reset_start
from canasta_sim.env.render import RENDER_MODES, check_dealt, check_render_mode, render_text, table_text

__all__ = ["CanastaEnv"]

class CanastaEnv(AECEnv):
    """Classic partnership canasta as a PettingZoo AEC environment.

    :param rules: a :class:`~canasta_sim.core.rules.Rules`, a mapping of rule options (``{"target_score": 3000}``)
        or ``None`` for the default rule set.
    :param reward: ``"hand"`` or ``"game"`` (see :data:`REWARD_CHOICES`).
    :param max_hands: hands after which a game is cut short (the agents are truncated).
    :param render_mode: ``None``, ``"ansi"`` (:meth:`render` returns the table as the seat to decide sees it, as
        text) or ``"human"`` (``reset`` and ``step`` print it).
    """

    # render_fps: as the Gymnasium environment's (canasta_sim.env.gym), nominal for text frames.
    metadata = {"name": "canasta_v0", "render_modes": list(RENDER_MODES), "render_fps": 4, "is_parallelizable": False}

    def __init__(self, *, rules: Rules | Mapping | None = None, reward: str = "hand",
                 max_hands: int = MAX_HANDS_PER_GAME, render_mode: str | None = None) -> None:
        super().__init__()
        self.render_mode = check_render_mode(render_mode)
        self.rules = as_rules(rules)
        self.reward_kind = check_reward(reward)
        self.possible_agents = [f"seat_{seat}" for seat in range(4)]
        self.agents: list[str] = []
        self.driver = GameDriver(self.rules, max_hands=max_hands)  # first: it checks max_hands, the bounds use it
        low, high = observation_bounds(self.rules, self.driver.max_hands)
        observation_space = spaces.Dict({
            "observation": spaces.Box(low, high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), dtype=np.int8),
        })
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(ACTION_COUNT) for agent in self.possible_agents}
        self._seeds = GameSeeds()
        self._options: DecisionOptions | None = None
        self._prefix: tuple[int, ...] = ()

    def observation_space(self, agent: str):
        """The observation space: a dict of ``observation`` (float32 vector) and ``action_mask`` (int8).

        :raises ValueError: for an agent that is none of :attr:`possible_agents`.
        """
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str):
        """The action space: ``Discrete(ACTION_COUNT)``.

        :raises ValueError: for an agent that is none of :attr:`possible_agents`.
        """
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: str) -> str:
        if agent not in self.possible_agents:
            raise ValueError(f"agent {shown(agent)} is not accepted; use one of {', '.join(self.possible_agents)}")
        return agent

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game: with ``seed``, the game ``play_game(..., seed=seed)`` deals.

        :param options: ``{"position": position}`` starts the game at a :class:`~canasta_sim.env.positions.Position`
            (of this environment's rules) instead of a deal, the next hands dealt from ``seed``; other options are
            ignored.
        :raises PositionError: (a ``ValueError``) for a position of other rules or after ``max_hands``.
        """
        start = reset_start(options, self.rules, self.driver.max_hands, strict=False)
        game_seed = self._seeds.next(seed)
        self.driver.reset(game_seed, start)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: hand_info(()) for agent in self.agents}
        self._prepare()
        self._show()

    def _prepare(self) -> None:
        driver = self.driver
        seat = driver.actor
        self._options = DecisionOptions.of(driver.view(seat), driver.decision)
        self._prefix = ()
        self.agent_selection = self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation: what its seat may know, and its action mask (all 0 unless it decides).

        :raises ValueError: before the first :meth:`reset`, or for an agent that is none of :attr:`possible_agents`.
        """
        driver = self.driver
        driver.check_started()
        seat = self.possible_agents.index(self._known(agent))
        deciding = driver.decision is not None and driver.actor == seat
        view = driver.view(seat)
        if deciding:
            return {"observation": observation_vector(view, driver.decision, self._prefix),
                    "action_mask": self._options.mask(self._prefix)}
        return {"observation": observation_vector(view, None), "action_mask": np.zeros(ACTION_COUNT, np.int8)}

    # The observation is Any, not `dict | None`: it is None only when observe=False, and a loop that indexes it must
    # not have to rule out None first.
    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        """The observation, reward, termination, truncation and info of :attr:`agent_selection`, PettingZoo's own.

        :raises ValueError: before the first :meth:`reset`, when no agent is selected yet.
        """
        self.driver.check_started()
        return super().last(observe)

    def step(self, action: int | None) -> None:
        """Play ``action`` for :attr:`agent_selection` (``None`` for an agent whose game is over).

        :raises ValueError: when the action mask does not allow ``action``.
        """
        if not self.agents:  # every agent has stepped out of the ended game
            raise ValueError(self.driver.idle_message)
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must choose an action; None is only for agents whose game is over")
        number = action_number(action)
        self._prefix, value, complete = self._options.play(self._prefix, number)
        # Checked first: a refused action leaves the agent's reward and info as they were, for it to try again.
        self._cumulative_rewards[agent] = 0
        self.infos[agent] = {**self.infos[agent], **hand_info(())}  # seen in last(), as its reward was
        self._clear_rewards()
        if complete:
            finished = self.driver.decide(value)
            if self.reward_kind == "hand":
                for result in finished:
                    rewards = hand_rewards(result)
                    for seat, name in enumerate(self.possible_agents):
                        self.rewards[name] += rewards[seat % 2]
            if finished:  # each agent sees the hands with the reward they pay, at its next last()
                for name in self.possible_agents:
                    info = self.infos[name]
                    self.infos[name] = {**info, **hand_info(info["hand_results"] + tuple(finished))}
            if self.driver.is_over:
                self._finish()
            else:
                self._prepare()
        self._accumulate_rewards()
        self._show()

    def _finish(self) -> None:
        driver = self.driver
        if self.reward_kind == "game":
            for seat, name in enumerate(self.possible_agents):
                self.rewards[name] += 0 if driver.winner is None else (1 if driver.winner == seat % 2 else -1)
        truncated = driver.termination == "hand_cap"
        for name in self.possible_agents:
            self.terminations[name] = not truncated
            self.truncations[name] = truncated
            self.infos[name] = {**self.infos[name], "scores": driver.totals, "winner": driver.winner,
                                "termination": driver.termination}
        self._options = None

    def render(self) -> str | None:
        """The table as :attr:`agent_selection`'s seat sees it, with the decision due or the game's end: returned as
        text under ``render_mode="ansi"``, printed under ``"human"``."""
        if self.render_mode is None:
            return None
        check_dealt(self.driver)  # before the first reset there is no agent_selection either
        chosen = [action_text(action) for action in self._prefix] if self._options is not None else []
        seat = self.possible_agents.index(self.agent_selection)
        return render_text(self.render_mode, table_text(self.driver, seat, chosen=chosen))

    def _show(self) -> None:
        if self.render_mode == "human":
            self.render()

    def close(self) -> None:
        """Nothing to release."""
