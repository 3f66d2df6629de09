"""Client modules store repeated JSON subtrees once: packing and inflating gives back every
document exactly, whatever keys and values the documents hold."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sigspec.emit.python.shared import SharedJson, packed_text
from sigspec.runtime.client import Shared

KEYS = st.sampled_from(["v", "r", "$ref", "$defs", "type", "properties", "", "0", "a" * 30])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=30,
)


def round_trip(docs: list[Any]) -> list[Any]:
    shared = SharedJson(docs)
    texts = [packed_text(shared.pack(d)) for d in docs]
    runtime = Shared(shared.table())
    return [runtime.inflate(json.loads(t)) for t in texts if t is not None]


@given(st.lists(JSON, min_size=1, max_size=6))
def test_every_document_comes_back(docs: list[Any]) -> None:
    # Repeat documents and parts of them, as schemas and fragments do.
    docs = docs + docs[:2] + [{"wrap": d, "again": [d]} for d in docs[:2]]
    assert round_trip(docs) == docs


def test_repeated_subtrees_are_stored_once() -> None:
    schema = {"type": "object", "properties": {"label": {"enum": ["low", "medium", "high"]}}}
    docs = [schema, {"openai": {"schema": schema}, "tool": {"parameters": schema}}]
    shared = SharedJson(docs)
    texts = [packed_text(shared.pack(d)) or "" for d in docs]
    assert sum(t.count('"medium"') for t in [*texts, shared.table()]) == 1
    assert json.loads(texts[0]) == {"v": None, "r": [[[], 0]]}  # the whole document is shared
    assert round_trip(docs) == docs
