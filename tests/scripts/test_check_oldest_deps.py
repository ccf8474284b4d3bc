"""``scripts/check_oldest_deps.py`` pins each dependency to the lowest release ``pyproject.toml`` admits, to install
and play on the oldest versions a user may hold."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import script_module

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_every_runtime_dependency_is_pinned_to_its_lower_bound():
    runtime, _contributor, _dev = script_module("check_oldest_deps").constraints(PYPROJECT)
    assert {"numpy", "pandas", "pyarrow", "click", "matplotlib", "tqdm", "greenlet", "orjson"} == set(runtime)
    assert runtime["numpy"] == "1.26" and runtime["pyarrow"] == "14"


def test_the_dev_tools_keep_the_runtime_pins_but_where_the_dev_extra_asks_a_newer_release():
    runtime, contributor, dev = script_module("check_oldest_deps").constraints(PYPROJECT)
    assert contributor["click"] == "8.2.1" and runtime["click"] == "8.1"
    assert {name: pin for name, pin in contributor.items() if name != "click"} == {
        name: pin for name, pin in runtime.items() if name != "click"}
    _runtime, lowest, _dev = script_module("check_oldest_deps").constraints(PYPROJECT, dev_lowest=True)
    assert lowest["pytest"] == "8" and lowest["dask"] == "2024.1" and len(lowest) == len(runtime) + len(dev) - 1


@pytest.mark.parametrize("requirement", ["numpy", "numpy<2", "numpy>=1.26,<3", "numpy==1.26"])
def test_a_requirement_without_a_lone_lower_bound_is_refused_naming_it(requirement):
    with pytest.raises(ValueError, match=f"{requirement!r} has no lower bound alone"):
        script_module("check_oldest_deps").lowest_pins([requirement])


def test_the_pin_is_the_lowest_release_offered_at_or_above_the_bound_where_the_bounds_own_is_missing():
    # setuptools>=77 was pinned as setuptools==77, which no index offers (77.0.0 is gone): the install failed.
    lowest = script_module("check_oldest_deps").lowest_release
    assert lowest("setuptools", "77", ["84.2.1", "78.0.1", "77.0.3", "77.0.1", "76.1.0", "78.0.0b1"]) == "77.0.1"
    assert lowest("numpy", "1.26", ["2.0.0", "1.26.4", "1.26.0", "1.26.0rc1", "1.25.2"]) == "1.26.0"
    with pytest.raises(ValueError, match="no release of click at or above 8.1"):
        lowest("click", "8.1", ["8.0.4", "8.1.0rc1"])
