"""`sigspec.importer`: what each JSON Schema construct becomes, and the diagnostic, naming its
JSON Pointer, for each one the language cannot express."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings

from sigspec.importer import NotASchema, import_schema


def imported(schema: Any, name: str | None = "T") -> tuple[str, list[tuple[str, str]]]:
    result = import_schema(schema, path="s.json", stem="s", name=name)
    return result.text, [(d.code, d.message) for d in result.diagnostics]


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}


@pytest.mark.parametrize(
    ("schema", "text"),
    [
        ({"type": "string", "format": "date-time"}, "type T = :datetime\n"),
        ({"type": ["integer", "null"]}, "type T = :int?\n"),
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, "type T = :string?\n"),
        ({"type": "string", "nullable": True}, "type T = :string?\n"),  # OpenAPI 3.0
        ({"const": "x"}, 'type T = "x"\n'),
        ({"enum": [1, "a", None]}, 'type T = (1 | "a")?\n'),
        ({"type": "array"}, "type T = [:any]\n"),
        ({"type": "object"}, "type T = :map\n"),
        ({"type": "object", "additionalProperties": False}, "type T = {}\n"),
        ({"properties": {}}, "type T = {...}\n"),
        ({"allOf": [{"type": "integer"}], "description": "One."}, "## One.\ntype T = :int\n"),
        (obj(n={"type": "integer", "exclusiveMinimum": 0}), "type T = {n :int @min(1), ...}\n"),
        (obj(a={"$ref": "#"}), "type T = {a T, ...}\n"),
        ({"items": {"type": "string"}}, "type T = [:string]\n"),
        (
            {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}},
            'type T = {a :string = "x", ...}\n',
        ),
        (
            obj(a={"type": "string", "deprecated": True, "description": "Old."}),
            'type T = {a :string @deprecated "Old.", ...}\n',
        ),
    ],
)
def test_imports_exactly(schema: Any, text: str) -> None:
    assert imported(schema) == (text, [])


@pytest.mark.parametrize(
    ("schema", "code", "at"),
    [
        ({"if": {}, "then": {}}, "import-unsupported", "#/if"),
        (
            obj(a={"type": "object", "patternProperties": {"^x": {}}}),
            "import-unsupported",
            "#/properties/a/patternProperties",
        ),
        ({"not": {"type": "string"}}, "import-unsupported", "#/not"),
        ({"type": "object", "dependentSchemas": {}}, "import-unsupported", "#/dependentSchemas"),
        ({"allOf": [{"type": "string"}, {"maxLength": 3}]}, "import-unsupported", "#/allOf"),
        (
            {"type": "array", "items": {"type": "string", "minLength": 1}},
            "import-unsupported",
            "#/items",
        ),
        ({"type": "string", "minLength": 1}, "import-unsupported", "#"),
        (
            obj(a={"type": "number", "exclusiveMinimum": 0}),
            "import-unsupported",
            "#/properties/a/exclusiveMinimum",
        ),
        (
            obj(a={"type": "string", "format": "color"}),
            "import-unsupported",
            "#/properties/a/format",
        ),
        (obj(a={"type": "string", "format": {}}), "import-unsupported", "#/properties/a/format"),
        (obj(**{"a b": {"type": "string"}}), "import-unsupported", "#/properties/a b"),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string", "default": "x"}},
                "required": ["a"],
            },
            "import-unsupported",
            "#/properties/a",
        ),
        (
            {"type": "object", "additionalProperties": {"type": "integer"}},
            "import-unsupported",
            "#/additionalProperties",
        ),
        ({"$ref": "other.json"}, "import-unresolved-ref", "#"),
        ({"$ref": "#/$defs/Missing"}, "import-unresolved-ref", "#"),
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "import-approximated", "#/oneOf"),
        (
            {"type": "object", "properties": {"a": {"type": "string"}}},
            "import-approximated",
            "#/properties/a",
        ),
        ({"type": "string", "readOnly": True}, "import-approximated", "#/readOnly"),
        ({"type": "string", "x-color": "red"}, "import-approximated", "#/x-color"),
        ({"$defs": {"1 bad": {"type": "string"}}}, "import-renamed", "#/$defs/1 bad"),
        ({"$defs": {"a-b": {}, "a_b": {}}}, "import-renamed", "#/$defs/a_b"),
    ],
)
def test_what_cannot_be_expressed_is_named_by_its_pointer(schema: Any, code: str, at: str) -> None:
    _, found = imported(schema)
    assert any(c == code and m.endswith(f", at {at}") for c, m in found), found


def test_named_types_and_their_names() -> None:
    schema = {
        "$defs": {"null": {"type": "string"}, "order-item": {"$ref": "#/$defs/null"}},
    }
    text, found = imported(schema, name=None)
    assert text == "type null_ = :string\n\ntype order-item = null_\n"
    assert found == [("import-renamed", "`null` is imported as `null_`, at #/$defs/null")]


def test_deep_nesting_is_a_diagnostic_not_a_crash() -> None:
    schema: Any = {"type": "string"}
    for _ in range(200):
        schema = {"type": "array", "items": schema}
    text, found = imported(schema)
    assert text.startswith("type T = [[")
    assert [c for c, _ in found] == ["import-unsupported"]


def test_not_a_schema() -> None:
    with pytest.raises(NotASchema):
        import_schema([1], path="s.json", stem="s")
    with pytest.raises(NotASchema):
        import_schema({"openapi": "3.1.0"}, path="s.json", stem="s")


KEYWORDS = [
    "type", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "properties", "required",
    "additionalProperties", "items", "nullable", "minimum", "exclusiveMinimum", "minLength",
    "pattern", "format", "minItems", "description", "default", "deprecated", "not", "title",
    "$defs", "x-other",
]  # fmt: skip
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False)
    | st.text(max_size=4)
    | st.sampled_from(["string", "integer", "null", "object", "array", "#", "#/$defs/a", "x.json"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


def schemas() -> st.SearchStrategy[Any]:
    return st.recursive(
        st.booleans() | st.fixed_dictionaries({}, optional={k: JSON for k in KEYWORDS[:6]}),
        lambda inner: st.dictionaries(
            st.sampled_from(KEYWORDS),
            inner
            | JSON
            | st.lists(inner, max_size=3)
            | st.dictionaries(st.text(max_size=3), inner),
            max_size=5,
        ),
        max_leaves=12,
    )


@settings(max_examples=300, deadline=None)
@given(schemas())
def test_any_document_imports_to_text_that_parses(schema: Any) -> None:
    """Whatever the document holds, the importer does not crash, and what it prints parses
    (`import_schema` raises if the formatter refuses its text)."""
    try:
        result = import_schema(schema, path="s.json", stem="s")
    except NotASchema:
        return
    assert result.text.endswith("\n") or result.text == ""


def test_a_document_larger_than_a_sig_file_may_be_is_refused() -> None:
    from sigspec.importer import TooLarge
    from sigspec.syntax.limits import MAX_DECLARATIONS

    schema = {"$defs": {f"T{i}": {"type": "integer"} for i in range(MAX_DECLARATIONS + 1)}}
    with pytest.raises(TooLarge, match="declarations"):
        import_schema(schema, path="s.json", stem="s")
