"""``scripts/protocol_requests.py`` counts a protocol bot's requests, and what asking only its choices saves."""

from __future__ import annotations

import re
import sys

import pytest

from tests.helpers import BOTS, script_module


def _requests(capsys, *arguments: str) -> tuple[float, float]:
    module = script_module("protocol_requests")
    assert module.main([f"cmd:{sys.executable} {BOTS / 'protocol_simple.py'} 2 8 choices", "--games", "3",
                        *arguments]) == 0
    output = capsys.readouterr().out
    requests = float(re.search(r"requests: ([\d.]+) a game", output).group(1))
    single = float(re.search(r"listing one legal answer: ([\d.]+) a game", output).group(1))
    return requests, single


@pytest.mark.timeout(120)
def test_a_bot_asked_every_decision_is_sent_the_requests_with_one_legal_answer_too(capsys):
    requests, single = _requests(capsys)
    every, every_single = _requests(capsys, "--every-decision")
    assert single == 0 and every_single > 10
    assert every == pytest.approx(requests + every_single, abs=0.1)  # the simple bot's games are the same
