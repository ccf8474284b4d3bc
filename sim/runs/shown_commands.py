"""Commands shown to the user to type (``canasta-sim run --resume RUN``, ``canasta-sim replay RUN 8 --debug``), with
each word quoted for the shell of this platform.

POSIX shells read ``shlex.quote``'s single quotes; cmd.exe does not (``'C:\\Users\\Ann Lee\\run'`` is two words
there, the quotes kept), while cmd.exe and PowerShell both read double quotes.  So on Windows a word that needs
quoting is put in double quotes, with the backslash escapes the Windows C runtime reads (``"C:\\Users\\Ann Lee\\run"``).
Inside double quotes cmd.exe still expands ``%NAME%`` and PowerShell ``$name``: a path holding them is shown as it is.

The command a run records (``run.json``'s ``command``) is not shown but read back by canasta-sim, on any platform: it
keeps POSIX quoting.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Iterable

__all__ = ["WINDOWS", "join_shown", "quote_shown"]

WINDOWS = sys.platform == "win32"
"""Whether commands are shown for Windows' shells."""

_PLAIN = re.compile(r"[\w@+=:,./\\-]+", re.ASCII)
"""A word every shell here reads as it is: letters, digits and punctuation none of them gives a meaning to."""


def quote_shown(word: str) -> str:
    """``word`` as the user types it in this platform's shell: ``'my runs/club'`` on POSIX, ``"my runs/club"`` on
    Windows."""
    if not WINDOWS:
        return shlex.quote(word)
    if _PLAIN.fullmatch(word):
        return word
    quoted, backslashes = [], 0
    for character in word:
        if character == "\\":
            backslashes += 1
            continue
        # Backslashes are literal but before a double quote, where each pair is one and an odd one escapes it.
        quoted.append("\\" * (2 * backslashes + 1) + '"' if character == '"' else "\\" * backslashes + character)
        backslashes = 0
    return '"' + "".join(quoted) + "\\" * (2 * backslashes) + '"'


def join_shown(words: Iterable[str]) -> str:
    """``words`` as one command the user types in this platform's shell (:func:`quote_shown` each)."""
    return " ".join(quote_shown(word) for word in words)
