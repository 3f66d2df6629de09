"""Prompt text that a client module's templates have in common, written once.

Every json-mode signature's templates repeat the same paragraphs: the system prompt, the
response-format instructions, the retry message's preamble, and the output's shape (once in
the user message and again in the retry message). A module names each paragraph that occurs
twice or more (`_TEXT_n = '...'`) and writes each template as a sum of those names and its own
literals, which Python joins once, at import. The texts are the prompts target's, unchanged:
joined again, each is exactly the file that target writes (less its header comment, a
standalone Mustache comment line that renders to nothing).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

# A shorter paragraph costs about as much as the name that would replace it.
MIN_SIZE = 40

# What separates paragraphs: a blank line or more, or the text's final line break.
_BREAK = re.compile(r"(\n\n+|\n\Z)")


def paragraphs(text: str) -> list[str]:
    """`text` cut into paragraphs and the breaks between them (odd positions); joined, the
    pieces are `text` again. A paragraph does not hold the break after it, so the output's
    shape matches where it ends the retry message as where the user message goes on."""
    return _BREAK.split(text)


class SharedText:
    """Counts paragraphs over a module's templates, then writes each template as an
    expression of the shared names and its own `repr` literals (never anything else)."""

    def __init__(self, texts: Iterable[str]) -> None:
        texts = list(texts)
        counts = Counter(p for text in texts for p in paragraphs(text) if len(p) >= MIN_SIZE)
        self._names: dict[str, str] = {}
        for text in texts:  # numbered in the order they first appear: deterministic
            for piece in paragraphs(text):
                if counts[piece] >= 2 and piece not in self._names:
                    self._names[piece] = f"_TEXT_{len(self._names) + 1}"

    def constants(self) -> list[str]:
        """`_TEXT_n = '...'` lines, each paragraph as a `repr` literal."""
        return [f"{name} = {piece!r}" for piece, name in self._names.items()]

    def expression(self, text: str | None) -> str:
        """A Python expression whose value is `text` (or None)."""
        if text is None:
            return "None"
        parts: list[str] = []
        literal = ""
        for piece in paragraphs(text):
            name = self._names.get(piece)
            if name is None:
                literal += piece
                continue
            if literal:
                parts.append(repr(literal))
                literal = ""
            parts.append(name)
        if literal or not parts:
            parts.append(repr(literal))
        return " + ".join(parts)
