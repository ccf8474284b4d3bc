"""How a message tells a user to install an optional extra (canasta_sim.extras)."""

import tomllib
from pathlib import Path

import pytest

from canasta_sim.env.driver import missing_extra
from canasta_sim.errors import extra_packages, install_hint

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]


@pytest.mark.parametrize("extra", ["dask", "rl", "openspiel"])
def test_an_extras_hint_names_its_packages_as_pyproject_lists_them_and_the_checkouts_form(extra):
    assert extra_packages(extra) == EXTRAS[extra]
    hint = install_hint(extra)
    assert hint.startswith(f"install the {extra} extra: pip install ")
    assert all(f"'{package}'" in hint for package in EXTRAS[extra])
    assert hint.endswith(f"(in a checkout of canasta-sim: pip install '.[{extra}]')")


def test_an_environment_missing_its_extra_says_how_to_install_it_in_one_line():
    error = missing_extra(ModuleNotFoundError("No module named 'gymnasium'", name="gymnasium"),
                          "the Gymnasium environment", "rl")
    assert str(error) == ("the Gymnasium environment needs gymnasium (No module named 'gymnasium'); install the rl "
                          "extra: pip install 'pettingzoo>=1.24' 'gymnasium>=1.0' (in a checkout of canasta-sim: "
                          "pip install '.[rl]')")
    assert error.name == "gymnasium"
