"""Anthropic: structured outputs (`output_config.format`) and strict forced tools.

Objects are closed, the root is an object, `:any` and recursive types cannot be expressed,
`minItems` above 1 is refused, and few constraint keywords are enforced: `pattern` within
Anthropic's regex subset (no back-references, lookaround, word boundaries, Unicode property
escapes or large counted repeats), string formats and `minItems` 0 or 1.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sigspec.lower.providers.base import JsonSchema, Provider, Request, objects
from sigspec.lower.providers.dialect import Dialect

# What Anthropic's structured-outputs docs list as unsupported in `pattern`, as ECMA-262 spells
# it (an escape is read with the character after it, so `\\b` is no word boundary).
_OUTSIDE = re.compile(
    r"(?P<escape>\\[1-9]|\\k<|\\[bB]|\\[pP]\{)|(?P<look>\(\?<?[=!])"
    r"|\{(?P<low>[0-9]+)(?:,(?P<high>[0-9]*))?\}|\\.|\[(?:\\.|[^\]\\])*\]"
)
# "Complex {n,m} quantifiers with large ranges" are unsupported; where "large" starts is not
# documented: a counted repeat above this many is treated as large.
MAX_REPEAT = 64
_ESCAPES = {
    "b": "a word boundary",
    "B": "a word boundary",
    "p": "a Unicode property escape",
    "P": "a Unicode property escape",
}


def pattern_refusal(pattern: str) -> str | None:
    """Why Anthropic cannot enforce this pattern, or None when it is inside its subset."""
    for m in _OUTSIDE.finditer(pattern):
        if m["escape"]:
            return _ESCAPES.get(m["escape"][1], "a back-reference")
        if m["look"]:
            return "a lookaround"
        if m["low"] is not None:
            bounds = [int(m["low"]), int(m["high"] or 0)]
            if max(bounds) > MAX_REPEAT:
                return f"a counted repeat above {MAX_REPEAT}"
    return None


DIALECT = Dialect(
    "anthropic",
    keywords=frozenset({"format", "minItems", "pattern"}),
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
    pattern_refusal=pattern_refusal,
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
