"""IR → one provider's schema: the JSON Schema mapping bent to a dialect, every loss recorded.

Paths in loss reports are declaration paths (`classify.score`, `Source.url`): a named type is
reported once, under its own name, however many signatures use it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sigspec.lower.providers.dialect import ANNOTATIONS, Dialect
from sigspec.lower.providers.grammar_patterns import Refused, rewrite, with_lengths
from sigspec.lower.schema import JsonSchema, SchemaBuilder, nullable
from sigspec.semantics import ir
from sigspec.semantics.descriptors import constraint_keywords
from sigspec.semantics.types import referenced_names

_ANY_SCALAR: JsonSchema = {
    "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]
}
_EVERY_TYPE = ["object", "array", "string", "number", "boolean", "null"]
_UNESCAPED = '`"`, `\\` and control characters'


@dataclass(frozen=True, slots=True)
class Loss:
    where: str
    what: str
    origin: ir.Origin | None


class Unsupported(Exception):
    """The provider cannot express this signature's output at all."""


def recursive_types(project: ir.Project) -> frozenset[str]:
    """Named types that can reach themselves through references."""
    edges = {name: set(referenced_names(t.type)) for name, t in project.types.items()}
    out = set()
    for start, first in edges.items():
        stack, seen = list(first), set()
        while stack:
            name = stack.pop()
            if name == start:
                out.add(start)
                break
            if name not in seen and name in edges:
                seen.add(name)
                stack += edges[name]
    return frozenset(out)


class ProviderSchemaBuilder(SchemaBuilder):
    def __init__(
        self,
        project: ir.Project,
        dialect: Dialect,
        *,
        closed: bool,
        recursive: frozenset[str],
        defs_cache: dict[str, JsonSchema] | None = None,
    ) -> None:
        super().__init__(project, closed=closed, defs_cache=defs_cache)
        self.dialect = dialect
        self.recursive = recursive
        self.losses: list[Loss] = []
        self.path: list[str] = []
        self.origin: ir.Origin | None = None
        self.current: str | None = None  # the named type whose definition is being built
        self._reach: dict[str, frozenset[str]] = {}

    def lose(self, what: str) -> None:
        self.losses.append(Loss(".".join(self.path), what, self.origin))

    def type(self, t: ir.TypeRef) -> JsonSchema:
        d = self.dialect
        if isinstance(t, ir.Prim) and t.kind == "any" and not d.any_type:
            self.lose("`:any` cannot be expressed; the schema asks for a scalar or null")
            return dict(_ANY_SCALAR)
        if isinstance(t, ir.Prim) and t.kind == "any" and d.any_as_types:
            return {"type": list(_EVERY_TYPE)}
        if isinstance(t, ir.Prim) and t.kind == "map" and not d.empty_objects:
            raise Unsupported("`:map` (any object): an object needs at least one property")
        if isinstance(t, ir.Prim) and t.kind == "map" and d.closed_objects:
            self.lose("`:map` (any object) cannot be expressed; the schema asks for `{}`")
            return {
                "type": "object",
                "properties": {},
                "required": [],
                "additionalProperties": False,
            }
        if isinstance(t, ir.Ref):
            return self.ref(t)
        if isinstance(t, ir.Union | ir.Literal):
            return self.enum_rules(super().type(t))
        if isinstance(t, ir.Optional) and not d.null_in_enum:
            return _null_apart(nullable(self.type(t.inner)))
        return super().type(t)

    def ref(self, t: ir.Ref) -> JsonSchema:
        if t.name in self.recursive and not self.dialect.recursion:
            raise Unsupported(f"recursive type `{t.name}`")
        if not self.dialect.refs:  # no $defs in this dialect: inline the definition
            saved, self.path = self.path, [t.name]
            try:
                return self.type(self.project.types[t.name].type)
            finally:
                self.path = saved
        return super().type(t)

    def definition(self, name: str) -> JsonSchema:
        saved, self.path = self.path, [name]
        current, self.current = self.current, name
        try:
            if self.dialect.cycles_in_optional and self._holds_cycle(self.project.types[name].type):
                raise Unsupported(
                    f"recursive type `{name}` recurses outside any property (cycles may sit "
                    "only in optional properties)"
                )
            schema = super().definition(name)
        finally:
            self.path, self.current = saved, current
        if "$ref" in schema and len(schema) > 1 and not self.dialect.ref_siblings:
            schema = {"anyOf": [{"$ref": schema.pop("$ref")}], **schema}
        return schema

    def enum_rules(self, schema: JsonSchema) -> JsonSchema:
        allowed = {
            "any": (str, int, float, bool, type(None)),
            "strings": (str, type(None)),
            "strings_numbers": (str, int, float, type(None)),
        }[self.dialect.enum_values]
        values = schema.get("enum")
        if values is not None and not all(
            isinstance(v, allowed) and not (isinstance(v, bool) and bool not in allowed)
            for v in values
        ):
            self.lose(f"enum {values} is not expressible; only its type is sent")
            return {k: v for k, v in schema.items() if k != "enum"}
        return schema if self.dialect.null_in_enum else _null_apart(schema)

    def object(self, t: ir.MapOf) -> JsonSchema:
        d = self.dialect
        if not t.fields and not d.empty_objects:
            raise Unsupported("a map with no fields: an object needs at least one property")
        schema = super().object(t)
        if d.cycles_in_optional:
            self.optional_cycles(t, schema)
        if d.all_required:
            schema["required"] = [f.name for f in t.fields]
        if d.closed_objects and schema["additionalProperties"]:
            self.lose(
                "extra keys (`...` or @allow_extra_keys) cannot be allowed; none are asked for"
            )
            schema["additionalProperties"] = False
        if d.property_ordering and t.fields:
            schema["propertyOrdering"] = [f.name for f in t.fields]
        return schema

    def optional_cycles(self, t: ir.MapOf, schema: JsonSchema) -> None:
        """Gemini unrolls a cyclic `$ref` to a limited depth, so it may sit only in a property
        that is not required: such a property stops being required in Gemini's schema."""
        for f in t.fields:
            if f.name not in schema["required"] or not self._holds_cycle(f.type):
                continue
            schema["required"].remove(f.name)
            prop = schema["properties"][f.name]
            note = "(sigspec checks: required)"
            prop["description"] = f"{prop.get('description', '')} {note}".strip()
            if "$ref" in prop and not self.dialect.ref_siblings:
                prop = {"anyOf": [{"$ref": prop.pop("$ref")}], **prop}
            schema["properties"][f.name] = prop
            self.path.append(f.name)
            saved, self.origin = self.origin, f.origin
            self.lose(
                "`required` cannot be enforced on a property that recurses (Gemini allows "
                "cycles only through optional properties); moved to the description"
            )
            self.path.pop()
            self.origin = saved

    def _holds_cycle(self, t: ir.TypeRef) -> bool:
        """Does this field's own schema hold a `$ref` back into the type being defined?"""
        current = self.current
        if current is None or current not in self.recursive:
            return False
        stack = [t]
        while stack:
            match stack.pop():
                case ir.Ref(name) if name in self.recursive:
                    if current in self._reaches(name):
                        return True
                case ir.ListOf(inner) | ir.Optional(inner):
                    stack.append(inner)
                case ir.Union(members):
                    stack += members
        return False

    def _reaches(self, start: str) -> frozenset[str]:
        """The named types `start` reaches through references (itself included)."""
        found = self._reach.get(start)
        if found is None:
            seen = {start}
            stack = [start]
            while stack:
                for name in referenced_names(self.project.types[stack.pop()].type):
                    if name not in seen and name in self.project.types:
                        seen.add(name)
                        stack.append(name)
            found = self._reach[start] = frozenset(seen)
        return found

    def field(self, f: ir.Field) -> JsonSchema:
        self.path.append(f.name)
        saved, self.origin = self.origin, f.origin
        try:
            return self._field(f)
        finally:
            self.path.pop()
            self.origin = saved

    def _field(self, f: ir.Field) -> JsonSchema:
        if self.dialect.all_required and isinstance(f.type, ir.Optional):
            schema = nullable(self.type(f.type.inner))  # required, and null means absent
        else:
            schema = self.type(f.type)
        wanted: dict[str, Any] = constraint_keywords(f)
        if f.default is not None:
            wanted["default"] = f.default.value
        if f.deprecated is not None:
            wanted["deprecated"] = True
        kept, lost = self.filter_keywords(wanted, schema)
        schema.update(kept)
        description = f.description or ""
        if lost:
            note = "; ".join(f"{k} {_short(v)}" for k, v in lost.items())
            description = f"{description} (sigspec checks: {note})".strip()
        if description:
            schema["description"] = description
        if "$ref" in schema and len(schema) > 1 and not self.dialect.ref_siblings:
            ref = {"$ref": schema.pop("$ref")}
            schema = {"anyOf": [ref], **schema}
        return schema

    def filter_keywords(
        self, wanted: dict[str, Any], schema: JsonSchema
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        d = self.dialect
        kept: dict[str, Any] = {}
        lost: dict[str, Any] = {}
        for keyword, value in wanted.items():
            reason = self._refusal(keyword, value, schema)
            if reason is None:
                kept[keyword] = value
            elif keyword not in ANNOTATIONS:
                lost[keyword] = value
                self.lose(f"`{keyword}: {_short(value)}` {reason}")
        if "format" in schema and schema["format"] not in d.formats:
            self.lose(f"`format: {schema['format']}` is not supported; moved to the description")
            lost["format"] = schema.pop("format")
        fmt = kept.get("format", schema.get("format"))
        gap = dict(d.format_gaps).get(fmt) if isinstance(fmt, str) else None
        if gap is not None:
            self.lose(f"`format: {fmt}` is kept, but {gap}")
        if d.grammar_patterns and "pattern" in kept:
            self._grammar_pattern(kept, lost)
        if d.escape_free_lengths and "pattern" not in kept:
            for keyword in ("minLength", "maxLength"):
                if keyword in kept:
                    self.lose(
                        f"`{keyword}: {kept[keyword]}` is kept, but xgrammar produces no "
                        f"{_UNESCAPED} in a string with a length bound"
                    )
        return kept, lost

    def _grammar_pattern(self, kept: dict[str, Any], lost: dict[str, Any]) -> None:
        """A pattern in the form grammar engines read as ECMA-262 does, or dropped."""
        original = kept["pattern"]
        try:
            found = rewrite(original)
        except Refused as exc:
            lost["pattern"] = kept.pop("pattern")
            self.lose(
                f"`pattern: {_short(original)}` uses {exc}, which grammar engines cannot "
                "read; moved to the description"
            )
            return
        kept["pattern"] = found.pattern
        if found.narrowed:
            self.lose(
                f"`pattern: {_short(original)}` is narrowed: the engine produces no "
                f"{_UNESCAPED} where the pattern allows them"
            )
        low, high = kept.get("minLength"), kept.get("maxLength")
        if low is None and high is None:
            return
        folded = with_lengths(found, low, high)
        if folded is not None:
            kept["pattern"] = folded
            return
        for keyword in ("minLength", "maxLength"):
            if keyword in kept:
                self.lose(
                    f"`{keyword}: {kept[keyword]}` is kept, but grammar engines (xgrammar, "
                    "llama.cpp) ignore a length beside a pattern"
                )

    def _refusal(self, keyword: str, value: Any, schema: JsonSchema) -> str | None:
        d = self.dialect
        if keyword not in d.keywords:
            return "is not enforced; moved to the description"
        if keyword == "pattern" and d.pattern_refusal is not None:
            reason = d.pattern_refusal(value)
            if reason is not None:
                return (
                    f"uses {reason}, outside this provider's regex subset; moved to the description"
                )
        if keyword == "format" and value not in d.formats:
            return "is not a supported format; moved to the description"
        if keyword == "minItems" and d.max_min_items is not None and value > d.max_min_items:
            return f"is above the accepted {d.max_min_items}; moved to the description"
        if (
            keyword in ("minimum", "maximum")
            and d.integer_bounds_only
            and (schema.get("type") not in ("integer", ["integer", "null"]))
        ):
            return "applies to integers only here; moved to the description"
        return None


def _null_apart(schema: JsonSchema) -> JsonSchema:
    """A nullable enum as `anyOf` [the enum, null]: for dialects whose enums hold no null."""
    values = schema.get("enum")
    if values is None or None not in values:
        return schema
    kind = schema.get("type")
    kinds = [k for k in kind if k != "null"] if isinstance(kind, list) else [kind] if kind else []
    typed = {"type": kinds[0] if len(kinds) == 1 else kinds} if kinds else {}
    rest = {k: v for k, v in schema.items() if k not in ("type", "enum")}
    enum = {**typed, "enum": [v for v in values if v is not None]}
    return {"anyOf": [enum, {"type": "null"}], **rest}


def _short(value: Any) -> str:
    """A keyword's value as JSON spells it, cut to a readable length."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
