"""The output instructions: a compact, JSON-shaped picture of the expected reply.

    Answer in JSON of this form:
    {
      sentiment: "positive" | "negative" | "neutral", // One of: positive, negative, neutral
      score: float // Confidence between 0.0 and 1.0
    }

It stands for a bullet list of the fields and an example at once: keys in order, types, enums as
their values, `| null` for optional fields, `T[]` for lists, and each field's description,
constraints and default as a trailing comment. It is held to the size of BAML's
`ctx.output_format` for the same schemas (bench/prompt_size.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import assert_never

from sigspec.semantics import ir

HEADER = "Answer in JSON of this form:"

_PRIM: Mapping[ir.PrimKind, str] = ir.per_primitive(
    {
        "string": "string",
        "keyword": "string",
        "int": "int",
        "float": "float",
        "bool": "bool",
        "datetime": "string (ISO 8601 date-time with offset)",
        "map": "object",
        "any": "any",
    }
)


def output_instructions(sig: ir.Signature, project: ir.Project) -> str:
    return f"{HEADER}\n{Shape(project).type(sig.output, '')}"


class Shape:
    def __init__(self, project: ir.Project) -> None:
        self.project = project
        self.expanding: list[str] = []  # named types being inlined (recursion guard)

    def type(self, t: ir.TypeRef, indent: str) -> str:
        match t:
            case ir.Prim(kind):
                return _PRIM[kind]
            case ir.Literal(value):
                return json.dumps(value, ensure_ascii=False)
            case ir.Optional(inner):
                return f"{self.type(inner, indent)} | null"
            case ir.Union(members):
                return " | ".join(self.type(m, indent) for m in members)
            case ir.ListOf(item):
                return self.list(item, indent)
            case ir.MapOf():
                return self.map(t, indent, "{", "}")
            case ir.Ref(name):
                if name in self.expanding:
                    return name  # recursive: the name stands for the structure above
                self.expanding.append(name)
                try:
                    return self.type(self.project.types[name].type, indent)
                finally:
                    self.expanding.pop()
            case _:
                assert_never(t)

    def list(self, item: ir.TypeRef, indent: str) -> str:
        target = item
        names: list[str] = []  # inlined here, so expanding too: `[Tree]` of a recursive Tree
        while isinstance(target, ir.Ref) and target.name not in (*self.expanding, *names):
            names.append(target.name)
            target = self.project.types[target.name].type
        if isinstance(target, ir.MapOf):
            self.expanding.extend(names)
            try:
                return self.map(target, indent, "[{", "}]")
            finally:
                del self.expanding[len(self.expanding) - len(names) :]
        text = self.type(item, indent)
        return f"({text})[]" if " | " in text else f"{text}[]"

    def map(self, t: ir.MapOf, indent: str, open_: str, close: str) -> str:
        if not t.fields:
            return open_ + ("..." if t.open else "") + close
        inner = indent + "  "
        lines = [open_]
        for index, f in enumerate(t.fields):
            last = index == len(t.fields) - 1 and not t.open
            text = self.type(f.type, inner)
            note = notes(f)
            comma = "" if last else ","
            if "\n" in text:  # a nested block: the note goes on its opening line
                first, rest = text.split("\n", 1)
                lines.append(f"{inner}{f.name}: {first}{_comment(note)}\n{rest}{comma}")
            else:
                lines.append(f"{inner}{f.name}: {text}{comma}{_comment(note)}")
        if t.open:
            lines.append(f"{inner}... // other keys allowed")
        lines.append(indent + close)
        return "\n".join(lines)


def _comment(note: str) -> str:
    return f" // {note}" if note else ""


def notes(f: ir.Field) -> str:
    """Description, constraints and default, on one line."""
    parts = [" ".join(f.description.split())] if f.description else []
    parts += constraint_notes(f)
    if f.default is not None:
        parts.append(f"default {json.dumps(f.default.value, ensure_ascii=False)}")
    if f.deprecated is not None:
        parts.append("deprecated")
    return "; ".join(parts)


def constraint_notes(f: ir.Field) -> list[str]:
    out: list[str] = []
    for c in f.constraints:
        match c:
            case ir.Range(lo, hi):
                out.append(_bounds(lo, hi, ""))
            case ir.Length(lo, hi):
                out.append(_bounds(lo, hi, "character"))
            case ir.Items(lo, hi):
                out.append(_bounds(lo, hi, "item"))
            case ir.Pattern(regex):
                out.append(f"matches {regex}")
            case ir.Format(name):
                out.append(f"format {name}")
            case _:
                assert_never(c)
    if f.clamp is not None:
        out.append(_bounds(f.clamp.low, f.clamp.high, ""))
    return out


def _bounds(lo: float | None, hi: float | None, unit: str) -> str:
    """`0 to 1`, `at least 1 item`, `at most 5 characters`: a unit counts the last bound."""
    last = hi if hi is not None else lo
    counted = f" {unit}{'' if last == 1 else 's'}" if unit else ""
    if lo is not None and hi is not None:
        return f"{lo} to {hi}{counted}"
    return f"at least {lo}{counted}" if lo is not None else f"at most {hi}{counted}"
