"""Static accessibility checks of a written HTML page, without a browser: what a screen reader needs from the markup.

:func:`markup_problems` reads a page with the standard library's parser and names each problem in a few words: no
language, a header cell without its scope, a picture without words, a control or frame without a name, a heading that
skips a level.  The browser tests (``tests/html``) check what the page's script draws; these run in the ordinary suite.
"""

from __future__ import annotations

from html.parser import HTMLParser

_CONTROLS = {"button", "select", "input", "textarea"}


class _Reader(HTMLParser):
    """Collects the facts :func:`markup_problems` judges, tag by tag (the page's script and data are skipped)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.levels: list[int] = []
        self.language = ""
        self._labels = 0  # open <label> elements: a control inside one is named by it
        self._named: list[tuple[str, bool, list[str]]] = []  # open controls: (tag, named by an attribute, text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "html":
            self.language = values.get("lang", "")
        elif tag == "th" and values.get("scope") not in ("col", "row", "colgroup", "rowgroup"):
            self.problems.append(f"a header cell without scope: {values}")
        elif tag == "img" and not values.get("alt", "").strip():
            self.problems.append(f"a picture without alt text: {values.get('id') or values.get('src', '')[:40]}")
        elif tag == "iframe" and not values.get("title", "").strip():
            self.problems.append("a frame without a title")
        elif tag == "label":
            self._labels += 1
        elif len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.levels.append(int(tag[1]))
        if tag in _CONTROLS:
            named = bool(values.get("aria-label", "").strip() or values.get("aria-labelledby") or self._labels)
            if tag == "input":
                if not named:
                    self.problems.append(f"an input without a name: {values}")
            else:
                self._named.append((tag, named, []))

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self._labels -= 1
        elif tag in _CONTROLS and self._named and self._named[-1][0] == tag:
            _, named, text = self._named.pop()
            # A select's options are its choices, not its name; a button's text is its name.
            if not named and (tag != "button" or not any(c.isalpha() for c in "".join(text))):
                self.problems.append(f"a {tag} without a name in words: {''.join(text).strip()!r}")

    def handle_data(self, data: str) -> None:
        if self._named:
            self._named[-1][2].append(data)


def markup_problems(page: str) -> list[str]:
    """What a screen reader would miss in ``page``'s markup, one short line each; empty when nothing."""
    reader = _Reader()
    reader.feed(page)
    reader.close()
    problems = list(reader.problems)
    if not reader.language.strip():
        problems.append("no language on <html>")
    levels = reader.levels
    if levels and levels[0] != 1:
        problems.append(f"the first heading is h{levels[0]}, not h1")
    problems += [f"h{after} follows h{before}" for before, after in zip(levels, levels[1:], strict=False)
                 if after > before + 1]
    return problems
