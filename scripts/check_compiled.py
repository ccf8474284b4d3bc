"""Exit 0 when the installed canasta-sim runs every hot module compiled, 1 (saying which do not) otherwise.

cibuildwheel runs it on each wheel it builds (``[tool.cibuildwheel]`` in ``pyproject.toml``).
"""

from __future__ import annotations

import sys

import canasta_sim.strategies  # noqa: F401  (registers the bots' compiled modules too)
from canasta_sim import accelerator


def main() -> int:
    """Print the build line; fail unless it is wholly compiled."""
    described = accelerator.describe()
    print(f"canasta-sim build: {described}")
    states = accelerator.status()
    if not states or any(state != "compiled" for state in states.values()):
        print(f"check_compiled: not every hot module runs compiled: {described}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
