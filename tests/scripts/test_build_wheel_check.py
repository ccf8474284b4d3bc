"""``scripts/build_wheel_check.py`` judges the built archives' file lists; the build itself takes minutes and runs
only as the script (docs/install.md), so these tests hand it lists."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import script_module

ROOT = Path(__file__).resolve().parents[2]
CHECK = script_module("build_wheel_check")

TRACKED = [".gitignore", "results/.gitkeep", "pyproject.toml", "sim/__init__.py", "strategies/__init__.py",
           "docs/index.md", "examples/my_bot.py", "scripts/check_compiled.py", "tests/test_smoke.py"]
WRITTEN = ["PKG-INFO", "setup.cfg", "canasta_sim.egg-info/SOURCES.txt"]


def test_an_sdist_of_the_tracked_files_and_the_builds_metadata_is_right():
    names = [name for name in TRACKED if name not in (".gitignore", "results/.gitkeep")] + WRITTEN
    assert CHECK.sdist_problems(names, TRACKED) == []


def test_an_sdist_missing_a_file_or_carrying_build_junk_is_named():
    names = [name for name in TRACKED if name not in (".gitignore", "results/.gitkeep", "examples/my_bot.py")]
    names += [*WRITTEN, "sim/core/engine.cpython-311-x86_64-linux-gnu.so", "sim/core/_compiled.json",
              "sim/__pycache__/cards.cpython-311.pyc", "build/cython/sim/core/engine.c", "notes.txt"]
    assert CHECK.sdist_problems(names, TRACKED) == [
        "the sdist carries sim/core/engine.cpython-311-x86_64-linux-gnu.so, which a build or a run leaves behind",
        "the sdist carries sim/core/_compiled.json, which a build or a run leaves behind",
        "the sdist carries sim/__pycache__/cards.cpython-311.pyc, which a build or a run leaves behind",
        "the sdist carries build/cython/sim/core/engine.c, which a build or a run leaves behind",
        "the sdist lacks examples/my_bot.py",
        "the sdist carries notes.txt, which git does not track",
        "the sdist has no examples/",
    ]


def wheel_of_this_checkout() -> list[str]:
    """The files a complete wheel of this checkout holds that the check looks for."""
    names = ["canasta_sim/__init__.py", "canasta_sim/cli/__init__.py", "canasta_sim/strategies/__init__.py",
             "canasta_sim/py.typed", "canasta_sim/terminal/replay.html",
             "canasta_sim/core/engine.cpython-311-x86_64-linux-gnu.so"]
    names += [f"canasta_sim/docs/{page.name}" for page in (ROOT / "docs").glob("*.md")]
    return names + [f"canasta_sim/examples/{name}" for name in ("imitation.py", "my_bot.py", "protocol/bot.js",
                                                                 "protocol/bot.py")]


def test_a_wheel_with_every_page_and_example_is_right():
    assert CHECK.wheel_problems(wheel_of_this_checkout()) == []


def test_a_wheel_without_the_examples_or_with_tests_and_c_sources_is_named():
    # The wheel held no examples, so the docs' `cmd:node examples/protocol/bot.js` had nothing to run.
    names = [name for name in wheel_of_this_checkout() if "/examples/" not in name]
    names += ["canasta_sim/core/engine.c", "tests/test_smoke.py"]
    assert CHECK.wheel_problems(names) == [
        "the wheel lacks canasta_sim/examples/imitation.py", "the wheel lacks canasta_sim/examples/my_bot.py",
        "the wheel lacks canasta_sim/examples/protocol/bot.js", "the wheel lacks canasta_sim/examples/protocol/bot.py",
        "the wheel carries canasta_sim/core/engine.c", "the wheel carries tests/test_smoke.py",
    ]


def test_a_wheel_without_the_typed_marker_is_named():
    # Without PEP 561's py.typed, mypy called the installed package "missing library stubs or py.typed marker" and
    # typed every name a bot imported from it as Any.
    names = [name for name in wheel_of_this_checkout() if name != "canasta_sim/py.typed"]
    assert CHECK.wheel_problems(names) == ["the wheel lacks canasta_sim/py.typed"]
