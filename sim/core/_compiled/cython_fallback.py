"""The few names of Cython's pure-Python mode the hot modules use, for plain Python without Cython.

The hot modules declare C types for their integer locals with ``@cython.locals(...)``.
Compiled, Cython reads those declarations; run as plain Python they must do nothing.  Where Cython is
installed, ``import cython`` gives its own no-op versions; where it is not, a hot module imports this
module under the name ``cython`` instead::

    try:
        import cython
    except ImportError:  # plain Python without Cython: the type declarations do nothing
        from canasta_sim.core._compiled import cython_fallback as cython

    Count = cython.typedef(cython.Py_ssize_t)

    @cython.locals(rank=Count, total=Count)
    def ...

Every integer so declared holds a card count, a kind, a seat or a small sum of them (well under
2**31), so C integers give the same values as Python's.  A local declared ``cython.double`` holds the
same IEEE double a Python float does; code that declares one makes the same operations in the same order
(the build forbids fused operations), so it rounds as plain Python does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["Py_ssize_t", "bint", "boundscheck", "cast", "compiled", "double", "locals", "typedef", "wraparound"]

compiled = False
"""Whether the module runs compiled: never, where this module stands in for Cython."""

Py_ssize_t = int
"""The C integer type of the declarations; plain ``int`` here."""

bint = bool
"""The C truth value of the declarations; plain ``bool`` here."""

double = float
"""The C double of the declarations; plain ``float`` here (the same IEEE double)."""


def typedef(type_: Any) -> Any:
    """A named type for declarations (``Count = cython.typedef(cython.Py_ssize_t)``); the type itself here."""
    return type_


def cast(type_: Any, value: Any) -> Any:
    """``value`` itself: compiled, ``cast(list, value)`` reads an object as the type named without a test, for a
    function that tests the object's type itself before it uses the object as one."""
    return value


def locals(**types: Any) -> Callable:  # noqa: A001 (the name Cython's pure-Python mode gives it)
    """A decorator that leaves the function as it is: the types matter only to the compiler."""

    def unchanged(function: Callable) -> Callable:
        return function

    return unchanged


def boundscheck(check: bool) -> Callable:
    """A decorator that leaves the function as it is: compiled, ``boundscheck(False)`` reads lists unchecked where
    the function has compared every index with the list's length itself (Python checks every index anyway)."""
    return locals()


def wraparound(wrap: bool) -> Callable:
    """A decorator that leaves the function as it is: compiled, ``wraparound(False)`` takes every index as
    counted from the start, for a function that uses no negative one (Python counts them from the end anyway)."""
    return locals()
