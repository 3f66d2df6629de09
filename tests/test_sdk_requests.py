"""The official SDKs accept every provider fragment as the README shows it.

For every json signature and tool of `examples/` and a set of random signatures, the fragments
are sent with `openai`, `anthropic`, `google-genai` and `ollama` to a recording server on
127.0.0.1 (`recording_server.py`): the SDK must send the request, the recorded body must hold
the schema unchanged, the fragment must come back untouched (the SDKs get module constants),
and the body must meet the provider's documented rules, written here as small checks.
SDK tests: they need the `test` extra's SDKs and nothing else (no network, no key).
"""

from __future__ import annotations

import copy
import functools
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import ollama
import openai
import pytest
from google import genai
from google.genai import types as genai_types

from recording_server import Recorder, recording_server
from sigspec import load
from sigspec.lower.providers.anthropic import pattern_refusal
from sigspec.lower.views import Lowered

ROOT = Path(__file__).resolve().parents[1]
MESSAGES = [{"role": "user", "content": "hi"}]
Json = dict[str, Any]

# ---- the providers' documented rules, as checks -------------------------------------------------

OPENAI_KEYWORDS = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
}
OPENAI_FORMATS = {
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
}
ANTHROPIC_KEYWORDS = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "description",
    "title",
    "format",
    "minItems",
    "pattern",
    "default",
}
ANTHROPIC_FORMATS = OPENAI_FORMATS | {"uri"}
GEMINI_KEYWORDS = {
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
}
OPENAPI_KEYWORDS = {
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "default",
    "anyOf",
    "properties",
    "required",
    "propertyOrdering",
    "title",
}
OPENAPI_FORMATS = {
    "STRING": {"enum", "date-time"},
    "NUMBER": {"float", "double"},
    "INTEGER": {"int32", "int64"},
}
OPENAPI_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}


def nodes(schema: Any, where: str = "#") -> Iterator[tuple[str, Json]]:
    """Every subschema with its JSON pointer."""
    if not isinstance(schema, dict):
        return
    yield where, schema
    for name, sub in schema.get("properties", {}).items():
        yield from nodes(sub, f"{where}/properties/{name}")
    for key in ("$defs",):
        for name, sub in schema.get(key, {}).items():
            yield from nodes(sub, f"{where}/{key}/{name}")
    if isinstance(schema.get("items"), dict):
        yield from nodes(schema["items"], f"{where}/items")
    for key in ("anyOf", "allOf", "oneOf"):
        for index, sub in enumerate(schema.get(key, [])):
            yield from nodes(sub, f"{where}/{key}/{index}")


def is_object(node: Json) -> bool:
    kind = node.get("type")
    return kind == "object" or (isinstance(kind, list) and "object" in kind)


def openai_strict(schema: Json) -> list[str]:
    """Structured outputs, strict: a root object (no anyOf), every object closed with all its
    keys required, supported keywords and formats only, no siblings beside `$ref`."""
    out = [] if schema.get("type") == "object" else ["the root is no object"]
    for where, node in nodes(schema):
        out += [f"{where}: `{k}` is not supported" for k in set(node) - OPENAI_KEYWORDS]
        if is_object(node):
            if node.get("additionalProperties") is not False:
                out.append(f"{where}: an object not closed")
            if node.get("required") != list(node.get("properties", {})):
                out.append(f"{where}: not every key is required")
        if "format" in node and node["format"] not in OPENAI_FORMATS:
            out.append(f"{where}: format {node['format']} is not supported")
        if "$ref" in node and len(node) > 1 and where != "#":
            out.append(f"{where}: `$ref` has siblings")
    return out


def anthropic_rules(schema: Json) -> list[str]:
    """Structured outputs and strict tools: a root object, closed objects, `minItems` 0 or 1,
    supported keywords, formats and patterns, every node typed, no recursion."""
    out = [] if schema.get("type") == "object" else ["the root is no object"]
    for where, node in nodes(schema):
        out += [f"{where}: `{k}` is not supported" for k in set(node) - ANTHROPIC_KEYWORDS]
        if is_object(node) and node.get("additionalProperties") is not False:
            out.append(f"{where}: an object not closed")
        if node.get("minItems", 0) > 1:
            out.append(f"{where}: minItems above 1")
        if "format" in node and node["format"] not in ANTHROPIC_FORMATS:
            out.append(f"{where}: format {node['format']} is not supported")
        if "pattern" in node and pattern_refusal(node["pattern"]) is not None:
            out.append(f"{where}: pattern outside the subset")
        if not {"type", "anyOf", "allOf", "enum", "const", "$ref"} & set(node):
            out.append(f"{where}: an untyped schema")
    defs = schema.get("$defs", {})
    for name in defs:
        if f'"#/$defs/{name}"' in json.dumps(defs[name]):
            out.append(f"$defs/{name}: recursive")
    return out


def gemini_rules(schema: Json) -> list[str]:
    """responseJsonSchema: the documented keywords, `propertyOrdering` on every object with
    properties, enums of strings and numbers, nothing beside `$ref` but `$` keywords, and a
    cyclic `$ref` only inside a property that is not required."""
    out: list[str] = []
    for where, node in nodes(schema):
        out += [f"{where}: `{k}` is not supported" for k in set(node) - GEMINI_KEYWORDS]
        if node.get("properties") and node.get("propertyOrdering") != list(node["properties"]):
            out.append(f"{where}: no propertyOrdering")
        for value in node.get("enum", []):
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                out.append(f"{where}: enum value {value!r} is no string or number")
        if "$ref" in node and any(not k.startswith("$") for k in node):
            out.append(f"{where}: `$ref` has siblings")
        for name, prop in node.get("properties", {}).items():
            if name in node.get("required", []) and _cycles_back(where, prop):
                out.append(f"{where}/properties/{name}: a required property recurses")
    return out


def _cycles_back(where: str, prop: Json) -> bool:
    """Does this property itself (not a property inside it) refer to the definition it sits
    in?"""
    if not where.startswith("#/$defs/"):
        return False
    target = f"#/$defs/{where.split('/')[2]}"
    stack = [prop]
    while stack:
        node = stack.pop()
        if node.get("$ref") == target:
            return True
        stack += [node["items"]] if isinstance(node.get("items"), dict) else []
        stack += node.get("anyOf", []) + node.get("oneOf", [])
    return False


def gemini_openapi_rules(schema: Json) -> list[str]:
    """responseSchema (OpenAPI 3.0 subset): Schema's fields only, no `additionalProperties`,
    upper-case types, an OBJECT with properties and `propertyOrdering`, enums of strings on
    STRING, formats by type, no `$ref`."""
    out: list[str] = []
    for where, node in nodes(schema):
        out += [f"{where}: `{k}` is not supported" for k in set(node) - OPENAPI_KEYWORDS]
        kind = node.get("type")
        if kind is not None and kind not in OPENAPI_TYPES:
            out.append(f"{where}: type {kind!r}")
        if kind is None and "anyOf" not in node:
            out.append(f"{where}: untyped")
        if kind == "OBJECT" and not node.get("properties"):
            out.append(f"{where}: an OBJECT without properties")
        if node.get("properties") and node.get("propertyOrdering") != list(node["properties"]):
            out.append(f"{where}: no propertyOrdering")
        if "enum" in node and (
            kind != "STRING" or not all(isinstance(v, str) for v in node["enum"])
        ):
            out.append(f"{where}: an enum that is no list of strings")
        if "format" in node and node["format"] not in OPENAPI_FORMATS.get(kind or "", set()):
            out.append(f"{where}: format {node['format']} on {kind}")
    return out


# ---- the fragments: every example's json signatures and tools, and random signatures ----------

FIELD_NAMES = ["title", "count", "score", "tags", "when", "kind", "note", "items", "meta", "url"]
PATTERNS = ["^[A-Z0-9-]+$", "^\\d{4}-\\d{2}$", "\\bword\\b", "^(?!x)[a-z]+$", "^a{2,100}$"]
FORMATS = ["email", "date", "date-time", "uri", "uuid", "time"]


def _scalar(rnd: random.Random) -> tuple[str, str]:
    """A scalar type and the attributes a field of it may carry."""
    return rnd.choice(
        [
            (":string", ""),
            (":int", ""),
            (":float", ""),
            (":bool", ""),
            (":datetime", ""),
            (":any", ""),
            (":map", ""),
            (":keyword", ""),
            (":string", f" @pattern({json.dumps(rnd.choice(PATTERNS))})"),
            (":string", f' @format("{rnd.choice(FORMATS)}")'),
            (":string", " @min_length(1) @max_length(40)"),
            (":float", " @min(0) @max(1)"),
            (":int", " @min(1)"),
            ('"a" | "b" | "c"', ""),
            ('("x" | "y")?', ""),
            ('("p" | null)', ""),
            ("1 | 2 | 3", ""),
            (":int?", ""),
        ]
    )


def _type(rnd: random.Random, named: list[str], depth: int) -> tuple[str, str]:
    roll = rnd.random()
    if depth == 0 or roll < 0.45:
        return (rnd.choice(named), "") if named and roll < 0.1 else _scalar(rnd)
    if roll < 0.65:
        bounds = rnd.choice(["", " @min_items(1)", " @min_items(2)", " @max_items(5)"])
        return f"[{_type(rnd, named, depth - 1)[0]}]", bounds
    return _map(rnd, named, depth - 1), ""


def _map(rnd: random.Random, named: list[str], depth: int) -> str:
    names = rnd.sample(FIELD_NAMES, rnd.randint(1, 4))
    fields = []
    for name in names:
        kind, attrs = _type(rnd, named, depth)
        plain = "|" not in kind and not kind.endswith("?")
        optional = "?" if plain and rnd.random() < 0.2 else ""
        fields.append(f'{name} {kind}{optional}{attrs} "the {name}"')
    tail = ", ..." if rnd.random() < 0.15 else ""
    return "{" + ", ".join(fields) + tail + "}"


def random_source(seed: int) -> str:
    """A .sig file of named types (one of them recursive, sometimes) and one signature."""
    rnd = random.Random(seed)
    lines = []
    named: list[str] = []
    for index in range(rnd.randint(0, 2)):
        name = f"T{index}"
        lines.append(f"## Type {index}.\ntype {name} = {_map(rnd, named, 1)}")
        named.append(name)
    if rnd.random() < 0.35:
        kids = rnd.choice(["kids [Node]", "kids [Node] = []", "next Node?", "kids {left Node?}"])
        lines.append(f"type Node = {{value :string, {kids}}}")
        named.append("Node")
    output = rnd.choice([_map(rnd, named, 2), _type(rnd, named, 2)[0], *named[-1:]])
    extra = "@allow_extra_keys\n" if rnd.random() < 0.1 else ""
    lines.append(f"## Random signature {seed}.\n{extra}signature r{seed}(q :string) -> {output}")
    return "\n".join(lines) + "\n"


def _fragments(paths: list[Path]) -> list[tuple[str, str, Json]]:
    """(id, provider, entry) for every json signature and tool, every provider that has one."""
    loaded = load(paths)
    assert not loaded.has_errors, [d.message for d in loaded.diagnostics]
    lowered = Lowered(loaded.project)
    out = []
    sigs = [s for s in loaded.project.signatures if s.mode == "json"]
    for sig in [*sigs, *loaded.project.tools]:
        for name in ("openai", "anthropic", "gemini", "ollama", "vllm"):
            entry = lowered.fragment(sig, name).entry
            if "unavailable" not in entry:
                out.append((sig.name, name, entry))
    return out


def example_fragments() -> list[tuple[str, str, Json]]:
    return _fragments(sorted((ROOT / "examples").glob("*.sig")))


def random_fragments(tmp: Path, seeds: range) -> list[tuple[str, str, Json]]:
    out = []
    for seed in seeds:
        path = tmp / f"r{seed}.sig"
        path.write_text(random_source(seed), encoding="utf-8")
        out += _fragments([path])
    return out


# ---- sending them as the README shows --------------------------------------------------------


def _same(left: Any, right: Any) -> bool:
    """Equal as JSON, with google-genai's snake_case field names read as camelCase (it sends
    `property_ordering`, which the API reads as `propertyOrdering`)."""
    return _camel(left) == _camel(right)


def _camel(value: Any, names: bool = False) -> Any:
    if isinstance(value, list):
        return [_camel(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, sub in value.items():
        head, *rest = key.split("_") if not names and not key.startswith("$") else (key,)
        name = head + "".join(part.title() for part in rest)
        out[name] = _camel(sub, names=name == "properties" and not names)
    return out


@functools.cache
def _openai(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0)


@functools.cache
def _anthropic(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key="k", max_retries=0)


@functools.cache
def _genai(url: str) -> genai.Client:
    return genai.Client(api_key="k", http_options=genai_types.HttpOptions(base_url=url))


@functools.cache
def _ollama(url: str) -> ollama.Client:
    return ollama.Client(host=url)


def send_openai(rec: Recorder, entry: Json) -> list[str]:
    client = _openai(rec.url)
    out = []
    if "tool" in entry:
        client.chat.completions.create(model="m", messages=MESSAGES, tools=[entry["tool"]])
        body = rec.take().body
        assert body["tools"] == [entry["tool"]]
        return openai_strict(entry["tool"]["function"]["parameters"])
    client.chat.completions.create(model="m", messages=MESSAGES, **entry["request"])
    body = rec.take().body
    assert body["response_format"] == entry["request"]["response_format"]
    out += openai_strict(body["response_format"]["json_schema"]["schema"])
    client.chat.completions.create(model="m", messages=MESSAGES, **entry["tool_request"])
    body = rec.take().body
    for key in ("tools", "tool_choice", "parallel_tool_calls"):
        assert body[key] == entry["tool_request"][key]
    return out + openai_strict(body["tools"][0]["function"]["parameters"])


def send_vllm(rec: Recorder, entry: Json) -> list[str]:
    """vLLM's fragment goes in `extra_body`: `structured_outputs` is no parameter of the SDK."""
    client = _openai(rec.url)
    if "tool" in entry:
        client.chat.completions.create(model="m", messages=MESSAGES, tools=[entry["tool"]])
        assert rec.take().body["tools"] == [entry["tool"]]
        return []
    with pytest.raises(TypeError):
        client.chat.completions.create(model="m", messages=MESSAGES, **entry["request"])
    client.chat.completions.create(model="m", messages=MESSAGES, extra_body=entry["request"])
    body = rec.take().body
    assert body["structured_outputs"] == entry["request"]["structured_outputs"]
    return []


def send_anthropic(rec: Recorder, entry: Json) -> list[str]:
    create = _anthropic(rec.url).messages.create
    if "tool" in entry:
        create(model="m", max_tokens=64, messages=MESSAGES, tools=[entry["tool"]])
        assert rec.take().body["tools"] == [entry["tool"]]
        return anthropic_rules(entry["tool"]["input_schema"])
    create(model="m", max_tokens=64, messages=MESSAGES, **entry["request"])
    body = rec.take().body
    assert body["output_config"] == entry["request"]["output_config"]
    out = anthropic_rules(body["output_config"]["format"]["schema"])
    create(model="m", max_tokens=64, messages=MESSAGES, **entry["tool_request"])
    body = rec.take().body
    assert body["tools"] == entry["tool_request"]["tools"]
    assert body["tool_choice"] == entry["tool_request"]["tool_choice"]
    return out + anthropic_rules(body["tools"][0]["input_schema"])


def send_gemini(rec: Recorder, entry: Json) -> list[str]:
    client = _genai(rec.url)
    if "tool" in entry:
        tools = [{"functionDeclarations": [entry["tool"]]}]
        client.models.generate_content(model="m", contents="hi", config={"tools": tools})
        sent = rec.take().body["tools"][0]["functionDeclarations"][0]
        assert _same(sent, entry["tool"])
        return gemini_rules(entry["tool"]["parametersJsonSchema"])
    out = []
    for key, schema_key, rules in (
        ("request", "responseJsonSchema", gemini_rules),
        ("openapi_request", "responseSchema", gemini_openapi_rules),
    ):
        if key not in entry:
            continue
        config = entry[key]["generationConfig"]
        client.models.generate_content(model="m", contents="hi", config=config)
        sent = rec.take().body["generationConfig"]
        assert _same(sent, config)
        out += [f"{key}: {problem}" for problem in rules(_camel(sent[schema_key]))]
    return out


def send_ollama(rec: Recorder, entry: Json) -> list[str]:
    client = _ollama(rec.url)
    if "tool" in entry:
        # The SDK rebuilds tools with its `Tool` model, which keeps only `type`, `items`,
        # `description` and `enum` of each parameter (no `$ref`, `anyOf`, bounds or
        # `additionalProperties`): the README says so. The body is exactly that model's dump.
        client.chat(model="m", messages=MESSAGES, tools=[entry["tool"]])
        kept = ollama.Tool.model_validate(entry["tool"]).model_dump(exclude_none=True)
        assert rec.take().body["tools"] == [kept]
        return []
    client.chat(model="m", messages=MESSAGES, **entry["request"])
    assert rec.take().body["format"] == entry["request"]["format"]
    return []


SEND: dict[str, Callable[[Recorder, Json], list[str]]] = {
    "openai": send_openai,
    "anthropic": send_anthropic,
    "gemini": send_gemini,
    "ollama": send_ollama,
    "vllm": send_vllm,
}


@pytest.fixture(scope="module")
def server() -> Iterator[Recorder]:
    with recording_server() as recorder:
        yield recorder


def _send_all(server: Recorder, fragments: list[tuple[str, str, Json]]) -> dict[str, int]:
    problems: list[str] = []
    sent: dict[str, int] = {}
    for name, provider, entry in fragments:
        before = copy.deepcopy(entry)
        problems += [f"{provider} {name}: {p}" for p in SEND[provider](server, entry)]
        assert entry == before, f"{provider} changed the fragment of {name}"
        sent[provider] = sent.get(provider, 0) + 1
    assert problems == []
    return sent


def test_every_example_fragment_is_sent_by_the_official_sdks(server: Recorder) -> None:
    sent = _send_all(server, example_fragments())
    # 7 json signatures and tools (`search`) in the examples; every provider expresses them.
    assert sent == {p: 7 for p in SEND}


def test_random_signatures_fragments_are_sent_by_the_official_sdks(
    server: Recorder, tmp_path: Path
) -> None:
    fragments = random_fragments(tmp_path, range(120))
    sent = _send_all(server, fragments)
    assert min(sent.values()) >= 60, sent  # each provider got most of them
    # The cases of issue 24 are among them: Gemini recursion, Anthropic patterns, open maps.
    text = {p: json.dumps([e for _, q, e in fragments if q == p]) for p in SEND}
    assert "(sigspec checks: required)" in text["gemini"]
    assert '"pattern": "^[A-Z0-9-]+$"' in text["anthropic"]
    assert '"additionalProperties": true' in text["gemini"]


# ---- one regression test per case of issue 24 ------------------------------------------------


def _one(tmp_path: Path, text: str, provider: str) -> Json:
    (tmp_path / "one.sig").write_text(text, encoding="utf-8")
    [entry] = [e for _, p, e in _fragments([tmp_path / "one.sig"]) if p == provider]
    return entry


def test_google_genai_sends_the_openapi_form_of_an_open_map(
    server: Recorder, tmp_path: Path
) -> None:
    entry = _one(tmp_path, "signature f() -> {a :int, m {k :string, ...}}", "gemini")
    assert send_gemini(server, entry) == []
    # What 0.5.0 sent, `additionalProperties: true`, google-genai refuses before sending.
    config = copy.deepcopy(entry["openapi_request"]["generationConfig"])
    config["responseSchema"]["properties"]["m"]["additionalProperties"] = True
    client = _genai(server.url)
    with pytest.raises(ValueError, match="additionalProperties"):
        client.models.generate_content(model="m", contents="hi", config=config)
    assert server.requests == []


def test_gemini_recursion_is_sent_with_the_recursing_property_optional(
    server: Recorder, tmp_path: Path
) -> None:
    entry = _one(tmp_path, "type T = {v :int, kids [T]}\nsignature f() -> T", "gemini")
    assert "openapi_request" not in entry
    assert send_gemini(server, entry) == []


def test_anthropic_sdk_sends_a_pattern_in_output_config(server: Recorder, tmp_path: Path) -> None:
    entry = _one(tmp_path, 'signature f() -> {s :string @pattern("^[A-Z]+$")}', "anthropic")
    assert send_anthropic(server, entry) == []
    schema = entry["request"]["output_config"]["format"]["schema"]
    assert schema["properties"]["s"]["pattern"] == "^[A-Z]+$"


def test_vllm_fragment_goes_in_extra_body_not_in_keyword_arguments(
    server: Recorder, tmp_path: Path
) -> None:
    entry = _one(tmp_path, "signature f() -> {a :int}", "vllm")
    client = _openai(server.url)
    with pytest.raises(TypeError, match="structured_outputs"):
        client.chat.completions.create(model="m", messages=MESSAGES, **entry["request"])
    client.chat.completions.create(model="m", messages=MESSAGES, extra_body=entry["request"])
    assert server.take().body["structured_outputs"] == entry["request"]["structured_outputs"]


def test_openai_sdk_sends_both_fragments_of_a_wrapped_list(
    server: Recorder, tmp_path: Path
) -> None:
    entry = _one(tmp_path, "signature f() -> [{t :string?}]", "openai")
    assert entry["wrapped"] == "items"
    assert send_openai(server, entry) == []
