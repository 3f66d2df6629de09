"""Provider fragments: each provider's transformations, losses, limits and unsupported cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sigspec import load
from sigspec.compiler.generate import compile_project
from sigspec.lower.views import Lowered


def compile_one(tmp_path: Path, text: str, name: str, provider: str) -> tuple[Any, list[str]]:
    path = tmp_path / "p.sig"
    path.write_text(text)
    result = load([path])
    assert not result.has_errors, result.diagnostics
    sig = result.project.signature(name) or next(t for t in result.project.tools if t.name == name)
    found = Lowered(result.project).fragment(sig, provider)
    body = found.entry if found.available else None
    return body, [f"{d.code}: {d.message}" for d in found.diagnostics]


def schema_of(body: Any, provider: str) -> Any:
    request = body["request"]
    return {
        "openai": lambda: request["response_format"]["json_schema"]["schema"],
        "anthropic": lambda: request["output_config"]["format"]["schema"],
        "gemini": lambda: request["generationConfig"]["responseJsonSchema"],
        "ollama": lambda: request["format"],
        "vllm": lambda: request["structured_outputs"]["json"],
    }[provider]()


def test_openai_strict_requires_all_and_nulls_optionals(tmp_path: Path) -> None:
    body, diags = compile_one(
        tmp_path, "signature f() -> {a :int, b :string?, c :int = 1}", "f", "openai"
    )
    schema = schema_of(body, "openai")
    assert schema["required"] == ["a", "b", "c"]
    assert schema["properties"]["b"] == {"type": ["string", "null"]}
    assert schema["additionalProperties"] is False
    assert body["request"]["response_format"]["json_schema"]["strict"] is True
    tool = body["tool_request"]
    assert tool["tool_choice"] == {"type": "function", "function": {"name": "f"}}
    assert tool["parallel_tool_calls"] is False
    assert diags == []


def test_openai_wraps_a_list_root_and_reports_it(tmp_path: Path) -> None:
    body, _ = compile_one(tmp_path, "signature f() -> [{t :string}]", "f", "openai")
    assert body["wrapped"] == "items"
    schema = schema_of(body, "openai")
    assert schema["required"] == ["items"] and schema["properties"]["items"]["type"] == "array"


def test_openai_losses_are_warnings_with_field_paths(tmp_path: Path) -> None:
    text = (
        'signature f() -> {s :string @min_length(2) "name", u :string @format("uri"),'
        " x :any, m {id :int, ...}}"
    )
    body, diags = compile_one(tmp_path, text, "f", "openai")
    assert any("openai: `f.s`: `minLength: 2` is not enforced" in d for d in diags)
    assert any('`f.u`: `format: "uri"` is not a supported format' in d for d in diags)
    assert any("`f.x`: `:any` cannot be expressed" in d for d in diags)
    assert any("`f.m`: extra keys" in d for d in diags)
    props = schema_of(body, "openai")["properties"]
    assert "minLength" not in props["s"] and "minLength 2" in props["s"]["description"]
    assert props["m"]["additionalProperties"] is False


def test_openai_wraps_refs_that_carry_descriptions(tmp_path: Path) -> None:
    text = 'type S = "a" | "b"\nsignature f() -> {s S "the label"}'
    body, _ = compile_one(tmp_path, text, "f", "openai")
    prop = schema_of(body, "openai")["properties"]["s"]
    assert prop == {"anyOf": [{"$ref": "#/$defs/S"}], "description": "the label"}


def test_anthropic_cannot_express_recursion(tmp_path: Path) -> None:
    text = "type T = {v :int, kids [T]}\nsignature f() -> T"
    body, diags = compile_one(tmp_path, text, "f", "anthropic")
    assert body is None
    assert diags == ["provider-unsupported: anthropic: no fragment for `f`: recursive type `T`"]
    openai, _ = compile_one(tmp_path, text, "f", "openai")
    assert "$defs" in schema_of(openai, "openai")  # OpenAI supports recursion


def test_anthropic_optional_budget_is_a_limit(tmp_path: Path) -> None:
    fields = ", ".join(f"f{i} :int?" for i in range(25))
    _, diags = compile_one(tmp_path, f"signature f() -> {{{fields}}}", "f", "anthropic")
    assert any(
        d.startswith("provider-limit: anthropic: `f` exceeds a limit: 25 optional") for d in diags
    )


def test_openai_name_limit(tmp_path: Path) -> None:
    name = "n" * 65
    _, diags = compile_one(tmp_path, f"signature {name}() -> {{a :int}}", name, "openai")
    assert any("provider-limit" in d and "the name must match" in d for d in diags)


def test_gemini_orders_properties_and_has_an_openapi_form(tmp_path: Path) -> None:
    text = 'signature f() -> {z :string?, a ("x" | "y")}'
    body, _ = compile_one(tmp_path, text, "f", "gemini")
    assert schema_of(body, "gemini")["propertyOrdering"] == ["z", "a"]
    openapi = body["openapi_request"]["generationConfig"]["responseSchema"]
    assert openapi["type"] == "OBJECT"
    assert openapi["properties"]["z"] == {"type": "STRING", "nullable": True}
    assert openapi["properties"]["a"] == {"type": "STRING", "format": "enum", "enum": ["x", "y"]}


def test_tools_compile_to_function_declarations(tmp_path: Path) -> None:
    text = "## Search the web.\ntool search(q :string, limit :int = 5) -> [:string]"
    body, _ = compile_one(tmp_path, text, "search", "anthropic")
    assert body["tool"] == {
        "name": "search",
        "description": "Search the web.",
        "input_schema": {
            "type": "object",
            "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["q"],
            "additionalProperties": False,
        },
    }


def test_text_mode_has_no_fragment(tmp_path: Path) -> None:
    """A text-mode reply is no JSON document: no provider file, only a json signature's."""
    (tmp_path / "p.sig").write_text(
        "@output(text)\nsignature f() -> :string\nsignature g() -> :int"
    )
    result = load([tmp_path / "p.sig"])
    compiled = compile_project(result.project, ["providers"], {}, inputs={})
    assert [a.path for a in compiled.files if a.path.startswith("providers/")] == [
        "providers/g.json"
    ]


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "ollama", "vllm"])
def test_provider_schemas_are_valid_json_schema(tmp_path: Path, provider: str) -> None:
    text = (
        'type S = "a" | "b"\nsignature f() -> {s S "d", n :float? @min(0), '
        "xs [{k :string, v :int = 1}] @max_items(3), t :datetime}"
    )
    body, _ = compile_one(tmp_path, text, "f", provider)
    schema = schema_of(body, provider)
    jsonschema.Draft202012Validator.check_schema(schema)
    sample = {"s": "a", "n": None, "xs": [{"k": "x", "v": 2}], "t": "2024-01-01T00:00:00Z"}
    assert jsonschema.Draft202012Validator(schema).is_valid(sample)
