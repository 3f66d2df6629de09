"""IR types → JSON Schema (draft 2020-12): every signature's input and output schema.

`:string`→string, `:int`→integer, `:float`→number, `:bool`→boolean, `:any`→`{}`, lists, maps
with `required` in declaration order and `additionalProperties: false`, string unions→`enum`.
Optional fields are left out of `required` and accept null; named types go to `$defs`. The
provider dialects (`lower/providers/`) bend this mapping; the targets only write its results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, assert_never

from sigspec.semantics import ir
from sigspec.semantics.descriptors import constraint_keywords
from sigspec.semantics.types import referenced_names

DRAFT = "https://json-schema.org/draft/2020-12/schema"
JsonSchema = dict[str, Any]

_PRIM: Mapping[ir.PrimKind, JsonSchema] = ir.per_primitive(
    {
        "string": {"type": "string"},
        "keyword": {"type": "string"},
        "datetime": {"type": "string", "format": "date-time"},
        "int": {"type": "integer"},
        "float": {"type": "number"},
        "bool": {"type": "boolean"},
        "map": {"type": "object"},
        "any": {},
    }
)

_LITERAL_TYPE = {str: "string", int: "integer", float: "number", bool: "boolean"}


class SchemaBuilder:
    """IR types → JSON Schema, collecting the named types it meets for `$defs`."""

    def __init__(
        self,
        project: ir.Project,
        *,
        closed: bool = True,
        defs_cache: dict[str, JsonSchema] | None = None,
    ) -> None:
        self.project = project
        self.closed = closed  # False under @allow_extra_keys: every object keeps extras
        self.used: list[str] = []
        # Named types are the same wherever they are used: build each once per emitter run
        # (the caller shares the cache only between builders of the same configuration).
        self.defs_cache = defs_cache if defs_cache is not None else {}

    def type(self, t: ir.TypeRef) -> JsonSchema:
        match t:
            case ir.Prim(kind):
                return dict(_PRIM[kind])
            case ir.ListOf(item):
                return {"type": "array", "items": self.type(item)}
            case ir.MapOf():
                return self.object(t)
            case ir.Optional(inner):
                return nullable(self.type(inner))
            case ir.Ref(name):
                if name not in self.used:
                    self.used.append(name)
                return {"$ref": f"#/$defs/{name}"}
            case ir.Literal(value):
                return literal_schema([value])
            case ir.Union(members):
                return self.union(members)
            case _:
                assert_never(t)

    def object(self, t: ir.MapOf) -> JsonSchema:
        properties = {f.name: self.field(f) for f in t.fields}
        schema: JsonSchema = {"type": "object", "properties": properties}
        schema["required"] = [f.name for f in t.fields if f.required]
        schema["additionalProperties"] = not (self.closed and not t.open)
        return schema

    def field(self, f: ir.Field) -> JsonSchema:
        schema = self.type(f.type)
        schema.update(constraint_keywords(f))
        if f.default is not None:
            schema["default"] = f.default.value
        if f.description is not None:
            schema["description"] = f.description
        if f.deprecated is not None:
            schema["deprecated"] = True
        return schema

    def definition(self, name: str) -> JsonSchema:
        typedef = self.project.types[name]
        schema = self.type(typedef.type)
        if typedef.doc:
            schema["description"] = typedef.doc
        return schema

    def union(self, members: tuple[ir.TypeRef, ...]) -> JsonSchema:
        literals = [m.value for m in members if isinstance(m, ir.Literal)]
        others = [m for m in members if not isinstance(m, ir.Literal)]
        if not others:
            return literal_schema(literals)
        if literals == [None] and len(others) == 1:
            return nullable(self.type(others[0]))
        branches = [self.type(m) for m in others]
        if literals:
            branches.append(literal_schema(literals))
        return {"anyOf": branches}

    def definitions(self) -> dict[str, JsonSchema]:
        """`$defs` for every named type reached so far, transitively, in declaration order."""
        done: dict[str, JsonSchema] = {}
        index = 0
        while index < len(self.used):
            name = self.used[index]
            index += 1
            cached = self.defs_cache.get(name)
            if cached is None:
                cached = self.defs_cache[name] = self.definition(name)
            else:
                self.used += [
                    r for r in referenced_names(self.project.types[name].type) if r not in self.used
                ]
            done[name] = cached
        order = list(self.project.types)
        return {name: done[name] for name in sorted(done, key=order.index)}


def literal_schema(values: list[ir.JsonScalar]) -> JsonSchema:
    """String unions become PtcRunner's `{"type": "string", "enum": [...]}`."""
    kinds = {_LITERAL_TYPE.get(type(v), "null") for v in values}
    if kinds == {"null"}:
        return {"type": "null"}
    if len(kinds) == 1:
        return {"type": kinds.pop(), "enum": list(values)}
    types = sorted(kinds, key=["string", "integer", "number", "boolean", "null"].index)
    return {"type": types, "enum": list(values)}


def nullable(schema: JsonSchema) -> JsonSchema:
    """Accept null too: in `type` when the schema is a plain typed one, else through anyOf."""
    kind = schema.get("type")
    if kind == "null":
        return schema
    if isinstance(kind, str) and "$ref" not in schema and "anyOf" not in schema:
        out = {**schema, "type": [kind, "null"]}
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        return out
    if isinstance(kind, list):
        if "null" in kind:
            return schema
        out = {**schema, "type": [*kind, "null"]}
        if "enum" in out:  # a mixed literal union: its enum must let null through too
            out["enum"] = [*out["enum"], None]
        return out
    if not schema:
        return schema  # `{}` already accepts null
    return {"anyOf": [schema, {"type": "null"}]}


Caches = dict[bool, dict[str, JsonSchema]]


def output_schema(
    sig: ir.Signature, project: ir.Project, caches: Caches | None = None
) -> JsonSchema:
    closed = not sig.allow_extra_keys
    cache = caches.setdefault(closed, {}) if caches is not None else None
    builder = SchemaBuilder(project, closed=closed, defs_cache=cache)
    return _with_defs(builder.type(sig.output), builder)


def input_schema(
    sig: ir.Signature, project: ir.Project, caches: Caches | None = None
) -> JsonSchema:
    """Params as an object. Inputs are an open map of the params, as in PtcRunner."""
    builder = SchemaBuilder(project, defs_cache=caches.setdefault(True, {}) if caches else None)
    schema = builder.object(ir.MapOf(sig.params, open=True))
    del schema["additionalProperties"]
    return _with_defs(schema, builder)


def _with_defs(schema: JsonSchema, builder: SchemaBuilder) -> JsonSchema:
    defs = builder.definitions()
    return {**schema, "$defs": defs} if defs else schema
