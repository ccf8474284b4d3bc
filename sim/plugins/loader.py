"""Turning a strategy spec into a strategy.

A spec names a strategy and, optionally, its parameters after a colon-free
tail of ``key=value`` pairs:

=========================================  ===============================================
spec                                       strategy
=========================================  ===============================================
``expert``                                 a built-in (see :data:`canasta_sim.strategies.BUILTIN`)
``path/to/bot.py:MyBot``                   class ``MyBot`` in that file
``package.module:MyBot``                   class ``MyBot`` in an importable module
``mybot``                                  a plugin installed under the entry-point group
                                           ``canasta_sim.strategies``
``expert:aggression=0.7,patience=2``       any of the above, with parameters
``FORM:...``                               a spec form an installed package registers under
                                           the entry-point group ``canasta_sim.spec_forms``
                                           (``policy:FILE.py:NAME``: a trained policy, see
                                           :mod:`canasta_sim.env.policy`;
                                           ``openspiel:mcts``, ``openspiel:random``,
                                           ``openspiel:FILE.py:NAME``: an OpenSpiel bot, see
                                           :mod:`canasta_sim.env.spiel_bots`; ``played:...``: a
                                           game saved by ``canasta-sim play --save``, see
                                           :mod:`canasta_sim.terminal.played`)
``isolated:SPEC``                          any of the above, run in a process of its own
``cmd:COMMAND ARGS[:KEY=VALUE,...]``       an executable speaking ``docs/protocol.md``
=========================================  ===============================================

Worker processes call :func:`load_strategy` with the same spec, so a user's
file works whatever the start method.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import random
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from canasta_sim.core.strategy import Strategy
from canasta_sim.errors import StrategyError, StrategyLoadError, error_text
from canasta_sim.plugins.file_code import files_code
from canasta_sim.plugins.specs import (
    NAME_ACCEPTED,
    bot_processes_refusal,
    command_files,
    is_bot_spec,
    is_file_part,
    is_one_line,
    is_strategy_name,
    parse_spec,
    spec_file,
    split_target,
)
from canasta_sim.strategies import BUILTIN

__all__ = [
    "ENTRY_POINT_GROUP", "REQUIRED_DECISIONS", "LoadedStrategy", "available_strategies", "import_file",
    "import_named_module", "is_built_in_spec", "load_strategy", "machines_doing", "parse_spec", "spec_file",
]

_BUILT_IN_NAMES = frozenset(BUILTIN)
"""The built-ins' names as this module is imported, before it can import any strategy's file (which could add its
own class to :data:`~canasta_sim.strategies.BUILTIN`)."""

_CODE_FAILURES = (Exception, SystemExit)
"""What a strategy's own code may raise while it is imported or built, reported as the spec's failure: ``exit()``
among them, which would otherwise end the command with no word."""

ENTRY_POINT_GROUP = "canasta_sim.strategies"
"""Installed packages register strategies under this entry-point group."""
SPEC_FORM_GROUP = "canasta_sim.spec_forms"
"""Spec forms ``FORM:REST`` register under this entry-point group a function ``(REST, parameters)`` that
returns the strategy class, the parameters used up (canasta-sim's own ``policy`` form lives in a layer
the loader may not import, hence the indirection)."""


@dataclasses.dataclass(frozen=True)
class LoadedStrategy:
    """A strategy class with the parameters its spec gave; calling it with an RNG builds one seat's player."""

    spec: str
    cls: type[Strategy]
    parameters: tuple[tuple[str, str], ...] = ()
    file: str | None = None
    """For a file spec, the absolute path the class was loaded from (recorded in ``run.json``)."""

    def __call__(self, rng: random.Random) -> Strategy:
        return self.cls(rng, **dict(self.parameters))

    def __reduce__(self):
        # Pickled as its spec and file, so a worker process reloads the class itself, whatever the start
        # method and whatever its working directory.
        return (_reload, (self.spec, self.file))

    @property
    def label(self) -> str:
        """``name@version`` of the strategy class."""
        return self.cls.label()

    @property
    def code_files(self) -> tuple[str, ...]:
        """The files whose code :attr:`file_code` digests: a file spec's file, the files a ``cmd:`` bot's command
        names (:func:`~canasta_sim.plugins.specs.command_files`), or the source of an installed module's class
        (``mypackage.bots:Mine``, a plugin); ``()`` for canasta-sim's own classes, whose play their versions and
        fingerprints hold (their code changes with every release)."""
        if self.file is not None:
            return (self.file,)
        if is_bot_spec(self.spec):
            return command_files(self.spec)
        module = self.cls.__module__
        source = getattr(sys.modules.get(module), "__file__", None)
        if module.partition(".")[0] == "canasta_sim" or not isinstance(source, str) or not source.endswith(".py"):
            return ()
        return (str(Path(source).resolve()),)

    @property
    def file_code(self) -> str | None:
        """The digest of the code of :attr:`code_files` now (:func:`~canasta_sim.plugins.file_code.files_code`),
        which ``run.json`` records; ``None`` for a spec naming no file."""
        return files_code(self.code_files)

    def code_change(self, recorded: str | None, kept_by: str) -> str | None:
        """The clause naming this strategy's files when their code now differs from the ``recorded`` digest of
        :attr:`file_code` (``kept_by``: ``"the run's"``, ``"the tuning's"``) while its version stayed the same;
        ``None`` when it does not differ, or when either side has no digest (a run written before digests)."""
        if recorded is None or self.file_code in (None, recorded):
            return None
        return (f"the code of {self.spec!r} ({', '.join(self.code_files)}) differs from {kept_by}, yet it is still "
                f"{self.label}")


def is_built_in_spec(spec: str) -> bool:
    """Whether a valid ``spec`` plays one of canasta-sim's own strategies in the process that loads it (``expert``,
    ``greedy:freeze=0.5``; not ``isolated:greedy``, whose bot process runs no code of ours alone).

    A worker that dies during such a strategy's call was killed from outside (the OOM killer, ``kill -9``): the
    supervisor (:mod:`canasta_sim.runs.supervisor`) asks this in its own process, from the specs, never trusting
    what a worker, which runs the other strategies' code too, says of them."""
    return not is_bot_spec(spec) and parse_spec(spec)[0] in _BUILT_IN_NAMES


def machines_doing(failure: StrategyError) -> str | None:
    """The line saying the machine, not the strategy, ended a built-in's call: its process died during the call (the
    OOM killer, a ``kill -9``; ``crash``, which a built-in in this process can meet no other way) or the call ran out
    of memory (``MemoryError``), which a built-in keeping little cannot have caused; ``None`` for any other failure.

    For the commands that play single games (``check-strategy``, ``watch``, ``play``), as :func:`is_built_in_spec`
    is for a run's supervisor."""
    if not is_built_in_spec(failure.spec):
        return None
    if failure.reason == "crash":
        died = re.search(r"died (\([^)]*\))", failure.message)  # how, as the supervisor's words give it
        what = f"the game's process died {died.group(1)}" if died else "the game's process died"
    elif failure.reason == "exception" and failure.message.startswith("raised MemoryError"):
        what = "the game's process ran out of memory"
    else:
        return None
    return (f"{what} during a call of built-in strategy {failure.spec!r} (seat {failure.seat}, game seed "
            f"{failure.game_seed}, decision {failure.decision}), which it cannot have caused: is the machine short "
            "of memory, or killing the process? A strategy playing in the same process may hold the memory")


def borrows_built_in_name(spec: str, name: str) -> bool:
    """Whether the strategy of ``spec``, going by ``name``, takes a built-in's name without being that built-in (a copy
    of ``strategies/greedy.py`` that kept ``name = "greedy"``): its results would be read as the built-in's.  The
    built-in itself, in this process or ``isolated:``, with parameters or by its module and class, takes none."""
    if name not in _BUILT_IN_NAMES:
        return False
    target = spec.strip()
    if target.startswith("isolated:"):
        target = target[len("isolated:"):]
    try:
        target = parse_spec(target)[0]
    except StrategyLoadError:
        return True
    return target not in _BUILT_IN_NAMES and all(target != f"{cls.__module__}:{cls.__qualname__}"
                                                 for cls in BUILTIN.values())


def load_strategy(spec: str, *, file: str | None = None) -> LoadedStrategy:
    """Resolve a spec to a :class:`LoadedStrategy`, checking its parameters by building one instance.

    :param file: for a file spec, the file as a run recorded it (an absolute path): loaded instead of the
        spec's path, which is relative to the directory the run was started from. When it no longer
        exists the spec's own path is tried, and the error names both.
    :raises StrategyLoadError: naming what was wrong (unknown name, missing file or class, a file
        that does not import, a class that is not a strategy, a bad parameter) and what is accepted.
    """
    if is_bot_spec(spec):
        refused = bot_processes_refusal(spec)
        if refused is not None:
            raise StrategyLoadError(refused)
        # Imported here: only a bot spec needs the processes, pipes and greenlets, and a bot process, which loads
        # its own strategy through this module, needs none of them.
        from canasta_sim.plugins.proxy import load_bot_class

        cls, parameters = load_bot_class(spec, file=file)
        loaded_from = _isolated_file(spec, file)
    else:
        target, parameters = parse_spec(spec)
        form = _spec_form(target)
        if form is not None:
            cls, parameters, loaded_from = form(target.partition(":")[2], parameters), (), None
        else:
            cls, loaded_from = _resolve(target, file)
    loaded = LoadedStrategy(spec.strip(), cls, parameters, loaded_from)
    try:
        loaded(random.Random(0))  # surfaces unknown parameters and bad values now, not mid-run
    except StrategyLoadError:
        raise
    except _CODE_FAILURES as error:  # the plugin's own constructor failed: report it with the spec
        raise StrategyLoadError(
            f"strategy {spec.strip()!r} cannot be built: {error_text(error)}"
        ) from None
    return loaded


def load_strategies(specs, file_of=lambda spec: None) -> dict[str, LoadedStrategy]:
    """Every spec of ``specs`` loaded by :func:`load_strategy`, ``file_of(spec)`` its ``file``.

    :raises StrategyLoadError: one line for each spec that cannot be loaded, in the specs' order: a round robin of a
        class's files names every broken one at once, where it named the first and was refused again for the next.
    """
    loaded = {}
    problems = []
    for spec in specs:
        try:
            loaded[spec] = load_strategy(spec, file=file_of(spec))
        except StrategyLoadError as error:
            problems.append(" ".join(str(error).split("\n")))
    if problems:
        raise StrategyLoadError("\n".join(problems))
    return loaded


def _isolated_file(spec: str, file: str | None) -> str | None:
    """The absolute path of the file an ``isolated:FILE.py:Class`` spec's process loads, as ``bot_command`` picks it
    (``file``, the run's record, while it exists; else the spec's path from here), so that ``run.json`` records it
    as it records an in-process file spec's; ``None`` for other bot specs."""
    if not spec.strip().startswith("isolated:"):
        return None
    inner = spec_file(spec)
    if inner is None:
        return None
    return file if file is not None and Path(file).is_file() else str(inner)


def _reload(spec: str, file: str | None) -> LoadedStrategy:
    return load_strategy(spec, file=file)


_MAIN_MODULES = ("__main__", "__mp_main__")
"""The names a running program's own module goes by (``__mp_main__`` in a spawned worker).  Forked workers happen to
find a class of a notebook's cell there, a spawned worker never does, and a later ``--resume`` or ``replay`` finds
another program's module under the same name: so a spec naming it is refused wherever it is loaded, and a run's tables
never depend on how its workers started."""


def _resolve(target: str, file: str | None = None) -> tuple[type[Strategy], str | None]:
    if target in BUILTIN:
        return BUILTIN[target], None
    module_part, sep, class_name = split_target(target)
    if not sep:
        plugin = _entry_points().get(target)
        if plugin is None and is_file_part(target) and Path(target).expanduser().is_file():
            raise StrategyLoadError(f"strategy {target!r} names a file but no class: write FILE.py:Class; "
                                    f"{_strategy_classes(import_file(target))}")
        if plugin is None:
            known = ", ".join(sorted(set(BUILTIN) | set(_entry_points())))
            raise StrategyLoadError(
                f"unknown strategy {target!r}; use one of: {known}, or FILE.py:Class, or module:Class"
            )
        try:
            obj = plugin.load()
        except _CODE_FAILURES as error:  # a plugin that fails to import is reported, whatever the failure
            raise StrategyLoadError(
                f"strategy plugin {target!r} failed to load: {error_text(error)}"
            ) from None
        return _check_class(obj, target), None
    loaded_from = None
    if is_file_part(module_part):
        path = Path(module_part).expanduser()
        if file is not None and Path(file).is_file():
            path = Path(file)
        elif file is not None and not path.is_file() and Path(file) != path.resolve():
            raise StrategyLoadError(
                f"strategy file {module_part!r} does not exist here, nor where the run found it ({file!r})"
            )
        module = import_file(path)
        loaded_from = str(path.resolve())
    elif module_part in BUILTIN:
        # NAME:WORD reads as module:Class, but NAME is a built-in strategy: WORD is a parameter that lost its value (a
        # plugin's name may also be its module's, so only the built-ins are read so).
        raise StrategyLoadError(f"strategy {target!r}: {class_name!r} is no KEY=VALUE parameter of {module_part} "
                                f"(for example {module_part}:{class_name}=VALUE)")
    elif module_part in _MAIN_MODULES:
        raise StrategyLoadError(f"strategy {target!r}: a class defined in a notebook's cell or a script's __main__ is "
                                "in no module a run's workers, --resume or replay can load again; write it to a file "
                                "(in a notebook, a cell beginning %%writefile my_bot.py) and name it my_bot.py:"
                                f"{class_name}")
    else:
        module = import_named_module(module_part)
    obj = getattr(module, class_name, None)
    if obj is None:
        raise StrategyLoadError(f"{module_part!r} has no class {class_name!r}; {_strategy_classes(module)}")
    return _check_class(obj, target), loaded_from


def _strategy_classes(module) -> str:
    """The strategy classes a module defines (not those it imports), for the error naming a class it lacks."""
    own = sorted(name for name, value in vars(module).items()
                 if isinstance(value, type) and issubclass(value, Strategy) and value.__module__ == module.__name__)
    return f"its strategy classes: {', '.join(own)}" if own else "it defines no strategy class"


def import_file(path: str | Path, what: str = "strategy") -> ModuleType:
    """Import the Python file at ``path`` as a module, once per process: a second call for the same file, by any
    spelling of its path, returns the same module.

    The module's name is fixed by the file's absolute path, so it is the same in every worker process and pickled
    objects of the file's classes load there.  ``what`` names the file in errors (``strategy``, ``policy``).

    :raises StrategyLoadError: one line naming the file, when it does not exist, is not a Python file, or fails
        while importing (with the failure's type and message).
    """
    path = Path(path).expanduser()
    if not path.is_file():
        # A relative path is looked for from the working directory, which a resume may have changed: name it.
        where = "" if path.is_absolute() else f" (looked for in {Path.cwd()})"
        raise StrategyLoadError(f"{what} file {str(path)!r} does not exist{where}")
    resolved = path.resolve()
    module = _FILE_MODULES.get(resolved)
    if module is None:
        module = _FILE_MODULES[resolved] = _execute_file(path, resolved, what)
    return module


_FILE_MODULES: dict[Path, ModuleType] = {}
"""The modules :func:`import_file` imported, by the file's absolute path."""


def _execute_file(path: Path, resolved: Path, what: str) -> ModuleType:
    # A name fixed by the file's path (not by the per-process string hash), the same in every worker.
    digest = hashlib.blake2b(str(resolved).encode(), digest_size=6).hexdigest()
    module_name = f"canasta_user_strategy_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise StrategyLoadError(f"{what} file {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except _CODE_FAILURES as error:  # any failure in the user's file is reported with its cause
        del sys.modules[module_name]
        raise StrategyLoadError(
            f"{what} file {str(path)!r} failed to import: {error_text(error)}{_beside_hint(path, error)}"
        ) from None
    return module


def _beside_hint(path: Path, error: BaseException) -> str:
    """Advice for a file that imports a module lying beside it: Python puts a script's folder on the path, but a file
    spec loads that one file, leaving the path as it is (a folder of bots on it could shadow installed modules)."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return ""
    top = error.name.partition(".")[0]
    folder = path.resolve().parent
    for beside in (folder / f"{top}.py", folder / top):
        if beside.exists():
            return (f" ({beside.name} lies beside it, but a strategy file's folder is not on the Python path: "
                    f"set PYTHONPATH={folder})")
    return ""


REQUIRED_DECISIONS = ("choose_acquire", "choose_discard")
"""Decisions with no default in :class:`~canasta_sim.core.strategy.Strategy`: a strategy must override them."""


def _check_class(obj: Any, target: str, *, spec_form: bool = False) -> type[Strategy]:
    """``obj`` when it is a strategy class a spec may load, else a one-line :class:`StrategyLoadError` saying why.

    ``spec_form``: a class a spec form built, named after its spec (``openspiel:mcts``), so colons and a path's
    spaces may be in its name."""
    if not (isinstance(obj, type) and issubclass(obj, Strategy)):
        raise StrategyLoadError(f"{target!r} is not a strategy class: FILE.py:Class or module:Class must name a "
                                "subclass of canasta_sim.Strategy")
    # Found at load, not at a seat's first call mid-run nor as a puzzle in the tables.
    missing = [method for method in REQUIRED_DECISIONS if getattr(obj, method) is getattr(Strategy, method)]
    if missing:
        raise StrategyLoadError(
            f"strategy {target!r} (class {obj.__name__}) does not define {' and '.join(missing)}; "
            f"a strategy must override {', '.join(REQUIRED_DECISIONS)}"
        )
    # A subclass inheriting its parent's name would be recorded under the parent's label (greedy@2).
    own_name = vars(obj).get("name")
    if not isinstance(own_name, str) or not own_name.strip():
        inherited = f", so its results would be recorded as {obj.label()}" if obj is not Strategy else ""
        raise StrategyLoadError(
            f"strategy {target!r} (class {obj.__name__}) does not set its own name{inherited}; "
            "give the class a name = '...' of its own"
        )
    # The rule a bot's ready follows (plugins.protocol), so that a class loads alike in-process, isolated: or as a
    # cmd: bot: my@bot was recorded as the label my@bot@1, which no one can read back.
    if not (spec_form or is_strategy_name(own_name)):
        raise StrategyLoadError(
            f"strategy {target!r} (class {obj.__name__}) has name {own_name!r}; a strategy's name is one word "
            f"{NAME_ACCEPTED}"
        )
    if not is_one_line(obj.description):
        raise StrategyLoadError(
            f"strategy {target!r} (class {obj.__name__}) has a description of several lines; a description is one "
            "line of text (canasta-sim strategies shows it), as a bot's ready gives it"
        )
    # As a bot's ready must give it (plugins.protocol): "1" or 1.5 was recorded as given in-process, and the same
    # class refused once isolated.
    if type(obj.version) is not int:
        raise StrategyLoadError(
            f"strategy {target!r} (class {obj.__name__}) has version {obj.version!r}; a version is a whole number, "
            "such as version = 1, raised by one whenever the strategy's play changes"
        )
    return obj


def _spec_form(target: str):
    """The resolver registered for ``target``'s ``FORM:`` prefix, or ``None`` for the other spec forms."""
    form, sep, _ = target.partition(":")
    if not sep or not form.isidentifier():
        return None
    points = [point for point in _installed(SPEC_FORM_GROUP) if point.name == form]
    if not points:
        return None
    try:
        resolver = points[0].load()
    except Exception as error:  # the package providing the form fails to import
        raise StrategyLoadError(f"spec form {form!r} failed to load: {error_text(error)}") from None

    def resolve(rest: str, parameters: tuple[tuple[str, str], ...]) -> type[Strategy]:
        try:
            return _check_class(resolver(rest, parameters), target, spec_form=True)
        except StrategyLoadError:
            raise
        except Exception as error:  # the form's own resolver failed: reported with the spec
            raise StrategyLoadError(f"strategy spec {target!r}: {error_text(error)}") from None

    return resolve


def _installed(group: str) -> list:
    """The entry points installed packages register in ``group``."""
    # Imported here, when a spec names no built-in: importlib.metadata costs a process about 17 ms, and every bot
    # process loads its strategy through this module.
    import importlib.metadata

    return list(importlib.metadata.entry_points(group=group))


def _entry_points() -> dict:
    """The installed plugins by their spec name (:data:`ENTRY_POINT_GROUP`)."""
    return {point.name: point for point in _installed(ENTRY_POINT_GROUP)}


def available_strategies() -> list[tuple[str, type[Strategy] | None, str]]:
    """List ``(spec name, class or None, where from)`` for built-ins and installed plugins."""
    found: list[tuple[str, type[Strategy] | None, str]] = [(name, cls, "built-in") for name, cls in BUILTIN.items()]
    for name, point in sorted(_entry_points().items()):
        try:
            cls = _check_class(point.load(), name)
        except Exception:  # listed as broken rather than hidden; check-strategy gives the reason
            cls = None
        found.append((name, cls, f"plugin {point.value}"))
    return found


def import_named_module(name: str, what: str = "strategy"):
    """Import the module a spec names; a failure is a one-line :class:`StrategyLoadError` saying what for."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise StrategyLoadError(f"{what} module {name!r} cannot be imported: {error}") from None
    except _CODE_FAILURES as error:  # the module's own code failed while importing
        raise StrategyLoadError(
            f"{what} module {name!r} failed while importing: {error_text(error)}"
        ) from None
