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

_PRIMS: Mapping[ir.PrimKind, str] = ir.per_primitive(
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
    defined: set[str] = field(default_factory=set)
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

    def alias(self, py: str, t: ir.TypeRef, hint: str) -> None:
        text = self.of(t, hint)
        if self._forward(text):
            text = ps.string(text)
        self.definitions.append(f"{py}: TypeAlias = {text}\n")
        self.uses.add("TypeAlias")
        self.defined.add(py)
        self.pending.discard(py)

    def _forward(self, text: str) -> bool:
        """Does `text` name a type not yet defined (so that it must be a string)?"""
        return bool(set(re.findall(r"\w+", text)) & self.pending)

    def top(self, t: ir.TypeRef, hint: str) -> str:
        """A signature's output or params: a map gets its own TypedDict named `hint`."""
        if isinstance(t, ir.MapOf):
            name = self.space.take(hint)
            self.typed_dict(name, t)
            return name
        name = self.space.take(hint)
        self.alias(name, t, hint)
        return name

    def typed_dict(self, name: str, t: ir.MapOf) -> None:
        self.pending.add(name)
        self.uses.add("TypedDict")
        keys = [(f, self.of(f.type, name + pascal(f.name))) for f in t.fields]
        # Absent from a valid value only when optional with no default to fill in.
        required = [(f.name, a) for f, a in keys if f.required or f.default is not None]
        optional = [(f.name, a) for f, a in keys if not (f.required or f.default is not None)]
        if required and optional:
            base = self.space.take(f"_{name}Required")
            self.definitions.append(self._typed_dict(base, "TypedDict", required))
            self.definitions.append(self._typed_dict(name, base, optional, total=False))
        elif optional:
            self.definitions.append(self._typed_dict(name, "TypedDict", optional, total=False))
        else:
            self.definitions.append(self._typed_dict(name, "TypedDict", required))
        self.defined.add(name)
        self.pending.discard(name)

    def of(self, t: ir.TypeRef, hint: str) -> str:
        """The annotation of a value of `t`; maps inside get TypedDicts named after `hint`."""
        match t:
            case ir.Prim(kind):
                return _PRIMS[kind]
            case ir.ListOf(item):
                return f"list[{self.of(item, hint + 'Item')}]"
            case ir.Optional(inner):
                return f"{self.of(inner, hint)} | None"
            case ir.Ref(name):
                return self.names[name]
            case ir.Literal(value):
                if value is None:
                    return "None"
                self.uses.add("Literal")
                return f"Literal[{ps.flat(ps.lit(value))}]"
            case ir.Union(members):
                return self.union(members, hint)
            case ir.MapOf():
                name = self.space.take(hint)
                self.typed_dict(name, t)
                return name
            case _:
                assert_never(t)

    def union(self, members: tuple[ir.TypeRef, ...], hint: str) -> str:
        values = [m.value for m in members if isinstance(m, ir.Literal) and m.value is not None]
        parts: list[str] = []
        if values:
            self.uses.add("Literal")
            parts.append(f"Literal[{', '.join(ps.flat(ps.lit(v)) for v in values)}]")
        for m in members:
            if not isinstance(m, ir.Literal):
                parts.append(self.of(m, hint))
        if any(isinstance(m, ir.Literal) and m.value is None for m in members):
            parts.append("None")
        unique = list(dict.fromkeys(parts))
        return " | ".join(unique)

    def _typed_dict(
        self, name: str, base: str, fields: list[tuple[str, str]], *, total: bool = True
    ) -> str:
        return _typed_dict(name, base, fields, total=total, space=self.space)


def _typed_dict(
    name: str, base: str, fields: list[tuple[str, str]], *, total: bool, space: Namespace
) -> str:
    options = "" if total else ", total=False"
    if all(_plain_key(key) for key, _ in fields):
        body = [f"    {key}: {annotation}" for key, annotation in fields] or ["    pass"]
        return f"class {name}({base}{options}):\n" + "\n".join(body) + "\n"
    # Keys no class body can hold: the functional form, its types as strings (evaluated
    # otherwise, and they may name a type defined further down).
    entries = ps.lit({key: ps.code(ps.string(annotation)) for key, annotation in fields})
    args = [ps.code(ps.string(name)), entries]
    if not total:
        args.append(ps.code("total=False"))
    if base == "TypedDict":
        return ps.assign(name, ps.call("TypedDict", *args))
    # A functional TypedDict takes no base: the optional keys, then both joined in a class.
    optional = space.take(f"_{name}Optional")
    text = ps.assign(optional, ps.call("TypedDict", ps.code(ps.string(optional)), *args[1:]))
    return text + f"\n\nclass {name}({base}, {optional}):\n    pass\n"
