"""Build step: compile the game's hot loop with Cython (docs/performance.md).

Everything else about the package is declared in ``pyproject.toml``.  The modules listed in
``COMPILED`` are compiled as they are, from the same ``.py`` files, with type annotations ignored so
that the compiled code keeps Python's semantics exactly and plays identical games.  Each compiled
module is optional: where it fails to build (no C compiler, say) the package still installs and
runs that module from its source, and ``canasta-sim --version`` says which it is.  A wheel in which no module
compiled is the pure ``py3-none-any`` wheel it is (``HonestWheel``); one with any compiled module keeps its
platform's tags.

Beside the compiled files of each package the build writes ``_compiled.json``, the SHA-256 of each
source it compiled; :mod:`canasta_sim.core._compiled.accelerator` uses it to run an edited source instead of its stale
compiled copy.

With GCC the build is profile-guided: it compiles the modules with counters, plays a few
short games with them (``_TRAINING``), and compiles them again with what the counters saw.  The code is
the same and plays the same games; its layout favours the paths a game takes, which the compiler cannot
guess, so fewer of them miss the instruction cache and the games run faster (docs/performance.md).  It
takes two compiles and the training, about two and a half times the compiling time, so
``CANASTA_SIM_PGO=0`` turns it off for a quicker install of the same games.  Where it cannot be done
(another compiler, a failed training) the build completes without it and says why.  ``_build.json``
beside the compiled files records which it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
# canasta_sim.core._compiled.accelerator.MANIFEST_NAME: setup.py must not import the package
MANIFEST_NAME = "_compiled.json"

# The modules a game spends its time in: the rules engine, the view and engine loop the bots talk
# through, and the helpers their inner loops call (only the core is compiled).  The runner, storage and
# analysis stay plain Python: they run once per chunk or per run, and they pickle, log and talk to pandas.
COMPILED = {
    "canasta_sim.core": [
        "cards",
        "moves",
        "identities",
        "melds",
        "going_out",
        "melding",
        "pile",
        "asking",
        "stock",
        "deal",
        "state",
        "meld_search",
        "legal",
        "scoring",
        "view",
        "strategy",
        "seats",
        "engine",
        "fingerprint",
        "meld_planning",
        "kernels",
        "wire",
    ],
}

# The import namespace is canasta_sim; its source folders keep the layout's names.
SOURCE_FOLDERS = {"canasta_sim.core": "sim/core"}
# The packages the training imports besides the compiled ones: the one above them, and the plain-Python bots.
PARENT_FOLDERS = {"canasta_sim": "sim", "canasta_sim.strategies": "strategies"}

# Python's semantics, not C's: annotations are documentation here, never C types.  The only C types are
# the locals a module declares with @cython.locals (see canasta_sim.core._compiled.cython_fallback): integers,
# and the doubles of the expert's discard scoring.
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}


# Floating-point results bit for bit those of plain Python: no fused multiply-adds (MSVC fuses none by
# default).  The few C doubles (sim/core/kernels.py, the discard costs) make Python's float operations in
# Python's order, so without fused operations they round as Python does.
FLOAT_FLAGS = [] if sys.platform == "win32" else ["-ffp-contract=off"]

# Calls into libpython through the global offset table, not through a stub: one jump fewer per call,
# and the hot loop calls the C API tens of times a move.  GCC and Clang on ELF platforms only.
CALL_FLAGS = ["-fno-plt"] if sys.platform.startswith("linux") else []

# No debugging information: the same machine code, a third less of the compiler's time (Python's own CFLAGS
# ask for -g).  Profilers still name every function from the symbol table.
DEBUG_FLAGS = [] if sys.platform == "win32" else ["-g0"]

PGO_VARIABLE = "CANASTA_SIM_PGO"
"""Set it to ``0`` for a build without profile guidance (one compile instead of two; slower games)."""

BUILD_RECORD_NAME = "_build.json"  # canasta_sim.core._compiled.accelerator.BUILD_RECORD_NAME

# The training: the built-in bots in the matchups people run (expert against greedy, the default, half of
# those games with a monitor as a run's workers play them, and each against random), long enough for the
# counters to see every kind of move, short enough for an install (about ten seconds).  Code the training
# never runs is optimized as without profiles (-fprofile-partial-training), so a strategy it does not
# play loses nothing.  The package is imported from the freshly built extensions ahead of the sources
# (argv: the package's folders and the compiled modules, as JSON); it prints "compiled", or the modules it
# played from source.  It runs in the build's environment, so it imports nothing beyond the engine and
# the bots: not the loader, whose bot processes need packages the build lacks (no pyarrow either: records
# is not trained).
_TRAINING = """
import importlib.abc, importlib.machinery, importlib.util, json, sys
folders = json.loads(sys.argv[1])
class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in folders:
            return None
        places = folders[name]
        return importlib.util.spec_from_file_location(
            name, places[-1] + "/__init__.py", submodule_search_locations=places)
sys.meta_path.insert(0, Finder())
from canasta_sim.arbiter import MONITOR_SIZE
from canasta_sim.core.engine import play_game
from canasta_sim.strategies import Expert as expert, Greedy as greedy, RandomPlay as random_play
monitor = memoryview(bytearray(8 * MONITOR_SIZE)).cast("d")
for game in range(40):
    first, second = (expert, greedy) if game % 2 == 0 else (greedy, expert)
    play_game([first, second, first, second], seed=7_000 + game, monitor=monitor if game >= 20 else None)
for game in range(10):
    play_game([expert, random_play, expert, random_play], seed=8_000 + game)
    play_game([random_play, greedy, random_play, greedy], seed=9_000 + game)
suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
played = [name for name in json.loads(sys.argv[2]) if name in sys.modules]
print(" ".join(name for name in played if not sys.modules[name].__file__.endswith(suffixes)) or "compiled")
"""

NO_COMPILE_VARIABLE = "CANASTA_SIM_NO_COMPILE"
"""Set it to ``1`` to install without compiling (seconds instead of minutes; the same games, slower)."""


def _declarations_folder() -> Path:
    """A folder holding each package's ``.pxd`` files under its import name (``canasta_sim/core/engine.pxd``).

    Cython finds a module's C declarations (the ``.pxd`` beside a ``.py``) by the module's
    import name, and the source folders are not named after the packages (``sim/`` is ``canasta_sim``).
    """
    folder = ROOT / "build" / "cython_declarations"
    for package, source in SOURCE_FOLDERS.items():
        target = folder.joinpath(*package.split("."))
        target.mkdir(parents=True, exist_ok=True)
        for old in target.glob("*.pxd"):
            old.unlink()
        for level in [target, *target.relative_to(folder).parents][:-1]:
            (folder / level / "__init__.pxd").write_text("")  # marks each folder a package for Cython's search
        for declarations in (ROOT / source).glob("*.pxd"):
            shutil.copyfile(declarations, target / declarations.name)
    return folder


def _training_folders(built_files: dict[str, str]) -> dict[str, list[str]]:
    """Each package the training imports, and its folders as absolute paths: the built files' first.

    ``built_files`` maps each compiled module to the file built for it.  Outside an editable install that
    path is relative to the build's working directory, and the training runs in another one.
    """
    folders: dict[str, list[str]] = {}
    for name, built_file in built_files.items():
        package = name.rpartition(".")[0]
        built = str(Path(built_file).resolve().parent)
        folders[package] = list(dict.fromkeys([built, str(ROOT / SOURCE_FOLDERS[package])]))
    for package, source in PARENT_FOLDERS.items():
        folders.setdefault(package, [str(ROOT / source)])
    return folders


def _profile_guidance_turned_off() -> bool:
    """Whether ``CANASTA_SIM_PGO`` turns the profiles off; any value but ``1``, ``0`` or unset stops the build."""
    setting = os.environ.get(PGO_VARIABLE, "")
    if setting not in ("", "0", "1"):
        raise SystemExit(f"canasta-sim: {PGO_VARIABLE} must be 1 (profile-guided, the default with GCC) or 0 "
                         f"(without), not {setting!r}")
    return setting == "0"


def _extensions() -> list[Extension]:
    if os.environ.get(NO_COMPILE_VARIABLE, "") not in ("", "0"):
        print(f"canasta-sim: {NO_COMPILE_VARIABLE} is set; installing the pure-Python engine", file=sys.stderr)
        return []
    _profile_guidance_turned_off()  # a mistyped setting stops the build now, not after minutes of cythonizing
    try:
        from Cython.Build import cythonize
    except ImportError:
        print("canasta-sim: Cython is not available; installing the pure-Python engine (slower)", file=sys.stderr)
        return []
    modules = [
        Extension(
            f"{package}.{module}",
            [f"{SOURCE_FOLDERS[package]}/{module}.py"],
            extra_compile_args=FLOAT_FLAGS + CALL_FLAGS + DEBUG_FLAGS,
        )
        for package, names in COMPILED.items()
        for module in names
    ]
    extensions = cythonize(
        modules,
        build_dir="build/cython",
        include_path=[str(_declarations_folder())],
        compiler_directives=DIRECTIVES,
        quiet=True,
        nthreads=os.cpu_count() or 1,  # a module per core: a fresh build translates for 4 s on 2 cores, not 9 on one
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
        if not self.extensions:
            super().run()
            return
        self._compiler_name = self.compiler  # run() replaces it with the compiler object; a rerun needs the name
        turned_off = _profile_guidance_turned_off()
        why_not = f"turned off: {PGO_VARIABLE}=0" if turned_off else self._why_not_profile_guided()
        if why_not is None:
            why_not = self._build_profile_guided()
        else:
            super().run()
        if not turned_off and why_not is not None:
            print(f"canasta-sim: built without profile guidance ({why_not}); the same games, slower", file=sys.stderr)
        folders = self._write_manifests(report=True)
        record = {"profile_guided": why_not is None, "without_profile_guidance": why_not}
        for folder in folders:
            (folder / BUILD_RECORD_NAME).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")

    def _why_not_profile_guided(self) -> str | None:
        """Why this build cannot be profile-guided, or None when it can (the compiler is GCC)."""
        if sys.platform == "win32" or self._compiler_name not in (None, "unix"):
            return "the compiler is not GCC"
        compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
        try:
            version = subprocess.run([compiler[0], "--version"], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError) as error:
            return f"the compiler did not say its version: {error}"
        # Clang answers to "gcc" on some systems, and wants its profiles merged by another tool first.
        if "Free Software Foundation" not in version or "clang" in version.lower():
            return f"the compiler {compiler[0]} is not GCC"
        return None

    def _build_profile_guided(self) -> str | None:
        """Build with counters, train, build again with the profiles; None, or why it did not."""
        profiles = tempfile.mkdtemp(prefix="canasta-sim-profiles-")
        original = {ext.name: (list(ext.extra_compile_args), list(ext.extra_link_args)) for ext in self.extensions}

        def build(compile_flags: list[str], link_flags: list[str]) -> None:
            for ext in self.extensions:
                compile_args, link_args = original[ext.name]
                ext.extra_compile_args = compile_args + compile_flags
                ext.extra_link_args = link_args + link_flags
            self.compiler = self._compiler_name
            super(BuildCompiledModules, self).run()

        try:
            generate = f"-fprofile-generate={profiles}"
            build([generate], [generate])
            if not all(Path(self.get_ext_fullpath(ext.name)).is_file() for ext in self.extensions):
                why_not = "a module did not compile with counters"
            else:
                why_not = self._train()
            if why_not is None:
                # records (the statistics tables) is not trained: it needs pyarrow, which the build lacks.
                use = [f"-fprofile-use={profiles}", "-fprofile-correction", "-fprofile-partial-training"]
                build([*use, "-Wno-missing-profile"], [])
            else:
                build([], [])
            return why_not
        finally:
            for ext in self.extensions:
                ext.extra_compile_args, ext.extra_link_args = original[ext.name]
            shutil.rmtree(profiles, ignore_errors=True)

    def _train(self) -> str | None:
        """Play the training games with the modules just built; None, or why it failed."""
        self._write_manifests(report=False)  # the training must run the fresh builds, not sources an old manifest names
        folders = _training_folders({ext.name: self.get_ext_fullpath(ext.name) for ext in self.extensions})
        compiled = json.dumps([ext.name for ext in self.extensions])
        try:
            completed = subprocess.run(
                [sys.executable, "-c", _TRAINING, json.dumps(folders), compiled],
                capture_output=True, text=True, timeout=600, cwd=tempfile.gettempdir(),
            )
        except (OSError, subprocess.SubprocessError) as error:
            return f"the training games did not run: {error}"
        if completed.returncode != 0:
            last = (completed.stderr.strip().splitlines() or ["no message"])[-1]
            return f"the training games failed: {last}"
        if completed.stdout.strip() != "compiled":
            return f"the training games ran these from source, not compiled: {completed.stdout.strip() or 'none'}"
        return None

    def _write_manifests(self, report: bool) -> list[Path]:
        """Write each package's manifest of the modules compiled now; the folders written."""
        manifests: dict[Path, dict[str, str]] = {}
        for ext in self.extensions:
            output = Path(self.get_ext_fullpath(ext.name))
            if not output.is_file():
                if report:
                        print(f"canasta-sim: {ext.name} was not compiled; it will run as plain Python", file=sys.stderr)
                continue
            package, _, module = ext.name.rpartition(".")
            source = ROOT / SOURCE_FOLDERS[package] / f"{module}.py"
            digest = hashlib.sha256(source.read_bytes()).hexdigest()
            manifests.setdefault(output.parent, {})[module] = digest
        for folder, recorded in manifests.items():
            (folder / MANIFEST_NAME).write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")
        return list(manifests)


def compiled_extensions(command: build_ext) -> list[str]:
    """The extension modules a finished ``build_ext`` built: those whose compiled file is there."""
    return [ext.name for ext in command.extensions if Path(command.get_ext_fullpath(ext.name)).is_file()]


class HonestWheel(bdist_wheel):
    """``bdist_wheel`` whose tags say what the wheel holds.

    setuptools tags a wheel for one platform and Python as soon as the project lists an extension module, built or
    not; every module here is optional, so a build with no C compiler held only Python files under a tag such as
    ``cp311-cp311-linux_x86_64``, which no other platform or Python installs.  This one builds first, and when no
    module compiled it makes the pure ``py3-none-any`` wheel those files are.  A wheel with any compiled module keeps
    its platform's tags.
    """

    def run(self) -> None:
        if not self.skip_build:
            # Built here as bdist_wheel would build, before it decides where the files go; then skipped there, or its
            # install step would compile every module again.
            scripts = self.reinitialize_command("build_scripts")
            scripts.executable, scripts.force = "python", True
            self.reinitialize_command("build_ext").inplace = False
            self.run_command("build")
            self.skip_build = True
        if self.distribution.ext_modules and not compiled_extensions(self.get_finalized_command("build_ext")):
            self.distribution.ext_modules = []  # installed as pure Python too, not under the wheel's platlib
            self.root_is_pure = True
        super().run()


if __name__ == "__main__":  # as pip, build and setuptools run it; the tests import the classes above
    setup(ext_modules=_extensions(), cmdclass={"build_ext": BuildCompiledModules, "bdist_wheel": HonestWheel})
