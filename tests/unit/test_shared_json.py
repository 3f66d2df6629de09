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


def framed_round_trip(docs: list[Any], strings: list[tuple[str, ...]]) -> list[Any]:
    shared = SharedJson(docs)
    framed = shared.frames([shared.pack(d) for d in docs], strings)
    texts = [packed_text(p) for p in framed]
    runtime = Shared(shared.table())
    # Inflated twice: a frame serves many documents and must come back unchanged each time.
    first = [runtime.inflate(json.loads(t)) for t in texts if t is not None]
    return [runtime.inflate(json.loads(t)) for t in texts if t is not None] + first


def wrapper(name: str, description: str, schema: Any) -> dict[str, Any]:
    return {
        "openai": {"json_schema": {"name": name, "strict": True, "schema": schema}},
        "tools": [{"name": name, "description": description, "parameters": schema}],
    }


@given(
    st.lists(st.tuples(st.text(max_size=12), st.text(max_size=12), JSON), min_size=1, max_size=6)
)
def test_framed_documents_come_back(cases: list[tuple[str, str, Any]]) -> None:
    docs = [wrapper(name, desc, schema) for name, desc, schema in cases]
    strings = [(name, desc) for name, desc, _ in cases]
    # Strings that also occur elsewhere in a document ("strict", a schema's own text).
    strings[0] = (*strings[0], "json_schema", "strict")
    assert framed_round_trip(docs, strings) == docs + docs


def test_documents_of_one_form_share_a_frame() -> None:
    schema = {"type": "object", "properties": {"label": {"enum": ["low", "medium", "high"]}}}
    docs = [wrapper(f"task_{i}", f"Task number {i}.", schema) for i in range(3)]
    strings = [(f"task_{i}", f"Task number {i}.") for i in range(3)]
    shared = SharedJson(docs)
    framed = shared.frames([shared.pack(d) for d in docs], strings)
    texts = [packed_text(p) or "" for p in framed]
    table = shared.table()
    assert sum(t.count('"strict"') for t in [*texts, table]) == 1  # the wrapper is stored once
    assert json.loads(texts[2])["s"] == ["task_2", "Task number 2."]
    assert "task_" not in table and "Task number" not in table
    assert framed_round_trip(docs, strings) == [*docs, *docs]


def test_a_form_used_once_is_not_framed() -> None:
    docs = [wrapper("one", "", {"type": "string"}), {"other": ["one"]}]
    shared = SharedJson(docs)
    framed = shared.frames([shared.pack(d) for d in docs], [("one",), ("one",)])
    assert all(p is not None and "f" not in p for p in framed)
