"""OpenAI: strict structured outputs (`response_format: json_schema`) and strict tools.

Every key is required (an optional field becomes a required nullable one), every object is
closed, the root is an object, `:any` cannot be expressed, and a `$ref` takes no siblings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sigspec.lower.providers.base import JsonSchema, Provider, Request, objects
from sigspec.lower.providers.dialect import ITEM_BOUNDS, NUMBER_BOUNDS, Dialect

DIALECT = Dialect(
    "openai",
    keywords=NUMBER_BOUNDS | ITEM_BOUNDS | {"pattern", "format"},
    formats=frozenset(
        {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
    ),
    all_required=True,
    closed_objects=True,
    any_type=False,
    wrap_root=True,
    ref_siblings=False,
)

# Strict-mode limits (raised twice since launch: keep them here, dated 2026).
LIMITS = {
    "properties": 5000,
    "nesting": 10,
    "characters": 120_000,
    "enum_values": 1000,
    "large_enum": 250,
    "large_enum_characters": 15_000,
}
NAME = r"^[a-zA-Z0-9_-]{1,64}$"


def _function(name: str, description: str, schema: JsonSchema) -> dict[str, Any]:
    return {"name": name, "description": description, "strict": True, "parameters": schema}


def requests(r: Request) -> dict[str, Any]:
    s = r.built.schema
    return {
        "request": {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": r.name, "strict": True, "schema": s},
            }
        },
        "tool_request": {
            "tools": [{"type": "function", "function": _function(r.name, r.description, s)}],
            "tool_choice": {"type": "function", "function": {"name": r.name}},
            "parallel_tool_calls": False,
        },
    }


def tool(name: str, description: str, schema: JsonSchema) -> dict[str, Any]:
    return {"type": "function", "function": _function(name, description, schema)}


def limits(name: str, schema: JsonSchema) -> Iterator[str]:
    if not re.match(NAME, name):
        yield f"the name must match {NAME}"
    nodes = list(objects(schema))
    properties = sum(len(n.get("properties", {})) for n, _ in nodes)
    depth = max((dep for n, dep in nodes if n.get("type") == "object"), default=0)
    enums = [n["enum"] for n, _ in nodes if "enum" in n]
    chars = sum(len(k) for n, _ in nodes for k in n.get("properties", {}))
    chars += sum(len(k) for k in schema.get("$defs", {}))
    chars += sum(len(str(v)) for values in enums for v in values if v is not None)
    lim = LIMITS
    if properties > lim["properties"]:
        yield f"{properties} object properties (at most {lim['properties']})"
    if depth > lim["nesting"]:
        yield f"{depth} levels of nesting (at most {lim['nesting']})"
    if chars > lim["characters"]:
        yield f"{chars} characters of names and enum values (at most {lim['characters']})"
    values = sum(len(e) for e in enums)
    if values > lim["enum_values"]:
        yield f"{values} enum values (at most {lim['enum_values']})"
    for e in enums:
        size = sum(len(str(v)) for v in e)
        if len(e) > lim["large_enum"] and size > lim["large_enum_characters"]:
            yield (
                f"an enum of {len(e)} values totals {size} characters "
                f"(at most {lim['large_enum_characters']} over {lim['large_enum']} values)"
            )


PROVIDER = Provider(
    "openai",
    DIALECT,
    requests,
    tool,
    limits,
    payload="openai_payload",
    reader="read_openai",
    runtime_entries=("wrapped", "request", "tool_request"),
)
