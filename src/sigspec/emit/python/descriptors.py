"""IR types → runtime descriptors (plain tuples the generated module holds as literals)."""

from __future__ import annotations

from typing import Any, assert_never

from sigspec.semantics import ir
from sigspec.semantics.types import inline_refs

Descriptor = tuple[Any, ...]


def descriptor(t: ir.TypeRef) -> Descriptor:
    match t:
        case ir.Prim(kind):
            return ({"map": "object", "string": "str"}.get(kind, kind),)
        case ir.ListOf(item):
            return ("list", descriptor(item))
        case ir.Optional(inner):
            return ("opt", descriptor(inner))
        case ir.Ref(name):
            return ("ref", name)
        case ir.Literal(value):
            return ("lit", value)
        case ir.Union(members):
            if members and all(
                isinstance(m, ir.Literal) and isinstance(m.value, str) for m in members
            ):
                return ("enum", tuple(m.value for m in members if isinstance(m, ir.Literal)))
            return ("union", tuple(descriptor(m) for m in members))
        case ir.MapOf(fields, is_open):
            return ("map", tuple(field(f) for f in fields), is_open)
        case _:
            assert_never(t)


def constraints(f: ir.Field) -> tuple[tuple[str, Any], ...]:
    from sigspec.emit.jsonschema import constraint_keywords

    out = [
        (k, v)
        for k, v in constraint_keywords(ir.Field(f.name, f.type, None, f.constraints)).items()
        if k != "format" or v == "date-time"
    ]
    if f.clamp is not None:
        out.append(("clamp", (f.clamp.low, f.clamp.high)))
    return tuple(out)


def field(f: ir.Field) -> Descriptor:
    default = f.default.value if f.default is not None else None
    return (
        f.name,
        ir.fold(f.name),
        descriptor(f.type),
        f.required,
        f.default is not None,
        default,
        f.fallback,
        constraints(f),
    )


def output_descriptor(sig: ir.Signature, project: ir.Project | None = None) -> Descriptor:
    """The output's descriptor; under @allow_extra_keys every map keeps extra keys, those of
    named types too (inlined here; a recursive type stays a reference and closed)."""
    if not sig.allow_extra_keys:
        return descriptor(sig.output)
    types = project.types if project is not None else {}
    return _open_maps(descriptor(inline_refs(sig.output, types)))


def input_descriptor(sig: ir.Signature) -> Descriptor:
    return ("map", tuple(field(p) for p in sig.params), True)


def _open_maps(d: Descriptor) -> Descriptor:
    """@allow_extra_keys: every object of the output keeps extra keys."""
    tag = d[0]
    if tag == "map":
        fields = tuple((*f[:2], _open_maps(f[2]), *f[3:]) for f in d[1])
        return ("map", fields, True)
    if tag in ("list", "opt"):
        return (tag, _open_maps(d[1]))
    if tag == "union":
        return ("union", tuple(_open_maps(m) for m in d[1]))
    return d


def type_descriptors(project: ir.Project, names: list[str]) -> dict[str, Descriptor]:
    return {name: descriptor(project.types[name].type) for name in names}
