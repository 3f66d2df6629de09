"""Ollama: the `format` field of /api/chat, enforced by llama.cpp's grammar.

Bounds apply to integers only, and the model never sees descriptions (the engine constrains
decoding; it does not show the schema). Patterns are rewritten to the `^...$` form llama.cpp
reads as ECMA-262 does (`grammar_patterns.py`); `:any` is a list of every type, since
llama.cpp's converter reads `{}` as "any object" in the releases Ollama ships.
"""

from __future__ import annotations

from typing import Any

from sigspec.lower.providers.base import JsonSchema, Provider, Request
from sigspec.lower.providers.dialect import ITEM_BOUNDS, NUMBER_BOUNDS, STRING_BOUNDS, Dialect

DIALECT = Dialect(
    "ollama",
    keywords=NUMBER_BOUNDS | ITEM_BOUNDS | STRING_BOUNDS | {"format"},
    formats=frozenset({"date", "time", "date-time", "uuid"}),
    integer_bounds_only=True,
    describes=False,
    grammar_patterns=True,
    any_as_types=True,
)


def requests(r: Request) -> dict[str, Any]:
    return {"request": {"format": r.built.schema}}


def tool(name: str, description: str, schema: JsonSchema) -> dict[str, Any]:
    function = {"name": name, "description": description, "parameters": schema}
    return {"type": "function", "function": function}


PROVIDER = Provider(
    "ollama",
    DIALECT,
    requests,
    tool,
    payload="ollama_payload",
    reader="read_ollama",
    runtime_entries=("wrapped", "request"),
)
