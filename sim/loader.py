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
``isolated:SPEC``                          any of the above, run in a process of its own
``cmd:COMMAND ARGS[:KEY=VALUE,...]``       an executable speaking ``docs/protocol.md``
=========================================  ===============================================

Worker processes call :func:`load_strategy` with the same spec, so a user's
file works whatever the start method.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

from canasta_sim.errors import StrategyLoadError
from canasta_sim.isolation import is_bot_spec, load_bot_class
from canasta_sim.strategy import Strategy

__all__ = ["ENTRY_POINT_GROUP", "LoadedStrategy", "available_strategies", "load_strategy", "parse_spec"]

ENTRY_POINT_GROUP = "canasta_sim.strategies"
"""Installed packages register strategies under this entry-point group."""


@dataclasses.dataclass(frozen=True)
class LoadedStrategy:
    """A strategy class with the parameters its spec gave; calling it with an RNG builds one seat's player."""

    spec: str
    cls: type[Strategy]
    parameters: tuple[tuple[str, str], ...] = ()

    def __call__(self, rng: random.Random) -> Strategy:
        return self.cls(rng, **dict(self.parameters))

    def __reduce__(self):
        # Pickled as its spec, so a worker process reloads the class itself, whatever the start method.
        return (load_strategy, (self.spec,))

    @property
    def label(self) -> str:
        """``name@version`` of the strategy class."""
        return self.cls.label()


def parse_spec(spec: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Split a spec into its target and its ``key=value`` parameters.

    >>> parse_spec("expert:aggression=0.7")
    ('expert', (('aggression', '0.7'),))
    >>> parse_spec("bots/my_bot.py:MyBot:depth=2")
    ('bots/my_bot.py:MyBot', (('depth', '2'),))
    """
    if not spec or not spec.strip():
        raise StrategyLoadError(
            "empty strategy spec; use a built-in name, FILE.py:Class, module:Class or a plugin name"
        )
    parts = spec.strip().split(":")
    if any(not part.strip() for part in parts[1:]):
        raise StrategyLoadError(
            f"strategy spec {spec!r} has an empty part after a colon; use NAME, FILE.py:Class, "
            "module:Class, each optionally followed by :KEY=VALUE[,KEY=VALUE...]"
        )
    target_parts: list[str] = []
    parameters: list[tuple[str, str]] = []
    for index, part in enumerate(parts):
        if "=" in part and index > 0:
            for item in part.split(","):
                key, sep, value = item.partition("=")
                if not sep or not key.strip():
                    raise StrategyLoadError(f"strategy spec {spec!r}: parameter {item!r} is not KEY=VALUE")
                parameters.append((key.strip(), value.strip()))
        elif parameters:
            raise StrategyLoadError(f"strategy spec {spec!r}: parameters must come last")
        else:
            target_parts.append(part)
    return ":".join(target_parts), tuple(parameters)


def load_strategy(spec: str) -> LoadedStrategy:
    """Resolve a spec to a :class:`LoadedStrategy`, checking its parameters by building one instance.

    :raises StrategyLoadError: naming what was wrong (unknown name, missing file or class, a file
        that does not import, a class that is not a strategy, a bad parameter) and what is accepted.
    """
    if is_bot_spec(spec):
        cls, parameters = load_bot_class(spec)
    else:
        target, parameters = parse_spec(spec)
        cls = _resolve(target)
    loaded = LoadedStrategy(spec.strip(), cls, parameters)
    try:
        loaded(random.Random(0))  # surfaces unknown parameters and bad values now, not mid-run
    except StrategyLoadError:
        raise
    except Exception as error:  # the plugin's own constructor failed: report it with the spec
        raise StrategyLoadError(
            f"strategy {spec.strip()!r} cannot be built: {type(error).__name__}: {error}"
        ) from None
    return loaded


def _resolve(target: str) -> type[Strategy]:
    from canasta_sim.strategies import BUILTIN

    if target in BUILTIN:
        return BUILTIN[target]
    module_part, sep, class_name = target.rpartition(":")
    if not sep:
        plugin = _entry_points().get(target)
        if plugin is None:
            known = ", ".join(sorted(set(BUILTIN) | set(_entry_points())))
            raise StrategyLoadError(
                f"unknown strategy {target!r}; use one of: {known}, or FILE.py:Class, or module:Class"
            )
        try:
            obj = plugin.load()
        except Exception as error:  # a plugin that fails to import is reported, whatever the failure
            raise StrategyLoadError(
                f"strategy plugin {target!r} failed to load: {type(error).__name__}: {error}"
            ) from None
        return _check_class(obj, target)
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        module = _import_file(Path(module_part))
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as error:
            raise StrategyLoadError(f"strategy module {module_part!r} cannot be imported: {error}") from None
        except Exception as error:  # the module's own code failed while importing
            raise StrategyLoadError(
                f"strategy module {module_part!r} failed while importing: {type(error).__name__}: {error}"
            ) from None
    obj = getattr(module, class_name, None)
    if obj is None:
        raise StrategyLoadError(f"{module_part!r} has no class {class_name!r}")
    return _check_class(obj, target)


@functools.cache
def _import_file(path: Path):
    path = path.expanduser()
    if not path.is_file():
        raise StrategyLoadError(f"strategy file {str(path)!r} does not exist")
    # A name fixed by the file's path (not by the per-process string hash), the same in every worker.
    digest = hashlib.blake2b(str(path.resolve()).encode(), digest_size=6).hexdigest()
    module_name = f"canasta_user_strategy_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise StrategyLoadError(f"strategy file {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # any failure in the user's file is reported with its cause
        del sys.modules[module_name]
        raise StrategyLoadError(
            f"strategy file {str(path)!r} failed to import: {type(error).__name__}: {error}"
        ) from None
    return module


def _check_class(obj: Any, target: str) -> type[Strategy]:
    if not (isinstance(obj, type) and issubclass(obj, Strategy)):
        raise StrategyLoadError(f"{target!r} is not a subclass of canasta_sim.strategy.Strategy")
    return obj


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    return {point.name: point for point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def available_strategies() -> list[tuple[str, type[Strategy] | None, str]]:
    """List ``(spec name, class or None, where from)`` for built-ins and installed plugins."""
    from canasta_sim.strategies import BUILTIN

    found: list[tuple[str, type[Strategy] | None, str]] = [(name, cls, "built-in") for name, cls in BUILTIN.items()]
    for name, point in sorted(_entry_points().items()):
        try:
            cls = _check_class(point.load(), name)
        except Exception:  # listed as broken rather than hidden; check-strategy gives the reason
            cls = None
        found.append((name, cls, f"plugin {point.value}"))
    return found
