"""canasta-sim: classic four-player partnership canasta, played fast by pluggable strategies.

The package is layered, each layer importing only those above it in this list:
:mod:`canasta_sim.cards`, :mod:`canasta_sim.rules`, :mod:`canasta_sim.moves`, :mod:`canasta_sim.melds`,
:mod:`canasta_sim.going_out`, :mod:`canasta_sim.state`, :mod:`canasta_sim.legal`, :mod:`canasta_sim.scoring`,
:mod:`canasta_sim.view`, :mod:`canasta_sim.strategy`, :mod:`canasta_sim.engine`; the runner, storage,
analysis and command line sit on top and are never imported by the engine.

Installing compiles the hot modules with Cython; :mod:`canasta_sim.accelerator` keeps their Python
sources as the fallback, so the first thing this package does is tell it where they are.
"""

from canasta_sim.accelerator import use_sources_where_needed

use_sources_where_needed(__name__, __path__[0])

from canasta_sim.engine import GameResult, derive_seed, play_game
from canasta_sim.errors import CanastaError, IllegalMoveError, RulesError, StrategyError, StrategyLoadError
from canasta_sim.moves import Answer, Ask, Discard, Draw, Meld, MeldGroup, Stop, TakePile, parse_move
from canasta_sim.rules import DEFAULT_RULES, Rules
from canasta_sim.strategy import PublicEvent, Strategy

__version__ = "0.1.0"
ENGINE_VERSION = "1"
"""Bumped whenever a change to the engine could change any game's outcome."""

__all__ = [
    "Answer",
    "Ask",
    "CanastaError",
    "DEFAULT_RULES",
    "Discard",
    "Draw",
    "ENGINE_VERSION",
    "GameResult",
    "IllegalMoveError",
    "Meld",
    "MeldGroup",
    "PublicEvent",
    "Rules",
    "RulesError",
    "Stop",
    "Strategy",
    "StrategyError",
    "StrategyLoadError",
    "TakePile",
    "derive_seed",
    "parse_move",
    "play_game",
]
