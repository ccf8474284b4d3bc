"""The built-in strategies of canasta-sim, each a versioned :class:`canasta_sim.Strategy`.

``BUILTIN`` maps each built-in spec name to its class.
"""

from __future__ import annotations

from canasta_sim.arbiter.fingerprint import trust_builtin_strategies
from canasta_sim.strategies.expert import Expert
from canasta_sim.strategies.greedy import Greedy
from canasta_sim.strategies.pimc import Pimc
from canasta_sim.strategies.random_play import RandomPlay

__all__ = ["BUILTIN", "Expert", "Greedy", "Pimc", "RandomPlay"]

BUILTIN = {cls.name: cls for cls in (RandomPlay, Greedy, Expert, Pimc)}
"""Built-in strategies by name."""

trust_builtin_strategies(BUILTIN.values())
