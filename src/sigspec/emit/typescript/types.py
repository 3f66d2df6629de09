"""IR types → TypeScript type expressions.

Named types are referenced by name (through `$m_<module>.` when another module declares
them); every map becomes an object type whose keys are JSON string literals, so that no field
name is ever read as syntax. Output types say what the validators return: a field with a
default is always present. Input types say what a caller may pass: defaults may be left out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import assert_never

from sigspec.semantics import ir

_PRIM: Mapping[ir.PrimKind, str] = ir.per_primitive(
    {
        "string": "string",
        "keyword": "string",
        "datetime": "string",
        "int": "number",
        "float": "number",
        "bool": "boolean",
        "any": "unknown",
        "map": "{ [key: string]: unknown }",
    }
)


def literal(value: object) -> str:
    """A JSON scalar as TypeScript source: a string, number, boolean or null literal."""
    return json.dumps(value)


def doc_comment(text: str | None, indent: str = "") -> str:
    """A `/** ... */` block holding `text`, which cannot end the comment early."""
    if not text:
        return ""
    lines = text.replace("*/", "*\\/").splitlines() or [""]
    if len(lines) == 1:
        return f"{indent}/** {lines[0]} */\n"
    body = "".join(f"{indent} *{' ' + line if line else ''}\n" for line in lines)
    return f"{indent}/**\n{body}{indent} */\n"


@dataclass(frozen=True)
class TypeWriter:
    """Writes type expressions; `named` maps a named type to how this module refers to it."""

    named: Callable[[str], str]

    def of(self, t: ir.TypeRef, *, inputs: bool = False, indent: str = "") -> str:
        match t:
            case ir.Prim(kind):
                return _PRIM[kind]
            case ir.ListOf(item):
                inner = self.of(item, inputs=inputs, indent=indent)
                simple = inner.replace("_", "").replace(".", "").replace("$", "").isalnum()
                return f"{inner}[]" if simple or inner.endswith(("]", "}")) else f"({inner})[]"
            case ir.Optional(inner):
                return f"{self.of(inner, inputs=inputs, indent=indent)} | null"
            case ir.Ref(name):
                return self.named(name)
            case ir.Literal(value):
                return literal(value)
            case ir.Union(members):
                parts = [self.of(m, inputs=inputs, indent=indent) for m in members]
                return " | ".join(dict.fromkeys(parts))
            case ir.MapOf(fields, is_open):
                return self._map(fields, is_open, inputs, indent)
            case _:
                assert_never(t)

    def _map(self, fields: tuple[ir.Field, ...], is_open: bool, inputs: bool, indent: str) -> str:
        if not fields and not is_open:
            return "{ [key: string]: never }"
        inner = indent + "  "
        lines = [self.member(f, inputs=inputs, indent=inner) for f in fields]
        if is_open:
            lines.append(f"{inner}[key: string]: unknown;\n")
        return "{\n" + "".join(lines) + indent + "}"

    def member(self, f: ir.Field, *, inputs: bool, indent: str) -> str:
        """One property line: doc comment, quoted key, `?` when it may be absent, type."""
        absent = not f.required if inputs else not f.required and f.default is None
        optional = "?" if absent else ""
        text = self.of(f.type, inputs=inputs, indent=indent)
        return (
            f"{doc_comment(f.description, indent)}{indent}{json.dumps(f.name)}{optional}: {text};\n"
        )
