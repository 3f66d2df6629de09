"""Questions about resolved types: what a name stands for, what a type admits, what fits where."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import assert_never

from sigspec.semantics.ir import (
    PRIMITIVES,
    Field,
    ListOf,
    Literal,
    MapOf,
    Optional,
    Prim,
    PrimKind,
    Ref,
    TypeDef,
    TypeRef,
    Union,
    fold,
    per_primitive,
)

Types = Mapping[str, TypeDef]


def deref(t: TypeRef, types: Types) -> TypeRef:
    """Follow named types to a structural type; an alias loop ends as `:any`."""
    seen: set[str] = set()
    while isinstance(t, Ref):
        if t.name in seen or t.name not in types:
            return Prim("any")
        seen.add(t.name)
        t = types[t.name].type
    return t


def strip_optional(t: TypeRef, types: Types) -> TypeRef:
    t = deref(t, types)
    while isinstance(t, Optional):
        t = deref(t.inner, types)
    return t


def _all_of_kind(
    t: TypeRef, types: Types, kinds: frozenset[str], literal: Callable[[object], bool]
) -> bool:
    """Is every value of `t` (null aside) a primitive of `kinds` or a matching literal?"""
    t = strip_optional(t, types)
    if isinstance(t, Prim):
        return t.kind in kinds
    if isinstance(t, Literal):
        return literal(t.value)
    if isinstance(t, Union):
        return all(_all_of_kind(m, types, kinds, literal) for m in t.members)
    return False


_SCALARS = frozenset({"string", "int", "float", "bool", "keyword", "datetime"})
_NUMBERS = frozenset({"int", "float"})
_STRINGS = frozenset({"string", "keyword", "datetime"})


def is_scalar(t: TypeRef, types: Types) -> bool:
    return _all_of_kind(t, types, _SCALARS, lambda v: True)


def is_numeric(t: TypeRef, types: Types) -> bool:
    return _all_of_kind(t, types, _NUMBERS, lambda v: type(v) in (int, float))


def is_stringy(t: TypeRef, types: Types) -> bool:
    return _all_of_kind(t, types, _STRINGS, lambda v: isinstance(v, str))


def inhabited_types(types: Types) -> set[str]:
    """Names whose type has at least one finite value (least fixpoint).

    An and/or graph with a counter per node, settled by one pass over a queue: every node
    and edge is visited once, where re-scanning all types until nothing changed was
    quadratic (a chain of 10,000 required fields took minutes).
    """
    graph = _Graph()
    named = {name: graph.node(1) for name in types}
    refs: list[tuple[int, str]] = []  # (node waiting, the name it waits for)
    for name, typedef in types.items():
        stack = [(typedef.type, named[name])]
        while stack:
            t, parent = stack.pop()
            child = graph.node(_needs(t))
            graph.parents[child].append(parent)
            match t:
                case Ref(ref):
                    refs.append((child, ref))
                case MapOf(fields):
                    stack += [(f.type, child) for f in fields if f.required]
                case Union(members):
                    stack += [(m, child) for m in members]
    for waiting, ref in refs:
        if ref in named:
            graph.parents[named[ref]].append(waiting)
    graph.settle()
    return {name for name, index in named.items() if graph.need[index] <= 0}


def _needs(t: TypeRef) -> int:
    """How many of its parts must have a value for `t` to have one."""
    match t:
        case Prim() | Literal() | ListOf() | Optional():
            return 0
        case MapOf(fields):
            return sum(1 for f in fields if f.required)
        case Ref() | Union():
            return 1  # the named type; any one member (an empty union has none)
        case _:
            assert_never(t)


@dataclass
class _Graph:
    need: list[int] = dataclasses.field(
        default_factory=list
    )  # per node: parts still without a value
    parents: list[list[int]] = dataclasses.field(default_factory=list)
    ready: list[int] = dataclasses.field(default_factory=list)

    def node(self, need: int) -> int:
        self.need.append(need)
        self.parents.append([])
        if need == 0:
            self.ready.append(len(self.need) - 1)
        return len(self.need) - 1

    def settle(self) -> None:
        while self.ready:
            for parent in self.parents[self.ready.pop()]:
                self.need[parent] -= 1
                if self.need[parent] == 0:  # exactly once, however many members hold
                    self.ready.append(parent)


def assignable(src: TypeRef, dst: TypeRef, types: Types) -> bool:
    """Can every value of `src` be used where `dst` is expected (pipelines)?"""
    return _assignable(src, dst, types, set())


def _assignable(src: TypeRef, dst: TypeRef, types: Types, seen: set[tuple[str, str]]) -> bool:
    if isinstance(src, Ref) and isinstance(dst, Ref):
        if src.name == dst.name or (src.name, dst.name) in seen:
            return True  # recursive types: assume the pair holds while checking it
        seen = seen | {(src.name, dst.name)}
    src, dst = deref(src, types), deref(dst, types)
    if isinstance(dst, Prim) and dst.kind == "any":
        return True
    if isinstance(src, Prim) and src.kind == "any":
        return True
    if isinstance(src, Union):
        return all(_assignable(m, dst, types, seen) for m in src.members)
    if isinstance(dst, Optional):
        if isinstance(src, Optional):
            return _assignable(src.inner, dst.inner, types, seen)
        return (isinstance(src, Literal) and src.value is None) or _assignable(
            src, dst.inner, types, seen
        )
    if isinstance(dst, Union):
        return any(_assignable(src, m, types, seen) for m in dst.members)
    return _assignable_plain(src, dst, types, seen)


def _assignable_plain(src: TypeRef, dst: TypeRef, types: Types, seen: set[tuple[str, str]]) -> bool:
    match dst:
        case Prim(kind):
            return _fits_prim(src, kind)
        case Literal(value):
            return (
                isinstance(src, Literal) and type(src.value) is type(value) and src.value == value
            )
        case ListOf(item):
            return isinstance(src, ListOf) and _assignable(src.item, item, types, seen)
        case MapOf():
            return isinstance(src, MapOf) and _map_assignable(src, dst, types, seen)
        case Optional() | Union() | Ref():
            return False  # handled by the caller
        case _:
            assert_never(dst)


# Which primitives' values a primitive accepts, and which literals (`any` is settled before:
# it accepts everything, and only `any` itself fits it).
_PRIM_ACCEPTS: Mapping[PrimKind, frozenset[str]] = per_primitive(
    {
        "string": frozenset({"string", "keyword", "datetime"}),
        "keyword": frozenset({"keyword"}),
        "datetime": frozenset({"datetime"}),
        "int": frozenset({"int"}),
        "float": frozenset({"int", "float"}),
        "bool": frozenset({"bool"}),
        "map": frozenset({"map"}),
        "any": frozenset(PRIMITIVES),
    }
)
_LITERAL_FITS: Mapping[PrimKind, Callable[[object], bool]] = per_primitive(
    {
        "string": lambda v: isinstance(v, str),
        "keyword": lambda v: isinstance(v, str),
        "datetime": lambda v: False,  # a literal is never known to be a date-time
        "int": lambda v: type(v) is int,
        "float": lambda v: type(v) in (int, float),
        "bool": lambda v: type(v) is bool,
        "map": lambda v: False,
        "any": lambda v: True,
    }
)


def _fits_prim(src: TypeRef, kind: PrimKind) -> bool:
    if isinstance(src, Prim):
        return src.kind in _PRIM_ACCEPTS[kind]
    if isinstance(src, Literal):
        return _LITERAL_FITS[kind](src.value)
    return kind == "map" and isinstance(src, MapOf)


def _map_assignable(src: MapOf, dst: MapOf, types: Types, seen: set[tuple[str, str]]) -> bool:
    src_fields = {fold(f.name): f for f in src.fields}
    dst_names = {fold(f.name) for f in dst.fields}
    for field in dst.fields:
        given = src_fields.get(fold(field.name))
        if given is None:
            if field.required:
                return False
            continue
        if not _assignable(given.type, field.type, types, seen):
            return False
    extra = any(name not in dst_names for name in src_fields) or src.open
    return dst.open or not extra


def referenced_names(t: TypeRef) -> list[str]:
    """The named types a type mentions directly (not through other named types)."""
    found: list[str] = []
    stack = [t]
    while stack:
        match stack.pop():
            case Ref(name):
                found.append(name)
            case ListOf(inner) | Optional(inner):
                stack.append(inner)
            case MapOf(fields):
                stack += [f.type for f in reversed(fields)]
            case Union(members):
                stack += reversed(members)
    return found


def reachable_names(roots: Iterable[TypeRef], types: Types) -> list[str]:
    """The named types reachable from these types, through other named types too, in
    declaration order."""
    seen: set[str] = set()
    stack = [n for t in roots for n in referenced_names(t)]
    while stack:
        name = stack.pop()
        if name not in seen and name in types:
            seen.add(name)
            stack += referenced_names(types[name].type)
    return [n for n in types if n in seen]


def reachable_fields(t: TypeRef, types: Types) -> list[Field]:
    """Every field of every map in `t`, named types' included (each named type once)."""
    found: list[Field] = []
    seen: set[str] = set()
    stack = [t]
    while stack:
        match stack.pop():
            case Ref(name) if name not in seen and name in types:
                seen.add(name)
                stack.append(types[name].type)
            case MapOf(fields):
                found += fields
                stack += [f.type for f in fields]
            case ListOf(inner) | Optional(inner):
                stack.append(inner)
            case Union(members):
                stack += members
    return found


def inline_refs(t: TypeRef, types: Types, seen: tuple[str, ...] = ()) -> TypeRef:
    """`t` with named types replaced by their structure; a recursive one stays a reference."""
    match t:
        case Ref(name) if name in types and name not in seen:
            return inline_refs(types[name].type, types, (*seen, name))
        case ListOf(item):
            return ListOf(inline_refs(item, types, seen))
        case Optional(inner):
            return Optional(inline_refs(inner, types, seen))
        case Union(members):
            return Union(tuple(inline_refs(m, types, seen) for m in members))
        case MapOf(fields, is_open):
            return MapOf(
                tuple(replace(f, type=inline_refs(f.type, types, seen)) for f in fields), is_open
            )
        case _:
            return t
