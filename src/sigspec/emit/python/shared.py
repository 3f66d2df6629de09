"""JSON subtrees that a client module's specs have in common, written once.

Each signature's output schema and provider fragments repeat the same objects many times (the
schema under every provider's wrapper, a named type's definition under every signature that
uses it). A module stores each repeated subtree once, in `_SHARED`, and each document as a
skeleton plus the paths where shared entries go back in: `{"v": skeleton, "r": [[path, n]]}`.
The paths are out of band, so no key or value of a user's schema can be mistaken for a
reference. `_client.Shared` puts the documents back together on first use.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

# Smaller subtrees cost about as much as the reference that would replace them.
MIN_SIZE = 48


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class SharedJson:
    """Counts subtrees over all of a module's documents, then packs each document."""

    def __init__(self, docs: list[Any]) -> None:
        self._docs = docs  # kept alive: `_texts` is keyed by the id of their nodes
        self._texts: dict[int, str] = {}
        self._counts: Counter[str] = Counter()
        for doc in docs:
            self._measure(doc)
        self._index: dict[str, int] = {}
        self.entries: list[dict[str, Any]] = []

    def _measure(self, value: Any) -> str:
        if isinstance(value, dict):
            text = "{" + ",".join(f"{_compact(k)}:{self._measure(v)}" for k, v in value.items())
            text += "}"
        elif isinstance(value, list):
            text = "[" + ",".join(self._measure(v) for v in value) + "]"
        else:
            return _compact(value)
        self._texts[id(value)] = text
        if len(text) >= MIN_SIZE:
            self._counts[text] += 1
        return text

    def pack(self, doc: Any) -> dict[str, Any]:
        """A document as a skeleton and the [path, entry] references to fill in."""
        refs: list[list[Any]] = []
        skeleton = self._walk(doc, [], refs, root=False)
        return {"v": skeleton, "r": refs}

    def _walk(self, value: Any, path: list[Any], refs: list[list[Any]], *, root: bool) -> Any:
        if not isinstance(value, (dict, list)):
            return value
        text = self._texts[id(value)]
        if not root and self._counts[text] >= 2:
            refs.append([list(path), self._entry(text, value)])
            return None
        if isinstance(value, dict):
            return {k: self._walk(v, [*path, k], refs, root=False) for k, v in value.items()}
        return [self._walk(v, [*path, i], refs, root=False) for i, v in enumerate(value)]

    def _entry(self, text: str, value: Any) -> int:
        if text not in self._index:
            refs: list[list[Any]] = []
            # Its own repeated parts become references to entries made before it.
            skeleton = self._walk(value, [], refs, root=True)
            self._index[text] = len(self.entries)
            self.entries.append({"v": skeleton, "r": refs})
        return self._index[text]

    def table(self) -> str:
        return _compact(self.entries)


def packed_text(packed: dict[str, Any] | None) -> str | None:
    return None if packed is None else _compact(packed)
