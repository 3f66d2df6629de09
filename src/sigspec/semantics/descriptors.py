"""IR types → the runtime's descriptors (`Map`, `Field`, `Str`, ...: tuples the runtime's
validator and reply parser read by position, `runtime/validate.py`).

The runtime (`sigspec/runtime/validate.py`) is the reference meaning of a type; this is the
one translation into its terms, used by the checker (defaults are validated by the runtime)
and by every target that ships a validator. Constraints use JSON Schema's keyword names,
which are the runtime's vocabulary too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, assert_never

from sigspec.runtime import validate as rt
from sigspec.runtime.formats import CHECKS
from sigspec.semantics import ir
from sigspec.semantics.types import inline_refs

Descriptor = tuple[Any, ...]

# The runtime's descriptor of each primitive.
_PRIM: Mapping[ir.PrimKind, Descriptor] = ir.per_primitive(
    {
        "string": rt.Str(),
        "int": rt.Int(),
        "float": rt.Float(),
        "bool": rt.Bool(),
        "keyword": rt.Keyword(),
        "datetime": rt.DateTime(),
        "map": rt.Object(),
        "any": rt.AnyValue(),
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
            return _PRIM[kind]
        case ir.ListOf(item):
            return rt.List(descriptor(item))
        case ir.Optional(inner):
            return rt.Nullable(descriptor(inner))
        case ir.Ref(name):
            return rt.Ref(name)
        case ir.Literal(value):
            return rt.Const(value)
        case ir.Union(members):
            values = [m.value for m in members if isinstance(m, ir.Literal)]
            if members and len(values) == len(members) and all(type(v) is str for v in values):
                return rt.Enum(tuple(str(v) for v in values))
            return rt.Union(tuple(descriptor(m) for m in members))
        case ir.MapOf(fields, is_open):
            return rt.Map(tuple(field(f) for f in fields), open=is_open)
        case _:
            assert_never(t)


def constraints(f: ir.Field) -> tuple[tuple[str, Any], ...]:
    """The constraints the runtime checks, `@clamp` as its own entry (it repairs, not
    rejects); of the formats, those of `runtime/formats.py` (`lint` warns of the others)."""
    out = [(k, v) for k, v in _keywords(f.constraints).items() if k != "format" or v in CHECKS]
    if f.clamp is not None:
        out.append(("clamp", (f.clamp.low, f.clamp.high)))
    return tuple(out)


# The runtime's constraint keywords -> `rt.Field`'s keyword arguments.
_FIELD_KEYWORDS = {
    "minimum": "minimum",
    "maximum": "maximum",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minItems": "min_items",
    "maxItems": "max_items",
    "pattern": "pattern",
    "format": "format",
    "clamp": "clamp",
}


def field(f: ir.Field, *, fallback: bool | None = None) -> rt.Field:
    """A field's descriptor; `fallback` overrides the field's own `@fallback`."""
    extra: dict[str, Any] = {_FIELD_KEYWORDS[k]: v for k, v in constraints(f)}
    if f.default is not None:
        extra["default"] = f.default.value
    return rt.Field(
        f.name,
        descriptor(f.type),
        required=f.required,
        fallback=f.fallback if fallback is None else fallback,
        **extra,
    )


def output_descriptor(sig: ir.Signature, project: ir.Project | None = None) -> Descriptor:
    """The output's descriptor; under @allow_extra_keys every map keeps extra keys, those of
    named types too (inlined here; a recursive type stays a reference and closed)."""
    if not sig.allow_extra_keys:
        return descriptor(sig.output)
    types = project.types if project is not None else {}
    return _open_maps(descriptor(inline_refs(sig.output, types)))


def input_descriptor(sig: ir.Signature) -> Descriptor:
    return rt.Map(tuple(field(p) for p in sig.params), open=True)


def _open_maps(d: Descriptor) -> Descriptor:
    """@allow_extra_keys: every object of the output keeps extra keys."""
    if isinstance(d, rt.Map):
        fields = tuple(_open_field(f) for f in d[1])
        return rt.Map(fields, open=True)
    if isinstance(d, rt.List):
        return rt.List(_open_maps(d[1]))
    if isinstance(d, rt.Nullable):
        return rt.Nullable(_open_maps(d[1]))
    if isinstance(d, rt.Union):
        return rt.Union(tuple(_open_maps(m) for m in d[1]))
    return d


def _open_field(f: rt.Field) -> rt.Field:
    args, kwargs = f.arguments()
    return rt.Field(args[0], _open_maps(args[1]), **kwargs)


def named_descriptors(types: Mapping[str, ir.TypeDef]) -> dict[str, Descriptor]:
    """Every named type's descriptor."""
    return {name: descriptor(t.type) for name, t in types.items()}


def type_descriptors(project: ir.Project, names: list[str]) -> dict[str, Descriptor]:
    return {name: descriptor(project.types[name].type) for name in names}


def plain(d: Any) -> Any:
    """A descriptor (or a field, or a map of named types' descriptors) as plain tuples, the
    form the TypeScript runtime reads as JSON. (`json.dumps` writes a descriptor so already:
    each is the tuple it equals.)"""
    if isinstance(d, dict):
        return {k: plain(v) for k, v in d.items()}
    if isinstance(d, tuple):
        return tuple(plain(x) for x in d)
    return d
