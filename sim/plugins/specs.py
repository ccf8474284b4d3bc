"""The grammar of strategy specs: a target, then optional ``:KEY=VALUE[,KEY=VALUE...]`` parameters.

Both the loader (:mod:`canasta_sim.plugins.loader`) and the strategy processes
(:mod:`canasta_sim.plugins.proxy`) read specs; this module, which imports neither, is the grammar they share.
"""

from __future__ import annotations

from pathlib import Path

from canasta_sim.errors import StrategyLoadError

__all__ = ["BOT_PREFIXES", "is_bot_spec", "is_file_part", "parse_spec", "spec_file"]

BOT_PREFIXES = ("isolated:", "cmd:")
"""Spec prefixes that run a strategy in a process of its own (:mod:`canasta_sim.plugins.proxy`)."""


def is_bot_spec(spec: str) -> bool:
    """Whether ``spec`` runs its strategy in a process of its own."""
    return spec.strip().startswith(BOT_PREFIXES)


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


def spec_file(spec: str) -> Path | None:
    """The absolute path of a file spec's file, resolved from the working directory; ``None`` for other specs.

    An ``isolated:`` spec's file is its inner spec's: the file is loaded in the bot's process, from this path.

    >>> spec_file("expert") is None
    True
    """
    spec = spec.strip()
    if spec.startswith("isolated:"):  # the loader's prefix, spelled here because this module imports no loader
        spec = spec[len("isolated:"):]
    try:
        target, _ = parse_spec(spec)
    except StrategyLoadError:
        return None  # loading the spec reports what is wrong with it
    module_part, sep, _ = target.rpartition(":")
    if sep and is_file_part(module_part):
        return Path(module_part).expanduser().resolve()
    return None


def is_file_part(module_part: str) -> bool:
    """Whether the part before ``:Class`` of a target names a file (``bot.py``, ``bots/bot``), not a module."""
    return module_part.endswith(".py") or "/" in module_part or "\\" in module_part
