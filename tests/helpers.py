"""Helpers for the tests: the fixture folders, stacked decks, constructed positions and card accounting; the helpers
of runs and commands (:mod:`tests.run_helpers`) are offered here too.

Every position these helpers build still holds each of the 108 cards exactly once
(R1.1): cards a test does not place go to the stock, or, when the test fixes the
stock's size, to the hands (and red-3 rows) of the seats the test leaves open.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import pickle
import random
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from canasta_sim.core.cards import (
    BLACK_THREE,
    CARD_KIND,
    DECK_COUNTS,
    JOKER,
    KIND_COUNT,
    RED_THREE,
    TWO,
    parse_kinds,
)
from canasta_sim.core.moves import WILD_RANK, MeldGroup, Move, parse_move
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import HandResult, score_hand
from canasta_sim.core.state import ACQUIRE, PLAY, HandState
from canasta_sim.env.actions import ANSWER_YES, ASK_YES, DONE_ACTION, TAKE_BASE
from canasta_sim.errors import IllegalMoveError
from tests.run_helpers import (
    BROKEN_AT_ONCE_BOT_SOURCE,
    FLAKY_BOT_SOURCE,
    INTERRUPTED_WHILE_THINKING,
    SUMMARY_FIXTURE_GAMES,
    SUMMARY_FIXTURE_HANDS,
    assert_same_run_tables,
    invoke,
    invoked,
    parts_stamps,
    read_run_tables,
    recorded_chunk,
    run_key,
    run_stamp,
    wait_for_a_trap,
)

ROOT = Path(__file__).resolve().parent.parent
"""The repository's top folder."""
BOTS = ROOT / "tests" / "bots"
"""Strategy files the tests load: bots that fail, misbehave or break the protocol on purpose."""
GOLDEN = ROOT / "tests" / "golden"
"""The golden narrations and the fixed bot that plays them."""
SCRIPTS = ROOT / "scripts"
"""The developer scripts, tested under tests/scripts."""

__all__ = [
    "BROKEN_AT_ONCE_BOT_SOURCE",
    "FLAKY_BOT_SOURCE",
    "INTERRUPTED_WHILE_THINKING",
    "SUMMARY_FIXTURE_GAMES",
    "SUMMARY_FIXTURE_HANDS",
    "apply_all",
    "assert_same_run_tables",
    "cards",
    "expect_illegal",
    "finish",
    "first_card",
    "invoke",
    "invoked",
    "kind_totals",
    "parts_stamps",
    "play_masked_game",
    "position",
    "read_run_tables",
    "recorded_chunk",
    "run_key",
    "run_stamp",
    "script_module",
    "snapshot",
    "stacked_deck",
    "table_value",
    "verify_card_accounting",
    "wait_for_a_trap",
]

_HAND_SIZE = 11
_SPECIAL_ORDER = (BLACK_THREE, TWO, JOKER, RED_THREE)
"""Kinds the filler hands out last (so they sit at the bottom of the stock), in that order."""


def cards(text: str | Sequence[int]) -> list[int]:
    """Return kinds from text such as ``'K K JK 3r'`` (a sequence of kinds passes through)."""
    return list(parse_kinds(text)) if isinstance(text, str) else list(text)


class _Pool:
    """The card ids not yet placed, by kind; filler comes out naturals first, special cards last."""

    def __init__(self) -> None:
        self.by_kind: list[list[int]] = [[] for _ in range(KIND_COUNT)]
        for card_id in range(107, -1, -1):
            self.by_kind[CARD_KIND[card_id]].append(card_id)

    def take(self, kind: int) -> int:
        if not self.by_kind[kind]:
            raise ValueError(f"the position uses more cards of kind {kind} than the deck's {DECK_COUNTS[kind]}")
        return self.by_kind[kind].pop()

    def take_all(self, kinds: Iterable[int]) -> list[int]:
        return [self.take(kind) for kind in kinds]

    def filler(self, count: int, *, allow_red_threes: bool = True) -> list[int]:
        """Take ``count`` ids: naturals cycling through the ranks, then black 3s, deuces, jokers, red 3s."""
        taken: list[int] = []
        while len(taken) < count:
            naturals = [kind for kind in range(4, KIND_COUNT) if self.by_kind[kind]]
            if naturals:
                # One of each rank in turn keeps filler hands from holding accidental pairs.
                for kind in naturals:
                    if len(taken) < count:
                        taken.append(self.take(kind))
                continue
            specials = [k for k in _SPECIAL_ORDER if self.by_kind[k] and (allow_red_threes or k != RED_THREE)]
            if not specials:
                raise ValueError("the position needs more filler cards than the deck has left")
            taken.append(self.take(specials[0]))
        return taken

    def remaining(self) -> list[int]:
        """Every id left, in the filler order (naturals first)."""
        return self.filler(sum(len(ids) for ids in self.by_kind))


def stacked_deck(
    hands: Mapping[int, str | Sequence[int]],
    *,
    dealer: int,
    upcards: str | Sequence[int] = "",
    stock_top: str | Sequence[int] = "",
) -> list[int]:
    """Return 108 card ids (index 0 on top) that deal ``hands`` (R3.1) from ``dealer``.

    Seats whose hand lists fewer than 11 cards are topped up with filler naturals. After the
    44 dealt cards come ``upcards`` (R3.3: the first one turned, then any further ones) and then
    ``stock_top``, the stock's next cards in the order they will be drawn (red-3 replacements
    under R3.5 draw from here first).  The rest of the deck lies below, special cards last.
    """
    pool = _Pool()
    dealt: dict[int, list[int]] = {}
    for seat in range(4):
        wanted = cards(hands.get(seat, ""))
        if len(wanted) > _HAND_SIZE:
            raise ValueError(f"seat {seat} is dealt 11 cards, not {len(wanted)}")
        dealt[seat] = pool.take_all(wanted)
    top = pool.take_all(cards(upcards)) + pool.take_all(cards(stock_top))
    for seat in range(4):
        dealt[seat] += pool.filler(_HAND_SIZE - len(dealt[seat]), allow_red_threes=False)
    deck = []
    for index in range(4 * _HAND_SIZE):
        seat = (dealer + 1 + index) % 4
        deck.append(dealt[seat][index // 4])
    return deck + top + pool.remaining()


def position(
    rules: Rules = DEFAULT_RULES,
    *,
    hands: Mapping[int, str | Sequence[int]] | None = None,
    melds: Mapping[int, str] | None = None,
    pile: str | Sequence[int] = "",
    red_threes: Mapping[int, int] | None = None,
    stock_top: str | Sequence[int] = "",
    stock_size: int | None = None,
    seat: int = 0,
    phase: str = ACQUIRE,
    acquired: str | None = None,
    scores: Sequence[int] = (0, 0),
    side_has_melded: Sequence[bool] | None = None,
    melded_seats: Iterable[int] = (),
    other_hand_size: int = _HAND_SIZE,
) -> HandState:
    """Build a mid-hand position that keeps all 108 cards (R1.1).

    :param hands: each given seat's exact hand; seats not given get ``other_hand_size`` filler cards.
    :param melds: per side, groups such as ``'Q Q Q; 8 8 8 2'`` (``'K:JK'`` style is accepted too).
    :param pile: the discard pile, bottom first, top card last.
    :param stock_top: the next stock cards, first drawn first.
    :param stock_size: the stock's exact size; the surplus then goes to the open seats' hands, and
        surplus red 3s to their red-3 rows.  ``None`` puts every unplaced card in the stock.
    :param side_has_melded: defaults to "the side has a meld on the table".
    :param melded_seats: seats that laid cards earlier this hand (R12.6 concealment, R10.7).
    :param acquired: ``'draw'`` or ``'pile'``; defaults to ``'draw'`` in the play phase.
    """
    hands = hands or {}
    state = HandState.from_deck(rules, list(range(108)), dealer=(seat - 1) % 4, scores=scores)
    pool = _Pool()
    state.hands = [[0] * KIND_COUNT for _ in range(4)]
    state.hand_sizes = [0, 0, 0, 0]
    state.melds = [[[0, 0, 0] for _ in range(KIND_COUNT)] for _ in range(2)]
    state.red_threes = [0, 0, 0, 0]
    for owner, count in (red_threes or {}).items():
        pool.take_all([RED_THREE] * count)
        state.red_threes[owner] = count
    for side, text in (melds or {}).items():
        for part in text.split(";"):
            if not part.strip():
                continue
            group = MeldGroup.from_text(part)
            pool.take_all(group.cards)
            meld = state.melds[side][group.rank]
            meld[0] += group.naturals
            meld[1] += group.jokers
            meld[2] += group.deuces
    state.pile = cards(pile)
    pool.take_all(state.pile)
    for owner, text in hands.items():
        for kind in cards(text):
            pool.take(kind)
            state.hands[owner][kind] += 1
            state.hand_sizes[owner] += 1
    top_ids = pool.take_all(cards(stock_top))
    open_seats = [owner for owner in range(4) if owner not in hands]
    for owner in open_seats:
        for card_id in pool.filler(other_hand_size, allow_red_threes=False):
            state.hands[owner][CARD_KIND[card_id]] += 1
            state.hand_sizes[owner] += 1
    if stock_size is None:
        below = pool.remaining()
    else:
        below = pool.filler(max(0, stock_size - len(top_ids)), allow_red_threes=False)
        surplus = pool.remaining()
        if surplus and not open_seats:
            raise ValueError("a fixed stock size needs at least one seat without a given hand for the surplus")
        for index, card_id in enumerate(surplus):
            owner = open_seats[index % len(open_seats)]
            if CARD_KIND[card_id] == RED_THREE:
                state.red_threes[owner] += 1
            else:
                state.hands[owner][CARD_KIND[card_id]] += 1
                state.hand_sizes[owner] += 1
    # The stock's top card is its last element; the filler's special cards end up at the bottom.
    state.stock = list(reversed(below)) + list(reversed(top_ids))
    state.pile_freezers = sum(
        1
        for kind in state.pile
        if kind <= TWO or kind == RED_THREE or (kind == BLACK_THREE and rules.black_three_freezes_pile)
    )
    if side_has_melded is None:
        side_has_melded = [any(sum(meld) for meld in state.melds[side]) for side in (0, 1)]
    state.side_has_melded = list(side_has_melded)
    state.seat_has_melded = [owner in set(melded_seats) for owner in range(4)]
    state.first_turn_done = [True] * 4
    state.seat = seat
    state.history = []
    # The turn's own flags (asked, melded this turn, ...) start afresh for the seat to move.
    state._reset_turn()
    state.phase = phase
    state.acquired = acquired if acquired is not None else ("draw" if phase == PLAY else None)
    verify_card_accounting(state)
    return state


def kind_totals(state: HandState) -> list[int]:
    """Count every kind across hands, stock, pile, melds and red-3 rows."""
    totals = [0] * KIND_COUNT
    for hand in state.hands:
        for kind in range(KIND_COUNT):
            totals[kind] += hand[kind]
    for card_id in state.stock:
        totals[CARD_KIND[card_id]] += 1
    for kind in state.pile:
        totals[kind] += 1
    for side in state.melds:
        for rank, (naturals, jokers, deuces) in enumerate(side):
            if rank != WILD_RANK:
                totals[rank] += naturals
            totals[JOKER] += jokers
            totals[TWO] += deuces
    totals[RED_THREE] += sum(state.red_threes)
    return totals


def verify_card_accounting(state: HandState) -> None:
    """Raise ``AssertionError`` unless all 108 cards are present exactly once, kind by kind (R1.1)."""
    if state.card_total() != 108:
        raise AssertionError(f"card_total() is {state.card_total()}, not 108")
    totals = kind_totals(state)
    if totals != list(DECK_COUNTS):
        raise AssertionError(f"kind counts {totals} differ from the deck's {list(DECK_COUNTS)}")
    for owner in range(4):
        if sum(state.hands[owner]) != state.hand_sizes[owner] or min(state.hands[owner]) < 0:
            raise AssertionError(
                f"seat {owner}: hand {state.hands[owner]} disagrees with its size {state.hand_sizes[owner]}"
            )
        # R4.1: red 3s never stay in hand, except (R3.5 first_turn) until the seat's first turn.
        if state.hands[owner][RED_THREE] and state.first_turn_done[owner]:
            raise AssertionError(f"seat {owner} keeps a red 3 in hand (R4.1)")


# What is_legal accepted and the last going-out plan, kept to spare work: not game state; and the rules and the
# deck, both immutable.
_NOT_SNAPSHOT = frozenset({"_vouched", "_vouched_key", "_listed", "_plan_cache", "_plan_hand", "_plan_turn",
                           "_plan_changes", "_plan_stop", "_meld_tables", "_collected", "rules", "deck", "history"})


def snapshot(state: HandState) -> dict:
    """Return a copy of every attribute of ``state``, to check that a refused move changed nothing."""
    kept = {name: getattr(state, name) for name in _snapshot_names(type(state))}
    # The rest is lists, sets and numbers: a round trip through pickle copies them deeply in C, where
    # copy.deepcopy took nine tenths of the erratic player's test.
    copied = pickle.loads(pickle.dumps(kept, pickle.HIGHEST_PROTOCOL))
    copied["history"] = tuple(state.history)  # its entries are immutable; copying them deeply would be slow
    return copied


@functools.cache
def _snapshot_names(kind: type) -> tuple[str, ...]:
    return tuple(name for name in kind.__slots__ if name not in _NOT_SNAPSHOT)


def expect_illegal(state: HandState, move: Move | str, rule: str) -> IllegalMoveError:
    """Check that ``move`` raises :class:`IllegalMoveError` citing ``rule`` and leaves ``state`` unchanged."""
    if isinstance(move, str):
        move = parse_move(move)
    before = snapshot(state)
    if state.is_legal(move):
        raise AssertionError(f"{move} should break {rule} but is legal")
    try:
        state.apply(move)
    except IllegalMoveError as error:
        if error.rule != rule:
            raise AssertionError(f"{move} broke {error.rule}, expected {rule}: {error}") from error
        if snapshot(state) != before:
            raise AssertionError(f"the refused move {move} changed the state") from error
        return error
    raise AssertionError(f"{move} should break {rule} but was applied")


def force_field(record: object, name: str, value: object) -> None:
    """Change a field of a built (frozen) record as strategy code can still force it: through its slot where the core
    runs as plain Python, by running its constructor again where it is compiled (its fields are then read-only C
    members, and ``object.__setattr__`` refuses the type: with a ``TypeError`` up to Python 3.12, from 3.13 with an
    ``AttributeError``, the member not writable)."""
    try:
        object.__setattr__(record, name, value)
    except (TypeError, AttributeError):
        fields = {field: getattr(record, field) for field in type(record).__match_args__}
        fields[name] = value
        type(record).__init__(record, **fields)


def apply_all(state: HandState, *moves: Move | str) -> HandState:
    """Apply moves (records or their text form) in order and return the state."""
    for move in moves:
        state.apply(parse_move(move) if isinstance(move, str) else move)
    return state


def finish(state: HandState, *moves: Move | str) -> HandResult:
    """Apply ``moves``, check the hand is over, and return its score (R14)."""
    apply_all(state, *moves)
    if not state.is_over:
        raise AssertionError(f"the hand should be over, but is in the {state.phase} phase")
    return score_hand(state)


def table_value(state: HandState, side: int) -> int:
    """Return what the side's melds are worth now (R14.1a + R14.1b), scoring a copy as if the hand ended."""
    ended = copy.deepcopy(state)
    ended._end("test")
    result = score_hand(ended).sides[side]
    return result.meld_points + result.canasta_bonus


def first_card(hand: Sequence[int]) -> int:
    """Return the highest kind a count vector holds (for a throw-away discard)."""
    return next(kind for kind in range(KIND_COUNT - 1, -1, -1) if hand[kind])


def score_from_parts(side) -> int:
    """R14.1: a side's hand score rebuilt from its recorded parts, to check against ``side.score``."""
    return side.meld_points + side.canasta_bonus + side.going_out_bonus + side.red_three_bonus - side.hand_penalty


def choose_leaning_to_lay(rng: random.Random, allowed: Iterable[int]) -> int:
    """A random allowed action of the environments' numbering, leaning towards asking, answering yes and laying
    cards, so that sides build the canastas going out needs and go out (R12.1, R12.5): uniform play seldom does."""
    allowed = [int(action) for action in allowed]
    for yes in (ASK_YES, ANSWER_YES):
        if yes in allowed and rng.random() < 0.9:
            return yes
    laying = [action for action in allowed if TAKE_BASE <= action < DONE_ACTION]
    if laying and rng.random() < 0.9:
        return rng.choice(laying)
    return rng.choice(allowed)


def play_masked_game(env, seed: int, choose: Callable[[list[int]], int],
                     after_step: Callable[[], None] | None = None) -> int:
    """Play one whole game of the PettingZoo environment ``env`` from ``env.reset(seed=seed)``, each seat's action
    ``choose(allowed)`` among the actions its mask allows; return how many actions were played.

    Every decision must allow an action (the environment raises on an action its mask refuses, and on a move the
    engine refuses); ``after_step`` runs after each action, for the test's own checks.
    """
    env.reset(seed=seed)
    steps = 0
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        allowed = np.flatnonzero(observation["action_mask"]).tolist()
        assert allowed, f"game {seed}: {agent} has no allowed action ({env.driver.decision})"
        env.step(choose(allowed))
        steps += 1
        if after_step is not None:
            after_step()
    return steps


def script_module(name: str, module_name: str | None = None):
    """``scripts/<name>.py`` loaded as a module (named ``module_name``, else ``name``) and kept in ``sys.modules``,
    where a process pool's workers find its functions by name; ``scripts/`` is importable while it loads, for a
    script that imports its neighbours."""
    spec = importlib.util.spec_from_file_location(module_name or name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module
