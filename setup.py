"""Build step: compile the game's hot loop with Cython (issue #8; README, "Why it is fast").

Everything else about the package is declared in ``pyproject.toml``.  The modules listed in
``COMPILED`` are compiled as they are, from the same ``.py`` files, with type annotations ignored so
that the compiled code keeps Python's semantics exactly and plays identical games.  Each compiled
module is optional: where it fails to build (no C compiler, say) the package still installs and
runs that module from its source, and ``canasta-sim --version`` says which it is.

Beside the compiled files of each package the build writes ``_compiled.json``, the SHA-256 of each
source it compiled; :mod:`canasta_sim.accelerator` uses it to run an edited source instead of its stale
compiled copy.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
MANIFEST_NAME = "_compiled.json"  # canasta_sim.accelerator.MANIFEST_NAME; setup.py must not import the package

# The modules a game spends its time in: the rules engine, the view and engine loop the bots talk
# through, and the built-in bots.  The runner, storage and analysis stay plain Python: they run once
# per chunk or per run, and they pickle, log and talk to pandas.
COMPILED = {
    "canasta_sim": [
        "cards",
        "moves",
        "melds",
        "going_out",
        "melding",
        "pile",
        "state",
        "legal",
        "scoring",
        "view",
        "strategy",
        "engine",
        "records",
    ],
    "canasta_sim.strategies": ["random_play", "greedy", "expert"],
}

# The import namespace is canasta_sim (issue #13); its source folders keep the layout's names.
SOURCE_FOLDERS = {"canasta_sim": "sim", "canasta_sim.strategies": "strategies"}

# Python's semantics, not C's: annotations are documentation here, never C types.  The only C types are
# the locals a module declares with @cython.locals (issue #18; canasta_sim.cython_fallback): integers,
# and the doubles of the expert's discard scoring.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}


# Floating-point results bit for bit those of plain Python: no fused multiply-adds (MSVC fuses none by
# default).  The few C doubles (strategies/expert.py, _discard_costs) make Python's float operations in
# Python's order, so without fused operations they round as Python does.
FLOAT_FLAGS = [] if sys.platform == "win32" else ["-ffp-contract=off"]

NO_COMPILE_VARIABLE = "CANASTA_SIM_NO_COMPILE"
"""Set it to ``1`` to install without compiling (seconds instead of minutes; the same games, slower)."""


def _declarations_folder() -> Path:
    """A folder holding each package's ``.pxd`` files under its import name (``canasta_sim/engine.pxd``).

    Cython finds a module's C declarations (issue #18: the ``.pxd`` beside a ``.py``) by the module's
    import name, and the source folders are not named after the packages (``sim/`` is ``canasta_sim``).
    """
    folder = ROOT / "build" / "cython_declarations"
    for package, source in SOURCE_FOLDERS.items():
        target = folder.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for old in target.glob("*.pxd"):
            old.unlink()
        (target / "__init__.pxd").write_text("")  # marks the folder a package for Cython's search
        for declarations in (ROOT / source).glob("*.pxd"):
            shutil.copyfile(declarations, target / declarations.name)
    return folder


def _extensions() -> list[Extension]:
    if os.environ.get(NO_COMPILE_VARIABLE, "") not in ("", "0"):
        print(f"canasta-sim: {NO_COMPILE_VARIABLE} is set; installing the pure-Python engine", file=sys.stderr)
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("canasta-sim: Cython is not available; installing the pure-Python engine (slower)", file=sys.stderr)
        return []
    modules = [
        Extension(f"{package}.{module}", [f"{SOURCE_FOLDERS[package]}/{module}.py"], extra_compile_args=FLOAT_FLAGS)
        for package, names in COMPILED.items()
        for module in names
    ]
    extensions = cythonize(
        modules,
        build_dir="build/cython",
        include_path=[str(_declarations_folder())],
        compiler_directives=DIRECTIVES,
        quiet=True,
    )
    for extension in extensions:
        # cythonize drops this flag, so set it on what it returns: a module that fails to compile
        # stays plain Python instead of failing the install.
        extension.optional = True
    return extensions


class BuildCompiledModules(build_ext):
    """``build_ext`` that builds in parallel and records what it compiled in each package's manifest."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def build_extension(self, ext: Extension) -> None:
        # A copy left from an earlier build must not pass for this one if this one fails.
        Path(self.get_ext_fullpath(ext.name)).unlink(missing_ok=True)
        super().build_extension(ext)

    def run(self) -> None:
        super().run()
        manifests: dict[Path, dict[str, str]] = {}
        for ext in self.extensions:
            output = Path(self.get_ext_fullpath(ext.name))
            if not output.is_file():
                print(f"canasta-sim: {ext.name} was not compiled; it will run as plain Python", file=sys.stderr)
                continue
            package, _, module = ext.name.rpartition(".")
            source = ROOT / SOURCE_FOLDERS[package] / f"{module}.py"
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
            manifests.setdefault(output.parent, {})[module] = digest
        for folder, recorded in manifests.items():
            (folder / MANIFEST_NAME).write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildCompiledModules})
