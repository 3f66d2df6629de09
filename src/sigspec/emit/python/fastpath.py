"""Straight-line fast paths for the generated validators.

Each function returns the normalised value of a value that is plainly valid, or raises
`_Slow` at the first doubt (a missing key, an extra key, a folded key, a default to fill in,
anything out of range); the runtime's full validator then decides and names every error.
So the fast path can only ever be conservative: it never accepts what the runtime would not.
Idioms from the issue: `type(x) is T`, closed maps checked by length with direct key
lookups inside one `try`, enums as frozensets, no per-element calls for scalar lists, no
path strings on the success path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import assert_never

from sigspec.semantics import ir

_TYPE_TEST = {
    "string": "type({v}) is not str",
    "keyword": "type({v}) is not str",
    "int": "type({v}) is not int",
    "float": "type({v}) is not float and type({v}) is not int",
    "bool": "type({v}) is not bool",
    "map": "type({v}) is not dict",
    "datetime": "type({v}) is not str or not _is_datetime({v})",
}


@dataclass
class Code:
    lines: list[str] = field(default_factory=list)

    def add(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


@dataclass
class FastPaths:
    project: ir.Project
    constants: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)  # type name -> function name
    counter: int = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def function(self, name: str, t: ir.TypeRef) -> str:
        code = Code()
        result = self.gen(t, "x", code, 1)
        body = "\n".join(code.lines)
        self.functions.append(f"def {name}(x: Any) -> Any:\n{body}\n    return {result}\n")
        return name

    def named_function(self, type_name: str) -> str:
        if type_name not in self.named:
            self.named[type_name] = f"_fast_t{len(self.named) + 1}"
            self.function(self.named[type_name], self.project.types[type_name].type)
        return self.named[type_name]

    # ---- per kind: emit checks for variable `v`, return the result expression ----

    def gen(self, t: ir.TypeRef, v: str, code: Code, ind: int) -> str:
        match t:
            case ir.Prim(kind):
                if kind != "any":
                    code.add(ind, f"if {_TYPE_TEST[kind].format(v=v)}:")
                    code.add(ind + 1, "raise _Slow")
                return v
            case ir.Literal(value):
                test = (
                    f"{v} is not None"
                    if value is None
                    else (f"type({v}) is not {type(value).__name__} or {v} != {value!r}")
                )
                code.add(ind, f"if {test}:")
                code.add(ind + 1, "raise _Slow")
                return v
            case ir.Optional(inner):
                return self.optional(inner, v, code, ind)
            case ir.Ref(name):
                out = self.fresh("r")
                code.add(ind, f"{out}: Any = {self.named_function(name)}({v})")
                return out
            case ir.Union(members):
                return self.union(members, v, code, ind)
            case ir.ListOf(item):
                return self.list_of(item, v, code, ind)
            case ir.MapOf():
                return self.map(t, v, code, ind)
            case _:
                assert_never(t)

    def optional(self, inner: ir.TypeRef, v: str, code: Code, ind: int) -> str:
        body = Code()
        result = self.gen(inner, v, body, ind + 1)
        if result == v:  # nothing to normalise: check in place when not null
            if body.lines:
                code.add(ind, f"if {v} is not None:")
                code.lines += body.lines
            return v
        out = self.fresh("o")
        code.add(ind, f"if {v} is None:")
        code.add(ind + 1, f"{out}: Any = None")
        code.add(ind, "else:")
        code.lines += body.lines
        code.add(ind + 1, f"{out} = {result}")
        return out

    def union(self, members: tuple[ir.TypeRef, ...], v: str, code: Code, ind: int) -> str:
        prims = [m.kind for m in members if isinstance(m, ir.Prim)]
        if len(prims) == len(members) and "any" not in prims:  # `:string | :int`
            failing = " and ".join(f"({_TYPE_TEST[kind].format(v=v)})" for kind in prims)
            code.add(ind, f"if {failing}:")
            code.add(ind + 1, "raise _Slow")
            return v
        values = [m.value for m in members if isinstance(m, ir.Literal)]
        kinds = {type(x) for x in values}
        if len(values) != len(members) or len(kinds) != 1 or kinds & {float, type(None)}:
            code.add(ind, "raise _Slow  # general unions: the runtime tries each member")
            return v
        name = self.fresh("_E")
        self.constants.append(f"{name} = frozenset({tuple(values)!r})")
        code.add(ind, f"if type({v}) is not {kinds.pop().__name__} or {v} not in {name}:")
        code.add(ind + 1, "raise _Slow")
        return v

    def list_of(self, item: ir.TypeRef, v: str, code: Code, ind: int) -> str:
        """A valid list is returned as it is; an item that needs normalising (a nested map
        missing a default) sends the whole value to the runtime."""
        element = self.fresh("e")
        code.add(ind, f"if type({v}) is not list:")
        code.add(ind + 1, "raise _Slow")
        inner = Code()
        result = self.gen(item, element, inner, ind + 1)
        if inner.lines:
            code.add(ind, f"for {element} in {v}:")
            code.lines += inner.lines
            if result != element:
                code.add(ind + 1, f"if {result} is not {element}:")
                code.add(ind + 2, "raise _Slow")
        return v

    def map(self, t: ir.MapOf, v: str, code: Code, ind: int) -> str:
        """A map with every field present is checked in place and returned as it is; one
        missing optional or default fields gets a new dict with the defaults filled in."""
        code.add(ind, f"if type({v}) is not dict:")
        code.add(ind + 1, "raise _Slow")
        names = {f.name: self.fresh("f") for f in t.fields}
        optional = [f for f in t.fields if not f.required]
        out = self.fresh("m")
        if optional:
            code.add(ind, f"if len({v}) == {len(t.fields)}:")
            self.complete(t, v, names=names, code=code, ind=ind + 1)
            code.add(ind + 1, f"{out}: Any = {v}")
            code.add(ind, "else:")
            self.partial(t, v, names=names, out=out, code=code, ind=ind + 1)
            return out
        self.complete(t, v, names=names, code=code, ind=ind)
        return v

    def complete(self, t: ir.MapOf, v: str, *, names: dict[str, str], code: Code, ind: int) -> None:
        code.add(ind, f"if len({v}) != {len(t.fields)}:")
        code.add(ind + 1, "raise _Slow")
        if not t.fields:
            return
        code.add(ind, "try:")
        for f in t.fields:
            code.add(ind + 1, f"{names[f.name]} = {v}[{f.name!r}]")
        code.add(ind, "except KeyError:")
        code.add(ind + 1, "raise _Slow from None")
        for f in t.fields:
            result = self.gen(f.type, names[f.name], code, ind)
            self.constraints(f, result, code, ind)
            if result != names[f.name]:
                code.add(ind, f"if {result} is not {names[f.name]}:")
                code.add(ind + 1, "raise _Slow  # a nested value needs normalising")

    def partial(
        self,
        t: ir.MapOf,
        v: str,
        *,
        names: dict[str, str],
        out: str,
        code: Code,
        ind: int,
    ) -> None:
        required = [f for f in t.fields if f.required]
        optional = [f for f in t.fields if not f.required]
        if required:
            code.add(ind, "try:")
            for f in required:
                code.add(ind + 1, f"{names[f.name]} = {v}[{f.name!r}]")
            code.add(ind, "except KeyError:")
            code.add(ind + 1, "raise _Slow from None")
        for f in optional:
            code.add(ind, f"{names[f.name]} = {v}.get({f.name!r}, _MISS)")
        present = " + ".join(f"({names[f.name]} is not _MISS)" for f in optional)
        code.add(ind, f"if len({v}) != {len(required)} + {present}:")
        code.add(ind + 1, "raise _Slow  # extra, folded or ambiguous keys")
        results = {f.name: self.field(f, names[f.name], code, ind) for f in t.fields}
        fixed = ", ".join(f"{f.name!r}: {results[f.name]}" for f in required)
        code.add(ind, f"{out} = {{{fixed}}}")
        for f in optional:
            code.add(ind, f"if {results[f.name]} is not _MISS:")
            code.add(ind + 1, f"{out}[{f.name!r}] = {results[f.name]}")

    def field(self, f: ir.Field, v: str, code: Code, ind: int) -> str:
        if f.required:
            result = self.gen(f.type, v, code, ind)
            self.constraints(f, result, code, ind)
            return result
        out = self.fresh("d")
        code.add(ind, f"if {v} is _MISS:")
        absent = repr(f.default.value) if f.default is not None else "_MISS"
        code.add(ind + 1, f"{out}: Any = {absent}")  # a literal: a fresh copy of the default
        code.add(ind, "else:")
        result = self.gen(f.type, v, code, ind + 1)
        self.constraints(f, result, code, ind + 1)
        code.add(ind + 1, f"{out} = {result}")
        return out

    def constraints(self, f: ir.Field, v: str, code: Code, ind: int) -> None:
        tests = self.constraint_tests(f, v)
        if not tests:
            return
        guard = f"{v} is not None and (" if isinstance(f.type, ir.Optional) else "("
        code.add(ind, f"if {guard}{' or '.join(tests)}):")
        code.add(ind + 1, "raise _Slow")

    def constraint_tests(self, f: ir.Field, v: str) -> list[str]:
        tests: list[str] = []
        for c in f.constraints:
            match c:
                case ir.Range(lo, hi):
                    tests += [f"{v} < {lo!r}"] if lo is not None else []
                    tests += [f"{v} > {hi!r}"] if hi is not None else []
                case ir.Length(lo, hi) | ir.Items(lo, hi):
                    tests += [f"len({v}) < {lo!r}"] if lo is not None else []
                    tests += [f"len({v}) > {hi!r}"] if hi is not None else []
                case ir.Pattern(regex):
                    name = self.fresh("_P")
                    self.constants.append(f"{name} = re.compile({json.dumps(regex)})")
                    tests.append(f"{name}.search({v}) is None")
                case ir.Format(name):
                    if name == "date-time":
                        tests.append(f"not _is_datetime({v})")
                case _:
                    assert_never(c)
        if f.clamp is not None:  # out of range: the runtime clamps and reports it
            tests += [f"{v} < {f.clamp.low!r}", f"{v} > {f.clamp.high!r}"]
        return tests
