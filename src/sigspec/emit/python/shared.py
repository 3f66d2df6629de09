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


# Made once: json.dumps with options builds a new encoder on every call.
_compact = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class SharedJson:
    """Counts subtrees over all of a module's documents, then packs each document.

    Equal subtrees get one class number (hash-consing: a container's key is its keys and its
    children's classes, so keys stay shallow); an object met again by identity is counted
    without walking it twice. Types are kept apart, so `1`, `1.0` and `true` differ."""

    def __init__(self, docs: list[Any]) -> None:
        self._docs = docs  # kept alive: `_class_of` is keyed by the id of their nodes
        self._class_of: dict[int, int] = {}
        self._classes: dict[tuple[Any, ...], int] = {}
        self._sizes: list[int] = []  # approximate JSON length, by class
        self._counts: Counter[int] = Counter()
        for doc in docs:
            if isinstance(doc, (dict, list)):
                self._visit(doc)
        self._index: dict[int, int] = {}
        self.entries: list[dict[str, Any]] = []

    def _visit(self, value: dict[str, Any] | list[Any]) -> int:
        known = self._class_of.get(id(value))
        if known is None:
            known = self._classify(value)
            self._class_of[id(value)] = known
        self._counts[known] += 1
        return known

    def _classify(self, value: dict[str, Any] | list[Any]) -> int:
        items = value.items() if isinstance(value, dict) else enumerate(value)
        parts: list[tuple[Any, ...]] = []
        size = 2
        for k, v in items:
            if isinstance(v, (dict, list)):
                child = self._visit(v)
                parts.append((k, child))
                size += self._sizes[child]
            else:
                parts.append((k, type(v).__name__, v))
                size += len(str(v)) + 2
            size += len(k) + 4 if isinstance(k, str) else 1
        key = (isinstance(value, dict), *parts)
        number = self._classes.setdefault(key, len(self._classes))
        if number == len(self._sizes):
            self._sizes.append(size)
        return number

    def pack(self, doc: Any) -> dict[str, Any]:
        """A document as a skeleton and the [path, entry] references to fill in."""
        refs: list[list[Any]] = []
        skeleton = self._walk(doc, [], refs, root=False)
        return {"v": skeleton, "r": refs}

    def _walk(self, value: Any, path: list[Any], refs: list[list[Any]], *, root: bool) -> Any:
        if not isinstance(value, (dict, list)):
            return value
        key = self._class_of[id(value)]
        if not root and self._counts[key] >= 2 and self._sizes[key] >= MIN_SIZE:
            refs.append([list(path), self._entry(key, value)])
            return None
        if isinstance(value, dict):
            return {k: self._walk(v, [*path, k], refs, root=False) for k, v in value.items()}
        return [self._walk(v, [*path, i], refs, root=False) for i, v in enumerate(value)]

    def _entry(self, key: int, value: Any) -> int:
        if key not in self._index:
            refs: list[list[Any]] = []
            # Its own repeated parts become references to entries made before it.
            skeleton = self._walk(value, [], refs, root=True)
            self._index[key] = len(self.entries)
            self.entries.append({"v": skeleton, "r": refs})
        return self._index[key]

    def table(self) -> str:
        return _compact(self.entries)


def packed_text(packed: dict[str, Any] | None) -> str | None:
    return None if packed is None else _compact(packed)
