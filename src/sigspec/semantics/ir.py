"""The resolved IR: what emitters consume. Immutable, fully resolved, nothing from lark.

Types are a closed union; every walk over it ends in `assert_never` so that mypy proves each
consumer handles every kind. IR nodes keep an `Origin` only so that later stages can point
their warnings at the source.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, assert_never

from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast as _ast

JsonScalar = str | int | float | bool | None
JsonValue = Any  # JSON data: dict, list, str, int, float, bool or None

# The primitive types are the syntax's closed set (one definition).
PrimKind = _ast.PrimKind
PRIMITIVES = _ast.PRIMITIVES
per_primitive = _ast.per_primitive

MODES = ("json", "text", "ptc_lisp")


def fold(name: str) -> str:
    """`-` and `_` are the same character for duplicate checks and key matching."""
    return name.replace("-", "_")


@dataclass(frozen=True, slots=True)
class Origin:
    source: SourceFile
    span: Span


# ---- types ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prim:
    kind: PrimKind


@dataclass(frozen=True, slots=True)
class ListOf:
    item: TypeRef


@dataclass(frozen=True, slots=True)
class MapOf:
    fields: tuple[Field, ...]
    open: bool = False


@dataclass(frozen=True, slots=True)
class Optional:
    inner: TypeRef


@dataclass(frozen=True, slots=True)
class Ref:
    name: str


@dataclass(frozen=True, slots=True)
class Literal:
    value: JsonScalar


@dataclass(frozen=True, slots=True)
class Union:
    members: tuple[TypeRef, ...]


TypeRef = Prim | ListOf | MapOf | Optional | Ref | Literal | Union


# ---- constraints ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Range:
    minimum: int | float | None = None
    maximum: int | float | None = None


@dataclass(frozen=True, slots=True)
class Length:
    min_length: int | None = None
    max_length: int | None = None


@dataclass(frozen=True, slots=True)
class Items:
    min_items: int | None = None
    max_items: int | None = None


@dataclass(frozen=True, slots=True)
class Pattern:
    regex: str


@dataclass(frozen=True, slots=True)
class Format:
    name: str


Constraint = Range | Length | Items | Pattern | Format


@dataclass(frozen=True, slots=True)
class Clamp:
    low: int | float
    high: int | float


@dataclass(frozen=True, slots=True)
class Default:
    value: JsonValue


# ---- fields and declarations -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    type: TypeRef
    default: Default | None = None
    constraints: tuple[Constraint, ...] = ()
    clamp: Clamp | None = None
    fallback: bool = False
    deprecated: str | None = None
    description: str | None = None
    origin: Origin | None = field(default=None, compare=False)

    @property
    def required(self) -> bool:
        """A reply must carry the key: not optional and no default to fill it."""
        return not isinstance(self.type, Optional) and self.default is None


@dataclass(frozen=True, slots=True)
class TypeDef:
    name: str
    type: TypeRef
    doc: str | None = None
    deprecated: str | None = None
    origin: Origin | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Signature:
    """A signature or a tool (`kind`), resolved. Inline signatures have an empty name."""

    name: str
    params: tuple[Field, ...]
    output: TypeRef
    kind: str = "signature"
    mode: str = "json"
    prompt: str | None = None
    system: str | None = None
    max_turns: int = 5
    allow_extra_keys: bool = False
    no_output_instructions: bool = False
    tools: tuple[str, ...] = ()
    compression: bool = False
    deprecated: str | None = None
    doc: str | None = None
    shorthand: bool = False  # written as `T`, meaning `() -> T`
    origin: Origin | None = field(default=None, compare=False)

    def render(self) -> str:
        """The canonical inline form, PtcRunner's rendering; zero params give `() -> T`."""
        params = ", ".join(f"{p.name} {render_type(p.type)}" for p in self.params)
        return f"({params}) -> {render_type(self.output)}"


@dataclass(frozen=True, slots=True)
class Pipeline:
    name: str
    steps: tuple[str, ...]
    doc: str | None = None
    deprecated: str | None = None
    origin: Origin | None = field(default=None, compare=False)


# ---- tests ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Check:
    """`path OP value` on a test's output; `length`: `len(path) OP value`. An empty path is
    the whole output (`$`); an int step indexes a list."""

    path: tuple[str | int, ...]
    op: str  # one of ast.Operator
    value: JsonValue
    length: bool = False
    origin: Origin | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Exact:
    """The output must equal `value` (after validation: defaults filled, keys folded)."""

    value: JsonValue


@dataclass(frozen=True, slots=True)
class Test:
    """`test NAME = signature(args) -> expectation`: `expect` is the exact output or the
    checks, all of which must hold; no checks means any valid output passes."""

    __test__ = False  # not a pytest test class, whatever its name says

    name: str
    signature: str  # as declared
    args: tuple[tuple[str, JsonValue], ...]  # the signature's parameter names, as declared
    expect: Exact | tuple[Check, ...]
    repeat: int = 1  # runs when the command line gives no `--repeat`
    min_pass_rate: float = 1.0  # the share of runs that must pass
    doc: str | None = None
    origin: Origin | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Project:
    """Everything loaded: declarations in a deterministic order (files sorted, then source)."""

    files: tuple[str, ...]
    types: Mapping[str, TypeDef]
    signatures: tuple[Signature, ...]
    tools: tuple[Signature, ...]
    pipelines: tuple[Pipeline, ...]
    tests: tuple[Test, ...] = ()  # in file order, each file's in source order

    def signature(self, name: str) -> Signature | None:
        return next((s for s in self.signatures if fold(s.name) == fold(name)), None)


# ---- rendering ---------------------------------------------------------------------------------


def render_type(t: TypeRef) -> str:
    match t:
        case Prim(kind):
            return f":{kind}"
        case ListOf(item):
            return f"[{render_type(item)}]"
        case MapOf(fields, is_open):
            parts = [f"{f.name} {render_type(f.type)}" for f in fields]
            if is_open:
                parts.append("...")
            return "{" + ", ".join(parts) + "}"
        case Optional(inner):
            text = render_type(inner)
            return f"({text})?" if isinstance(inner, Union) else f"{text}?"
        case Ref(name):
            return name
        case Literal(value):
            return json.dumps(value, ensure_ascii=False)
        case Union(members):
            return " | ".join(render_type(m) for m in members)
        case _:
            assert_never(t)
