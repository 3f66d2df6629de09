"""Ollama: the `format` field of /api/chat, enforced by llama.cpp's grammar.

Bounds apply to integers only, and the model never sees descriptions (the engine constrains
decoding; it does not show the schema). Patterns are rewritten to the `^...$` form llama.cpp
reads as ECMA-262 does (`grammar_patterns.py`); `:any` is a list of every type, which
every llama.cpp release reads as any value (older ones, as Ollama ships, read `{}` as an object).
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
    # Measured with llama.cpp's converter (tests/engines/test_engines.py).
    format_gaps=(
        ("date", "llama.cpp admits impossible days (2024-02-30, 2023-02-29) and the year 0000"),
        ("time", "llama.cpp refuses a lowercase `z` and fractions of other than 3 digits"),
        (
            "date-time",
            "llama.cpp admits impossible days and the year 0000, and refuses a lowercase `t` "
            "or `z` and fractions of other than 3 digits",
        ),
    ),
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
