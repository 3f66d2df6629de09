"""Anthropic: structured outputs (`output_config.format`) and strict forced tools.

Objects are closed, the root is an object, `:any` and recursive types cannot be expressed,
`minItems` above 1 is refused, and few constraint keywords are enforced.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sigspec.lower.providers.base import JsonSchema, Provider, Request, objects
from sigspec.lower.providers.dialect import Dialect

DIALECT = Dialect(
    "anthropic",
    keywords=frozenset({"format", "minItems"}),
    formats=frozenset(
        {
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "uri",
            "ipv4",
            "ipv6",
            "uuid",
        }
    ),
    closed_objects=True,
    any_type=False,
    recursion=False,
    max_min_items=1,
    wrap_root=True,
)
LIMITS = {"optional": 24, "unions": 16}


def requests(r: Request) -> dict[str, Any]:
    s = r.built.schema
    return {
        "request": {"output_config": {"format": {"type": "json_schema", "schema": s}}},
        "tool_request": {
            "tools": [
                {"name": r.name, "description": r.description, "strict": True, "input_schema": s}
            ],
            "tool_choice": {"type": "tool", "name": r.name},
        },
    }


def tool(name: str, description: str, schema: JsonSchema) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": schema}


def limits(name: str, schema: JsonSchema) -> Iterator[str]:
    nodes = [n for n, _ in objects(schema)]
    optional = sum(len(set(n.get("properties", {})) - set(n.get("required", []))) for n in nodes)
    unions = sum(1 for n in nodes if "anyOf" in n or isinstance(n.get("type"), list))
    if optional > LIMITS["optional"]:
        yield f"{optional} optional fields (at most {LIMITS['optional']})"
    if unions > LIMITS["unions"]:
        yield f"{unions} unions or nullable types (at most {LIMITS['unions']})"


PROVIDER = Provider(
    "anthropic",
    DIALECT,
    requests,
    tool,
    limits,
    payload="anthropic_payload",
    reader="read_anthropic",
    runtime_entries=("wrapped", "request", "tool_request"),
)
