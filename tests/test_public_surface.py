"""What users import: the top-level strategy-writing API, and the flat module paths of earlier code.

Users' bots, notebooks and scripts import ``canasta_sim.moves``, ``canasta_sim.view`` and the other flat paths the
docs showed before the package was split into rooms; each must still be the very module of its new home.
"""

import importlib
import pickle
import subprocess
import sys

import pytest

import canasta_sim
from canasta_sim._moved import MOVED

USER_MODULES = ["moves", "strategy", "cards", "view", "rules", "errors", "parameters", "strategies", "analysis", "env"]
"""The modules the docs teach strategy writers and analysts to import."""


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_module_of_its_new_home(old):
    assert importlib.import_module(f"canasta_sim.{old}") is importlib.import_module(f"canasta_sim.{MOVED[old]}")


@pytest.mark.parametrize("name", USER_MODULES)
def test_every_module_users_import_still_imports(name):
    module = importlib.import_module(f"canasta_sim.{name}")
    assert module.__doc__


def test_names_imported_through_an_old_path_are_the_same_objects():
    from canasta_sim.core.moves import Meld as new_meld
    from canasta_sim.moves import Meld as old_meld
    from canasta_sim.strategy import Strategy
    from canasta_sim.view import SeatView

    assert old_meld is new_meld and Strategy is canasta_sim.Strategy and SeatView is canasta_sim.SeatView
    move = canasta_sim.parse_move("meld 9 9 9")
    assert isinstance(move, old_meld) and pickle.loads(pickle.dumps(move)) == move


def test_an_unknown_module_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("canasta_sim.no_such_module")


def test_the_top_level_offers_the_whole_strategy_writing_api():
    wanted = {"Strategy", "SeatView", "PublicEvent", "Parameter", "Rules", "play_game", "parse_move", "Draw",
              "TakePile", "Meld", "MeldGroup", "Ask", "Answer", "Discard", "Stop", "Move", "JOKER", "TWO",
              "BLACK_THREE", "RED_THREE", "KIND_VALUE", "IllegalMoveError", "StrategyError",
              # on_hand_end's argument and its sides: a typed strategy annotates the hook with it.
              "HandResult", "SideHandResult"}
    assert wanted <= set(canasta_sim.__all__)
    assert all(getattr(canasta_sim, name) is not None for name in canasta_sim.__all__)


def test_the_analysis_package_offers_the_notebook_api():
    from canasta_sim import analysis
    from canasta_sim.analysis import notebook

    wanted = {"LoadedRun", "cross_table", "entrants_of", "label_teams", "load_run", "matchmaking", "paired_results",
              "ratings", "strategy_names", "summarize", "summary_rows", "with_strategy_names"}
    assert set(analysis.__all__) == wanted
    assert all(getattr(analysis, name) is getattr(notebook, name) for name in wanted)


@pytest.mark.timeout(60)
def test_python_dash_m_runs_a_module_by_its_old_path():
    completed = subprocess.run([sys.executable, "-m", "canasta_sim.botserver"], capture_output=True, text=True,
                               timeout=60)
    assert completed.returncode == 2 and "usage: python -m canasta_sim.plugins.server SPEC" in completed.stderr
