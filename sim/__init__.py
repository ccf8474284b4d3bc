"""canasta-sim: classic four-player partnership canasta, played fast by pluggable strategies.

``import canasta_sim`` offers everything a strategy needs: :class:`Strategy`, the view it decides from
(:class:`SeatView`), the move records, the card kinds, :class:`Parameter`, the rules and the errors, and
:func:`play_game` to try it.

The package is built in rooms, each importing only those before it (``docs/architecture.md``;
``tests/test_architecture.py`` checks it): :mod:`~canasta_sim.errors`, :mod:`~canasta_sim.arbiter`,
:mod:`~canasta_sim.core` (the rules and the game loop: the only compiled room),
:mod:`~canasta_sim.plugins`, :mod:`~canasta_sim.terminal`, :mod:`~canasta_sim.env`, :mod:`~canasta_sim.runs`,
:mod:`~canasta_sim.analysis`, :mod:`~canasta_sim.tuning` and :mod:`~canasta_sim.cli`.
"""

from canasta_sim import _moved

_moved.install()

from canasta_sim.core.cards import (
    ACE,
    BLACK_THREE,
    JOKER,
    KIND_COUNT,
    KIND_NAMES,
    KIND_VALUE,
    NATURAL_KINDS,
    RED_THREE,
    TWO,
    WILD_KINDS,
    counts_text,
    kind_text,
    parse_kind,
    parse_kinds,
)
from canasta_sim.core.engine import GameResult, derive_seed, play_game
from canasta_sim.core.moves import Answer, Ask, Discard, Draw, Meld, MeldGroup, Move, Stop, TakePile, parse_move
from canasta_sim.core.parameters import Parameter
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import HandResult, SideHandResult
from canasta_sim.core.strategy import PublicEvent, SeatRandom, Strategy
from canasta_sim.core.view import SeatView
from canasta_sim.errors import (
    CanastaError,
    IllegalMoveError,
    MoveParseError,
    RulesError,
    StrategyError,
    StrategyLoadError,
)

__version__ = "0.1.0"
ENGINE_VERSION = "5"
"""Bumped whenever a change to the engine could change any game's outcome."""

__all__ = [
    "ACE",
    "Answer",
    "Ask",
    "BLACK_THREE",
    "CanastaError",
    "DEFAULT_RULES",
    "Discard",
    "Draw",
    "ENGINE_VERSION",
    "GameResult",
    "HandResult",
    "IllegalMoveError",
    "JOKER",
    "KIND_COUNT",
    "KIND_NAMES",
    "KIND_VALUE",
    "Meld",
    "MeldGroup",
    "Move",
    "MoveParseError",
    "NATURAL_KINDS",
    "Parameter",
    "PublicEvent",
    "RED_THREE",
    "Rules",
    "RulesError",
    "SeatRandom",
    "SeatView",
    "SideHandResult",
    "Stop",
    "Strategy",
    "StrategyError",
    "StrategyLoadError",
    "TWO",
    "TakePile",
    "WILD_KINDS",
    "counts_text",
    "derive_seed",
    "kind_text",
    "parse_kind",
    "parse_kinds",
    "parse_move",
    "play_game",
]
