"""Canasta as an OpenSpiel game: importing this module registers ``canasta_sim`` with ``pyspiel``.

>>> import pyspiel
>>> import canasta_sim.env.openspiel
>>> game = pyspiel.load_game("canasta_sim", {"target_score": 50})
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(4, 5647, 15)

A sequential, imperfect-information, zero-sum game for four players (seats 0-3; seats 0 and 2 are
one side), with explicit chance (:mod:`canasta_sim.env.game_tree`: the first dealer, then each deal
card by card).  The decisions run the engine's own rules, one action at a time, with the action
encoding of the PettingZoo environment (:mod:`canasta_sim.env.encoding`, ``docs/env.md``).

Parameters: every rule option as ``--rules`` takes it (``target_score``, ``ask_partner``, ...; see
``docs/rules.md``; ``initial_meld_table``'s pairs separated by semicolons or commas, written with semicolons),
``max_hands`` (the engine's guard, 400), and ``scope``: ``game`` (to the target
score; +1 for the winning side, -1 for the other, 0 for a draw) or ``hand`` (one hand, valued by
pimc's estimate of the chance of winning the game from the totals it leads to, as ``2 * p - 1``).

Observations: ``observation_tensor`` is the PettingZoo observation vector (211 entries, all 0 while a
deal is under way); ``information_state_tensor`` adds what the table has seen of each seat's hand
(cards it is known to hold, ranks it avoids: 120 entries); ``information_state_string`` is the seat's
whole record of the hand (the deal's pile and red 3s, public moves, its own cards dealt and drawn, its
choices in a compound move); ``observation_string`` the observation vector's fields as text.  The public observer
(``pyspiel.IIGObservationType(perfect_recall=..., public_info=True, private_info=pyspiel.PrivateInfoType.NONE)``,
through ``open_spiel.python.observation.make_observation``) gives what every seat may know
(:mod:`canasta_sim.env.public`), the same for every player; the private one (``public_info=False``,
``private_info=SINGLE_PLAYER``) what the seat alone knows (:data:`PRIVATE_FIELDS`).  ``resample_from_infostate``
deals the cards the seat cannot see anew (:func:`canasta_sim.core.search.sample_world`), so that
OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts``) can search it.  Needs
the ``openspiel`` extra (``pip install '.[openspiel]'`` in a checkout).
"""

from __future__ import annotations

import numpy as np

from canasta_sim.core.cards import CARD_KIND, KIND_COUNT, KIND_NAMES
from canasta_sim.core.engine import MAX_HANDS_PER_GAME
from canasta_sim.core.rules import DEFAULT_RULES, format_meld_table, parse_meld_table
from canasta_sim.env.driver import ASK_DECISION, as_rules, missing_extra

try:  # an extra, not a core dependency
    import pyspiel
except ModuleNotFoundError as error:
    raise missing_extra(error, "the OpenSpiel game", "openspiel") from None
from canasta_sim.env.actions import ACTION_COUNT, action_text
from canasta_sim.env.encoding import OBSERVATION_FIELDS, OBSERVATION_SIZE, observation_values
from canasta_sim.env.game_tree import SCOPES, GameTree, max_game_length, rng_from_sampler
from canasta_sim.env.public import PUBLIC_FIELDS, PUBLIC_OBSERVATION_SIZE, public_values

__all__ = ["GAME_NAME", "CanastaGame", "CanastaState", "INFORMATION_STATE_SIZE", "PRIVATE_FIELDS",
           "PRIVATE_OBSERVATION_SIZE", "PUBLIC_INFORMATION_SIZE"]

GAME_NAME = "canasta_sim"
_MEMORY_SIZE = 2 * 4 * KIND_COUNT
INFORMATION_STATE_SIZE = OBSERVATION_SIZE + _MEMORY_SIZE
"""The observation vector, then for each seat (this, left, partner, right) the cards the table knows it
holds by kind, then for each seat the ranks it avoids (1: it discarded the rank, or declined the pile
with a pair of it, since it last took the pile)."""

PUBLIC_INFORMATION_SIZE = PUBLIC_OBSERVATION_SIZE + _MEMORY_SIZE
"""The public observation vector, then for each seat 0-3 the cards the table knows it holds by kind, then for each
seat 0-3 the ranks it avoids: the public observer's tensor with ``perfect_recall``."""

_FIELD_STARTS = {name: sum(field[1] for field in OBSERVATION_FIELDS[:index])
                 for index, (name, *_) in enumerate(OBSERVATION_FIELDS)}
PRIVATE_FIELDS = (
    *(field for field in OBSERVATION_FIELDS if field[0] in ("hand", "pending_groups", "pending_take")),
    ("offered_ask", 1, 0, 1, "1: this seat may ask its partner now (R12.5), which the table sees as its meld decision"),
)
"""The private observation's fields (name, length, low, high, meaning): what the seat knows and no other seat does,
the observation vector's own hand and compound choices, and the offer to ask."""
PRIVATE_OBSERVATION_SIZE = sum(field[1] for field in PRIVATE_FIELDS)

_MELD_TABLE = "initial_meld_table"
_SPIEL_SEPARATOR = ";"
"""What separates the pairs of ``initial_meld_table`` in the game's parameters: OpenSpiel's text form of a game,
``canasta_sim(key=value,...)``, splits on commas, so a table written with them (``--rules``' form) would not read
back from ``str(game)``, nor could ``pyspiel.serialize_game_and_state`` be undone.  Both separators are accepted."""


def _spiel_options(options: dict) -> dict:
    """Rule options in the game's parameter form: the meld table's pairs separated by semicolons."""
    if _MELD_TABLE in options:
        options = {**options, _MELD_TABLE: options[_MELD_TABLE].replace(",", _SPIEL_SEPARATOR)}
    return options


_PARAMETERS = {**_spiel_options(DEFAULT_RULES.options()), "max_hands": MAX_HANDS_PER_GAME, "scope": "game"}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Classic partnership canasta (canasta-sim's engine)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=True,  # the public and the private observers
    parameter_specification=_PARAMETERS,
)


class CanastaGame(pyspiel.Game):
    """The game ``canasta_sim``; ``params`` are the rule options, ``max_hands`` and ``scope``."""

    def __init__(self, params=None) -> None:
        params = dict(params or {})
        unknown = sorted(set(params) - set(_PARAMETERS))
        if unknown:
            raise ValueError(f"unknown parameters {unknown}; accepted: {', '.join(_PARAMETERS)}")
        self.max_hands = int(params.pop("max_hands", MAX_HANDS_PER_GAME))
        if self.max_hands < 1:
            raise ValueError(f"max_hands must be 1 or more; got {self.max_hands}")
        self.scope = params.pop("scope", "game")
        if self.scope not in SCOPES:
            raise ValueError(f"scope={self.scope!r} is not accepted; use one of: {', '.join(SCOPES)}")
        if isinstance(params.get(_MELD_TABLE), str):
            written = params[_MELD_TABLE]
            # A table given in a dict may keep --rules' commas; a refusal shows the form it was written in.
            params[_MELD_TABLE] = parse_meld_table(written, separator="," if "," in written else _SPIEL_SEPARATOR)
        self.rules = as_rules(params)
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=KIND_COUNT,
            num_players=4,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(self.max_hands),
        )
        given = {**_spiel_options(self.rules.changed_options()), "max_hands": self.max_hands, "scope": self.scope}
        super().__init__(_GAME_TYPE, info, given)

    def new_initial_state(self) -> CanastaState:
        """The state before the first dealer is chosen."""
        return CanastaState(self, GameTree(self.rules, max_hands=self.max_hands, scope=self.scope))

    def state_at(self, tree: GameTree) -> CanastaState:
        """A state of this game holding ``tree`` (for searches that build their own positions)."""
        return CanastaState(self, tree)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of information states (``perfect_recall``) or of observations (the default): a seat's own
        (``private_info=SINGLE_PLAYER``, the default) or the public one (``private_info=NONE``), what every seat
        may know (:mod:`canasta_sim.env.public`)."""
        if params:
            raise ValueError(f"the canasta_sim observer takes no parameters; got {params}")
        recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        if iig_obs_type is not None and iig_obs_type.public_info:
            if iig_obs_type.private_info == pyspiel.PrivateInfoType.NONE:
                return _PublicObserver(recall)
            if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
                return _Observer(recall)
        if iig_obs_type is None:
            return _Observer(recall)
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            return _PrivateObserver(recall)
        raise ValueError("the canasta_sim observer gives a seat's own view, the public one or a seat's private part: "
                         "public_info=True with private_info=SINGLE_PLAYER (a seat's) or NONE (public), or "
                         "public_info=False with private_info=SINGLE_PLAYER (private); perfect_recall True (the "
                         "record) or False (the observation)")


class _TreeSlot:
    """Holds the state's :class:`GameTree`; OpenSpiel clones a Python state by deep-copying its
    attributes, and this copies the tree the fast way (its own :meth:`GameTree.copy`)."""

    __slots__ = ("tree",)

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree

    def __deepcopy__(self, memo) -> _TreeSlot:
        return _TreeSlot(self.tree.copy())

    def __getstate__(self):
        return self.tree

    def __setstate__(self, tree) -> None:
        self.tree = tree


class CanastaState(pyspiel.State):
    """A state of ``canasta_sim``: a :class:`GameTree` behind OpenSpiel's state interface."""

    def __init__(self, game: CanastaGame, tree: GameTree) -> None:
        super().__init__(game)
        self.slot = _TreeSlot(tree)

    @property
    def tree(self) -> GameTree:
        """The game tree node this state is."""
        return self.slot.tree

    def current_player(self) -> int:
        """The seat to decide, ``CHANCE`` while dealing, ``TERMINAL`` once the game is over."""
        tree = self.slot.tree
        if tree.is_over:
            return pyspiel.PlayerId.TERMINAL
        if tree.is_chance:
            return pyspiel.PlayerId.CHANCE
        return tree.actor

    def _legal_actions(self, player: int) -> list[int]:
        return self.slot.tree.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance actions and their probabilities (a seat, or the kind of the next card dealt)."""
        return self.slot.tree.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.slot.tree.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        tree = self.slot.tree
        if player == pyspiel.PlayerId.CHANCE:
            return f"first dealer {action}" if tree.choosing_dealer else f"deal {KIND_NAMES[action]}"
        return action_text(action)

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.slot.tree.is_over

    def returns(self) -> list[float]:
        """Each seat's return (0 until the game is over)."""
        return self.slot.tree.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler) -> CanastaState:
        """A state ``player_id`` cannot tell from this one: the cards it cannot see dealt anew
        (:meth:`GameTree.resample`), from a generator seeded by one draw of ``probability_sampler``."""
        return CanastaState(self.get_game(), self.slot.tree.resample(player_id, rng_from_sampler(probability_sampler)))

    def __str__(self) -> str:
        tree = self.slot.tree
        if tree.is_chance:
            return tree.information(0).split("\n", 1)[1]
        state = tree.state
        hands = " | ".join(" ".join(f"{KIND_NAMES[k]}x{n}" for k, n in enumerate(hand) if n) for hand in state.hands)
        stock = " ".join(KIND_NAMES[kind] for kind in _stock_kinds(state))
        due = "over" if tree.is_over else f"{tree.decision} by {tree.actor}, chosen {list(tree.prefix)}"
        return (f"{tree.information(0).splitlines()[1]}\nhands: {hands}\nstock: {stock}\n"
                f"pile: {' '.join(KIND_NAMES[kind] for kind in state.pile)}\nmelds: {state.melds}\n"
                f"red 3s: {state.red_threes}\n{due}")


def _stock_kinds(state) -> list[int]:
    return [CARD_KIND[card] for card in state.stock]


class _Observer:
    """OpenSpiel's Python observer interface: ``tensor``, ``dict``, ``set_from`` and ``string_from``."""

    def __init__(self, recall: bool) -> None:
        self.recall = recall
        self.tensor, self.dict = _observer_arrays(OBSERVATION_SIZE, recall)

    def set_from(self, state: CanastaState, player: int) -> None:
        """Fill the tensor with ``player``'s observation (or information state) of ``state``."""
        self.tensor.fill(0)
        tree = state.tree
        view = tree.seat_view(player)
        if view is None:
            return
        self.dict["observation"][:] = _values(tree, view, player)
        if self.recall:  # the seats from the player's own, as the observation lists them
            _fill_memory(self.dict, tree.memory, [(player + offset) % 4 for offset in range(4)])

    def string_from(self, state: CanastaState, player: int) -> str:
        """``player``'s information state string (its record of the hand) or observation string."""
        tree = state.tree
        if self.recall:
            return tree.information(player)
        view = tree.seat_view(player)
        if view is None:
            return f"seat {player}\n{tree.information(player).splitlines()[1]}"
        return "\n".join(_fields_text(OBSERVATION_FIELDS, _values(tree, view, player)))


class _PublicObserver:
    """The public observer: what every seat may know, the same for every player asked
    (:mod:`canasta_sim.env.public`); with ``recall``, the table's memory of each seat's hand and the public record."""

    def __init__(self, recall: bool) -> None:
        self.recall = recall
        self.tensor, self.dict = _observer_arrays(PUBLIC_OBSERVATION_SIZE, recall)

    def set_from(self, state: CanastaState, player: int) -> None:
        """Fill the tensor with the public observation of ``state`` (``player`` changes nothing); all 0 while a
        deal is under way."""
        self.tensor.fill(0)
        tree = state.tree
        view = tree.seat_view(0)
        if view is None:
            return
        self.dict["observation"][:] = public_values(view, tree.decision)
        if self.recall:  # seats 0-3, as the public observation lists them
            _fill_memory(self.dict, tree.memory, range(4))

    def string_from(self, state: CanastaState, player: int) -> str:
        """The public record of the hand (``recall``) or the public observation's fields as text."""
        tree = state.tree
        if self.recall:
            return tree.public_information()
        view = tree.seat_view(0)
        if view is None:
            return f"public\n{tree.public_information().splitlines()[1]}"
        return "\n".join(["public", *_fields_text(PUBLIC_FIELDS, public_values(view, tree.decision))])


class _PrivateObserver:
    """A seat's private observation (``public_info=False``): its hand, its choices in a compound move and its offer to
    ask, which with the public observation make up its own; with ``recall`` the string is its private record."""

    def __init__(self, recall: bool) -> None:
        self.recall = recall
        self.tensor = np.zeros(PRIVATE_OBSERVATION_SIZE, np.float32)
        self.dict = {}
        start = 0
        for name, length, *_ in PRIVATE_FIELDS:
            self.dict[name] = self.tensor[start:start + length]
            start += length

    def set_from(self, state: CanastaState, player: int) -> None:
        """Fill the tensor with ``player``'s private observation; all 0 while a deal is under way."""
        self.tensor.fill(0)
        values = _private_values(state.tree, player)
        if values is not None:
            self.tensor[:] = values

    def string_from(self, state: CanastaState, player: int) -> str:
        """``player``'s private record of the hand (``recall``) or its private observation's fields as text."""
        tree = state.tree
        if self.recall:
            return tree.private_information(player)
        values = _private_values(tree, player)
        return "\n".join([f"seat {player}", *(_fields_text(PRIVATE_FIELDS, values) if values is not None else ())])


def _private_values(tree: GameTree, player: int) -> list[int] | None:
    view = tree.seat_view(player)
    if view is None:
        return None
    values = _values(tree, view, player)
    private = [value for name, length, *_ in PRIVATE_FIELDS[:-1]
               for value in values[_FIELD_STARTS[name]:_FIELD_STARTS[name] + length]]
    return [*private, int(tree.decision == ASK_DECISION and tree.actor == player)]


def _observer_arrays(observation_size: int, recall: bool) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """An observer's tensor and its named views: the observation vector, then with ``recall`` the table's memory,
    the cards it knows each seat holds by kind (``known``) and the ranks each avoids (``avoids``)."""
    tensor = np.zeros(observation_size + (_MEMORY_SIZE if recall else 0), np.float32)
    named = {"observation": tensor[:observation_size]}
    if recall:
        memory = tensor[observation_size:]
        named["known"] = memory[:4 * KIND_COUNT].reshape(4, KIND_COUNT)
        named["avoids"] = memory[4 * KIND_COUNT:].reshape(4, KIND_COUNT)
    return tensor, named


def _fill_memory(named: dict[str, np.ndarray], memory, seats) -> None:
    """Write the table's memory of each seat of ``seats`` into the rows of ``named``, in that order."""
    for row, seat in enumerate(seats):
        named["known"][row] = memory.known[seat]
        for rank in memory.avoids[seat]:
            named["avoids"][row][rank] = 1


def _fields_text(fields, values) -> list[str]:
    """A line ``name v v ...`` for each field of ``fields`` (name and length first), read from ``values`` in order."""
    lines = []
    start = 0
    for name, length, *_ in fields:
        lines.append(f"{name} {' '.join(str(int(value)) for value in values[start:start + length])}")
        start += length
    return lines


def _values(tree: GameTree, view, player: int) -> list[int]:
    deciding = tree.decision is not None and tree.actor == player
    return observation_values(view, tree.decision if deciding else None, tree.prefix if deciding else ())


def load(**parameters) -> CanastaGame:
    """``pyspiel.load_game("canasta_sim", parameters)`` with Python values, e.g. ``load(target_score=3000)``."""
    return pyspiel.load_game(GAME_NAME, {key: _spiel_value(value) for key, value in parameters.items()})


def _spiel_value(value):
    if isinstance(value, tuple):  # the meld table's (lowest score, minimum) pairs, as Rules holds them
        return format_meld_table(value).replace(",", _SPIEL_SEPARATOR)
    return value if isinstance(value, bool | int | float | str) else str(value)


pyspiel.register_game(_GAME_TYPE, CanastaGame)
