"""``check-strategy`` names a strategy that goes by a built-in's name: a copy of a built-in that kept its name would
be recorded, and compared, as the built-in."""

from __future__ import annotations

from canasta_sim.cli.check import _borrowed_name
from canasta_sim.plugins.loader import LoadedStrategy, load_strategy
from canasta_sim.strategies import Greedy

COPY = """
from canasta_sim.strategies.greedy import Greedy


class Greedy(Greedy):  # a copy of strategies/greedy.py, changed, that kept the built-in's name
    name = "greedy"

    def choose_ask(self, view):
        return False
"""


class _Proxy(Greedy):
    """Stands for an isolated: spec's class, which takes the name its process announces."""


def test_a_copy_of_a_built_in_that_kept_its_name_is_a_problem(tmp_path):
    (tmp_path / "mine.py").write_text(COPY)
    loaded = load_strategy(f"{tmp_path}/mine.py:Greedy")
    assert loaded.label == "greedy@2"
    problem = _borrowed_name(loaded)
    assert problem is not None and problem.startswith("problem: it is named 'greedy', as the built-in greedy is")
    assert _borrowed_name(LoadedStrategy(f"isolated:{tmp_path}/mine.py:Greedy", _Proxy)) is not None


def test_a_built_in_by_any_spec_keeps_its_name():
    for spec in ("greedy", "expert:aggression=0.7", "canasta_sim.strategies.greedy:Greedy"):
        assert _borrowed_name(load_strategy(spec)) is None, spec
    for spec in ("isolated:greedy", "isolated:greedy:x=1", "isolated:canasta_sim.strategies.greedy:Greedy"):
        assert _borrowed_name(LoadedStrategy(spec, _Proxy)) is None, spec
