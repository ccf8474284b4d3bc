"""Cython's type declarations without Cython: the hot modules run and play the same games.

The hot modules declare C integers with ``@cython.locals``; plain Python without Cython installed
imports :mod:`canasta_sim.core._compiled.cython_fallback` in its place, whose declarations do nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from canasta_sim.core._compiled import accelerator, cython_fallback
from canasta_sim.core.engine import play_game
from canasta_sim.strategies.expert import Expert
from canasta_sim.strategies.greedy import Greedy

ROOT = Path(__file__).resolve().parents[3]

WITHOUT_CYTHON = """
import json, sys
sys.modules["cython"] = None  # `import cython` raises ImportError, as where Cython is not installed
from canasta_sim.core.engine import play_game
from canasta_sim.core.going_out import cython as used
from canasta_sim.strategies.expert import Expert
from canasta_sim.strategies.greedy import Greedy
result = play_game([Expert, Greedy, Expert, Greedy], seed=18)
print(json.dumps({"module": used.__name__, "scores": result.scores, "hands": len(result.hands)}))
"""


def test_fallback_declarations_leave_functions_as_they_are():
    def add(left, right):
        return left + right

    assert cython_fallback.locals(left=cython_fallback.Py_ssize_t)(add) is add
    assert cython_fallback.typedef(cython_fallback.Py_ssize_t) is int
    assert cython_fallback.double is float and cython_fallback.bint is bool
    assert cython_fallback.compiled is False


@pytest.mark.timeout(120)
def test_sources_without_cython_installed_use_the_fallback_and_play_the_same_game():
    environment = {**os.environ, accelerator.PURE_PYTHON_VARIABLE: "1"}
    completed = subprocess.run(
        [sys.executable, "-c", WITHOUT_CYTHON], capture_output=True, text=True, env=environment, cwd=ROOT, timeout=100
    )
    assert completed.returncode == 0, completed.stderr
    played = json.loads(completed.stdout)
    expected = play_game([Expert, Greedy, Expert, Greedy], seed=18)
    assert played == {"module": "canasta_sim.core._compiled.cython_fallback", "scores": list(expected.scores),
                      "hands": len(expected.hands)}
