"""Strategy specs as a Windows user writes them: a path with a drive letter (``C:\\bots\\mine.py:Mine``), whose colon is
the path's, not the class's; and bot specs, refused in one line where their pipes cannot be waited on.

Read on Linux: the specs are parsed as text, and Windows's lack is :data:`~canasta_sim.plugins.specs.BOT_PIPES_WAITABLE`
set as it is there.  Whether a Windows path then opens is Windows's to say, and not tested here.
"""

from __future__ import annotations

import pytest

import canasta_sim.plugins.specs
from canasta_sim.errors import StrategyLoadError
from canasta_sim.plugins.loader import load_strategy
from canasta_sim.plugins.specs import file_spec_parts, spec_file
from tests.helpers import BOTS


def test_a_bot_spec_is_refused_in_one_line_where_its_pipes_cannot_be_waited_on(monkeypatch):
    monkeypatch.setattr(canasta_sim.plugins.specs, "BOT_PIPES_WAITABLE", False)
    with pytest.raises(StrategyLoadError, match="bot processes .* cannot run on Windows") as caught:
        load_strategy(f"isolated:{BOTS / 'late_failures.py'}:Raises")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("spec", "parts"), [
    (r"C:\bots\mine.py:Mine", (r"C:\bots\mine.py", "Mine", ())),
    (r"C:\bots\mine.py:Mine:depth=2", (r"C:\bots\mine.py", "Mine", (("depth", "2"),))),
    (r"isolated:D:/my bots/mine.py:Mine", ("D:/my bots/mine.py", "Mine", ())),
])
def test_a_windows_path_with_its_drive_letter_is_a_file_spec(spec, parts):
    assert file_spec_parts(spec) == parts
    assert spec_file(spec) is not None


def test_a_windows_file_spec_without_a_class_is_told_to_name_one():
    # The drive's colon was read as the class's: "strategy module 'C' cannot be imported".
    with pytest.raises(StrategyLoadError) as caught:
        load_strategy(r"C:\bots\mine.py")
    assert "module 'C'" not in str(caught.value) and "FILE.py:Class" in str(caught.value)


def test_a_policy_spec_of_a_windows_file_without_its_name_is_told_to_name_one():
    from canasta_sim.env.policy import policy_strategy_class

    with pytest.raises(StrategyLoadError, match=r"needs a target; use policy:FILE.py:NAME"):
        policy_strategy_class(r"C:\models\policy.py")
