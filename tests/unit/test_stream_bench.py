"""bench/stream_partial.py's replies: what the streaming benchmark feeds sigspec, instructor
and BAML is a valid `read_catalog` answer of the size it is named after, the same on every
run, and the BAML source it hands BAML has the same fields as catalog.sig."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest

from conftest import ROOT
from sigspec import load
from sigspec.runtime.validate import validate
from sigspec.semantics.descriptors import output_descriptor, type_descriptors

# bench/ is no package, and its folder stays off sys.path (its modules' names are generic).
_SPEC = importlib.util.spec_from_file_location("bench_stream", ROOT / "bench" / "stream_partial.py")
assert _SPEC is not None and _SPEC.loader is not None
bench = importlib.util.module_from_spec(_SPEC)
sys.modules[_SPEC.name] = bench  # its dataclasses look their module up
_SPEC.loader.exec_module(bench)


@pytest.mark.parametrize("size", list(bench.SIZES))
def test_each_reply_is_a_valid_answer_of_its_size(size: str) -> None:
    project = load([bench.SIG]).project
    signature = project.signature("read_catalog")
    types = type_descriptors(project, list(project.types))
    value = bench.answer(bench.SIZES[size])
    assert validate(output_descriptor(signature), value, types) == value
    text = json.dumps(value, ensure_ascii=False)
    assert bench.SIZES[size] <= len(text) < bench.SIZES[size] * 1.3
    assert bench.answer(bench.SIZES[size]) == value  # a fixed seed
    # What the peers must agree on: nulls, escapes and accents are in it.
    assert any(item["price"] is None for item in value["items"]) or size == "1 KB"
    assert '\\"' in text or size == "1 KB"
    for chunk in bench.CHUNK_SIZES:
        pieces = bench.chunked(text, chunk)
        assert "".join(pieces) == text
        assert all(len(piece) == chunk for piece in pieces[:-1])


def test_the_baml_source_has_the_fields_of_the_signature() -> None:
    value = bench.answer(bench.SIZES["10 KB"])
    baml = bench.BAML_SOURCE.read_text("utf-8")
    classes = dict(re.findall(r"class (\w+) \{(.*?)\}", baml, re.DOTALL))
    fields = {
        name: [line.split()[0] for line in body.strip().splitlines()]
        for name, body in classes.items()
    }
    assert fields["ReadCatalogOutput"] == list(value)
    assert fields["Item"] == list(value["items"][0])
    assert "function ReadCatalog(page: string) -> ReadCatalogOutput" in baml
