"""The ``decisions`` dataset of ``canasta-sim run --record-decisions``: one row per decision of chosen seats.

Recording wraps the chosen seats' strategies (the engine is unchanged and runs without recording
pay nothing): the wrapper passes each decision to the strategy, then notes the seat's observation
vector, the number of legal actions and the actions that play the strategy's answer
(:mod:`canasta_sim.env.encoding`).  A hand's rows are kept until the hand ends, when its outcome
for the seat's side is known; the rows of a hand a strategy failure cut short are dropped, as the
``hands`` table drops that hand.  ``docs/output.md`` documents every column.
"""

from __future__ import annotations

import pyarrow as pa

from canasta_sim.core.strategy import Strategy
from canasta_sim.env.driver import ACQUIRE_DECISION, ANSWER_DECISION, ASK_DECISION, DISCARD_DECISION, MELD_DECISION
from canasta_sim.env.encoding import DecisionOptions, observation_values, playable_actions

__all__ = ["DECISION_SCHEMA", "DecisionRecorder", "recorded_seats", "verify_record_choices"]

DECISION_SCHEMA = pa.schema(
    [
        # Every decision row has every value: no column is declared nullable (a list's entries keep arrow's default
        # item field, the type a run's earlier parts have, which --resume compares).
        pa.field(name, kind, nullable=False)
        for name, kind in (
            ("game_id", pa.int64()),
            ("hand_no", pa.int32()),
            ("turn", pa.int32()),
            ("seat", pa.int8()),
            ("team", pa.string()),
            ("strategy", pa.string()),
            ("decision", pa.string()),
            ("observation", pa.list_(pa.int32())),
            ("legal_actions", pa.int32()),
            ("allowed", pa.list_(pa.int32())),
            ("action", pa.int32()),
            ("actions", pa.list_(pa.int32())),
            ("move", pa.string()),
            ("hand_score", pa.int32()),
            ("hand_margin", pa.int32()),
        )
    ]
)
"""One row per decision of a recorded seat."""

_TEAMS = ("A", "B")


def verify_record_choices(choices: tuple[str, ...], specs: tuple[str, ...]) -> None:
    """Raise ``ValueError`` unless every choice is ``all``, a seat 0-3 or one of the run's ``specs``."""
    for choice in choices:
        if choice != "all" and choice not in ("0", "1", "2", "3") and choice not in specs:
            raise ValueError(
                f"--record-decisions {choice!r} is neither 'all', a seat 0-3 nor a strategy of the run "
                f"({', '.join(specs)})"
            )


def recorded_seats(choices: tuple[str, ...], sides: tuple[str, str]) -> tuple[int, ...]:
    """The seats whose decisions are recorded in a game whose sides play the specs ``sides`` (A, B)."""
    seats = set()
    for choice in choices:
        if choice == "all":
            seats.update(range(4))
        elif choice in ("0", "1", "2", "3"):
            seats.add(int(choice))
        else:
            seats.update(seat for seat in range(4) if sides[seat % 2] == choice)
    return tuple(sorted(seats))


class DecisionRecorder:
    """Collects the decision rows of one chunk of games, column by column."""

    def __init__(self) -> None:
        self._columns: dict[str, list] = {name: [] for name in DECISION_SCHEMA.names}

    @property
    def row_count(self) -> int:
        """Rows recorded so far."""
        return len(self._columns["game_id"])

    def wrap(self, factory, *, game_id: int, seat: int, spec: str):
        """A factory building ``factory``'s strategy wrapped so that its decisions are recorded."""
        recorder = self

        def build(rng):
            inner = factory(rng)
            # Only a strategy that listens to events gets them, so the engine's cost stays the same.
            cls = _ListeningRecorder if type(inner).on_event is not Strategy.on_event else _Recorder
            return cls(inner, recorder, game_id, seat, spec)

        build.name = spec
        return build

    def drop_game(self, game_id: int) -> None:
        """Remove the rows of ``game_id`` (a game the run does not keep)."""
        ids = self._columns["game_id"]
        keep = [index for index, value in enumerate(ids) if value != game_id]
        if len(keep) != len(ids):
            for name, values in self._columns.items():
                self._columns[name] = [values[index] for index in keep]

    def add_rows(self, rows: list[tuple], hand_score: int, hand_margin: int) -> None:
        """Append a finished hand's rows (each every column but the last two) with the hand's outcome."""
        columns = self._columns
        names = DECISION_SCHEMA.names
        for row in rows:
            for name, value in zip(names, row, strict=False):
                columns[name].append(value)
            columns["hand_score"].append(hand_score)
            columns["hand_margin"].append(hand_margin)

    def table(self) -> pa.Table:
        """The rows recorded, as a table of :data:`DECISION_SCHEMA`."""
        return pa.Table.from_pydict(self._columns, schema=DECISION_SCHEMA)


class _Recorder(Strategy):
    """Passes every call to the wrapped strategy and records its decisions."""

    name = "recorder"

    def __init__(self, inner: Strategy, recorder: DecisionRecorder, game_id: int, seat: int, spec: str) -> None:
        self.rng = inner.rng
        self.inner = inner
        self.recorder = recorder
        self.game_id = game_id
        self.seat = seat
        self.spec = spec
        self.rows: list[tuple] = []

    def _record(self, view, decision: str, value):
        if decision in (ASK_DECISION, ANSWER_DECISION):
            legal = isinstance(value, bool)
        else:
            legal = (value is None and decision == MELD_DECISION) or (value is not None and view.can(value))
        if not legal:
            return value  # the engine refuses it and reports the seat's failure; the hand's rows are dropped
        allowed = DecisionOptions.of(view, decision).allowed()
        actions = playable_actions(view, decision, value)
        self.rows.append((
            self.game_id, view.hand_number, view.turn_count, self.seat, _TEAMS[self.seat % 2], self.spec, decision,
            observation_values(view, decision), len(allowed), allowed, actions[0], list(actions),
            _text(decision, value),
        ))
        return value

    def choose_acquire(self, view):
        """The wrapped strategy's choice, recorded."""
        return self._record(view, ACQUIRE_DECISION, self.inner.choose_acquire(view))

    def choose_ask(self, view):
        """The wrapped strategy's choice, recorded."""
        return self._record(view, ASK_DECISION, self.inner.choose_ask(view))

    def answer_go_out(self, view):
        """The wrapped strategy's choice, recorded."""
        return self._record(view, ANSWER_DECISION, self.inner.answer_go_out(view))

    def choose_meld(self, view):
        """The wrapped strategy's choice, recorded."""
        return self._record(view, MELD_DECISION, self.inner.choose_meld(view))

    def choose_discard(self, view):
        """The wrapped strategy's choice, recorded."""
        return self._record(view, DISCARD_DECISION, self.inner.choose_discard(view))

    def on_hand_start(self, view) -> None:
        """Start the hand's rows afresh and pass the call on."""
        self.rows = []
        self.inner.on_hand_start(view)

    def on_hand_end(self, result) -> None:
        """Keep the hand's rows with its outcome for the seat's side, and pass the call on."""
        own = result.sides[self.seat % 2].score
        other = result.sides[1 - self.seat % 2].score
        self.recorder.add_rows(self.rows, own, own - other)
        self.rows = []
        self.inner.on_hand_end(result)


class _ListeningRecorder(_Recorder):
    """A recorder for a strategy that listens to the table's events."""

    def on_event(self, event) -> None:
        """Pass the event on."""
        self.inner.on_event(event)


def _text(decision: str, value) -> str:
    if decision in (ASK_DECISION, ANSWER_DECISION):
        return f"{decision} {'yes' if value else 'no'}"
    return "done" if value is None else str(value)
