"""docs/strategies.md's table of helpers for strategies names each call on the object it is made on, and each
exists there: a strategy written from the table must not meet an AttributeError."""

from __future__ import annotations

import re
from pathlib import Path

from canasta_sim.core import kernels
from canasta_sim.core.kernels import CardMemory, DiscardCosts, DiscardRisk
from canasta_sim.core.strategy import Strategy
from canasta_sim.core.view import SeatView

DOC = (Path(__file__).resolve().parents[2] / "docs" / "strategies.md").read_text()

OBJECTS = {"view": SeatView, "memory": CardMemory, "risk": DiscardRisk, "costs": DiscardCosts}
"""The names the table gives the objects it calls methods of."""


def _helper_rows() -> list[str]:
    section = DOC.split("## Faster strategies", 1)[1]
    table = section.split("| helper | what it answers |", 1)[1].split("\n\n", 1)[0]
    return [line for line in table.splitlines() if line.startswith("| `")]


def test_every_call_the_helpers_table_shows_exists_on_the_object_it_is_made_on():
    rows = _helper_rows()
    assert len(rows) >= 7, rows
    calls = [call for row in rows for call in re.findall(r"`(?:\w+ = )?(\w+)\.(\w+)\(", row)]
    assert ("costs", "cheapest_legal") in calls, calls
    for owner, method in calls:
        assert owner in OBJECTS, f"{owner}.{method}: the table names no such object"
        assert hasattr(OBJECTS[owner], method), f"{owner}.{method} does not exist"


def test_a_call_without_its_object_is_a_function_of_the_kernels_or_a_strategy_method():
    # "risk.costs(hand, freeze) ... cheapest_legal(view)" read as methods of the risk: they are the costs'.
    for row in _helper_rows():
        for name in re.findall(r"`(\w+)\(", row):
            assert hasattr(kernels, name) or hasattr(Strategy, name), f"`{name}(...)` is no function: {row[:80]}"
