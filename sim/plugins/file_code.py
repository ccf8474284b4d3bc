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

__all__ = ["file_code"]

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
