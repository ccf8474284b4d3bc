"""Properties of everything that reads the bot protocol's untrusted text, on generated inputs (hypothesis).

The properties and their inputs are ``tests/protocol_fuzzing.py``'s: the two move readers agree and what parses
round-trips, the arbiter reads any line a bot writes as a message or a ``ProtocolError`` (a shared process charging it
as ``malformed``, never raising), the bot server answers any line and goes on.  Here each runs a bounded number of
examples, derandomized so that every run of the suite tries the same inputs; ``scripts/fuzz_protocol.py`` runs them
for longer.  The pure-Python build reads a corpus of move texts as the installed one does.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from canasta_sim.core._compiled import accelerator
from canasta_sim.core.moves import parse_move
from canasta_sim.core.wire import move_from_text
from tests.helpers import ROOT
from tests.protocol_fuzzing import PROPERTIES, random_move_text, with_examples

BOUNDED = settings(max_examples=120, derandomize=True, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
"""Few examples, the same ones every run: each property stays well under a second or two."""


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", sorted(PROPERTIES))
def test_a_protocol_reader_keeps_its_property_on_generated_inputs(name):
    check, arguments, _ = PROPERTIES[name]
    BOUNDED(with_examples(name, given(*arguments)(check)))()


@pytest.mark.parametrize("name", ["reply-line", "dispatch"])
def test_a_line_nested_past_python_s_recursion_limit_is_read_as_any_other(name):
    # Outside hypothesis, which raises the recursion limit while it runs a property: a message nested 1,000 levels
    # (the reader takes 1,024) once made the arbiter's own error message raise RecursionError, which escaped the
    # worker's loop and ended it, costing every game it was playing.
    check, _, examples = PROPERTIES[name]
    for arguments in examples:
        check(*arguments)


@pytest.mark.parametrize("text", ["meld 2:2", "meld 2:2 JK", "take ; 2:2 2", "meld K:7 K", "meld 3b:3b 3r",
                                  "take 7 7; Q:Q 8 2"])
def test_a_group_holding_cards_of_another_rank_than_its_own_writes_its_rank_and_reads_back(text):
    # Its text once left the rank out ("meld 2:2" was written "meld 2"), which no reader takes: an isolated
    # strategy's meld of such a group reached the arbiter as a text that is no move.
    move = parse_move(text)
    assert parse_move(str(move)) == move and move_from_text(str(move)) == move


_READ_CORPUS = """import json, sys
from canasta_sim.core.moves import parse_move
from canasta_sim.core.wire import move_from_text
from canasta_sim.errors import MoveParseError
out = []
for text in json.load(sys.stdin):
    for parse in (parse_move, move_from_text):
        try:
            out.append(repr(parse(text)))
        except MoveParseError as error:
            out.append("error: " + str(error))
print(json.dumps(out))
"""


def _read_corpus(corpus: list[str], environment: dict[str, str]) -> list[str]:
    completed = subprocess.run([sys.executable, "-c", _READ_CORPUS], input=json.dumps(corpus), capture_output=True,
                               text=True, env={**os.environ, **environment}, cwd=ROOT, timeout=100)
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


@pytest.mark.timeout(120)
def test_the_pure_python_build_reads_move_texts_as_the_compiled_one():
    rng = random.Random(20261206)
    corpus = [random_move_text(rng) for _ in range(2000)]
    pure = _read_corpus(corpus, {accelerator.PURE_PYTHON_VARIABLE: "1"})
    installed = _read_corpus(corpus, {accelerator.PURE_PYTHON_VARIABLE: "0"})
    texts = [text for text in corpus for _ in range(2)]
    differing = [(text, mine, theirs) for text, mine, theirs in zip(texts, installed, pure, strict=True)
                 if mine != theirs]
    assert not differing, differing[:3]
