"""What a signature's validator checks, in `.sig` notation, for the comment above it:
`{sentiment Sentiment, score :float @min(0) @max(1)}`. Every string from the source goes
out escaped (JSON notation, then `line_comment`), so the comment stays one comment."""

from __future__ import annotations

import json
import textwrap
from typing import assert_never

from sigspec.lower.quoting import line_comment
from sigspec.semantics import ir
from sigspec.semantics.descriptors import constraint_keywords

# JSON Schema keyword -> the attribute that asks for it.
_ATTRIBUTES = {
    "minimum": "min",
    "maximum": "max",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "pattern": "pattern",
    "format": "format",
}
_LINES = 4  # at most, then `...`


def comment(sig: ir.Signature, width: int = 88) -> str:
    """`# NAME returns TYPE`, wrapped, at most `_LINES` lines."""
    text = line_comment(f"`{sig.name}` returns {described(sig.output)}")
    lines = textwrap.wrap(text, width - 2, break_long_words=False, break_on_hyphens=False)
    if len(lines) > _LINES:
        lines = [*lines[: _LINES - 1], lines[_LINES - 1][: width - 6] + " ..."]
    return "\n".join(f"# {line}" for line in lines)


def described(t: ir.TypeRef) -> str:
    match t:
        case ir.Prim(kind):
            return f":{kind}"
        case ir.ListOf(item):
            return f"[{described(item)}]"
        case ir.MapOf(fields, is_open):
            parts = [_field(f) for f in fields] + (["..."] if is_open else [])
            return "{" + ", ".join(parts) + "}"
        case ir.Optional(inner):
            text = described(inner)
            return f"({text})?" if isinstance(inner, ir.Union) else f"{text}?"
        case ir.Ref(name):
            return name
        case ir.Literal(value):
            return json.dumps(value, ensure_ascii=False)
        case ir.Union(members):
            return " | ".join(described(m) for m in members)
        case _:
            assert_never(t)


def _field(f: ir.Field) -> str:
    parts = [f.name, described(f.type)]
    if f.default is not None:
        parts.append("= " + json.dumps(f.default.value, ensure_ascii=False))
    for keyword, value in constraint_keywords(f).items():
        if f.clamp is None or keyword not in ("minimum", "maximum"):
            parts.append(f"@{_ATTRIBUTES[keyword]}({json.dumps(value, ensure_ascii=False)})")
    if f.clamp is not None:
        parts.append(f"@clamp({json.dumps(f.clamp.low)}, {json.dumps(f.clamp.high)})")
    if f.fallback:
        parts.append("@fallback")
    return " ".join(parts)
