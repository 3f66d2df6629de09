"""Provider size limits, checked at compile time so a request is never rejected at run time."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sigspec.emit.providers.dialects import ANTHROPIC_LIMITS, OPENAI_LIMITS, OPENAI_NAME


def _objects(schema: Any, depth: int = 1) -> Iterator[tuple[dict[str, Any], int]]:
    """Every schema node with the object nesting depth it sits at."""
    if isinstance(schema, dict):
        yield schema, depth
        nested = depth + 1 if schema.get("type") == "object" else depth
        for key, value in schema.items():
            if key == "$defs":
                for sub in value.values():
                    yield from _objects(sub, 1)
            elif key == "properties":
                for sub in value.values():
                    yield from _objects(sub, nested)
            elif key in ("items", "anyOf"):
                yield from _objects(value, depth)
    elif isinstance(schema, list):
        for item in schema:
            yield from _objects(item, depth)


def openai_limits(name: str, schema: dict[str, Any]) -> Iterator[str]:
    if not re.match(OPENAI_NAME, name):
        yield f"the name must match {OPENAI_NAME}"
    nodes = list(_objects(schema))
    properties = sum(len(n.get("properties", {})) for n, _ in nodes)
    depth = max((dep for n, dep in nodes if n.get("type") == "object"), default=0)
    enums = [n["enum"] for n, _ in nodes if "enum" in n]
    chars = sum(len(k) for n, _ in nodes for k in n.get("properties", {}))
    chars += sum(len(k) for k in schema.get("$defs", {}))
    chars += sum(len(str(v)) for values in enums for v in values if v is not None)
    lim = OPENAI_LIMITS
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


def anthropic_limits(name: str, schema: dict[str, Any]) -> Iterator[str]:
    nodes = [n for n, _ in _objects(schema)]
    optional = sum(len(set(n.get("properties", {})) - set(n.get("required", []))) for n in nodes)
    unions = sum(1 for n in nodes if "anyOf" in n or isinstance(n.get("type"), list))
    if optional > ANTHROPIC_LIMITS["optional"]:
        yield f"{optional} optional fields (at most {ANTHROPIC_LIMITS['optional']})"
    if unions > ANTHROPIC_LIMITS["unions"]:
        yield f"{unions} unions or nullable types (at most {ANTHROPIC_LIMITS['unions']})"
