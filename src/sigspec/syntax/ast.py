"""The AST: what the text says, with a span on every node and nothing resolved.

Names are plain strings as written; children are tuples. `:boolean` is stored as `bool`
because the two are one type and the formatter prints the canonical spelling.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar, get_args

from sigspec.diagnostics.source import Span
from sigspec.infra.pickling import by_fields

JsonScalar = str | int | float | bool | None

# What the grammar reads as a name (`NAME` in grammar/sigspec.lark; a test holds them equal).
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")

# The primitive types, a closed set: tables keyed by them are checked for completeness.
PrimKind = Literal["string", "int", "float", "bool", "keyword", "datetime", "map", "any"]
PRIMITIVES: tuple[PrimKind, ...] = get_args(PrimKind)
PRIMITIVE_ALIASES: Mapping[str, PrimKind] = {"boolean": "bool"}
_PRIM_BY_NAME: Mapping[str, PrimKind] = {**{k: k for k in PRIMITIVES}, **PRIMITIVE_ALIASES}
# What other languages call the primitives: an unknown `:integer` suggests `:int`. A list is
# no primitive but a form, `[T]` (`LIST_WORDS`).
PRIMITIVE_SYNONYMS: Mapping[str, PrimKind] = {
    "integer": "int",
    "number": "float",
    "double": "float",
    "object": "map",
    "dict": "map",
    "str": "string",
    "timestamp": "datetime",
}
LIST_WORDS = frozenset({"list", "array"})
LIST_HINT = "a list is written `[T]`, as in `[:string]`"

T = TypeVar("T")


def primitive(name: str) -> PrimKind | None:
    """The primitive a `:name` spells (`boolean` is `bool`), or None."""
    return _PRIM_BY_NAME.get(name)


def per_primitive(table: Mapping[PrimKind, T]) -> Mapping[PrimKind, T]:
    """A table with an entry for every primitive; one without is a bug, caught at import
    (every module holding such a table is imported by the tests)."""
    missing = [kind for kind in PRIMITIVES if kind not in table]
    if missing:
        raise AssertionError(f"no entry for the primitive(s) {', '.join(missing)}")
    return table


# ---- values (defaults and attribute arguments) -------------------------------------------


@by_fields
@dataclass(frozen=True, slots=True)
class ScalarValue:
    value: JsonScalar
    span: Span
    triple: bool = False  # a """string""", kept so the formatter can keep the form


@by_fields
@dataclass(frozen=True, slots=True)
class ListValue:
    items: tuple[Value, ...]
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class MapValue:
    entries: tuple[tuple[str, Value], ...]
    span: Span


Value = ScalarValue | ListValue | MapValue


@by_fields
@dataclass(frozen=True, slots=True)
class NameArg:
    """A bare name as an attribute argument: `@output(json)`, `@tools(search)`."""

    name: str
    span: Span


AttrArg = Value | NameArg


@by_fields
@dataclass(frozen=True, slots=True)
class Attribute:
    name: str  # without the `@`
    args: tuple[AttrArg, ...] | None  # None: written without parentheses
    span: Span


# ---- types ---------------------------------------------------------------------------------


@by_fields
@dataclass(frozen=True, slots=True)
class PrimType:
    name: str  # as written, `boolean` as `bool`; a primitive unless the parser reported it
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class NamedType:
    name: str
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class ListType:
    item: TypeExpr
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class MapType:
    fields: tuple[Field, ...]
    open: bool
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class OptionalType:
    inner: TypeExpr
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class UnionType:
    members: tuple[TypeExpr, ...]
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class LiteralType:
    value: JsonScalar
    span: Span


TypeExpr = PrimType | NamedType | ListType | MapType | OptionalType | UnionType | LiteralType


@by_fields
@dataclass(frozen=True, slots=True)
class Field:
    """A map field or a signature parameter: `name T [= default] [@attr...] ["description"]`."""

    name: str
    name_span: Span
    type: TypeExpr
    default: Value | None
    attrs: tuple[Attribute, ...]
    description: ScalarValue | None
    span: Span


# ---- declarations ----------------------------------------------------------------------------


@by_fields
@dataclass(frozen=True, slots=True)
class ImportDecl:
    path: str
    path_span: Span
    attrs: tuple[Attribute, ...]
    doc: str | None
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class TypeDecl:
    name: str
    name_span: Span
    type: TypeExpr
    attrs: tuple[Attribute, ...]
    doc: str | None
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class SignatureDecl:
    kind: str  # "signature" or "tool"
    name: str
    name_span: Span
    params: tuple[Field, ...]
    output: TypeExpr
    attrs: tuple[Attribute, ...]
    doc: str | None
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class PipelineDecl:
    name: str
    name_span: Span
    steps: tuple[NamedType, ...]
    attrs: tuple[Attribute, ...]
    doc: str | None
    span: Span


# ---- tests ------------------------------------------------------------------------------------


@by_fields
@dataclass(frozen=True, slots=True)
class TestArg:
    """`name = value` in a test's call."""

    name: str
    name_span: Span
    value: Value
    span: Span


# A step into an output: a field name or a list index.
PathStep = str | int


@by_fields
@dataclass(frozen=True, slots=True)
class Subject:
    """What a check looks at: `$` (the whole output), `score`, `items[0].name`."""

    path: tuple[PathStep, ...]
    steps: tuple[Span, ...]  # where each step of `path` is written (a name, or an index)
    span: Span


# The operators of a check; `len` checks compare a length with COMPARE's operators.
COMPARE = ("==", "!=", "<", "<=", ">", ">=")
Operator = Literal["==", "!=", "<", "<=", ">", ">=", "in", "~"]


@by_fields
@dataclass(frozen=True, slots=True)
class Check:
    """`subject OP value`, or `len(subject) OP value` when `length`."""

    subject: Subject
    op: Operator
    value: Value
    length: bool
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class Checks:
    """`{check, ...}`: every check must hold (the output must be valid, too)."""

    items: tuple[Check, ...]
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class Valid:
    """`valid`: any output the signature accepts passes."""

    span: Span


# `valid`, the exact output as a JSON value, or checks on its parts.
Expectation = Valid | Value | Checks


@by_fields
@dataclass(frozen=True, slots=True)
class TestDecl:
    """`test NAME = signature(arg = value, ...) -> expectation`."""

    __test__ = False  # not a pytest test class, whatever its name says

    name: str
    name_span: Span
    target: NamedType  # the signature called
    args: tuple[TestArg, ...]
    expect: Expectation
    attrs: tuple[Attribute, ...]
    doc: str | None
    span: Span


Decl = ImportDecl | TypeDecl | SignatureDecl | PipelineDecl | TestDecl


@by_fields
@dataclass(frozen=True, slots=True)
class Comment:
    text: str  # including the leading `#`
    span: Span


@by_fields
@dataclass(frozen=True, slots=True)
class Module:
    decls: tuple[Decl, ...]
    comments: tuple[Comment, ...]


@by_fields
@dataclass(frozen=True, slots=True)
class InlineSignature:
    """One inline signature; `params` is None for the shorthand `T` (= `() -> T`)."""

    params: tuple[Field, ...] | None
    output: TypeExpr
    span: Span
