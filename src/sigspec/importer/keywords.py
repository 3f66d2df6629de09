"""The JSON Schema keywords `sigspec import` knows, and the field attributes constraints become.

The tables invert `semantics/descriptors.py`'s `constraint_keywords` (the forward mapping):
`minimum` is `@min`, `minLength` `@min_length`, and so on. What is in none of these sets is an
unknown keyword: JSON Schema ignores those, and so does the importer, with a warning.
"""

from __future__ import annotations

import math
from typing import Any

from sigspec.semantics.attributes import SCHEMA_KEYWORDS
from sigspec.semantics.resolve import FORMATS
from sigspec.syntax.fmt.literals import encode, scalar
from sigspec.syntax.scan import MAX_DEPTH

SILENT = frozenset({"title", "$comment", "examples", "$schema", "$id", "$anchor"})
FIELD_NOTES = frozenset({"description", "default", "deprecated"})
DROPPED = frozenset(
    {
        "readOnly",
        "writeOnly",
        "contentEncoding",
        "contentMediaType",
        "example",
        "externalDocs",
        "xml",
        "discriminator",
        "$defs",
        "definitions",
    }
)
UNSUPPORTED = frozenset(
    {
        "if",
        "then",
        "else",
        "not",
        "patternProperties",
        "dependentSchemas",
        "dependentRequired",
        "dependencies",
        "multipleOf",
        "contains",
        "minContains",
        "maxContains",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
        "unevaluatedProperties",
        "minProperties",
        "maxProperties",
        "propertyNames",
        "contentSchema",
        "$dynamicRef",
        "$recursiveRef",
    }
)
STRUCTURE = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "nullable",
        "uniqueItems",
    }
)


def _attributes(*keys: str) -> dict[str, str]:
    """Keywords and the attributes they become (one table: `semantics/attributes.py`)."""
    return {key: SCHEMA_KEYWORDS[key] for key in keys}


_NUMBER = _attributes("minimum", "maximum")
_STRING = _attributes("minLength", "maxLength", "pattern")
_ARRAY = _attributes("minItems", "maxItems")
_EXCLUSIVE = {"exclusiveMinimum": ("min", 1), "exclusiveMaximum": ("max", -1)}
CONSTRAINTS = frozenset({*_NUMBER, *_STRING, *_ARRAY, *_EXCLUSIVE, "format"})
# Each level of schema writes at most two brackets (`[(...)?]`): within the parser's nesting.
MAX_SCHEMA_DEPTH = MAX_DEPTH // 2 - 1
ORDER = ["min", "max", "min_length", "max_length", "min_items", "max_items", "pattern", "format"]
PRIMS = {"string": ":string", "integer": ":int", "number": ":float", "boolean": ":bool"}


def value_text(value: Any) -> str:
    """A JSON value in sigspec's value syntax (defaults)."""
    if isinstance(value, str):
        return encode(value)
    if isinstance(value, list):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{encode(k)}: {value_text(v)}" for k, v in value.items()) + "}"
    return scalar(value)


def attribute(key: str, value: Any, kind: Any) -> str | None:
    """The field attribute for constraint `key` on a schema of type `kind`; "" when the
    type says it already (`format: date-time` is `:datetime`); None when there is none."""
    number = finite(value)
    size = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if key in _NUMBER and kind in ("integer", "number") and number:
        return f"@{_NUMBER[key]}({scalar(value)})"
    if key in _EXCLUSIVE and kind == "integer" and isinstance(value, int) and number:
        name, step = _EXCLUSIVE[key]
        return f"@{name}({value + step})"
    if key == "pattern" and kind == "string" and isinstance(value, str):
        return f"@pattern({encode(value)})"
    if key in _STRING and key != "pattern" and kind == "string" and size:
        return f"@{_STRING[key]}({scalar(value)})"
    if key in _ARRAY and kind == "array" and size:
        return f"@{_ARRAY[key]}({scalar(value)})"
    if key == "format" and kind == "string" and isinstance(value, str) and value in FORMATS:
        return "" if value == "date-time" else f"@format({encode(value)})"
    return None


def finite(value: Any) -> bool:
    """A number JSON can hold (Python's reader also takes `Infinity` and `NaN`)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return not isinstance(value, float) or math.isfinite(value)


def json_value(value: Any) -> bool:
    if isinstance(value, list):
        return all(json_value(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and json_value(v) for k, v in value.items())
    return value is None or isinstance(value, (str, bool)) or finite(value)
