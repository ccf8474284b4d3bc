"""``scripts/fuzz_protocol.py`` runs the protocol readers' properties for as many inputs as asked, and says which
property broke, on what input."""

from __future__ import annotations

import pytest

from tests.helpers import script_module


@pytest.mark.timeout(60)
def test_a_campaign_reports_each_property_it_ran(capsys):
    module = script_module("fuzz_protocol")
    assert module.main(["--examples", "5", "--property", "record-text", "--property", "move-text", "--seed", "3"]) == 0
    output = capsys.readouterr().out
    assert "record-text: held on 5 inputs" in output and "move-text: held on 5 inputs" in output


@pytest.mark.timeout(60)
def test_a_broken_property_is_named_with_its_input(capsys, monkeypatch):
    module = script_module("fuzz_protocol")

    def broken(text):
        assert "meld" not in text, text

    check, arguments, examples = module.PROPERTIES["move-text"]
    monkeypatch.setitem(module.PROPERTIES, "move-text", (broken, arguments, examples))
    assert module.main(["--examples", "5", "--property", "move-text"]) == 1
    assert "move-text: broken (seed 0): AssertionError: meld" in capsys.readouterr().err
