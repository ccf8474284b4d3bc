"""canasta-sim: classic four-player partnership canasta, played fast by pluggable strategies.

The package is layered, each layer importing only those above it in this list:
:mod:`sim.cards`, :mod:`sim.rules`, :mod:`sim.moves`, :mod:`sim.melds`,
:mod:`sim.going_out`, :mod:`sim.state`, :mod:`sim.legal`, :mod:`sim.scoring`,
:mod:`sim.view`, :mod:`sim.strategy`, :mod:`sim.engine`; the runner, storage,
analysis and command line sit on top and are never imported by the engine.

Installing compiles the hot modules with Cython; :mod:`sim.accelerator` keeps their Python
sources as the fallback, so the first thing this package does is tell it where they are.
"""

from sim.accelerator import use_sources_where_needed

use_sources_where_needed(__name__, __path__[0])

from sim.engine import GameResult, derive_seed, play_game
from sim.errors import CanastaError, IllegalMoveError, RulesError, StrategyError, StrategyLoadError
from sim.moves import Answer, Ask, Discard, Draw, Meld, MeldGroup, Stop, TakePile, parse_move
from sim.rules import DEFAULT_RULES, Rules
from sim.strategy import PublicEvent, Strategy

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
