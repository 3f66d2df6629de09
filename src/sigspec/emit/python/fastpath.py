"""Straight-line validators generated per signature and named type.

Each function checks a value in one pass and returns its normalised value. It stops at the
first check that fails: the value is invalid, and it raises `ValidationError` holding the
value, whose `.errors` the runtime's validator (the reference semantics) names only when they
are read. Whatever it cannot decide alone (a missing, extra or folded key, a default to fill
in below a list, a general union, `@clamp`, `@fallback`) goes to the runtime's validator,
which decides instead: so generated code never accepts what the runtime would not, never
rejects what it would accept, and the differential tests hold it to that.

Idioms from the issue: `type(x) is T`, closed maps checked by length with direct key lookups
inside one `try`, enums as frozensets, no per-element calls for scalar lists, no paths or
messages at all: those are found only when an invalid value's errors are read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import assert_never

from sigspec.runtime.formats import CHECKS as FORMAT_CHECKS
from sigspec.semantics import ir
from sigspec.semantics.descriptors import constraints as constraint_pairs

# The failing type test of each primitive; `any` and `datetime` take more than a type test
# (`FastPaths.prim`), so they have none here.
_TYPE_TEST: Mapping[ir.PrimKind, str | None] = ir.per_primitive(
    {
        "string": "type({v}) is not str",
        "keyword": "type({v}) is not str",
        "int": "type({v}) is not int",
        "float": "type({v}) is not float and type({v}) is not int",
        "bool": "type({v}) is not bool",
        "map": "type({v}) is not dict",
        "datetime": None,
        "any": None,
    }
)


def _type_test(kind: ir.PrimKind, v: str) -> str:
    test = _TYPE_TEST[kind]
    assert test is not None, kind
    return test.format(v=v)


# Constraint keyword: (the type its guard tests, the failing test; `{v}` the value, `{b}` the
# bound), as runtime/validate.py `_scalar_constraint` tests it.
# Bounds are tested negated, so that NaN (every comparison false) fails them too.
_RULES = {
    "minimum": ("number", "not {v} >= {b}"),
    "maximum": ("number", "not {v} <= {b}"),
    "minLength": ("text", "len({v}) < {b}"),
    "maxLength": ("text", "len({v}) > {b}"),
    "minItems": ("items", "len({v}) < {b}"),
    "maxItems": ("items", "len({v}) > {b}"),
}
# NaN and the infinities are no JSON numbers: for them (and only them) v - v is not 0 (it is
# NaN). A float subtraction and comparison, both of which CPython specialises.
_NOT_FINITE = "{v} - {v} != 0.0"
_NUMBERS = frozenset({"int", "float"})
_STRINGS = frozenset({"string", "keyword", "datetime"})


# CPython refuses a function with more than 20 nested blocks (`for`, `try`) or 100 levels of
# indentation: checks nested this deep (a list of lists of lists ...) continue in a function
# of their own, which starts again at the left margin.
SPLIT_INDENT = 12


def _string_literal(text: str) -> str:
    """`text` as a Python string literal: JSON's double-quoted form, except where JSON would
    write a character past U+FFFF as a surrogate pair, which Python reads as two characters
    (a pattern `😀` would then never match one)."""
    return repr(text) if any(ord(c) > 0xFFFF for c in text) else json.dumps(text)


def _bound(bound: object, kind: str) -> str:
    """A bound as a literal. A float field's whole-number bound is written as a float when
    that is exact (`1.0` for `@max(1)`): CPython specialises a comparison of two floats, not
    of a float with an int (the sentiment check: ~114 -> ~97 ns, bench/README.md)."""
    if kind == "float" and type(bound) is int and -(2**53) <= bound <= 2**53:
        return repr(float(bound))  # every int of this size is a float exactly
    return repr(bound)


@dataclass
class Code:
    lines: list[str] = field(default_factory=list)

    def add(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


After = Callable[[Code, int], None]


@dataclass(frozen=True)
class Exits:
    """The statements that leave a function: `slow` hands the value to the runtime, `bad`
    rejects it. A signature's validator returns the runtime's verdict or raises; a named
    type's function returns a marker its caller tests (`_SLOW`, `_BAD`)."""

    slow: str
    bad: str


NAMED = Exits("return _SLOW", "return _BAD")


def signature_exits(ident: str) -> Exits:
    args = f"_OUT_{ident}, value, _TYPES"
    return Exits(f"return _slow({args})", f"raise ValidationError({args})")


@dataclass
class FastPaths:
    project: ir.Project
    constants: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)  # type name -> function name
    nested: int = 0  # functions made for types nested too deep
    counter: int = 0
    exits: Exits = NAMED
    # False below @fallback: the runtime may put the fallback in place of a failing value,
    # so a failed check there is the runtime's to decide, not a certain error.
    sure: bool = True
    # True where the caller needs the value itself back (a list item, a field of a map kept
    # as it is): a map that would need a new dict goes to the runtime instead.
    same: bool = False
    # True for a float field whose constraints test both bounds: their negated comparisons
    # fail NaN and the infinities too, so the float's own finiteness test is left out.
    bounded: bool = False

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def body(self, t: ir.TypeRef, v: str, ind: int, *, exits: Exits) -> tuple[str, str]:
        """(checks of `v` against `t`, leaving by `exits`; the normalised value's expression)."""
        saved = self.exits, self.sure, self.same, self.bounded
        self.exits, self.sure, self.same, self.bounded = exits, True, False, False
        code = Code()
        result = self.gen(t, v, code, ind)
        self.exits, self.sure, self.same, self.bounded = saved
        return "\n".join(code.lines), result

    def named_function(self, type_name: str) -> str:
        """A named type's checks: its normalised value, `_BAD` or `_SLOW`."""
        if type_name not in self.named:
            name = self.named[type_name] = f"_fast_t{len(self.named) + 1}"
            body, result = self.body(self.project.types[type_name].type, "x", 1, exits=NAMED)
            self.functions.append(f"def {name}(x: Any) -> Any:\n{body}\n    return {result}\n")
        return self.named[type_name]

    def nested_function(self, t: ir.TypeRef) -> str:
        """The checks of a type nested too deep to continue in place (`SPLIT_INDENT`), as a
        function that answers as a named type's does. (IR types hold lists, so they are not
        keys: each place gets its own function; such depths are rare.)"""
        self.nested += 1
        name = f"_fast_n{self.nested}"
        body, result = self.body(t, "x", 1, exits=NAMED)
        self.functions.append(f"def {name}(x: Any) -> Any:\n{body}\n    return {result}\n")
        return name

    # ---- leaving ----

    def slow(self, code: Code, ind: int) -> None:
        code.add(ind, self.exits.slow)

    def fail(self, code: Code, ind: int) -> None:
        code.add(ind, self.exits.bad if self.sure else self.exits.slow)

    def check(self, test: str, code: Code, ind: int, *, after: After | None) -> None:
        """`if test:` leaves; what follows runs only when the test passed."""
        code.add(ind, f"if {test}:")
        self.fail(code, ind + 1)
        if after is not None:
            after(code, ind)

    # ---- per kind: emit checks for variable `v`, return the result expression ----

    def gen(
        self, t: ir.TypeRef, v: str, code: Code, ind: int, *, after: After | None = None
    ) -> str:
        if ind >= SPLIT_INDENT and isinstance(t, ir.ListOf | ir.MapOf | ir.Optional):
            out = self.fresh("r")
            return self.call(out, self.nested_function(t), v, code, ind, after=after)
        match t:
            case ir.Prim(kind):
                self.prim(kind, v, code, ind, after=after)
                return v
            case ir.Literal(value):
                test = (
                    f"{v} is not None"
                    if value is None
                    else (f"type({v}) is not {type(value).__name__} or {v} != {value!r}")
                )
                self.check(test, code, ind, after=after)
                return v
            case ir.Optional(inner):
                return self.optional(inner, v, code, ind, after=after)
            case ir.Ref(name):
                return self.ref(name, v, code, ind, after=after)
            case ir.Union(members):
                self.union(members, v, code, ind, after=after)
                return v
            case ir.ListOf(item):
                self.list_of(item, v, code, ind, after=after)
                return v
            case ir.MapOf():
                return self.map(t, v, code, ind)
            case _:
                assert_never(t)

    def prim(self, kind: ir.PrimKind, v: str, code: Code, ind: int, *, after: After | None) -> None:
        if kind == "any":  # any JSON value: no NaN or infinity inside
            self.check(f"not _finite({v})", code, ind, after=after)
        elif kind == "map":
            self.check(f"type({v}) is not dict or not _finite({v})", code, ind, after=after)
        elif kind == "datetime":
            self.check(f"type({v}) is not str or not _is_datetime({v})", code, ind, after=after)
        elif kind == "float" and not self.bounded:
            self.check(
                _type_test(kind, v),
                code,
                ind,
                after=lambda c, i: self.check(_NOT_FINITE.format(v=v), c, i, after=after),
            )
        else:
            self.check(_type_test(kind, v), code, ind, after=after)

    def optional(
        self, inner: ir.TypeRef, v: str, code: Code, ind: int, *, after: After | None
    ) -> str:
        body = Code()
        result = self.gen(inner, v, body, ind + 1, after=after)
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

    def ref(self, name: str, v: str, code: Code, ind: int, *, after: After | None) -> str:
        out = self.fresh("r")
        return self.call(out, self.named_function(name), v, code, ind, after=after)

    def call(
        self, out: str, function: str, v: str, code: Code, ind: int, *, after: After | None
    ) -> str:
        """`out`, a named type's (or a nested type's) function's answer for `v`; its markers
        leave this function too."""
        code.add(ind, f"{out} = {function}({v})")
        code.add(ind, f"if {out} is _BAD:")
        self.fail(code, ind + 1)
        # Where the caller keeps `v` itself, it hands any other result to the runtime; but
        # constraints (`after`) only hold the named type's own verdict.
        if not self.same or after is not None:
            code.add(ind, f"if {out} is _SLOW:")
            self.slow(code, ind + 1)
        if after is not None:
            after(code, ind)
        return out

    def union(
        self, members: tuple[ir.TypeRef, ...], v: str, code: Code, ind: int, *, after: After | None
    ) -> None:
        prims = [m.kind for m in members if isinstance(m, ir.Prim)]
        values = [m.value for m in members if isinstance(m, ir.Literal)]
        kinds = {type(x) for x in values}
        if len(prims) == len(members) and not {"any", "datetime"} & set(prims):
            failing = " and ".join(f"({_type_test(kind, v)})" for kind in prims)
            if "float" in prims:
                failing += f" or type({v}) is float and {_NOT_FINITE.format(v=v)}"
            if "map" in prims:
                failing += f" or type({v}) is dict and not _finite({v})"
            self.check(failing, code, ind, after=after)
        elif len(values) == len(members) and len(kinds) == 1 and not kinds & {float, type(None)}:
            name = self.fresh("_E")
            self.constants.append(f"{name} = frozenset({tuple(values)!r})")
            test = f"type({v}) is not {kinds.pop().__name__} or {v} not in {name}"
            self.check(test, code, ind, after=after)
        else:
            code.add(ind, "# a general union: the runtime tries each member")
            self.slow(code, ind)

    def list_of(
        self, item: ir.TypeRef, v: str, code: Code, ind: int, *, after: After | None
    ) -> None:
        """A valid list is returned as it is; an item that needs normalising (a nested map
        missing a default) sends the whole value to the runtime."""

        def items(c: Code, i: int) -> None:
            self.elements(item, v, c, i)
            if after is not None:
                after(c, i)

        self.check(f"type({v}) is not list", code, ind, after=items)

    def elements(self, item: ir.TypeRef, v: str, code: Code, ind: int) -> None:
        element = self.fresh("e")
        inner = Code()
        saved, self.same = self.same, True
        result = self.gen(item, element, inner, ind + 1)
        self.same = saved
        if not inner.lines:
            return
        code.add(ind, f"for {element} in {v}:")
        code.lines += inner.lines
        if result != element:
            code.add(ind + 1, f"if {result} is not {element}:")
            self.slow(code, ind + 2)

    def map(self, t: ir.MapOf, v: str, code: Code, ind: int) -> str:
        """One copy of the checks for every map. A map with every field present is checked
        in place and returned as it is; one with optional fields absent is first completed in
        a new dict (defaults filled in, `None` standing in for an absent nullable field and
        removed again afterwards), so the same checks read it: half the code of a second,
        defaults-filling copy of them, and the complete map pays nothing for it."""
        names = {f.name: self.fresh("f") for f in t.fields}
        optional = [f for f in t.fields if not f.required]
        if self.same and all(f.default is not None for f in optional):
            optional = []  # kept as it is, so any field absent has a default to fill in
        self.check(f"type({v}) is not dict", code, ind, after=None)
        if optional:
            m = self.fresh("m")
            out = v if self.same else m
            code.add(ind, f"{m}: Any = {v}")
            self.fill(t, v, m, code, ind)
        else:
            m = out = v
            code.add(ind, f"if len({v}) != {len(t.fields)}:")
            self.slow(code, ind + 1)
        self.complete(t, m, names=names, code=code, ind=ind)
        if optional:
            self.unfill(t, v, m, code, ind)
        return out

    def fill(self, t: ir.MapOf, v: str, m: str, code: Code, ind: int) -> None:
        """A map with fields absent becomes `m`: every field in declaration order (the
        runtime's), its own values over the stand-ins. A key too many (extra, or a folded
        spelling) or a required field absent: the runtime's."""
        stand_ins = []
        for f in t.fields:
            if f.required:
                stand_in = "_MISS"
            elif f.default is not None:
                stand_in = repr(f.default.value)  # a literal: a fresh copy of the default
            else:
                stand_in = "None"  # the type is nullable: None passes its checks
            stand_ins.append(f"{f.name!r}: {stand_in}")
        missing = [f"{m}[{f.name!r}] is _MISS" for f in t.fields if f.required]
        code.add(ind, f"if len({v}) != {len(t.fields)}:")
        code.add(ind + 1, f"{m} = {{{', '.join(stand_ins)}, **{v}}}")
        tests = " or ".join([f"len({m}) != {len(t.fields)}", *missing])
        code.add(ind + 1, f"if {tests}:  # missing, extra, folded or ambiguous keys")
        self.slow(code, ind + 2)

    def unfill(self, t: ir.MapOf, v: str, m: str, code: Code, ind: int) -> None:
        """After the checks of a completed map: with only nullable fields absent (nothing
        filled in), the map itself again; else the absent nullable fields leave the new
        one. Where the caller keeps the value itself (a list item), a default to fill in is
        the runtime's."""
        nullable = [f for f in t.fields if not f.required and f.default is None]
        if not nullable:
            return
        defaults = any(f.default is not None for f in t.fields)
        absent = "".join(f" + ({f.name!r} not in {v})" for f in nullable)
        if self.same:  # the caller keeps the value itself: only nullable fields may be absent
            if defaults:
                code.add(ind, f"if {m} is not {v} and len({v}){absent} != {len(t.fields)}:")
                self.slow(code, ind + 1)  # a default to fill in
            return
        code.add(ind, f"if {m} is not {v}:")
        if not defaults:
            code.add(ind + 1, f"{m} = {v}  # nothing filled in")
            return
        code.add(ind + 1, f"if len({v}){absent} == {len(t.fields)}:")
        code.add(ind + 2, f"{m} = {v}  # nothing filled in")
        code.add(ind + 1, "else:")
        for f in nullable:
            code.add(ind + 2, f"if {f.name!r} not in {v}:")
            code.add(ind + 3, f"del {m}[{f.name!r}]")

    def complete(self, t: ir.MapOf, v: str, *, names: dict[str, str], code: Code, ind: int) -> None:
        """Each field's value, then its checks. A declared key absent from a map of the
        right size (an extra or folded key in its place) is the runtime's."""
        if not t.fields:
            return
        code.add(ind, "try:")
        for f in t.fields:
            code.add(ind + 1, f"{names[f.name]} = {v}[{f.name!r}]")
        code.add(ind, "except KeyError:")
        self.slow(code, ind + 1)
        for f in t.fields:
            result = self.field_value(f, names[f.name], code, ind)
            if result != names[f.name]:
                code.add(ind, f"if {result} is not {names[f.name]}:  # a nested value normalised")
                self.slow(code, ind + 1)

    def field_value(self, f: ir.Field, v: str, code: Code, ind: int) -> str:
        """A present field's value: its type, then (when that held) its constraints."""
        saved = self.sure, self.same, self.bounded
        self.same = True
        self.sure = self.sure and not f.fallback  # @fallback may replace it: the runtime's
        keywords = {keyword for keyword, _ in constraint_pairs(f)}
        inner = f.type.inner if isinstance(f.type, ir.Optional) else f.type
        self.bounded = inner == ir.Prim("float") and (
            f.clamp is not None or {"minimum", "maximum"} <= keywords
        )
        after: After | None = None
        if f.constraints or f.clamp is not None:
            after = lambda c, i: self.constraints(f, v, c, i)  # noqa: E731
        result = self.gen(f.type, v, code, ind, after=after)
        self.sure, self.same, self.bounded = saved
        return result

    def constraints(self, f: ir.Field, v: str, code: Code, ind: int) -> None:
        tests = [
            test
            for keyword, bound in constraint_pairs(f)
            if (test := self.constraint_test(f.type, keyword, bound, v)) is not None
        ]
        if tests:
            self.check(" or ".join(tests), code, ind, after=None)
        if f.clamp is not None:  # out of range: the runtime clamps and reports it
            low = self.constraint_test(f.type, "minimum", f.clamp.low, v)
            high = self.constraint_test(f.type, "maximum", f.clamp.high, v)
            assert low is not None and high is not None
            code.add(ind, f"if {low} or {high}:")
            self.slow(code, ind + 1)

    def constraint_test(self, t: ir.TypeRef, keyword: str, bound: object, v: str) -> str | None:
        """The failing test as runtime/validate.py `_scalar_constraint` makes it, guarded by
        the value's type unless the field's type already settles it."""
        while isinstance(t, ir.Optional):
            t = t.inner
        kind = t.kind if isinstance(t, ir.Prim) else "list" if isinstance(t, ir.ListOf) else ""
        guards = {
            "number": (
                "" if kind in _NUMBERS else f"(type({v}) is int or type({v}) is float) and "
            ),
            "text": "" if kind in _STRINGS else f"type({v}) is str and ",
            "items": "" if kind == "list" else f"type({v}) is list and ",
        }
        if keyword in _RULES:
            kind_of_guard, test = _RULES[keyword]
            return guards[kind_of_guard] + test.format(v=v, b=_bound(bound, kind))
        if keyword == "pattern":
            name = self.fresh("_P")
            self.constants.append(f"{name} = re.compile({_string_literal(str(bound))})")
            return f"{guards['text']}{name}.search({v}) is None"
        if keyword == "format" and isinstance(bound, str) and bound in FORMAT_CHECKS:
            # `_is_datetime` is the module's already (the `:datetime` primitive's check).
            name = FORMAT_CHECKS[bound][0].__name__
            line = f"_{name} = _rt.{name}"
            if name != "is_datetime" and line not in self.constants:
                self.constants.append(line)
            return f"{guards['text']}not _{name}({v})"
        return None
