"""The research interface: environments, encodings, policies as strategies, decision records.

* :mod:`canasta_sim.env.driver`: a game advanced one decision at a time (no numpy).
* :mod:`canasta_sim.env.actions`: the action space's numbering and the conversions between actions and engine
  moves (no numpy).
* :mod:`canasta_sim.env.encoding`: the fixed observation vector and the action masks, with the bijection between
  actions and engine moves (numpy).
* :mod:`canasta_sim.env.aec`: the PettingZoo AEC environment (the ``rl`` extra (``pip install '.[rl]'`` in a checkout)).
* :mod:`canasta_sim.env.gym`: a Gymnasium environment for one learning seat (the same extra).
* :mod:`canasta_sim.env.render`: both environments' render modes, the terminal game's screen of a seat's table.
* :mod:`canasta_sim.env.policy`: any ``(observation, action_mask) -> action`` callable as a strategy.
* :mod:`canasta_sim.env.decisions`: the ``decisions/`` dataset of ``canasta-sim run --record-decisions``.
* :mod:`canasta_sim.env.positions`: positions of one's own, built from cards as text and checked against the rules,
  to start the environments (``reset``'s ``position`` option) and the game tree at.
* :mod:`canasta_sim.env.game_tree`: the game as a tree of explicit chance and decision actions (no numpy).
* :mod:`canasta_sim.env.openspiel`: that tree as the OpenSpiel game ``canasta_sim``
  (the ``openspiel`` extra (``pip install '.[openspiel]'`` in a checkout)).
* :mod:`canasta_sim.env.ismcts`: OpenSpiel's IS-MCTS as the strategy ``ismcts`` (the same extra).
* :mod:`canasta_sim.env.spiel_bots`: any OpenSpiel bot as a strategy, the ``openspiel:`` spec form (the same
  extra).
* :mod:`canasta_sim.env.public`: the public observation, what every seat may know (the OpenSpiel game's public
  observer).

Importing this package needs only the core dependencies; the environments import PettingZoo and
Gymnasium when they are built.  See ``docs/env.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # named for type checkers only: importing it needs PettingZoo, which the function imports late
    from canasta_sim.env.aec import CanastaEnv

__all__ = ["canasta_env"]


def canasta_env(**options: Any) -> CanastaEnv:
    """Build the PettingZoo AEC environment (:class:`canasta_sim.env.aec.CanastaEnv`) with these options.

    >>> env = canasta_env(rules={"target_score": 500})  # doctest: +SKIP
    """
    from canasta_sim.env.aec import CanastaEnv

    return CanastaEnv(**options)
