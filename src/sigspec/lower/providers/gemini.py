"""Gemini: `responseJsonSchema` (JSON Schema), and `responseSchema` (its OpenAPI 3.0 subset,
for models and SDKs that take only that) as `openapi_request`.

Every object gets `propertyOrdering`; enums hold strings and numbers only (a nullable enum is
`anyOf` [enum, null]); a `$ref` takes no siblings; a cyclic `$ref` may sit only in a property
that is not required (the docs: cycles are unrolled to a limited depth), so such a property is
optional in Gemini's schema and sigspec checks that it is there. The OpenAPI form has no
`$defs` (named types are inlined, so no recursion), no `:any`, no `additionalProperties`
(google-genai refuses `true` in the Gemini API before sending; objects there hold only their
properties, so extra keys are lost) and no OBJECT without properties (`:map`, `{}`), and spells
types in upper case with `nullable`.
"""

from __future__ import annotations

from typing import Any

from sigspec.lower.providers.base import JsonSchema, Provider, Request
from sigspec.lower.providers.dialect import ITEM_BOUNDS, NUMBER_BOUNDS, STRING_BOUNDS, Dialect

DIALECT = Dialect(
    "gemini",
    keywords=NUMBER_BOUNDS | ITEM_BOUNDS | {"format"},
    formats=frozenset({"date-time", "date", "time"}),
    enum_values="strings_numbers",
    property_ordering=True,
    ref_siblings=False,
    null_in_enum=False,
    cycles_in_optional=True,
)
OPENAPI = Dialect(
    "gemini-openapi",
    form="openapi_request",
    keywords=NUMBER_BOUNDS | ITEM_BOUNDS | STRING_BOUNDS | {"format", "default"},
    formats=frozenset({"date-time"}),
    any_type=False,
    recursion=False,
    enum_values="strings",
    property_ordering=True,
    refs=False,
    closed_objects=True,
    empty_objects=False,
)


def _config(key: str, schema: Any) -> dict[str, Any]:
    return {"generationConfig": {"responseMimeType": "application/json", key: schema}}


def requests(r: Request) -> dict[str, Any]:
    out: dict[str, Any] = {"request": _config("responseJsonSchema", r.built.schema)}
    openapi = r.schema_for(OPENAPI)
    if openapi is not None:
        out["openapi_request"] = _config("responseSchema", to_openapi(openapi.schema))
    return out


def tool(name: str, description: str, schema: JsonSchema) -> dict[str, Any]:
    return {"name": name, "description": description, "parametersJsonSchema": schema}


def to_openapi(schema: Any) -> Any:
    if isinstance(schema, list):
        return [to_openapi(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            out.update(_type(value))
        elif key == "anyOf":
            branches = [b for b in value if b != {"type": "null"}]
            if len(branches) < len(value):
                out["nullable"] = True
            out.update(
                to_openapi(branches[0]) if len(branches) == 1 else {"anyOf": to_openapi(branches)}
            )
        elif key == "enum":
            out["format"] = "enum"
            out["enum"] = [v for v in value if v is not None]
        elif key == "additionalProperties":
            continue  # always false here (closed_objects): an OBJECT holds only its properties
        elif key in ("properties",):
            out[key] = {name: to_openapi(v) for name, v in value.items()}
        else:
            out[key] = to_openapi(value)
    return out


def _type(value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        kinds = [v.upper() for v in value if v != "null"]
        out: dict[str, Any] = (
            {"type": kinds[0]} if len(kinds) == 1 else {"anyOf": [{"type": k} for k in kinds]}
        )
        if "null" in value:
            out["nullable"] = True
        return out
    return {"type": str(value).upper()}


PROVIDER = Provider(
    "gemini",
    DIALECT,
    requests,
    tool,
    payload="gemini_payload",
    reader="read_gemini",
    runtime_entries=("wrapped", "request"),
)
