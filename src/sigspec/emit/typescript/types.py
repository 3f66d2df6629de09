"""IR types → TypeScript type expressions (documents Prettier's way, see `tssource.py`).

Named types are referenced by name (through `$m_<module>.` when another module declares
them); every map becomes an object type whose keys are quoted unless they are plain
identifiers, so that no field name is ever read as syntax. Output types say what the
validators return: a field with a default is always present. Input types say what a caller
may pass: defaults may be left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import assert_never

from sigspec.emit.typescript import tssource as ts
from sigspec.emit.typescript.doc import Doc, render
from sigspec.semantics import ir

_INDEX = {"unknown": "[key: string]: unknown", "never": "[key: string]: never"}
_PRIM: Mapping[ir.PrimKind, str] = ir.per_primitive(
    {
        "string": "string",
        "keyword": "string",
        "datetime": "string",
        "int": "number",
        "float": "number",
        "bool": "boolean",
        "any": "unknown",
        "map": "",  # an open map of anything: `{ [key: string]: unknown }`
    }
)


def doc_comment(text: str | None, indent: str = "") -> str:
    """A `/** ... */` block holding `text`, which cannot end the comment early (lines end
    without spaces, as Prettier leaves them)."""
    if not text:
        return ""
    lines = [line.rstrip() for line in text.replace("*/", "*\\/").splitlines()] or [""]
    if len(lines) == 1:
        return f"{indent}/** {lines[0]} */\n"
    body = "".join(f"{indent} *{' ' + line if line else ''}\n" for line in lines)
    return f"{indent}/**\n{body}{indent} */\n"


def _index(kind: str) -> Doc:
    return ts.object_type([_INDEX[kind]], expanded=False)


@dataclass(frozen=True)
class TypeWriter:
    """Writes type expressions; `named` maps a named type to how this module refers to it."""

    named: Callable[[str], str]

    def alias(self, name: str, t: ir.TypeRef, *, inputs: bool = False) -> str:
        """`export type name = <t>;`, printed."""
        members = self._members(t, inputs)
        if len(members) == 1:
            return ts.statement(ts.type_alias(name, members[0][1]))
        kinds, docs = [k for k, _ in members], [m for _, m in members]
        hug = _hugs(kinds)
        value = ts.union(docs, hug=hug, where="alias")
        return ts.statement(ts.type_alias(name, value, union=not hug))

    def of(self, t: ir.TypeRef, *, inputs: bool = False) -> Doc:
        """`t` as a property's type."""
        members = self._members(t, inputs)
        if len(members) == 1:
            return members[0][1]
        return ts.union([m for _, m in members], hug=_hugs([k for k, _ in members]))

    def _members(self, t: ir.TypeRef, inputs: bool) -> list[tuple[str, Doc]]:
        """The members of `t` read as a union (a non-union is one member), each with its
        kind: "null", "object" (an object type literal) or "other"."""
        match t:
            case ir.Optional(inner):
                found = self._members(inner, inputs)
                return _unique([*found, ("null", "null")])
            case ir.Union(parts):
                return _unique([m for p in parts for m in self._members(p, inputs)])
            case _:
                return [self._single(t, inputs)]

    def _single(self, t: ir.TypeRef, inputs: bool) -> tuple[str, Doc]:
        match t:
            case ir.Prim(kind):
                return ("object", _index("unknown")) if kind == "map" else ("other", _PRIM[kind])
            case ir.ListOf(item):
                members = self._members(item, inputs)
                if len(members) == 1:
                    return "other", [members[0][1], "[]"]
                kinds = [k for k, _ in members]
                docs = [m for _, m in members]
                return "other", [ts.union(docs, hug=_hugs(kinds), where="parens"), "[]"]
            case ir.Ref(name):
                return "object", self.named(name)
            case ir.Literal(value):
                return ("null" if value is None else "other"), ts.scalar(value)
            case ir.MapOf(fields, is_open):
                return "object", self._map(fields, is_open, inputs)
            case ir.Optional() | ir.Union():
                return "other", self.of(t, inputs=inputs)
            case _:
                assert_never(t)

    def _map(self, fields: tuple[ir.Field, ...], is_open: bool, inputs: bool) -> Doc:
        if not fields:
            return _index("unknown" if is_open else "never")
        members = [self.member(f, inputs=inputs) for f in fields]
        if is_open:
            members.append(_INDEX["unknown"])
        return ts.object_type(members, expanded=True)

    def member(self, f: ir.Field, *, inputs: bool) -> Doc:
        """One property: doc comment, key, `?` when it may be absent, type."""
        absent = not f.required if inputs else not f.required and f.default is None
        return ts.member(f.name, absent, self.of(f.type, inputs=inputs), doc_comment(f.description))


def _hugs(kinds: list[str]) -> bool:
    """Prettier hugs `{ ... } | null` and `Named | null`: one object type or reference, and
    nulls."""
    return kinds.count("object") == 1 and kinds.count("null") == len(kinds) - 1


def _unique(members: list[tuple[str, Doc]]) -> list[tuple[str, Doc]]:
    seen: dict[str, tuple[str, Doc]] = {}
    for kind, d in members:
        seen.setdefault(render(d), (kind, d))
    return list(seen.values())
