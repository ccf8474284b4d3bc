"""A game as one self-contained HTML page: the table after every move, with the narration beside it.

:class:`ReplayRecorder` is a :class:`~canasta_sim.terminal.narrate.Narrator` that also records: after
the deal and after every move it takes a position from the engine's own state (each hand's counts by
kind, each side's melds as naturals/jokers/deuces, red 3s, the pile, the stock, whose turn it is) with
the card ids :class:`~canasta_sim.terminal.narrate.TableCards` follows (already checked against the
state by the narrator), and the lines the narrator wrote for that move.  At a hand's end it keeps the
score table (:func:`~canasta_sim.terminal.narrate.score_rows`).

:func:`record_game` plays a game with one and :meth:`RecordedGame.html` writes the page: the template
``replay.html`` beside this module with the record as JSON inside it.  The page needs no network, server
or other file: its script and style are inline and the cards are drawn with CSS.

Each position stores only what changed since the one before it in the same hand (a hand's first
position is whole); the page's script carries the rest forward, which keeps a ten-hand game to a few
hundred kilobytes.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from collections.abc import Iterable, Sequence
from importlib import resources
from typing import Any

from canasta_sim.core.cards import (
    BLACK_THREE,
    CARD_COUNT,
    CARD_KIND,
    CARD_SUIT,
    JOKER,
    KIND_NAMES,
    NATURAL_KINDS,
    card_text,
)
from canasta_sim.core.engine import GameResult, StrategyFactory
from canasta_sim.core.melds import CANASTA_SIZE
from canasta_sim.core.moves import WILD_RANK
from canasta_sim.core.parameters import format_value
from canasta_sim.core.rules import DEFAULT_RULES, Rules
from canasta_sim.core.scoring import HandResult
from canasta_sim.core.state import HandState
from canasta_sim.errors import StrategyError
from canasta_sim.terminal.narrate import (
    SEAT_NAMES,
    SIDE_NAMES,
    Narrator,
    narrate_game,
    rank_words,
    score_rows,
    score_table,
)
from canasta_sim.terminal.narrate import sorted_cards as _sorted

__all__ = ["RecordedGame", "ReplayRecorder", "card_words", "record_game", "replay_page"]

_TEMPLATE = "replay.html"
_DATA_MARK = "/*REPLAY-DATA*/null"
_TITLE_MARK = "<!--REPLAY-TITLE-->"
_RANK_WORDS = ("joker", "two", "three", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
               "queen", "king", "ace")
_SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")


class ReplayRecorder(Narrator):
    """Narrates a game into lists and records the table after the deal and after every move.

    :ivar header: the lines written before the first hand (seats, seed, rules).
    :ivar hands: one record per hand: its number, dealer, scores before it, initial meld minimums,
        positions (``frames``) and, once over, its score table (``end``).
    :ivar footer: the lines written after the last hand (final totals and winner).
    """

    def __init__(self, *, shown_seats: Iterable[int] = range(4)) -> None:
        self._lines: list[str] = []
        super().__init__(self._lines.append, shown_seats=shown_seats)
        self.header: list[str] = []
        self.hands: list[dict[str, Any]] = []
        self.footer: list[str] = []
        self._last: dict[str, Any] = {}

    def take_lines(self) -> list[str]:
        """The lines written since the last call (they belong to the position recorded next)."""
        lines = list(self._lines)
        self._lines.clear()
        return lines

    def game_header(self, *, seed: int, labels: Sequence[str], rules: Rules = DEFAULT_RULES) -> None:
        """Write the game's header lines and keep them apart from the first hand's."""
        super().game_header(seed=seed, labels=labels, rules=rules)
        self.header = self.take_lines()

    def game_over(self, result: GameResult) -> None:
        """Write the final totals and keep those lines as the footer."""
        super().game_over(result)
        self.footer = [line for line in self.take_lines() if line]

    def on_hand_start(self, state: HandState) -> None:
        """Narrate the deal, then record the hand and its first position."""
        super().on_hand_start(state)
        self.hands.append({
            "number": state.hand_number, "dealer": state.dealer, "scores_before": list(state.scores_before),
            "requirements": list(state.requirements), "frames": [], "end": None,
        })
        self._last = {}
        self._record(state, seat=None, move="deal")

    def on_move(self, state: HandState) -> None:
        """Narrate the move just applied, then record the position after it."""
        super().on_move(state)
        seat, move, _ = state.history[-1]
        self._record(state, seat=seat, move=str(move))

    def on_hand_end(self, state: HandState, result: HandResult) -> None:
        """Narrate the hand's end, then record its score table as the hand's last position."""
        super().on_hand_end(state, result)
        lines = self.take_lines()
        # The narrator's own score table ends these lines; the page shows the same figures as a table, and keeps
        # these in their columns in the narration (wrapped to its width, they read as a jumble of numbers).
        reason = lines[0] if lines else ""
        self.hands[-1]["end"] = {
            "reason": reason,
            "rows": [list(row) for row in score_rows(result)],
            "went_out": result.went_out_seat,
            "table_lines": len(score_table(result)),
        }
        self.hands[-1]["frames"].append({"seat": None, "move": "end", "lines": lines})

    def _record(self, state: HandState, *, seat: int | None, move: str) -> None:
        position = self._position(state)
        changed = {key: value for key, value in position.items() if self._last.get(key, _UNSET) != value}
        self._last = position
        self.hands[-1]["frames"].append({"seat": seat, "move": move, "lines": self.take_lines(), **changed})

    def _position(self, state: HandState) -> dict[str, Any]:
        """The table now, from the engine's state; card ids from the narrator's cards (verified against it)."""
        cards = self.cards
        position: dict[str, Any] = {}
        for seat in range(4):
            shown = seat in self.shown_seats
            counts = list(state.hands[seat])
            position[f"h{seat}"] = _sorted(cards.hands[seat]) if shown else None
            position[f"k{seat}"] = counts if shown else None
            position[f"n{seat}"] = sum(counts)
            position[f"r{seat}"] = list(cards.red_threes[seat])
        for side in (0, 1):
            melds = state.meld_table(side)
            position[f"m{side}"] = [
                [rank, _sorted(cards.melds[side][rank]), *melds[rank], _canasta(melds[rank])]
                for rank in sorted(melds, reverse=True)
            ]
        position["pile"] = [len(state.pile), cards.pile[-1] if cards.pile else None, state.is_pile_frozen(),
                            state.is_pile_blocked()]
        position["stock"] = len(state.stock)
        position["table"] = [state.side_meld_points(0), state.side_meld_points(1)]
        position["melded"] = list(state.side_has_melded)
        position["turn"] = state.turn_count
        position["actor"] = None if state.is_over else state.actor
        position["phase"] = state.phase
        return position


_UNSET = object()


def _canasta(meld: Sequence[int]) -> str:
    naturals, jokers, deuces = meld
    if naturals + jokers + deuces < CANASTA_SIZE:
        return ""
    return "mixed" if jokers + deuces else "natural"


@dataclasses.dataclass(frozen=True)
class RecordedGame:
    """A game played with a :class:`ReplayRecorder`: the record, and how the game ended.

    :ivar result: the finished game, or ``None`` when a strategy failed.
    :ivar error: the strategy's failure that stopped the game (a forfeit), or ``None``.
    """

    recorder: ReplayRecorder
    seed: int
    rules: Rules
    labels: tuple[str, ...]
    names: tuple[str, ...]
    result: GameResult | None
    error: StrategyError | None

    def document(self, *, title: str, run_seed: int | None = None, game_id: int | None = None,
                 source: str | None = None, duplicate_pair: int | None = None,
                 changes: Sequence[str] = ()) -> dict[str, Any]:
        """The record as the page reads it (plain JSON types); ``duplicate_pair`` is the run's other game of the same
        deal, the sides swapped (:meth:`~canasta_sim.runs.runner.RunSettings.duplicate_pair`); ``changes``, for a
        run's game, what plays it again that did not play it (:func:`canasta_sim.cli.replay.changes_since_run`)."""
        recorder = self.recorder
        result = self.result
        ending: dict[str, Any]
        if result is not None:
            ending = {"scores": list(result.scores), "winner": result.winner, "termination": result.termination,
                      "lines": recorder.footer}
        else:
            ending = {"error": str(self.error), "lines": [f"The game stops here: {self.error}"]}
        return {
            "title": title,
            # The header names each fact once: the line under the title leaves out what the title says (both gave the
            # seed, "Canasta, game seed 5" over "... Game seed 5; played to 5000").
            "title_names": _facts_named(title, seed=self.seed, game_id=game_id),
            "source": source,
            # Seeds are 64-bit: as JSON numbers a browser would round them (to 53 bits), so they are text.
            "game_seed": str(self.seed),
            "run_seed": None if run_seed is None else str(run_seed),
            "game_id": game_id,
            "duplicate_pair": duplicate_pair,
            "changes": list(changes),
            "target": self.rules.target_score,
            # As --rules takes them and the narration's header says them ("true", not Python's "True").
            "rules_changed": {key: format_value(value) for key, value in self.rules.changed_options().items()},
            "seats": [{"seat": seat, "name": SEAT_NAMES[seat], "side": "AB"[seat & 1], "strategy": self.labels[seat],
                       "spec": self.names[seat], "shown": seat in recorder.shown_seats} for seat in range(4)],
            "sides": list(SIDE_NAMES),
            "header": recorder.header,
            "hands": recorder.hands,
            "ending": ending,
            "cards": [[CARD_KIND[card], CARD_SUIT[card], card_text(card), card_words(card)]
                      for card in range(CARD_COUNT)],
            "kinds": list(KIND_NAMES),
            "ranks": {str(rank): rank_words(rank) for rank in (*NATURAL_KINDS, BLACK_THREE, WILD_RANK)},
        }

    @property
    def hands_finished(self) -> int:
        """The hands played to their end, as the run's ``hands`` column counts them: for a forfeit, those finished
        before the failure, not the hand it cut short."""
        return sum(hand["end"] is not None for hand in self.recorder.hands)

    def html(self, **info: Any) -> str:
        """The self-contained page; ``info`` as :meth:`document` takes it."""
        return replay_page(self.document(**info))


def _facts_named(title: str, *, seed: int, game_id: int | None) -> list[str]:
    """Which of the game's seed and its id in the run ``title`` states (``"game_seed"``, ``"game_id"``)."""
    named = []
    if re.search(rf"\bseed {seed}\b", title, re.IGNORECASE):
        named.append("game_seed")
    if game_id is not None and re.search(rf"\bgame {game_id}\b", title, re.IGNORECASE):
        named.append("game_id")
    return named


def card_words(card: int) -> str:
    """A card as a screen reader should say it (``'queen of diamonds'``, ``'joker'``): read as drawn, a red queen was
    "Q black diamond suit", the suits' Unicode names."""
    kind = CARD_KIND[card]
    if kind == JOKER:
        return _RANK_WORDS[kind]
    return f"{_RANK_WORDS[kind]} of {_SUIT_WORDS[CARD_SUIT[card]]}"


def replay_page(document: dict[str, Any]) -> str:
    """Put a record (:meth:`RecordedGame.document`) into the page's template."""
    template = resources.files("canasta_sim.terminal").joinpath(_TEMPLATE).read_text(encoding="utf-8")
    # Inside <script>, "</script" or "<!--" (a strategy's file name may hold either) would end or confuse the
    # element: "<" only ever occurs inside JSON strings, where its escape \u003c means the same.
    data = json.dumps(document, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    # The data first: with every "<" escaped it cannot hold the title's mark, while a title could hold the data's.
    return template.replace(_DATA_MARK, data, 1).replace(_TITLE_MARK, html.escape(document["title"]), 1)


def record_game(
    players: Sequence[StrategyFactory],
    *,
    seed: int,
    rules: Rules = DEFAULT_RULES,
    labels: Sequence[str],
    names: Sequence[str],
    shown_seats: Iterable[int] = range(4),
    monitor=None,
    time_limit: float | None = None,
) -> RecordedGame:
    """Play one game as :func:`~canasta_sim.terminal.narrate.narrate_game` does and record it for the page
    (``monitor`` and ``time_limit`` as there: where the game publishes each call into strategy code, and the seconds
    one decision may take).

    A strategy's failure does not propagate: the game is recorded up to it and the failure kept in
    :attr:`RecordedGame.error`, so a forfeited game can be seen up to its last move.
    """
    recorder = ReplayRecorder(shown_seats=shown_seats)
    result: GameResult | None = None
    error: StrategyError | None = None
    try:
        result = narrate_game(players, seed=seed, rules=rules, labels=labels, names=names, narrator=recorder,
                              monitor=monitor, time_limit=time_limit)
    except StrategyError as failure:
        error = failure
        if recorder.hands:  # what was narrated of the move that failed belongs to the last position
            recorder.hands[-1]["frames"][-1]["lines"].extend(recorder.take_lines())
    return RecordedGame(recorder, seed, rules, tuple(labels), tuple(names), result, error)
