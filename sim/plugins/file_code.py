"""What a strategy file's code is, as ``run.json`` records it: a digest of its tokens, comments and layout aside.

A run records the digest of each file spec's file; ``run --resume``, ``compare --resume`` and ``replay`` compare it
with the file's now, so that a file whose code changed while its ``name@version`` stayed the same is named before its
games are mixed with the run's, or replayed as if they were the run's.  A comment, a blank line or another
indentation width changes no token, so it changes no digest; a docstring is a token, and changes it.
"""

from __future__ import annotations

import hashlib
import io
import tokenize
from pathlib import Path

__all__ = ["file_code", "files_code"]

_LEFT_OUT = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER})
"""Tokens that carry no code: what a comment or the layout changes."""
_BY_KIND = {tokenize.INDENT: "<indent>", tokenize.DEDENT: "<dedent>", tokenize.NEWLINE: "<newline>"}
"""Tokens whose text is layout (an indentation's width, a line's end) but whose place is code."""
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


def file_code(path: str | Path) -> str | None:
    """``sha256:`` and the hex digest of the code of the Python file at ``path``, or ``None`` when it cannot be read or
    tokenized (no digest to compare: the file's loading says what is wrong with it).

    Python 3.12 splits an f-string into tokens where earlier Pythons give one: an f-string counts as its whole text
    either way, so that a run's digest holds after an upgrade of Python.
    """
    try:
        source = Path(path).read_bytes()
        tokens = list(tokenize.tokenize(io.BytesIO(source).readline))
    except (OSError, SyntaxError, ValueError, tokenize.TokenError):
        return None
    lines = source.decode(tokens[0].string if tokens and tokens[0].type == tokenize.ENCODING else "utf-8",
                          errors="replace").splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    text = "".join(lines)
    digest = hashlib.sha256()
    depth, opened = 0, 0
    for token in tokens:
        if _FSTRING_START is not None and token.type == _FSTRING_START:
            if depth == 0:
                opened = starts[token.start[0] - 1] + token.start[1]
            depth += 1
            continue
        if depth:
            if token.type == _FSTRING_END:
                depth -= 1
                if depth == 0:
                    digest.update(text[opened:starts[token.end[0] - 1] + token.end[1]].encode() + b"\0")
            continue
        if token.type not in _LEFT_OUT:
            digest.update(_BY_KIND.get(token.type, token.string).encode() + b"\0")
    return f"sha256:{digest.hexdigest()}"


def files_code(paths: tuple[str, ...]) -> str | None:
    """The digest of the code of ``paths``: a Python file's as :func:`file_code` reads it, another's (a script, a
    program) its bytes, each with its path; one Python file's is its :func:`file_code`.  ``None`` for no path, or one
    that cannot be read."""
    if len(paths) == 1 and paths[0].endswith(".py"):
        return file_code(paths[0])
    digest = hashlib.sha256()
    for path in paths:
        try:
            code = file_code(path) if path.endswith(".py") else Path(path).read_bytes()
        except OSError:
            return None
        if code is None:
            return None
        digest.update(path.encode() + b"\0" + (code.encode() if isinstance(code, str) else code) + b"\0")
    return f"sha256:{digest.hexdigest()}" if paths else None
