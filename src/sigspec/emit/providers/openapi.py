"""JSON Schema → Gemini's OpenAPI 3.0 subset (`responseSchema`): uppercase types, `nullable`."""

from __future__ import annotations

from typing import Any


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
        elif key in ("properties",):
            out[key] = {name: to_openapi(v) for name, v in value.items()}
        else:
            out[key] = to_openapi(value)
    return out


def _type(value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        kinds = [v for v in value if v != "null"]
        out: dict[str, Any] = {"type": kinds[0].upper()} if len(kinds) == 1 else {}
        if "null" in value:
            out["nullable"] = True
        return out
    return {"type": str(value).upper()}
