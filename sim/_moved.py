"""Old module paths that keep working: ``canasta_sim.moves`` is :mod:`canasta_sim.core.moves`, and so on.

The package was one flat folder before its modules moved into rooms by layer (:doc:`docs/architecture.md`).
Users' strategies, notebooks and scripts import the old paths, so each still names the very module object
of its new home (``canasta_sim.view is canasta_sim.core.view``), never a copy: classes compare equal and
pickles made under either name load.  ``python -m`` works with an old path too.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

MOVED = {
    **{name: f"core.{name}" for name in (
        "cards", "rules", "phases", "moves", "melds", "going_out", "melding", "pile", "state", "legal", "scoring",
        "view", "strategy", "parameters", "search", "engine")},
    "accelerator": "core._compiled.accelerator",
    "cython_fallback": "core._compiled.cython_fallback",
    "loader": "plugins.loader",
    "isolation": "plugins.proxy",
    "botprocess": "plugins.process",
    "botserver": "plugins.server",
    "protocol": "plugins.protocol",
    "viewmessage": "plugins.messages",
    **{name: f"runs.{name}" for name in (
        "records", "storage", "summary", "ratings", "sprt", "matchmaking", "runner", "supervisor", "dask_backend",
        "code_guard")},
    "report_sections": "analysis.sections",
    "spsa": "tuning.spsa",
    "tuning_run": "tuning.run",
    "narrate": "terminal.narrate",
    "human": "terminal.human",
    "commands": "cli",
}
"""Each old module name under ``canasta_sim`` and its new path under ``canasta_sim``.  (``canasta_sim.tuning``
and ``canasta_sim.analysis`` are packages now; their old contents are in ``tuning.iteration`` and
``analysis.notebook``, and ``canasta_sim.analysis`` re-exports its API.)"""


class _MovedLoader:
    """Loads an old name as the module of its new home, which it imports (the import system's loader protocol).

    The import protocol's classes are not subclassed: ``importlib.abc`` costs every process that imports the
    package about 12 ms, a bot process's start included, and the protocol needs only these methods."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module) -> None:
        """Nothing to run: the new home's module is already imported."""

    def get_code(self, fullname):
        """The new home's code, for ``python -m canasta_sim.OLD``."""
        return importlib.util.find_spec(self.target).loader.get_code(self.target)


class _MovedFinder:
    """Finds an old name's new home (the import system's meta path finder protocol: ``find_spec``)."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.partition(".")
        old, _, rest = name.partition(".")
        if package != "canasta_sim" or old not in MOVED:
            return None
        new = f"canasta_sim.{MOVED[old]}" + (f".{rest}" if rest else "")
        return importlib.util.spec_from_loader(fullname, _MovedLoader(new))


def install() -> None:
    """Make the old paths importable (once; the package's ``__init__`` calls it)."""
    if not any(isinstance(finder, _MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
