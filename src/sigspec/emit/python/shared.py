"""JSON subtrees that a client module's specs have in common, written once.

Each signature's output schema and provider fragments repeat the same objects many times (the
schema under every provider's wrapper, a named type's definition under every signature that
uses it). A module stores each repeated subtree once, in `_SHARED`, and each document as a
skeleton plus the paths where shared entries go back in: `{"v": skeleton, "r": [[path, n]]}`.
The paths are out of band, so no key or value of a user's schema can be mistaken for a
reference. `_client.Shared` puts the documents back together on first use.

Documents of one form that differ only in a few strings and in which entries they refer to
(each signature's provider fragments: the same wrappers around its own schemas, with its name
and description) share a frame: the skeleton with those strings and entry numbers left out.
Each document is then `{"f": frame, "r": [entry, ...], "s": [string, ...]}`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Smaller subtrees cost about as much as the reference that would replace them.
MIN_SIZE = 48
REF_SIZE = 16  # a reference's approximate length: `[["key"],12],` and the null it leaves
# A frame leaves out subtrees this long (in compact JSON) or longer that hold none of its
# documents' own strings.
HOIST_SIZE = 64


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
        self._flat: list[int] = []  # approximate JSON length less the children's, by class
        self._children: list[list[int]] = []  # the classes of its containers, by class
        self._decided: dict[int, bool] = {}
        self._costs: dict[int, int] = {}
        self._counts: Counter[int] = Counter()
        for doc in docs:
            if isinstance(doc, (dict, list)):
                self._visit(doc)
        self._index: dict[int, int] = {}
        self._made: dict[str, int] = {}  # JSON text -> entry, of the entries framing made
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
        children: list[int] = []
        size = 2
        for k, v in items:
            if isinstance(v, (dict, list)):
                child = self._visit(v)
                parts.append((k, child))
                children.append(child)
            else:
                parts.append((k, type(v).__name__, v))
                size += len(str(v)) + 2
            size += len(k) + 4 if isinstance(k, str) else 1
        key = (isinstance(value, dict), *parts)
        number = self._classes.setdefault(key, len(self._classes))
        if number == len(self._flat):
            self._flat.append(size)
            self._children.append(children)
        return number

    def _shared(self, key: int) -> bool:
        """Whether a class is stored once and referred to: when met twice or more and its text,
        less the shared parts inside it, costs more than references would. (A wrapper
        around a shared schema, `{"format": ...}`, stays inline.)"""
        if key not in self._decided:
            self._decided[key] = self._counts[key] >= 2 and self._cost(key) >= MIN_SIZE
        return self._decided[key]

    def _cost(self, key: int) -> int:
        if key not in self._costs:
            self._costs[key] = self._flat[key] + sum(
                REF_SIZE if self._shared(c) else self._cost(c) for c in self._children[key]
            )
        return self._costs[key]

    def pack(self, doc: Any) -> dict[str, Any]:
        """A document as a skeleton and the [path, entry] references to fill in."""
        refs: list[list[Any]] = []
        skeleton = self._walk(doc, [], refs, root=False)
        return {"v": skeleton, "r": refs}

    def _walk(self, value: Any, path: list[Any], refs: list[list[Any]], *, root: bool) -> Any:
        if not isinstance(value, (dict, list)):
            return value
        key = self._class_of[id(value)]
        if not root and self._shared(key):
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

    def frames(
        self, packed: Sequence[dict[str, Any] | None], strings: Sequence[Sequence[str]]
    ) -> list[dict[str, Any] | None]:
        """Packed documents, each framed when its frame serves two documents or more (a frame
        used once costs more than the skeleton it replaces). `strings[i]` are the strings of
        document `i` to leave out of its frame: they are filled back in wherever they occur,
        so a frame's other strings that happen to be equal to one stay correct."""
        drafts = [
            None if doc is None else _draft(doc, texts)
            for doc, texts in zip(packed, strings, strict=True)
        ]
        uses = Counter(d.key for d in drafts if d is not None)
        out: list[dict[str, Any] | None] = []
        for doc, draft in zip(packed, drafts, strict=True):
            if doc is None or draft is None or uses[draft.key] < 2:
                out.append(doc)
                continue
            frame = self._store(draft.frame)
            refs = [n if isinstance(n, int) else self._store(n) for n in draft.refs]
            out.append({"f": frame, "r": refs, "s": draft.strings})
        return out

    def _store(self, entry: dict[str, Any]) -> int:
        """An entry made while framing (a frame, a subtree left out of one), stored once
        however many documents hold it."""
        text = _compact(entry)
        if text not in self._made:
            self._made[text] = len(self.entries)
            self.entries.append(entry)
        return self._made[text]

    def table(self) -> str:
        return _compact(self.entries)


@dataclass(frozen=True)
class _Draft:
    """A packed document as a frame (`key`: its JSON text, which frames are shared by) and
    what fills it back in: entry numbers, or the subtrees to store as entries, and strings."""

    key: str
    frame: dict[str, Any]
    refs: list[int | dict[str, Any]]
    strings: list[str]


def _draft(packed: dict[str, Any], strings: Sequence[str]) -> _Draft:
    numbers = {s: -1 for s in strings if s}
    holes: list[list[Any]] = []
    hoisted: list[tuple[list[Any], Any]] = []
    skeleton = _hollow(packed["v"], [], numbers, holes, hoisted)
    used = sorted((n, s) for s, n in numbers.items() if n >= 0)
    kept = [[p, n] for p, n in packed["r"] if not any(_under(p, h) for h, _ in hoisted)]
    subtrees: list[int | dict[str, Any]] = [
        {"v": sub, "r": [[p[len(h) :], n] for p, n in packed["r"] if _under(p, h)]}
        for h, sub in hoisted
    ]
    frame = {"v": skeleton, "r": [p for p, _ in kept] + [h for h, _ in hoisted], "s": holes}
    refs: list[int | dict[str, Any]] = [n for _, n in kept]
    return _Draft(_compact(frame), frame, refs + subtrees, [s for _, s in used])


def _under(path: list[Any], prefix: list[Any]) -> bool:
    return len(path) > len(prefix) and path[: len(prefix)] == prefix


def _hollow(
    value: Any,
    path: list[Any],
    numbers: dict[str, int],
    holes: list[list[Any]],
    hoisted: list[tuple[list[Any], Any]],
) -> Any:
    """`value` with each string of `numbers` replaced by null, its path recorded in `holes`
    with the string's number (numbered in the order first met, so equal forms frame alike).
    A large subtree without such strings is taken out too (into `hoisted`): it is what
    differs from document to document (a schema), so the frame must not hold it."""
    if isinstance(value, str) and value in numbers:
        if numbers[value] < 0:
            numbers[value] = sum(1 for n in numbers.values() if n >= 0)
        holes.append([list(path), numbers[value]])
        return None
    if not isinstance(value, (dict, list)):
        return value
    if path and len(_compact(value)) >= HOIST_SIZE and not _holds(value, numbers):
        hoisted.append((list(path), value))
        return None
    if isinstance(value, dict):
        return {k: _hollow(v, [*path, k], numbers, holes, hoisted) for k, v in value.items()}
    return [_hollow(v, [*path, i], numbers, holes, hoisted) for i, v in enumerate(value)]


def _holds(value: Any, strings: dict[str, int]) -> bool:
    if isinstance(value, str):
        return value in strings
    if isinstance(value, dict):
        return any(_holds(v, strings) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v, strings) for v in value)
    return False


def packed_text(packed: dict[str, Any] | None) -> str | None:
    return None if packed is None else _compact(packed)
