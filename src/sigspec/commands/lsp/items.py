"""A completion item: plain data, free of pygls, that `complete.py` and `complete_tests.py`
make and the server (`edit.py`) converts."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Item:
    label: str
    kind: str  # "primitive", "type", "signature", "tool", "pipeline", "attribute", "mode",
    # "variable", "section", "keyword", "field"
    detail: str
    documentation: str | None
    sort: str  # the order the client shows items in before the user types more
    text: str  # what replaces the context's [start, end)
    snippet: bool = False  # `text` holds snippet placeholders (`${1:0}`)
    imports: str | None = None  # a path to import for the name to be visible
