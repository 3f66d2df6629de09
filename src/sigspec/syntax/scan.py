"""A pre-scan of the raw text for what the grammar ignores: comments, and bracket depth.

It runs before Lark so that the shared parser stays free of per-parse state (no lexer
callbacks), and so that absurd nesting is refused before any recursive stage sees it.
Strings are skipped with the same patterns as the grammar, so a `#` or `{` inside a
string is never taken for a comment or a bracket.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sigspec.diagnostics.source import Span
from sigspec.syntax.ast import Comment

MAX_DEPTH = 64

_TOKEN = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'  # triple-quoted string
    r'|"(?:[^"\\\n\r]|\\.)*"'  # string
    r"|(?P<comment>#[^\n]*)"
    r"|(?P<open>[\[{(])"
    r"|(?P<close>[\]})])",
    re.DOTALL,
)


@dataclass(frozen=True, slots=True)
class Trivia:
    comments: tuple[Comment, ...]
    too_deep_at: int | None  # offset of the first bracket past MAX_DEPTH


def scan(text: str) -> Trivia:
    comments: list[Comment] = []
    depth = 0
    for match in _TOKEN.finditer(text):
        if match.group("comment") is not None:
            comments.append(Comment(match.group("comment").rstrip("\r"), Span(*match.span())))
        elif match.group("open") is not None:
            depth += 1
            if depth > MAX_DEPTH:
                return Trivia(tuple(comments), match.start())
        elif match.group("close") is not None:
            depth = max(0, depth - 1)
    return Trivia(tuple(comments), None)
