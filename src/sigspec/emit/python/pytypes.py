"""The typed form of what a validators module returns: each named type once (a `TypedDict`
for a map, a `TypeAlias` otherwise), and per signature a `TypedDict` (or alias) of its output
and of its params, which `validate_NAME` and `validate_NAME_input` are declared to return.

A map's fields that may be absent from a valid value (optional, no default) are the keys of
a `total=False` subclass of the required ones (Python 3.10 has no `NotRequired`); a field
with a default is always there once validated. Keys that are no plain identifier (`a-b`, a
keyword, `__x`, which a class body would mangle) take the functional form.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import assert_never

from sigspec.emit.python import pysource as ps
from sigspec.emit.python.names import Namespace, pascal
from sigspec.semantics import ir

# Each primitive's annotation in generated Python (the client modules use it too).
PRIMITIVES: Mapping[ir.PrimKind, str] = ir.per_primitive(
    {
        "string": "str",
        "keyword": "str",
        "datetime": "str",
        "int": "int",
        "float": "float",
        "bool": "bool",
        "map": "dict[str, Any]",
        "any": "Any",
    }
)


@dataclass(frozen=True)
class Ann:
    """An annotation: the operands of `|` (one for a plain type), each a `pysource` tree."""

    members: tuple[ps.Node, ...]

    def flat(self) -> str:
        return " | ".join(ps.flat(m) for m in self.members)

    def node(self) -> ps.Node:
        """As one tree (inside brackets, where ruff would not split at `|`)."""
        return self.members[0] if len(self.members) == 1 else ps.code(self.flat())

    def render(self, indent: int, head: int) -> str:
        """As ruff formats it after `head` columns: a union too long for its line in
        parentheses, one operand a line; a single type split at its brackets."""
        one_line = self.flat()
        if len(ps.INDENT) * indent + head + ps.width(one_line) <= ps.WIDTH:
            return one_line
        if len(self.members) == 1:
            return ps.render(self.members[0], indent, head)
        pad = ps.INDENT * (indent + 1)
        lines = [
            pad + ("| " if n else "") + ps.render(m, indent + 1, 2 if n else 0)
            for n, m in enumerate(self.members)
        ]
        return "(\n" + "\n".join(lines) + "\n" + ps.INDENT * indent + ")"


def _ann(text: str) -> Ann:
    return Ann((ps.code(text),))


def _plain_key(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__")


@dataclass
class PyTypes:
    """The module's type definitions, in an order in which each runs (a `TypeAlias` names
    only what is defined above it, else it is written as a string)."""

    types: Mapping[str, ir.TypeDef]
    space: Namespace
    names: dict[str, str] = field(default_factory=dict)  # .sig type name -> Python name
    definitions: list[str] = field(default_factory=list)
    pending: set[str] = field(default_factory=set)  # names given, definitions not yet made
    uses: set[str] = field(default_factory=set)  # what of `typing` the definitions name

    def name_types(self, names: list[str]) -> None:
        """Give every named type its name first: they are the module's public names."""
        for name in names:
            self.names[name] = self.space.take(ir.fold(name))
            self.pending.add(self.names[name])

    def define_named(self, name: str) -> None:
        py = self.names[name]
        t = self.types[name].type
        if isinstance(t, ir.MapOf):
            self.typed_dict(py, t)
        else:
            self.alias(py, t, pascal(name))

    def top(self, t: ir.TypeRef, hint: str) -> str:
        """A signature's output or params: a map gets its own TypedDict named `hint`."""
        name = self.space.take(hint)
        if isinstance(t, ir.MapOf):
            self.typed_dict(name, t)
        else:
            self.alias(name, t, hint)
        return name

    def partial(self, t: ir.TypeRef, hint: str, output: str) -> str:
        """A signature's partial answer (what a stream shows before the whole): of a map,
        a `total=False` TypedDict of its fields; of anything else, the output's type."""
        name = self.space.take(hint)
        target = t
        while isinstance(target, ir.Ref) and target.name in self.types:
            target = self.types[target.name].type
        if isinstance(target, ir.MapOf):
            self.pending.add(name)
            self.uses.add("TypedDict")
            fields = [(f.name, self.of(f.type, name + pascal(f.name))) for f in target.fields]
            self.definitions.append(self._typed_dict(name, "TypedDict", fields, total=False))
            self.pending.discard(name)
        else:
            self.uses.add("TypeAlias")
            self.definitions.append(f"{name}: TypeAlias = {output}\n")
        return name

    def alias(self, name: str, t: ir.TypeRef, hint: str) -> None:
        self.pending.add(name)
        ann = self.of(t, hint)
        head = f"{name}: TypeAlias = "
        # A name defined further down (or this one: a recursive type) is read as a string.
        if set(re.findall(r"\w+", ann.flat())) & self.pending:
            text = ps.string(ann.flat())
        else:
            text = ann.render(0, ps.width(head))
        self.definitions.append(head + text + "\n")
        self.uses.add("TypeAlias")
        self.pending.discard(name)

    def typed_dict(self, name: str, t: ir.MapOf) -> None:
        self.pending.add(name)
        self.uses.add("TypedDict")
        keys = [(f, self.of(f.type, name + pascal(f.name))) for f in t.fields]
        # Absent from a valid value only when optional with no default to fill in.
        required = [(f.name, a) for f, a in keys if f.required or f.default is not None]
        optional = [(f.name, a) for f, a in keys if not (f.required or f.default is not None)]
        if required and optional:
            base = self.space.take(f"_{name}Required")
            self.definitions.append(self._typed_dict(base, "TypedDict", required, total=True))
            self.definitions.append(self._typed_dict(name, base, optional, total=False))
        else:
            self.definitions.append(
                self._typed_dict(name, "TypedDict", required or optional, total=not optional)
            )
        self.pending.discard(name)

    def of(self, t: ir.TypeRef, hint: str) -> Ann:
        """The annotation of a value of `t`; maps inside get TypedDicts named after `hint`."""
        match t:
            case ir.Prim(kind):
                return _ann(PRIMITIVES[kind])
            case ir.ListOf(item):
                return Ann((ps.subscript("list", self.of(item, hint + "Item").node()),))
            case ir.Optional(inner):
                members = self.of(inner, hint).members
                return Ann((*members, ps.code("None")))
            case ir.Ref(name):
                return _ann(self.names[name])
            case ir.Literal():
                return self.union((t,), hint)
            case ir.Union(members):
                return self.union(members, hint)
            case ir.MapOf():
                name = self.space.take(hint)
                self.typed_dict(name, t)
                return _ann(name)
            case _:
                assert_never(t)

    def union(self, members: tuple[ir.TypeRef, ...], hint: str) -> Ann:
        """Literal values first, as one `Literal[...]`, then the other members, then None."""
        values = [m.value for m in members if isinstance(m, ir.Literal) and m.value is not None]
        parts: list[ps.Node] = []
        if values:
            self.uses.add("Literal")
            parts.append(ps.subscript("Literal", *map(ps.lit, values)))
        for m in members:
            if not isinstance(m, ir.Literal):
                parts += self.of(m, hint).members
        if any(isinstance(m, ir.Literal) and m.value is None for m in members):
            parts.append(ps.code("None"))
        unique = {ps.flat(p): p for p in parts}
        return Ann(tuple(unique.values()))

    def _typed_dict(
        self, name: str, base: str, fields: list[tuple[str, Ann]], *, total: bool
    ) -> str:
        if all(_plain_key(key) for key, _ in fields):
            args = [ps.code(base)] + ([] if total else [ps.code("total=False")])
            head = ps.render(ps.call(f"class {name}", *args), 0, 0, 1) + ":"
            body = [f"    {key}: {ann.render(1, len(key) + 2)}" for key, ann in fields]
            return head + "\n" + "\n".join(body or ["    pass"]) + "\n"
        # Keys no class body can hold: the functional form, its types as strings (else
        # evaluated, and they may name a type defined further down).
        entries = ps.lit({key: ps.code(ps.string(ann.flat())) for key, ann in fields})
        if base == "TypedDict":
            call = ps.call("TypedDict", ps.code(ps.string(name)), entries, *_kw(total))
            return ps.assign(name, call)
        # A functional TypedDict takes no base: the optional keys, then both joined.
        optional = self.space.take(f"_{name}Optional")
        call = ps.call("TypedDict", ps.code(ps.string(optional)), entries, *_kw(total))
        return ps.assign(optional, call) + f"\n\nclass {name}({base}, {optional}):\n    pass\n"


def _kw(total: bool) -> list[ps.Node]:
    return [] if total else [ps.Pair("total", "=", ps.code("False"))]
