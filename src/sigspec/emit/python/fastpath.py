"""Straight-line validators generated per signature and named type.

Each function checks a value in one pass and returns its normalised value. An error it can
name exactly (a wrong type, an enum or literal miss, a broken constraint) is collected with
its path, in the runtime's order and words, and the pass goes on; at the end it raises
`ValidationError` listing every error. Whatever it cannot decide alone (a missing, extra or
folded key, a default to fill in below a list, a union, `@clamp`, `@fallback`) raises `_Slow`,
and the runtime's validator (the reference semantics) decides instead: so generated code never
accepts or reports what the runtime would not, and the differential tests hold it to that.

Idioms from the issue: `type(x) is T`, closed maps checked by length with direct key lookups
inside one `try`, enums as frozensets, no per-element calls for scalar lists, no path strings
on the success path: a path is built only where an error is recorded, and a list index is
found only then (see `Index`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import assert_never

from sigspec.emit.python.descriptors import constraints as constraint_pairs
from sigspec.semantics import ir

_TYPE_TEST = {
    "string": "type({v}) is not str",
    "keyword": "type({v}) is not str",
    "int": "type({v}) is not int",
    "float": "type({v}) is not float and type({v}) is not int",
    "bool": "type({v}) is not bool",
    "map": "type({v}) is not dict",
}
# The words of the runtime's messages (runtime/validate.py `_NAMES`).
_KIND_NAMES = {
    "string": "string",
    "keyword": "string",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "map": "map",
}
_DATETIME = "expected an RFC 3339 date-time with an offset"
# Constraint keyword: (the type its guard tests, the failing test, the runtime's message as
# runtime/validate.py `_scalar_constraint` words it; `{v}` the value, `{b}` the bound).
_RULES = {
    "minimum": ("number", "{v} < {b}", "{v} is less than the minimum {b}"),
    "maximum": ("number", "{v} > {b}", "{v} is greater than the maximum {b}"),
    "minLength": ("text", "len({v}) < {b}", "shorter than {b} characters"),
    "maxLength": ("text", "len({v}) > {b}", "longer than {b} characters"),
    "minItems": ("items", "len({v}) < {b}", "fewer than {b} items"),
    "maxItems": ("items", "len({v}) > {b}", "more than {b} items"),
}
_NUMBERS = frozenset({"int", "float"})
_STRINGS = frozenset({"string", "keyword", "datetime"})


@dataclass
class Code:
    lines: list[str] = field(default_factory=list)

    def add(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


@dataclass(frozen=True)
class Index:
    """A list position in a path, looked up in `items` by identity only when an error is
    recorded (an `enumerate` would cost every valid list): searched from the last position
    found (`last`), once per item with errors, which is exact even when one object sits at
    several places (the same object has the same errors). A scalar has one error at most;
    a map or list item keeps its position in `var` (-1 until looked up) for its next one."""

    var: str
    last: str
    element: str
    items: str
    scalar: bool

    def lookup(self) -> str:
        find = f"{self.last} = _ix({self.items}, {self.element}, {self.last})"
        return find if self.scalar else f"if {self.var} < 0: {self.var} = {find}"

    @property
    def position(self) -> str:
        return self.last if self.scalar else self.var


Where = tuple[str | Index, ...]
After = Callable[[Code, int], None]


@dataclass(frozen=True)
class Message:
    """An error message as the runtime words it, recorded unformatted: `ValidationError`
    formats it only when `.errors` is read (a float's repr alone costs as much as the checks).
    `how`: 0 the text alone, 1 "expected TEXT, got " + kind of value, 2 text + value
    shortened, 3 value + text (runtime/validate.py `_issue`)."""

    text: str
    how: int = 0
    value: str = ""

    def entry(self, path: str) -> str:
        if not self.how:
            return f"({path}, {self.text!r})"
        if self.how == 1:  # the most frequent: kept short, `(path, 'float', value)`
            return f"({path}, {self.text!r}, {self.value})"
        return f"({path}, {self.how}, {self.text!r}, {self.value})"


def _expected(name: str, v: str) -> Message:
    return Message(name, 1, v)


def _scalar(t: ir.TypeRef) -> bool:
    """One error at most for a value of this type (so an index can be found by identity)."""
    match t:
        case ir.Optional(inner):
            return _scalar(inner)
        case ir.Prim() | ir.Literal():
            return True
        case ir.Union(members):
            return all(isinstance(m, ir.Literal) for m in members)
        case _:
            return False


@dataclass
class FastPaths:
    project: ir.Project
    constants: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    named: dict[str, str] = field(default_factory=dict)  # type name -> function name
    counter: int = 0
    collect: bool = True  # False below @fallback and constrained lists: any doubt is _Slow
    root: str = "root"  # the path of the checked value itself ("" inside a named type)
    # True where the caller needs the value itself back (a list item, a field of a map kept
    # as it is): a map that would need a new dict raises _Slow instead of building one.
    same: bool = False

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def body(self, t: ir.TypeRef, v: str, ind: int, *, root: str) -> tuple[str, str]:
        """(checks of `v` against `t` collecting `errs`, the normalised value's expression)."""
        saved = self.collect, self.root, self.same
        self.collect, self.root, self.same = True, root, False
        code = Code()
        result = self.gen(t, v, (), code, ind)
        self.collect, self.root, self.same = saved
        return "\n".join(code.lines), result

    def named_function(self, type_name: str) -> str:
        """A named type's checks; errors come back with paths relative to the value."""
        if type_name not in self.named:
            name = self.named[type_name] = f"_fast_t{len(self.named) + 1}"
            body, result = self.body(self.project.types[type_name].type, "x", 1, root="")
            self.functions.append(
                f"def {name}(x: Any) -> Any:\n    errs: Any = None\n{body}\n"
                f"    if errs:\n        raise ValidationError(errs)\n    return {result}\n"
            )
        return self.named[type_name]

    # ---- errors ----

    def path(self, where: Where) -> str:
        """A Python expression for the path: a string, or with list positions in it a tuple
        of its parts, joined with dots (as the runtime writes paths) only when shown."""
        if not where:
            return repr(self.root)
        pieces: list[str] = []
        keys: list[str] = []
        for part in where:
            if isinstance(part, str):
                keys.append(part)
                continue
            if keys:
                pieces.append(repr(".".join(keys)))
                keys = []
            pieces.append(part.position)
        if keys:
            pieces.append(repr(".".join(keys)))
        if len(pieces) == 1:
            return pieces[0] if isinstance(where[0], str) else f"({pieces[0]},)"
        return f"({', '.join(pieces)})"

    def fail(self, where: Where, message: Message, code: Code, ind: int) -> None:
        if not self.collect:
            code.add(ind, "raise _Slow")
            return
        for part in where:
            if isinstance(part, Index):
                code.add(ind, part.lookup())
        code.add(ind, f"(errs := errs or []).append({message.entry(self.path(where))})")

    def check(
        self,
        test: str,
        where: Where,
        message: Message,
        code: Code,
        ind: int,
        *,
        after: After | None,
    ) -> None:
        """`if test:` records the error; what follows runs only when the test passed."""
        code.add(ind, f"if {test}:")
        self.fail(where, message, code, ind + 1)
        if after is None:
            return
        if not self.collect:  # the failure raised: no else needed
            after(code, ind)
            return
        rest = Code()
        after(rest, ind + 1)
        if rest.lines:
            code.add(ind, "else:")
            code.lines += rest.lines

    # ---- per kind: emit checks for variable `v`, return the result expression ----

    def gen(
        self,
        t: ir.TypeRef,
        v: str,
        where: Where,
        code: Code,
        ind: int,
        *,
        after: After | None = None,
    ) -> str:
        match t:
            case ir.Prim(kind):
                self.prim(kind, v, where, code, ind, after=after)
                return v
            case ir.Literal(value):
                test = (
                    f"{v} is not None"
                    if value is None
                    else (f"type({v}) is not {type(value).__name__} or {v} != {value!r}")
                )
                message = Message(f"expected {json.dumps(value)}, got ", 2, v)
                self.check(test, where, message, code, ind, after=after)
                return v
            case ir.Optional(inner):
                return self.optional(inner, v, where, code, ind, after=after)
            case ir.Ref(name):
                return self.ref(name, v, where, code, ind, after=after)
            case ir.Union(members):
                self.union(members, v, where, code, ind, after=after)
                return v
            case ir.ListOf(item):
                self.list_of(item, v, where, code, ind, after=after)
                return v
            case ir.MapOf():
                return self.map(t, v, where, code, ind)
            case _:
                assert_never(t)

    def prim(
        self, kind: str, v: str, where: Where, code: Code, ind: int, *, after: After | None
    ) -> None:
        if kind == "any":
            if after is not None:
                after(code, ind)
        elif kind == "datetime":
            self.check(
                f"type({v}) is not str",
                where,
                _expected("date-time string", v),
                code,
                ind,
                after=lambda c, i: self.check(
                    f"not _is_datetime({v})", where, Message(_DATETIME), c, i, after=after
                ),
            )
        else:
            test = _TYPE_TEST[kind].format(v=v)
            self.check(test, where, _expected(_KIND_NAMES[kind], v), code, ind, after=after)

    def optional(
        self, inner: ir.TypeRef, v: str, where: Where, code: Code, ind: int, *, after: After | None
    ) -> str:
        body = Code()
        result = self.gen(inner, v, where, body, ind + 1, after=after)
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

    def ref(
        self, name: str, v: str, where: Where, code: Code, ind: int, *, after: After | None
    ) -> str:
        """A named type's own function; its errors come back relative and are nested here."""
        out = self.fresh("r")
        function = self.named_function(name)
        if not self.collect:
            code.add(ind, "try:")
            code.add(ind + 1, f"{out}: Any = {function}({v})")
            code.add(ind, "except ValidationError:")
            code.add(ind + 1, "raise _Slow from None")
        else:
            code.add(ind, "try:")
            code.add(ind + 1, f"{out} = {function}({v})")
            code.add(ind, "except ValidationError as exc:")
            for part in where:
                if isinstance(part, Index):
                    code.add(ind + 1, part.lookup())
            prefix = self.path(where) if where else "''"
            code.add(ind + 1, f"errs = _nest(errs, {prefix}, exc.errors, {self.root!r})")
            code.add(ind + 1, f"{out} = {v}")
            if after is not None:  # constraints only hold a value that has no errors
                rest = Code()
                after(rest, ind + 1)
                if rest.lines:
                    code.add(ind, "else:")
                    code.lines += rest.lines
            return out
        if after is not None:
            after(code, ind)
        return out

    def union(
        self,
        members: tuple[ir.TypeRef, ...],
        v: str,
        where: Where,
        code: Code,
        ind: int,
        *,
        after: After | None,
    ) -> None:
        prims = [m.kind for m in members if isinstance(m, ir.Prim)]
        values = [m.value for m in members if isinstance(m, ir.Literal)]
        kinds = {type(x) for x in values}
        if len(prims) == len(members) and not {"any", "datetime"} & set(prims):
            failing = " and ".join(f"({_TYPE_TEST[kind].format(v=v)})" for kind in prims)
            code.add(ind, f"if {failing}:")  # the runtime words a union's miss itself
            code.add(ind + 1, "raise _Slow")
        elif len(values) == len(members) and len(kinds) == 1 and not kinds & {float, type(None)}:
            name = self.fresh("_E")
            self.constants.append(f"{name} = frozenset({tuple(values)!r})")
            test = f"type({v}) is not {kinds.pop().__name__} or {v} not in {name}"
            if isinstance(values[0], str):  # an enum: the runtime's "expected one of"
                shown = ", ".join(json.dumps(x) for x in values)
                message = Message(f"expected one of {shown}, got ", 2, v)
                self.check(test, where, message, code, ind, after=after)
                return
            code.add(ind, f"if {test}:")
            code.add(ind + 1, "raise _Slow")
        else:
            code.add(ind, "raise _Slow  # general unions: the runtime tries each member")
            return
        if after is not None:
            after(code, ind)

    def list_of(
        self, item: ir.TypeRef, v: str, where: Where, code: Code, ind: int, *, after: After | None
    ) -> None:
        """A valid list is returned as it is; an item that needs normalising (a nested map
        missing a default) sends the whole value to the runtime."""

        def items(c: Code, i: int) -> None:
            # The runtime skips a list's constraints when an item failed: so below a
            # constrained list, a failing item goes to the runtime.
            saved = self.collect
            self.collect = saved and after is None
            self.elements(item, v, where, c, i)
            self.collect = saved
            if after is not None:
                after(c, i)

        self.check(f"type({v}) is not list", where, _expected("list", v), code, ind, after=items)

    def elements(self, item: ir.TypeRef, v: str, where: Where, code: Code, ind: int) -> None:
        element, last = self.fresh("e"), self.fresh("k")
        part = Index(f"i{last[1:]}", last, element, v, _scalar(item))
        inner = Code()
        saved, self.same = self.same, True
        result = self.gen(item, element, (*where, part), inner, ind + 1)
        self.same = saved
        if not inner.lines:
            return
        if self.collect:
            code.add(ind, f"{last} = -1")
        code.add(ind, f"for {element} in {v}:")
        if self.collect and not part.scalar:
            code.add(ind + 1, f"{part.var} = -1")
        code.lines += inner.lines
        if result != element:
            code.add(ind + 1, f"if {result} is not {element}:")
            code.add(ind + 2, "raise _Slow")

    def map(self, t: ir.MapOf, v: str, where: Where, code: Code, ind: int) -> str:
        """One copy of the checks for every map. A map with every field present is checked
        in place and returned as it is; one with optional fields absent is first completed in
        a new dict (defaults filled in, `None` standing in for an absent nullable field and
        removed again afterwards), so the same checks read it: half the code of a second,
        defaults-filling copy of them, and the complete map pays nothing for it."""
        names = {f.name: self.fresh("f") for f in t.fields}
        optional = [f for f in t.fields if not f.required]
        if self.same and all(f.default is not None for f in optional):
            optional = []  # kept as it is, so any field absent has a default to fill in
        body = Code()
        inner = ind + 1 if self.collect else ind
        if optional:
            m = self.fresh("m")
            out = v if self.same else m
            if not self.same:
                code.add(ind, f"{m}: Any = {v}")
            else:
                body.add(inner, f"{m}: Any = {v}")
            self.fill(t, v, m, body, inner)
        else:
            m = out = v
            body.add(inner, f"if len({v}) != {len(t.fields)}:")
            body.add(inner + 1, "raise _Slow")
        self.complete(t, m, where, names=names, code=body, ind=inner)
        if optional:
            self.unfill(t, v, m, body, inner)
        self.check(
            f"type({v}) is not dict",
            where,
            _expected("map", v),
            code,
            ind,
            after=lambda c, i: c.lines.extend(body.lines),
        )
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
        code.add(ind + 1, f"if {tests}:")
        code.add(ind + 2, "raise _Slow  # missing, extra, folded or ambiguous keys")

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
                code.add(ind + 1, "raise _Slow  # a default to fill in")
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

    def complete(
        self, t: ir.MapOf, v: str, where: Where, *, names: dict[str, str], code: Code, ind: int
    ) -> None:
        if not t.fields:
            code.add(ind, "pass")
            return
        code.add(ind, "try:")
        for f in t.fields:
            code.add(ind + 1, f"{names[f.name]} = {v}[{f.name!r}]")
        code.add(ind, "except KeyError:")
        code.add(ind + 1, "raise _Slow from None")
        for f in t.fields:
            result = self.field_value(f, names[f.name], where, code, ind, same=True)
            if result != names[f.name]:
                code.add(ind, f"if {result} is not {names[f.name]}:")
                code.add(ind + 1, "raise _Slow  # a nested value needs normalising")

    def field_value(
        self, f: ir.Field, v: str, where: Where, code: Code, ind: int, *, same: bool
    ) -> str:
        """A present field's value: its type, then (when that held) its constraints."""
        here = (*where, f.name)
        saved = self.collect, self.same
        self.same = same
        self.collect = self.collect and not f.fallback  # @fallback may replace it: the runtime's
        after: After | None = None
        if f.constraints or f.clamp is not None:
            after = lambda c, i: self.constraints(f, v, here, c, i)  # noqa: E731
        result = self.gen(f.type, v, here, code, ind, after=after)
        self.collect, self.same = saved
        return result

    def constraints(self, f: ir.Field, v: str, where: Where, code: Code, ind: int) -> None:
        tests = [
            pair
            for keyword, bound in constraint_pairs(f)
            if (pair := self.constraint_test(f.type, keyword, bound, v)) is not None
        ]
        if tests:
            code.add(ind, f"if {' or '.join(t for t, _ in tests)}:")
            if self.collect:
                for test, message in tests:
                    code.add(ind + 1, f"if {test}:")
                    self.fail(where, message, code, ind + 2)
            else:
                code.add(ind + 1, "raise _Slow")
        if f.clamp is not None:  # out of range: the runtime clamps and reports it
            low = self.constraint_test(f.type, "minimum", f.clamp.low, v)
            high = self.constraint_test(f.type, "maximum", f.clamp.high, v)
            assert low is not None and high is not None
            code.add(ind, f"if {low[0]} or {high[0]}:")
            code.add(ind + 1, "raise _Slow")

    def constraint_test(
        self, t: ir.TypeRef, keyword: str, bound: object, v: str
    ) -> tuple[str, Message] | None:
        """(failing test, message) as runtime/validate.py `_scalar_constraint` words it; the
        test is guarded by the value's type unless the field's type already settles it."""
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
            kind_of_guard, test, words = _RULES[keyword]
            failing = guards[kind_of_guard] + test.format(v=v, b=repr(bound))
            if words.startswith("{v}"):  # the value first: formatted when shown
                return failing, Message(words[3:].format(b=bound), 3, v)
            return failing, Message(words.format(b=bound))
        if keyword == "pattern":
            name = self.fresh("_P")
            self.constants.append(f"{name} = re.compile({json.dumps(bound)})")
            message = f"does not match the pattern {bound!r}"
            return f"{guards['text']}{name}.search({v}) is None", Message(message)
        if keyword == "format" and bound == "date-time":
            return f"{guards['text']}not _is_datetime({v})", Message(_DATETIME)
        return None
