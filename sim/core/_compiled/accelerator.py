"""Compiled modules and their pure-Python fallback (docs/performance.md).

Installing canasta-sim compiles the modules of the game's hot loop (the core: the rules, the engine and
the helpers strategies call) with Cython, unchanged: the same ``.py`` files, compiled with annotations
ignored, so compiled and plain Python play identical games (``tests/core/equivalence/test_accelerator.py``
checks it).  The build writes a
manifest, ``_compiled.json``, beside the compiled files of each package: the SHA-256 of every source
file it compiled.

At import, :func:`use_sources_where_needed` reads that manifest and sends the import of a module to
its ``.py`` source instead of its compiled file when

* the environment variable ``CANASTA_SIM_PURE_PYTHON`` is set to anything but ``""`` or ``"0"``
  (for profiling, or to compare the two), or
* the source changed since it was compiled (an edited editable install), which also warns once,
  naming the files and how to recompile them.

Without a manifest (no compiler at install time) every module is plain Python already.
:func:`status` and :func:`describe` tell which modules run compiled.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path

MANIFEST_NAME = "_compiled.json"
"""The file the build writes beside a package's compiled modules: module name to source SHA-256."""

PURE_PYTHON_VARIABLE = "CANASTA_SIM_PURE_PYTHON"
"""Set it (to anything but ``""`` or ``"0"``) to run every module from its Python source."""


BUILD_RECORD_NAME = "_build.json"
"""Beside the compiled files: how they were built (``profile_guided``, and ``without_profile_guidance``: why not)."""

LINKED_MODULES = {
    "canasta_sim.core": (
        frozenset({
            "cards", "moves", "melds", "melding", "pile", "asking", "stock", "deal", "state", "view", "engine",
            "legal", "meld_search", "going_out", "scoring", "kernels", "meld_planning", "fingerprint", "wire",
            "strategy", "seats", "identities",
        }),
    ),
}
"""Modules compiled against each other's C declarations (the hand state is one extension type
built in five modules, ``sim/core/melding.pxd``; the view, the engine and its seats, the listings and the searches
read its fields and call each other's C functions; the wire reads the event records' fields): they run all
compiled or all from source, never mixed.  Only the core is compiled, so a group names modules of its own
package."""


class StaleCompiledModuleWarning(RuntimeWarning):
    """A compiled module is older than its source, so the source is used instead (slower)."""


def pure_python_requested(environment: dict[str, str] | None = None) -> bool:
    """Whether ``CANASTA_SIM_PURE_PYTHON`` asks for every module to run from its source."""
    value = (os.environ if environment is None else environment).get(PURE_PYTHON_VARIABLE, "")
    return value not in ("", "0")


def source_digest(path: Path) -> str:
    """The SHA-256 of a source file, as the build records it in the manifest."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


class _SourceFinder:
    """Imports the registered modules from their ``.py`` file, ahead of the compiled file beside it (a meta path
    finder: the import system asks only its ``find_spec``, so ``importlib.abc``, slow to import, is not needed)."""

    def __init__(self) -> None:
        self.sources: dict[str, Path] = {}

    def find_spec(self, fullname, path=None, target=None):
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(
            fullname, source, loader=importlib.machinery.SourceFileLoader(fullname, str(source))
        )


_FINDER = _SourceFinder()
_REGISTERED: dict[str, list[str]] = {}


def use_sources_where_needed(
    package: str, folder: str | os.PathLike, environment: dict[str, str] | None = None
) -> list[str]:
    """Route the imports of ``package``'s compiled modules to their sources where they must not be used.

    Called by a package's ``__init__`` before it imports its modules.  Returns the names of the
    modules sent to their source because the source changed since it was compiled.
    """
    folder = Path(folder)
    manifest = folder / MANIFEST_NAME
    if not manifest.is_file():
        return []
    recorded = json.loads(manifest.read_text())
    _REGISTERED[package] = sorted(recorded)
    pure = pure_python_requested(environment)
    stale = []
    changed = {module for module, digest in recorded.items() if not pure and _changed(folder, module, digest)}
    for group in LINKED_MODULES.get(package, ()):
        # A member changed, or not compiled at all (a failed compile), takes the group to its source.
        if any(member in changed or member not in recorded for member in group):
            changed |= group & recorded.keys()  # a linked module runs from source with the changed one
    for module in sorted(recorded):
        source = folder / f"{module}.py"
        if not source.is_file():
            continue
        if not pure:
            if module not in changed:
                continue
            stale.append(f"{package}.{module}")
        _FINDER.sources[f"{package}.{module}"] = source
    if _FINDER.sources and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    if stale:
        warnings.warn(
            f"canasta-sim: {', '.join(stale)} changed since compiled; running the source (slower). "
            f"Recompile with `pip install -e .`, or set {PURE_PYTHON_VARIABLE}=1 to run all from source.",
            StaleCompiledModuleWarning,
            stacklevel=2,
        )
    return stale


def _changed(folder: Path, module: str, digest: str) -> bool:
    source = folder / f"{module}.py"
    return source.is_file() and source_digest(source) != digest


def status() -> dict[str, str]:
    """Each module the build compiled, imported now, and whether it runs ``"compiled"`` or from ``"source"``."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    found = {}
    for package, modules in sorted(_REGISTERED.items()):
        for module in modules:
            name = f"{package}.{module}"
            loaded = importlib.import_module(name)
            found[name] = "compiled" if str(loaded.__file__).endswith(suffixes) else "source"
    return found


def _build_records(folders: list[Path] | None) -> list[dict | None]:
    """The build record (``_build.json``) of each of ``folders``, None for a folder without one (default: the folders
    of the packages imported now)."""
    if folders is None:
        folders = [Path(importlib.import_module(package).__path__[0]) for package in sorted(_REGISTERED)]
    records = []
    for folder in folders:
        record = Path(folder) / BUILD_RECORD_NAME
        records.append(json.loads(record.read_text()) if record.is_file() else None)
    return records


def profile_guided(folders: list[Path] | None = None) -> bool | None:
    """Whether the compiled modules were built profile-guided; None when no build record says.

    ``folders``: the packages' folders holding the compiled files and their ``_build.json`` (default:
    those of the packages imported now).  ``CANASTA_SIM_PGO=1 pip install ...`` asks ``setup.py`` for
    GCC's profile-guided build.  The record is missing where nothing was compiled, or from a
    build older than the record.
    """
    records = _build_records(folders)
    if None in records:
        return None
    return all(record.get("profile_guided") is True for record in records) if records else None


def why_not_profile_guided(folders: list[Path] | None = None) -> str | None:
    """Why the compiled modules were built without profile guidance, as their build records say; None when
    they were profile-guided or no record says (``folders`` as for :func:`profile_guided`).

    pip shows the build's own messages only with ``-v``, so ``--version`` repeats the recorded reason.
    """
    reasons = []
    for record in _build_records(folders):
        reason = None if record is None else record.get("without_profile_guidance")
        if reason and reason not in reasons:
            reasons.append(reason)
    return "; ".join(reasons) or None


def describe() -> str:
    """One line for ``--version``, ``run.json`` and the benchmark: how much of the hot loop is compiled."""
    modules = status()
    compiled = sum(state == "compiled" for state in modules.values())
    if not modules:
        return "pure Python (nothing was compiled at install)"
    if compiled == 0 and pure_python_requested():
        return f"pure Python ({PURE_PYTHON_VARIABLE} is set)"
    if compiled == len(modules):
        guided = {True: ", profile-guided", False: ", not profile-guided", None: ""}[profile_guided()]
        return f"compiled ({compiled} of {len(modules)} hot modules){guided}"
    from_source = ", ".join(name for name, state in modules.items() if state == "source")
    return f"partly compiled ({compiled} of {len(modules)} hot modules; from source: {from_source})"
