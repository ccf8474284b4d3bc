"""R9.2 and R9.4: the wild-card rules the checks, listings and searches read are one record per rule set.

``melds.wild_rules_of`` gives each rule set's record (its limits and the searches' kept shapes); a caller
reads the record once and then only its fields, so a rule set read later, in this thread or another, never
changes what a reader holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from canasta_sim.core._compiled import accelerator
from canasta_sim.core.legal import meld_candidates
from canasta_sim.core.melds import WildRules, meld_fits, wild_rules, wild_rules_of
from canasta_sim.core.moves import WILD_RANK
from canasta_sim.core.rules import Rules
from canasta_sim.core.state import PLAY
from tests.helpers import position

ROOT = Path(__file__).resolve().parents[2]

_CLASSIC = Rules()
_LOOSE = Rules(wild_ratio_rule="min_two_naturals", max_wilds_per_meld=2, allow_wild_only_melds=True)
# Not melded yet, so the listing runs the openings' search as well as the single melds.
_HAND = {"hands": {0: "K K 7 7 7 9 9 JK JK 2 2 2 5"}, "seat": 0, "phase": PLAY}


def test_r9_2_r9_4_a_rule_sets_record_keeps_its_values_when_another_is_read():
    classic = wild_rules_of(_CLASSIC)
    loose = wild_rules_of(_LOOSE)
    assert isinstance(classic, WildRules) and classic is not loose
    assert (classic.most_wilds, classic.wild_ratio, classic.wild_only) == (3, True, False)
    assert (loose.most_wilds, loose.wild_ratio, loose.wild_only) == (2, False, True)
    assert wild_rules(_CLASSIC) == (3, True, False)
    assert wild_rules_of(_CLASSIC).rules is _CLASSIC


def test_r9_2_meld_fits_follows_each_rule_set_in_turn():
    # Three naturals and three wild cards: within the classic limits, over the loose set's 2; three wild cards
    # alone stand only where wild-only melds are allowed.
    for _ in range(3):
        assert meld_fits(_CLASSIC, 9, 3, 2, 1) is True
        assert meld_fits(_LOOSE, 9, 3, 2, 1) is False
        assert meld_fits(_CLASSIC, WILD_RANK, 0, 2, 1) is False
        assert meld_fits(_LOOSE, WILD_RANK, 0, 2, 1) is True


def mixed_listings(rounds: int) -> int:
    """How many of ``rounds`` listings in each of two threads, one under each rule set, differ from what one
    thread lists, with the threads switched as often as the interpreter allows."""
    expected = {rules: list(meld_candidates(position(rules, **_HAND))) for rules in (_CLASSIC, _LOOSE)}
    if expected[_CLASSIC] == expected[_LOOSE]:
        raise ValueError("the two rule sets must list differently for the check to mean anything")
    found: dict[Rules, list] = {_CLASSIC: [], _LOOSE: []}

    def list_often(rules: Rules) -> None:
        for _ in range(rounds):
            found[rules].append(list(meld_candidates(position(rules, **_HAND))))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=list_often, args=(rules,)) for rules in (_CLASSIC, _LOOSE)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        sys.setswitchinterval(interval)
    if any(len(listings) != rounds for listings in found.values()):
        raise RuntimeError("a listing thread did not finish")
    return sum(listing != expected[rules] for rules, listings in found.items() for listing in listings)


def test_r9_2_listings_in_threads_under_two_rule_sets_list_what_one_thread_lists():
    assert mixed_listings(150) == 0


@pytest.mark.timeout(240)
def test_r9_2_listings_in_threads_under_two_rule_sets_run_from_source_list_what_one_thread_lists():
    # Run from source a thread may be switched out between any two lines, where compiled code holds the
    # interpreter throughout: this is where a rule set read by another thread could reach a listing.
    environment = {**os.environ, accelerator.PURE_PYTHON_VARIABLE: "1"}
    completed = subprocess.run(
        [sys.executable, "-c", "from tests.core.test_wild_rules import mixed_listings; print(mixed_listings(400))"],
        capture_output=True, text=True, env=environment, cwd=ROOT, timeout=200,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["0"]
