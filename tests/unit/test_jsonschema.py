"""The jsonschema target: seed 000's examples exactly, and valid 2020-12 schemas."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from sigspec import parse_signature
from sigspec.lower.schema import input_schema, output_schema
from sigspec.semantics.ir import Project

EMPTY = Project((), {}, (), (), ())


def out(text: str) -> dict[str, Any]:
    return output_schema(parse_signature(text), EMPTY)


def test_seed_000_sentiment() -> None:
    assert out("(text :string) -> {sentiment :string, score :float}") == {
        "type": "object",
        "properties": {"sentiment": {"type": "string"}, "score": {"type": "number"}},
        "required": ["sentiment", "score"],
        "additionalProperties": False,
    }


def test_seed_000_output_only_shorthand() -> None:
    assert out("{sentiment :string, confidence :float}") == {
        "type": "object",
        "properties": {"sentiment": {"type": "string"}, "confidence": {"type": "number"}},
        "required": ["sentiment", "confidence"],
        "additionalProperties": False,
    }


def test_seed_000_nested_analysis() -> None:
    assert out("() -> {analysis {sentiment :string, entities [:string]}}") == {
        "type": "object",
        "properties": {
            "analysis": {
                "type": "object",
                "properties": {
                    "sentiment": {"type": "string"},
                    "entities": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["sentiment", "entities"],
                "additionalProperties": False,
            }
        },
        "required": ["analysis"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("text", "schema"),
    [
        (":string", {"type": "string"}),
        (":int", {"type": "integer"}),
        (":float", {"type": "number"}),
        (":bool", {"type": "boolean"}),
        (":any", {}),
        ("[:int]", {"type": "array", "items": {"type": "integer"}}),
        ('"a" | "b"', {"type": "string", "enum": ["a", "b"]}),
        (":datetime", {"type": "string", "format": "date-time"}),
        (
            "{id :int, ...}",
            {
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "required": ["id"],
                "additionalProperties": True,
            },
        ),
    ],
)
def test_seed_000_type_mapping(text: str, schema: dict[str, Any]) -> None:
    assert out(text) == schema


def test_optional_fields_are_not_required_and_accept_null() -> None:
    schema = out('{a :int?, b ("x" | "y")?, c [:string]?}')
    assert schema["required"] == []
    assert schema["properties"]["a"] == {"type": ["integer", "null"]}
    assert schema["properties"]["b"] == {"type": ["string", "null"], "enum": ["x", "y", None]}
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"a": None, "b": None, "c": None})
    assert validator.is_valid({})
    assert not validator.is_valid({"b": "z"})


def test_descriptions_defaults_and_constraints() -> None:
    schema = out(
        '{n :int = 3 @min(1) @max(9) "count", s :string @min_length(2) @pattern("^a"),'
        ' xs [:int] @max_items(4), old :bool @deprecated("use n")}'
    )
    props = schema["properties"]
    assert props["n"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
        "default": 3,
        "description": "count",
    }
    assert props["s"] == {"type": "string", "minLength": 2, "pattern": "^a"}
    assert props["xs"]["maxItems"] == 4
    assert props["old"]["deprecated"] is True
    assert schema["required"] == ["s", "xs", "old"]  # a default makes a field not required


def test_inputs_are_an_open_map_of_params() -> None:
    schema = input_schema(parse_signature("(text :string, n :int = 1) -> :string"), EMPTY)
    assert schema == {
        "type": "object",
        "properties": {"text": {"type": "string"}, "n": {"type": "integer", "default": 1}},
        "required": ["text"],
    }


@pytest.mark.parametrize(
    "text",
    [
        '{a :int?, b [{c :string, d :float?}], e :any, f "x" | 1 | null, g :map}',
        "{a :string | :int, b (:string | [:int])?, c true | false}",
    ],
)
def test_every_schema_passes_the_meta_schema(text: str) -> None:
    jsonschema.Draft202012Validator.check_schema(out(text))


def test_an_optional_mixed_literal_union_lets_null_through() -> None:
    """`("" | 0)?` accepts null (the runtime's verdict): its enum holds null too. Found by
    the `sigspec import` round trip."""
    schema = out('() -> ("" | 0)?')
    assert schema == {"type": ["string", "integer", "null"], "enum": ["", 0, None]}
    assert jsonschema.Draft202012Validator(schema).is_valid(None)
    assert out("() -> null?") == {"type": "null"}
