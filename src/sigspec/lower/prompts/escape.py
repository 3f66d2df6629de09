"""Writing Mustache: text that renders as itself, and comments.

Static parts of a prompt (a doc comment, the output's shape, a schema) go into templates whose
other parts are the user's Mustache: no `{{` in them may ever open a tag.
"""

from __future__ import annotations

import re

from sigspec.lower.quoting import visible
from sigspec.runtime.mustache import MustacheError

_DELIMITERS = [
    ("<%", "%>"),
    ("[[", "]]"),
    ("<<", ">>"),
    ("(%", "%)"),
    ("{%", "%}"),
    ("<|", "|>"),
    ("[:", ":]"),
]


def literal(text: str) -> str:
    """`text` as template text that renders exactly to `text`: no `{{` in it can open a tag.

    Each run of braces that could start a tag (two or more, or one at either end, where it
    could join a brace of the surrounding template) is wrapped in set-delimiter tags that
    switch to delimiters the text does not contain, and back. The tags sit on the same line
    as the braces, so they are never standalone and never remove a line.
    """
    open_, close = next(
        ((o, c) for o, c in _DELIMITERS if o not in text and c not in text), ("<%", "%>")
    )
    if open_ in text or close in text:  # every pair is taken: fall back to one brace at a time
        open_, close = _rare_pair(text)

    def wrap(match: re.Match[str]) -> str:
        return f"{{{{={open_} {close}=}}}}{match.group(0)}{open_}={{{{ }}}}={close}"

    return re.sub(r"\{\{+|^\{|\{$", wrap, text)


def _rare_pair(text: str) -> tuple[str, str]:
    for size in range(3, 12):
        candidate = "<" + "~" * size, "~" * size + ">"
        if candidate[0] not in text and candidate[1] not in text:
            return candidate
    raise MustacheError("no delimiter pair is free in this text")


_BRACE_AFTER_BRACE = re.compile(r"(?<=\})\}")


def comment(text: str) -> str:
    """A Mustache comment holding `text` on one line, which cannot end the comment early:
    every brace after a brace gets a space before it (so `}}}` cannot leave a `}}`), and
    unprintable characters are written as escapes."""
    return "{{! " + _BRACE_AFTER_BRACE.sub(" }", visible(text)) + " }}"
