"""The digest of a strategy file's code that ``run.json`` records: the same for a comment or another layout, another
for another token, and the same under every Python the package supports (3.12 tokenizes f-strings in parts)."""

from __future__ import annotations

import sys

from canasta_sim.plugins.file_code import file_code, files_code
from canasta_sim.plugins.loader import load_strategy

SOURCE = '''class A:
    x = f"{1 + 2} b {f'{y!r:>{w}}'} {{esc}}"
    """doc"""
    def f(self):
        return rf"\\d{x}" + f"""multi
line {z}"""
'''


def test_a_files_code_is_its_tokens_comments_and_layout_aside(tmp_path):
    path = tmp_path / "bot.py"
    path.write_text(SOURCE)
    code = file_code(path)
    # Python 3.11, 3.12 and 3.13 give this digest (3.12 splits the f-strings into tokens where 3.11 gives one):
    # a run's record holds after an upgrade of Python.
    assert code == "sha256:0a488dbe0e39b78da0d7b8f198ec61f97e1ba7e70f47ca10bfcc02e5c87ecfc6"
    path.write_text("# a comment\n\n" + SOURCE.replace("    ", "  ").replace("def f(self):", "def f(self):  # why"))
    assert file_code(path) == code
    for changed in (SOURCE.replace("1 + 2", "1 + 3"), SOURCE.replace('"""doc"""', '"""a doc"""'),
                    SOURCE.replace("{1 + 2}", "{1+2}")):
        path.write_text(changed)
        assert file_code(path) != code, changed
    assert file_code(tmp_path / "gone.py") is None
    assert files_code(()) is None and files_code((str(tmp_path / "gone.js"),)) is None


def test_an_installed_modules_strategy_is_digested_by_its_source_and_a_built_in_is_not(tmp_path, monkeypatch):
    # A plugin's or an installed module's class changes with its package, its version possibly not: its source is its
    # code. A built-in's code changes with every release, its play only with its version, which its fingerprint holds.
    (tmp_path / "upgrade_probe_bots.py").write_text(
        "from canasta_sim.strategies.greedy import Greedy\n\n\nclass Probe(Greedy):\n    name = 'probe'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    probe = load_strategy("upgrade_probe_bots:Probe")
    assert probe.code_files == (str(tmp_path / "upgrade_probe_bots.py"),)
    assert probe.file_code == file_code(tmp_path / "upgrade_probe_bots.py") is not None
    assert load_strategy("greedy").code_files == () and load_strategy("greedy").file_code is None
    sys.modules.pop("upgrade_probe_bots", None)  # imported for this test alone
