"""What a provider is: a dialect of JSON Schema, its size limits, and the shapes of its
request fragments and tool entries. One module per provider holds one `Provider`; the
registry (`lower/providers/__init__.py`) lists them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from sigspec.lower.providers.dialect import Dialect

JsonSchema = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Built:
    """A signature's output (a tool's params) in one dialect."""

    schema: JsonSchema
    wrapped: str | None  # the key the real output sits under when the root had to be wrapped


# Another dialect's schema of the same signature; None when that dialect cannot express it
# (already reported).
SchemaFor = Callable[[Dialect], Built | None]


@dataclass(frozen=True, slots=True)
class Request:
    """What a provider's request fragments are made of."""

    name: str  # the signature's name
    description: str
    built: Built  # in the provider's own dialect
    schema_for: SchemaFor


def no_limits(name: str, schema: JsonSchema) -> Iterator[str]:
    return iter(())


@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    dialect: Dialect
    # A json-mode signature's fragments: {"request": {...}, "tool_request": {...}, ...}.
    requests: Callable[[Request], dict[str, Any]]
    # A tool's function-calling entry: (name, description, params schema) -> entry.
    tool: Callable[[str, str, JsonSchema], dict[str, Any]]
    # What the provider would refuse at run time, checked at compile time (`provider-limit`).
    limits: Callable[[str, JsonSchema], Iterator[str]] = no_limits
    # The runtime functions (sigspec/runtime/client.py) that build a request body from the
    # fragments and read a response; None when the runtime has none for this provider.
    payload: str | None = None
    reader: str | None = None
    # The fragment entries the payload builder reads (generated clients carry only these).
    runtime_entries: tuple[str, ...] = ()


def objects(schema: Any, depth: int = 1) -> Iterator[tuple[dict[str, Any], int]]:
    """Every schema node with the object nesting depth it sits at (for limits)."""
    if isinstance(schema, dict):
        yield schema, depth
        nested = depth + 1 if schema.get("type") == "object" else depth
        for key, value in schema.items():
            if key == "$defs":
                for sub in value.values():
                    yield from objects(sub, 1)
            elif key == "properties":
                for sub in value.values():
                    yield from objects(sub, nested)
            elif key in ("items", "anyOf"):
                yield from objects(value, depth)
    elif isinstance(schema, list):
        for item in schema:
            yield from objects(item, depth)
