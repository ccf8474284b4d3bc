"""Exit 0 when the installed canasta-sim runs every hot module compiled, 1 (saying which do not) otherwise.

cibuildwheel runs it on each wheel it builds (``[tool.cibuildwheel]`` in ``pyproject.toml``);
``--profile-guided`` (Linux wheels) also requires the profile-guided build (setup.py's default with GCC;
``CANASTA_SIM_PGO=0`` turns it off).
"""

from __future__ import annotations

import sys

from canasta_sim.core._compiled import accelerator


def main(argv: list[str] | None = None) -> int:
    """Print the build line; fail unless it is wholly compiled (and profile-guided, when asked)."""
    arguments = sys.argv[1:] if argv is None else argv
    if arguments not in ([], ["--profile-guided"]):
        print(f"check_compiled: unknown arguments {' '.join(arguments)}; accepted: --profile-guided", file=sys.stderr)
        return 2
    described = accelerator.describe()
    print(f"canasta-sim build: {described}")
    states = accelerator.status()
    if not states or any(state != "compiled" for state in states.values()):
        print(f"check_compiled: not every hot module runs compiled: {described}", file=sys.stderr)
        return 1
    if arguments and accelerator.profile_guided() is not True:
        why = accelerator.why_not_profile_guided()
        print(f"check_compiled: the build is not profile-guided: {described}{f' ({why})' if why else ''}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
