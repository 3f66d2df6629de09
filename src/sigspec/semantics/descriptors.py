"""IR types → the runtime's descriptors: plain tuples the runtime's validator reads.

The runtime (`sigspec/runtime/validate.py`) is the reference meaning of a type; this is the
one translation into its terms, used by the checker (defaults are validated by the runtime)
and by every target that ships a validator. Constraints use JSON Schema's keyword names,
which are the runtime's vocabulary too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, assert_never

from sigspec.runtime.formats import CHECKS
from sigspec.semantics import ir
from sigspec.semantics.types import inline_refs

Descriptor = tuple[Any, ...]

# The runtime's name of each primitive.
_PRIM: Mapping[ir.PrimKind, str] = ir.per_primitive(
    {
        "string": "str",
        "int": "int",
        "float": "float",
        "bool": "bool",
        "keyword": "keyword",
        "datetime": "datetime",
        "map": "object",
        "any": "any",
    }
)

# Constraint -> (JSON Schema keyword, value); a constraint kind may give two keywords.
_KEYWORDS: dict[str, Callable[[ir.Constraint], Any]] = {
    "minimum": lambda c: c.minimum if isinstance(c, ir.Range) else None,
    "maximum": lambda c: c.maximum if isinstance(c, ir.Range) else None,
    "minLength": lambda c: c.min_length if isinstance(c, ir.Length) else None,
    "maxLength": lambda c: c.max_length if isinstance(c, ir.Length) else None,
    "minItems": lambda c: c.min_items if isinstance(c, ir.Items) else None,
    "maxItems": lambda c: c.max_items if isinstance(c, ir.Items) else None,
    "pattern": lambda c: c.regex if isinstance(c, ir.Pattern) else None,
    "format": lambda c: c.name if isinstance(c, ir.Format) else None,
}


def _keywords(constraints: tuple[ir.Constraint, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in constraints:
        for keyword, read in _KEYWORDS.items():
            value = read(c)
            if value is not None:
                out[keyword] = value
    return out


def constraint_keywords(f: ir.Field) -> dict[str, Any]:
    """A field's constraints as JSON Schema keywords; `@clamp` asks for the same range."""
    out = _keywords(f.constraints)
    if f.clamp is not None:
        out.setdefault("minimum", f.clamp.low)
        out.setdefault("maximum", f.clamp.high)
    return out


def descriptor(t: ir.TypeRef) -> Descriptor:
    match t:
        case ir.Prim(kind):
            return (_PRIM[kind],)
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
    """The constraints the runtime checks, `@clamp` as its own entry (it repairs, not
    rejects); of the formats, those of `runtime/formats.py` (`lint` warns of the others)."""
    out = [(k, v) for k, v in _keywords(f.constraints).items() if k != "format" or v in CHECKS]
    if f.clamp is not None:
        out.append(("clamp", (f.clamp.low, f.clamp.high)))
    return tuple(out)


def field(f: ir.Field, *, fallback: bool | None = None) -> Descriptor:
    """A field's descriptor; `fallback` overrides the field's own `@fallback`."""
    default = f.default.value if f.default is not None else None
    return (
        f.name,
        ir.fold(f.name),
        descriptor(f.type),
        f.required,
        f.default is not None,
        default,
        f.fallback if fallback is None else fallback,
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


def named_descriptors(types: Mapping[str, ir.TypeDef]) -> dict[str, Descriptor]:
    """Every named type's descriptor."""
    return {name: descriptor(t.type) for name, t in types.items()}


def type_descriptors(project: ir.Project, names: list[str]) -> dict[str, Descriptor]:
    return {name: descriptor(project.types[name].type) for name in names}
