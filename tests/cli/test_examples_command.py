"""``canasta-sim examples``: the example bots the docs run by path, there where canasta-sim was installed from a wheel.

The docs ran ``cmd:node examples/protocol/bot.js`` and ``-s examples/my_bot.py:MyBot``, but a wheel held no
examples: from a wheel the protocol bot's handshake failed with Node's MODULE_NOT_FOUND.  They ship inside the
package now, and the command copies them where those commands expect them.
"""

from __future__ import annotations

import errno
import os
import re
import tomllib
from pathlib import Path

from click.testing import CliRunner

import canasta_sim
from canasta_sim.cli import main
from canasta_sim.cli.examples import example_files, examples_folder

ROOT = Path(__file__).resolve().parents[2]
NAMED = re.compile(r"\bexamples/([\w/]+\.(?:py|js))\b")


def test_every_example_the_docs_name_is_installed_with_the_package():
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert tool["package-dir"]["canasta_sim.examples"] == "examples" and "canasta_sim.examples" in tool["packages"]
    patterns = tool["package-data"]["canasta_sim.examples"]
    files = example_files(ROOT / "examples")
    assert all(any(name.match(pattern) for pattern in patterns) for name in files), files
    named = {name for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
             for name in NAMED.findall(page.read_text(encoding="utf-8"))}
    assert {"my_bot.py", "protocol/bot.js", "protocol/bot.py"} <= named
    assert named <= {str(name) for name in files}


def test_the_examples_are_copied_where_the_docs_commands_expect_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = CliRunner().invoke(main, ["examples"])
    assert first.exit_code == 0, first.output
    files = example_files()
    assert first.output.startswith(f"{len(files)} of {len(files)} examples copied into examples ")
    for name in files:
        assert (tmp_path / "examples" / name).read_bytes() == (examples_folder() / name).read_bytes()
    again = CliRunner().invoke(main, ["examples"])
    assert again.exit_code == 0 and again.output.startswith(f"0 of {len(files)} examples copied")


def test_a_file_of_the_users_in_the_way_stops_the_copy_before_anything_is_written(tmp_path):
    (tmp_path / "protocol").mkdir()
    (tmp_path / "protocol" / "bot.js").write_text("// my own bot\n")
    result = CliRunner().invoke(main, ["examples", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"Error: {tmp_path / 'protocol' / 'bot.js'} exists and is not the example; copy into another folder "
        f"(canasta-sim examples FOLDER) or move it away"]
    assert sorted(path.name for path in tmp_path.rglob("*")) == ["bot.js", "protocol"]


def test_an_installed_package_copies_its_own_examples(tmp_path, monkeypatch):
    # As a wheel installs it: site-packages/canasta_sim/examples/, nothing beside the package.
    package = tmp_path / "site-packages" / "canasta_sim"
    (package / "examples" / "protocol").mkdir(parents=True)
    (package / "examples" / "my_bot.py").write_text("# mine\n")
    (package / "examples" / "protocol" / "bot.js").write_text("// js\n")
    monkeypatch.setattr(canasta_sim, "__file__", str(package / "__init__.py"))
    located = CliRunner().invoke(main, ["examples", "--path"])
    assert located.exit_code == 0 and Path(located.output.strip()) == package / "examples"
    assert example_files() == [Path("my_bot.py"), Path("protocol/bot.js")]
    (package / "examples" / "my_bot.py").unlink()
    result = CliRunner().invoke(main, ["examples", str(tmp_path / "out")])
    assert result.exit_code == 1 and "holds no examples" in result.output


def test_a_copied_example_loads_as_the_docs_spell_its_spec(tmp_path, monkeypatch):
    from canasta_sim.plugins.loader import load_strategy

    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["examples"]).exit_code == 0
    loaded = load_strategy("examples/my_bot.py:MyBot")
    assert loaded.label == "my-bot@1" and Path(loaded.file) == tmp_path / "examples" / "my_bot.py"


def test_examples_into_a_folder_that_cannot_be_written_say_so_and_how_to_copy_elsewhere(tmp_path, monkeypatch):
    # In a read-only working folder (a container's) it ended in "writing failed: Read-only file system (examples); what
    # was written before is kept": no word of the FOLDER it could be given.
    def read_only(self, *arguments, **options):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(Path, "mkdir", read_only)
    result = CliRunner().invoke(main, ["examples"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert result.output == ("Error: the examples cannot be copied into examples: Read-only file system; give a folder "
                             "this user can write (canasta-sim examples FOLDER)\n")
