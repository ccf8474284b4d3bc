"""The optional extras (``dask``, ``rl``, ``openspiel``) and how a user installs one.

canasta-sim is installed from a checkout or from a wheel built from one, not from a package index, so
asking pip for an extra by the project's name (``canasta-sim[rl]``) finds nothing to install.  A message
about a missing extra names the packages themselves, which install anywhere, and the checkout's form.
"""

from __future__ import annotations

import importlib.metadata
import re

__all__ = ["extra_packages", "install_hint"]

_EXTRA_MARKER = re.compile(r"""^\s*(?P<requirement>[^;]+?)\s*;\s*extra\s*==\s*["'](?P<extra>[\w-]+)["']\s*$""")


def extra_packages(extra: str) -> list[str]:
    """The requirements the installed canasta-sim lists for ``extra`` (``['pettingzoo>=1.24', 'gymnasium>=1.0']``);
    empty when its metadata is not installed (the source run as it lies, never installed)."""
    try:
        requirements = importlib.metadata.requires("canasta-sim") or []
    except importlib.metadata.PackageNotFoundError:
        return []
    packages = []
    for requirement in requirements:
        match = _EXTRA_MARKER.match(requirement)
        if match is not None and match["extra"] == extra:
            packages.append(match["requirement"])
    return packages


def install_hint(extra: str) -> str:
    """How to install ``extra``, as a message ends: ``install the rl extra: pip install 'pettingzoo>=1.24'
    'gymnasium>=1.0' (in a checkout of canasta-sim: pip install '.[rl]')``."""
    checkout = f"pip install '.[{extra}]'"
    packages = extra_packages(extra)
    if not packages:
        return f"install the {extra} extra (in a checkout of canasta-sim: {checkout})"
    listed = " ".join(f"'{package}'" for package in packages)
    return f"install the {extra} extra: pip install {listed} (in a checkout of canasta-sim: {checkout})"
