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
messages at all: those are found only when an invalid value's errors are read. Containers
are tested as `dict is not type(x)`: type checkers (pyright) then keep `x` as `Any` instead
of narrowing it to a dict of unknown types, which strict mode refuses at every use.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import assert_never

from sigspec.emit.python import pysource as ps
from sigspec.emit.python.names import Namespace, local_name, local_namespace, snake
from sigspec.runtime.ecma import to_python
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
        "map": "dict is not type({v})",
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


def _literal(value: object) -> str:
    """A JSON value (a key, a default, a bound) as a Python literal, as ruff writes it."""
    return ps.flat(ps.lit(value))


def _bound(bound: object, kind: str) -> str:
    """A bound as a literal. A float field's whole-number bound is written as a float when
    that is exact (`1.0` for `@max(1)`): CPython specialises a comparison of two floats, not
    of a float with an int (the sentiment check: ~114 -> ~97 ns, bench/README.md)."""
    if kind == "float" and type(bound) is int and -(2**53) <= bound <= 2**53:
        return ps.number(float(bound))  # every int of this size is a float exactly
    return _literal(bound)


@dataclass
class Code:
    """Lines of code, each as `ruff format` leaves it: a condition too long for its line
    split as ruff splits it, other long statements given as expression trees (`pysource`)."""

    lines: list[str] = field(default_factory=list)
    tests: dict[int, str] = field(default_factory=dict)  # the line an `if` starts -> its test

    def add(self, indent: int, text: str) -> None:
        if text.startswith("if ") and text.endswith(":"):
            self.tests[len(self.lines)] = text[3:-1]
            self.lines += condition(indent, text[3:-1])
        else:
            self.lines.append("    " * indent + text)

    def single_if(self, indent: int) -> tuple[str, list[str]] | None:
        """(test, body lines) when these lines are one `if` at `indent`, without `else`."""
        test = self.tests.get(0)
        if test is None:
            return None
        head = len(condition(indent, test))
        rest = self.lines[head:]
        deeper = "    " * (indent + 1)
        if not rest or not all(line.startswith(deeper) for line in rest):
            return None
        return test, rest

    def node(self, indent: int, node: ps.Node) -> None:
        self.lines.append("    " * indent + ps.render(node, indent))

    def extend(self, other: Code) -> None:
        self.tests.update((len(self.lines) + i, test) for i, test in other.tests.items())
        self.lines += other.lines


def condition(indent: int, test: str) -> list[str]:
    """`if test:` as ruff writes it: on one line; else the test alone inside parentheses;
    else one operand a line, split before each `and` and `or` (ruff splits both at once),
    and an operand still too long split before its comparison operator."""
    pad = "    " * indent
    if len(pad) + len(test) + 4 <= ps.WIDTH:
        return [f"{pad}if {test}:"]
    inner = pad + "    "
    if len(inner) + len(test) <= ps.WIDTH:
        return [f"{pad}if (", inner + test, f"{pad}):"]
    lines = []
    for op, operand in _split(test, _BOOLEAN):
        line = f"{op}{operand}"
        if len(inner) + len(line) > ps.WIDTH:
            (_, first), *rest = _split(operand, _COMPARISONS)
            lines += _call_opened(inner, f"{op}{first}")
            for o, x in rest:
                lines += _call_opened(inner, f"{o}{x}")
        else:
            lines.append(inner + line)
    return [f"{pad}if (", *lines, f"{pad}):"]


def _call_opened(pad: str, piece: str) -> list[str]:
    """A piece of a test on its line; a call of one argument still too long (`type(x)` of a
    long field's name) opened around its argument, as ruff opens it."""
    if len(pad) + len(piece) <= ps.WIDTH or not piece.endswith(")") or "(" not in piece:
        return [pad + piece]
    head, _, argument = piece[:-1].partition("(")
    if any(c in head for c in " \"'[{") and not head.startswith(("and ", "or ")):
        return [pad + piece]
    if len(_split(argument, (", ",))) > 1 or "(" in argument:
        return [pad + piece]
    return [f"{pad}{head}(", f"{pad}    {argument}", f"{pad})"]


_BOOLEAN = (" and ", " or ")
_COMPARISONS = (
    " is not ",
    " not in ",
    " is ",
    " in ",
    " != ",
    " == ",
    " >= ",
    " <= ",
    " < ",
    " > ",
)


def _split(test: str, ops: tuple[str, ...]) -> list[tuple[str, str]]:
    """`test`'s operands at these operators outside any brackets or strings, each with the
    operator before it (`"and "`; none before the first)."""
    parts: list[tuple[str, str]] = []
    depth, start, i, op = 0, 0, 0, ""
    while i < len(test):
        c = test[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c in "\"'":  # a string literal: skip to its end
            i = _string_end(test, i)
            continue
        elif depth == 0 and (found := next((o for o in ops if test.startswith(o, i)), None)):
            parts.append((op, test[start:i]))
            op, start = found[1:], i + len(found)
            i = start
            continue
        i += 1
    parts.append((op, test[start:]))
    return parts


def _string_end(text: str, i: int) -> int:
    quote, i = text[i], i + 1
    while text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i + 1


After = Callable[[Code, int], None]


@dataclass(frozen=True)
class Exits:
    """The statements that leave a function: `slow` hands the value to the runtime, `bad`
    rejects it. A signature's validator returns the runtime's verdict or raises; a named
    type's function returns a marker its caller tests (`_SLOW`, `_BAD`)."""

    slow: ps.Node
    bad: ps.Node


NAMED = Exits(ps.code("return _SLOW"), ps.code("return _BAD"))


def signature_exits(descriptor: str, types: str) -> Exits:
    args = (ps.code(descriptor), ps.code("value"), ps.code(types))
    return Exits(ps.call("return _slow", *args), ps.call("raise ValidationError", *args))


def _derived(v: str, role: str) -> str:
    """A local derived from variable `v`: `score_checked`; from the function's own `value`,
    the role alone (`checked`)."""
    return role if v == "value" else f"{v}_{role}"


@dataclass
class FastPaths:
    project: ir.Project
    space: Namespace  # the module's names
    constants: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)  # type name -> function name
    known: dict[str, str] = field(default_factory=dict)  # constant's value -> its name
    scope: Namespace = field(default_factory=local_namespace)  # the function's locals
    label: str = ""  # what the function checks, for constants' names (a type, a signature)
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

    def local(self, v: str, role: str) -> str:
        return self.scope.take(_derived(v, role))

    def constant(self, hint: str, kind: str, node: ps.Node) -> str:
        """A module-level constant (`SENTIMENT_VALUES`), one per distinct name and value."""
        base = f"{snake(hint).upper() or 'FIELD'}_{kind}"
        key = f"{base}={ps.flat(node)}"
        if key not in self.known:
            name = self.known[key] = self.space.take(base)
            self.constants.append(ps.assign(name, node).rstrip())
        return self.known[key]

    def body(
        self,
        t: ir.TypeRef,
        v: str,
        ind: int,
        *,
        exits: Exits,
        label: str,
        reserved: tuple[str, ...] = (),
    ) -> tuple[str, str]:
        """(checks of `v` against `t`, leaving by `exits`; the normalised value's expression)."""
        saved = self.exits, self.sure, self.same, self.bounded, self.scope, self.label
        self.exits, self.sure, self.same, self.bounded = exits, True, False, False
        self.scope, self.label = local_namespace(reserved), label
        code = Code()
        result = self.gen(t, v, code, ind)
        self.exits, self.sure, self.same, self.bounded, self.scope, self.label = saved
        return "\n".join(code.lines), result

    def named_function(self, type_name: str) -> str:
        """A named type's checks: its normalised value, `_BAD` or `_SLOW`."""
        if type_name not in self.named:
            name = self.named[type_name] = self.space.take(f"_check_{snake(type_name)}")
            t = self.project.types[type_name].type
            body, result = self.body(t, "value", 1, exits=NAMED, label=type_name)
            self.functions.append(_function(name, f"The checks of `{type_name}`.", body, result))
        return self.named[type_name]

    def nested_function(self, t: ir.TypeRef, v: str) -> str:
        """The checks of a type nested too deep to continue in place (`SPLIT_INDENT`), as a
        function that answers as a named type's does. (IR types hold lists, so they are not
        keys: each place gets its own function; such depths are rare.)"""
        name = self.space.take(f"_check_{snake(self.label)}_{v}")
        body, result = self.body(t, "value", 1, exits=NAMED, label=f"{self.label}_{v}")
        doc = "Checks nested too deep to continue in the function that needs them."
        self.functions.append(_function(name, doc, body, result))
        return name

    # ---- leaving ----

    def slow(self, code: Code, ind: int) -> None:
        code.node(ind, self.exits.slow)

    def fail(self, code: Code, ind: int) -> None:
        code.node(ind, self.exits.bad if self.sure else self.exits.slow)

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
            function = self.nested_function(t, v)
            return self.call(self.local(v, "checked"), function, v, code, ind, after=after)
        match t:
            case ir.Prim(kind):
                self.prim(kind, v, code, ind, after=after)
                return v
            case ir.Literal(value):
                test = (
                    f"{v} is not None"
                    if value is None
                    else (f"type({v}) is not {type(value).__name__} or {v} != {_literal(value)}")
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
            self.check(f"dict is not type({v}) or not _finite({v})", code, ind, after=after)
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
            single = body.single_if(ind + 1)
            if single is not None:  # one `if`: joined to the null test (ruff's SIM102)
                test, rest = single
                if any(op == "or " for op, _ in _split(test, _BOOLEAN)):
                    test = f"({test})"
                code.add(ind, f"if {v} is not None and {test}:")
                code.lines += [line[4:] for line in rest]
            elif body.lines:
                code.add(ind, f"if {v} is not None:")
                code.lines += body.lines
            return v
        out = self.local(v, "checked")
        code.add(ind, f"if {v} is None:")
        code.add(ind + 1, f"{out}: Any = None")
        code.add(ind, "else:")
        code.lines += body.lines
        code.add(ind + 1, f"{out} = {result}")
        return out

    def ref(self, name: str, v: str, code: Code, ind: int, *, after: After | None) -> str:
        function = self.named_function(name)
        return self.call(self.local(v, "checked"), function, v, code, ind, after=after)

    def call(
        self, out: str, function: str, v: str, code: Code, ind: int, *, after: After | None
    ) -> str:
        """`out`, a named type's (or a nested type's) function's answer for `v`; its markers
        leave this function too."""
        code.node(ind, ps.call(f"{out} = {function}", ps.code(v)))
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
                failing += f" or dict is type({v}) and not _finite({v})"
            self.check(failing, code, ind, after=after)
        elif len(values) == len(members) and len(kinds) == 1 and not kinds & {float, type(None)}:
            items = ps.Brackets("", "{", tuple(map(ps.lit, values)), "}")
            name = self.constant(self.hint(v), "VALUES", ps.call("frozenset", items))
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

        self.check(f"list is not type({v})", code, ind, after=items)

    def elements(self, item: ir.TypeRef, v: str, code: Code, ind: int) -> None:
        element = self.local(v, "item")
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
        names = {f.name: local_name(self.scope, f.name) for f in t.fields}
        optional = [f for f in t.fields if not f.required]
        if self.same and all(f.default is not None for f in optional):
            optional = []  # kept as it is, so any field absent has a default to fill in
        self.check(f"dict is not type({v})", code, ind, after=None)
        if optional:
            m = self.local(v, "filled")
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
        stand_ins: list[ps.Node] = []
        for f in t.fields:
            stand_in: ps.Node
            if f.required:
                stand_in = ps.code("_MISS")
            elif f.default is not None:
                stand_in = ps.lit(f.default.value)  # a literal: a fresh copy of the default
            else:
                stand_in = ps.code("None")  # the type is nullable: None passes its checks
            stand_ins.append(ps.pair(ps.lit(f.name), stand_in))
        missing = [f"{m}[{_literal(f.name)}] is _MISS" for f in t.fields if f.required]
        code.add(ind, f"if len({v}) != {len(t.fields)}:")
        code.node(ind + 1, ps.Brackets(f"{m} = ", "{", (*stand_ins, ps.code(f"**{v}")), "}"))
        tests = " or ".join([f"len({m}) != {len(t.fields)}", *missing])
        code.add(ind + 1, "# missing, extra, folded or ambiguous keys")
        code.add(ind + 1, f"if {tests}:")
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
        absent = "".join(f" + ({_literal(f.name)} not in {v})" for f in nullable)
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
            code.add(ind + 2, f"if {_literal(f.name)} not in {v}:")
            code.add(ind + 3, f"del {m}[{_literal(f.name)}]")

    def complete(self, t: ir.MapOf, v: str, *, names: dict[str, str], code: Code, ind: int) -> None:
        """Each field's value, then its checks. A declared key absent from a map of the
        right size (an extra or folded key in its place) is the runtime's."""
        if not t.fields:
            return
        checks = Code()
        for f in t.fields:
            result = self.field_value(f, names[f.name], checks, ind)
            if result != names[f.name]:
                checks.add(ind, "# a nested value normalised")
                checks.add(ind, f"if {result} is not {names[f.name]}:")
                self.slow(checks, ind + 1)
        text = "\n".join(checks.lines)
        code.add(ind, "try:")
        for f in t.fields:
            # A value no check reads (the runtime decides it): only its key is looked up.
            used = re.search(rf"(?<![\w'\"]){names[f.name]}(?![\w'\"])", text)
            local = names[f.name] if used else "_"
            code.node(ind + 1, ps.subscript(f"{local} = {v}", ps.lit(f.name)))
        code.add(ind, "except KeyError:")
        self.slow(code, ind + 1)
        code.extend(checks)

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
            "items": "" if kind == "list" else f"list is type({v}) and ",
        }
        if keyword in _RULES:
            kind_of_guard, test = _RULES[keyword]
            return guards[kind_of_guard] + test.format(v=v, b=_bound(bound, kind))
        if keyword == "pattern":
            # ECMA-262's meaning, translated (the checker has proven it translates).
            node = ps.call("re.compile", ps.code(ps.string(to_python(str(bound)))))
            name = self.constant(self.hint(v), "PATTERN", node)
            return f"{guards['text']}{name}.search({v}) is None"
        if keyword == "format" and isinstance(bound, str) and bound in FORMAT_CHECKS:
            # `_is_datetime` is the module's already (the `:datetime` primitive's check).
            name = FORMAT_CHECKS[bound][0].__name__
            line = f"_{name} = _rt.{name}"
            if name != "is_datetime" and line not in self.constants:
                self.constants.append(line)
            return f"{guards['text']}not _{name}({v})"
        return None

    def hint(self, v: str) -> str:
        """What a constant for variable `v` is named after: the field it holds, or what the
        function checks."""
        return self.label if v == "value" else v


def _function(name: str, doc: str, body: str, result: str) -> str:
    return f'def {name}(value: Any) -> Any:\n    """{doc}"""\n{body}\n    return {result}\n'
