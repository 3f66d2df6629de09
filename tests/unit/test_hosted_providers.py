"""The hosted providers' documented rules (OpenAI, Anthropic, Gemini): what each fragment keeps,
rewrites or warns about. One regression test per case of issue 24; the SDKs themselves are
driven in `tests/test_sdk_requests.py`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sigspec import load
from sigspec.lower.providers.anthropic import pattern_refusal
from sigspec.lower.views import Lowered


def fragment(tmp_path: Path, text: str, provider: str, name: str = "f") -> tuple[Any, list[str]]:
    (tmp_path / "p.sig").write_text(text, encoding="utf-8")
    loaded = load([tmp_path / "p.sig"])
    assert not loaded.has_errors, loaded.diagnostics
    sig = loaded.project.signature(name)
    assert sig is not None
    found = Lowered(loaded.project).fragment(sig, provider)
    return found.entry, [f"{d.code}: {d.message}" for d in found.diagnostics]


def gemini_json(entry: Any) -> Any:
    return entry["request"]["generationConfig"]["responseJsonSchema"]


def gemini_openapi(entry: Any) -> Any:
    return entry["openapi_request"]["generationConfig"]["responseSchema"]


# ---- Gemini's OpenAPI form -------------------------------------------------------------------


def test_gemini_openapi_form_has_no_additional_properties_and_warns_on_open_maps(
    tmp_path: Path,
) -> None:
    entry, diags = fragment(tmp_path, "signature f() -> {a :int, m {k :string, ...}}", "gemini")
    text = json.dumps(gemini_openapi(entry))
    assert "additionalProperties" not in text  # google-genai refuses `true` before sending
    assert diags == [
        "provider-loss: gemini (`openapi_request`): `f.m`: extra keys (`...` or "
        "@allow_extra_keys) cannot be allowed; none are asked for"
    ]
    # The JSON Schema form keeps them: responseJsonSchema documents additionalProperties.
    assert gemini_json(entry)["properties"]["m"]["additionalProperties"] is True


def test_gemini_openapi_form_is_unavailable_for_an_object_without_properties(
    tmp_path: Path,
) -> None:
    entry, diags = fragment(tmp_path, "signature f() -> {a :int, m :map}", "gemini")
    assert "openapi_request" not in entry and "request" in entry
    assert diags == [
        "provider-unsupported: gemini (`openapi_request`): no fragment for `f`: `:map` (any "
        "object): an object needs at least one property"
    ]


def test_gemini_openapi_form_spells_a_mixed_type_as_any_of(tmp_path: Path) -> None:
    entry, _ = fragment(tmp_path, 'signature f() -> {a "x" | 1}', "gemini")
    prop = gemini_openapi(entry)["properties"]["a"]
    assert prop == {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]}


# ---- Gemini's JSON Schema form ---------------------------------------------------------------


def test_gemini_recursion_through_a_required_property_becomes_optional_with_a_warning(
    tmp_path: Path,
) -> None:
    text = "type T = {v :int, kids [T]}\nsignature f() -> {root T}"
    entry, diags = fragment(tmp_path, text, "gemini")
    node = gemini_json(entry)["$defs"]["T"]
    assert node["required"] == ["v"]
    assert node["properties"]["kids"]["description"] == "(sigspec checks: required)"
    assert gemini_json(entry)["required"] == ["root"]  # no cycle at the root: still required
    assert diags == [
        "provider-loss: gemini: `T.kids`: `required` cannot be enforced on a property that "
        "recurses (Gemini allows cycles only through optional properties); moved to the "
        "description",
        "provider-unsupported: gemini (`openapi_request`): no fragment for `f`: recursive type `T`",
    ]


def test_gemini_recursion_through_optional_properties_loses_nothing(tmp_path: Path) -> None:
    text = "type T = {v :int, kids [T] = [], next T?}\nsignature f() -> T"
    entry, diags = fragment(tmp_path, text, "gemini")
    assert gemini_json(entry)["$defs"]["T"]["required"] == ["v"]
    assert [d for d in diags if "provider-loss" in d] == []


def test_gemini_refuses_recursion_outside_any_property(tmp_path: Path) -> None:
    entry, diags = fragment(tmp_path, "type L = [L]\nsignature f() -> {l L}", "gemini")
    assert entry == {
        "unavailable": "recursive type `L` recurses outside any property (cycles may sit only "
        "in optional properties)"
    }
    assert diags[0].startswith("provider-unsupported: gemini: no fragment for `f`")


def test_gemini_enums_hold_no_null(tmp_path: Path) -> None:
    text = 'signature f() -> {a ("x" | "y")?, b ("p" | null) "b"}'
    entry, diags = fragment(tmp_path, text, "gemini")
    props = gemini_json(entry)["properties"]
    assert props["a"] == {"anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]}
    assert props["b"] == {
        "anyOf": [{"type": "string", "enum": ["p"]}, {"type": "null"}],
        "description": "b",
    }
    assert diags == []


def test_gemini_definitions_carry_nothing_beside_a_ref(tmp_path: Path) -> None:
    text = "type B = {x :int}\n## An alias.\ntype A = B\nsignature f() -> {a A}"
    entry, _ = fragment(tmp_path, text, "gemini")
    assert gemini_json(entry)["$defs"]["A"] == {
        "anyOf": [{"$ref": "#/$defs/B"}],
        "description": "An alias.",
    }


# ---- Anthropic -------------------------------------------------------------------------------


def test_anthropic_keeps_a_pattern_inside_its_regex_subset(tmp_path: Path) -> None:
    text = 'signature f() -> {s :string @pattern("^[A-Z]{2}\\\\d{4}$")}'
    entry, diags = fragment(tmp_path, text, "anthropic")
    schema = entry["request"]["output_config"]["format"]["schema"]
    assert schema["properties"]["s"] == {"type": "string", "pattern": "^[A-Z]{2}\\d{4}$"}
    assert diags == []


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("\\\\bword\\\\b", "a word boundary"),
        ("^(?!x)[a-z]+$", "a lookaround"),
        ("^(?<=a)b$", "a lookaround"),
        ("^a{2,100}$", "a counted repeat above 64"),
    ],
)
def test_anthropic_warns_on_a_pattern_outside_its_subset(
    tmp_path: Path, pattern: str, reason: str
) -> None:
    text = f'signature f() -> {{s :string @pattern("{pattern}")}}'
    entry, diags = fragment(tmp_path, text, "anthropic")
    prop = entry["request"]["output_config"]["format"]["schema"]["properties"]["s"]
    assert "pattern" not in prop and "(sigspec checks: pattern" in prop["description"]
    [diag] = diags
    assert diag.startswith("provider-loss: anthropic: `f.s`: `pattern: ")
    assert f"uses {reason}, outside this provider's regex subset" in diag


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("^[a-z]+$", None),
        ("\\\\b", None),  # an escaped backslash, then a letter
        ("[\\b]", None),  # a backspace inside a class
        ("[{]100}", None),  # no counted repeat
        ("a{64}", None),
        ("a{65}", "a counted repeat above 64"),
        ("(?<name>a)\\k<name>", "a back-reference"),
        ("\\B", "a word boundary"),
        ("(?!a)", "a lookaround"),
    ],
)
def test_anthropic_pattern_subset(pattern: str, reason: str | None) -> None:
    assert pattern_refusal(pattern) == reason
