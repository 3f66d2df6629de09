"""Test declarations → `ir.Test`: the signature called, its arguments and the expectation,
each checked against the signature's types the way the runtime will judge them.

A test is checked after the whole project is resolved (its signature may live in an imported
file, its values may name any type). An argument or an expected value is judged by the
runtime's strict validator, the one meaning of a valid value; a check's subject is followed
through the output type, so that a misspelt field is found at `lint` time and not after a
paid model call.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sigspec.diagnostics import Diagnostic, Label, codes
from sigspec.diagnostics.model import Severity
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.diagnostics.suggest import suggest
from sigspec.runtime.ecma import Unportable, to_python
from sigspec.semantics import descriptors, ir
from sigspec.semantics.attributes import TEST, read_attributes
from sigspec.semantics.resolve import to_json
from sigspec.semantics.scope import ParsedFile, Table
from sigspec.semantics.types import deref
from sigspec.syntax import ast
from sigspec.syntax.fmt.printer import subject_text

_ORDERED = frozenset({"<", "<=", ">", ">="})


@dataclass(frozen=True, slots=True)
class _Place:
    """What a subject may be: a type, and the field it is the value of (whose constraints
    an expected value must meet too)."""

    type: ir.TypeRef
    field: ir.Field | None = None


def check_tests(
    files: Sequence[ParsedFile], table: Table, project: ir.Project
) -> tuple[tuple[ir.Test, ...], list[Diagnostic]]:
    """The project's tests that check clean, in file and source order, and the problems of
    the others."""
    judge = _Judge(project)
    tests: list[ir.Test] = []
    diags: list[Diagnostic] = []
    for file in files:
        decls = [d for d in file.module.decls if isinstance(d, ast.TestDecl)]
        diags += _duplicates(decls, file.source)
        for decl in decls:
            test, found = _test(decl, file, table, judge)
            diags += found
            if test is not None:
                tests.append(test)
    return tuple(tests), diags


def _duplicates(decls: list[ast.TestDecl], source: SourceFile) -> list[Diagnostic]:
    first: dict[str, ast.TestDecl] = {}
    diags: list[Diagnostic] = []
    for decl in decls:
        seen = first.setdefault(ir.fold(decl.name), decl)
        if seen is not decl:
            label = Label(source, seen.name_span, "first declared here")
            diags.append(
                codes.DUPLICATE_DECLARATION.at(
                    source, decl.name_span, name=decl.name, labels=(label,)
                )
            )
    return diags


def _test(
    decl: ast.TestDecl, file: ParsedFile, table: Table, judge: _Judge
) -> tuple[ir.Test | None, list[Diagnostic]]:
    source = file.source
    attrs, diags = read_attributes(decl.attrs, TEST, source)
    entry, found = table.lookup(
        decl.target.name,
        "signature",
        file=file,
        span=decl.target.span,
        code=codes.UNKNOWN_SIGNATURE,
    )
    diags += found
    sig = judge.project.signature(entry.decl.name) if entry is not None else None
    if sig is None:
        return None, diags
    if sig.mode == "ptc_lisp":
        reason = f"`{sig.name}` answers in PTC-Lisp, which `sigspec test` cannot run"
        diags.append(codes.TEST_EXPECTATION.at(source, decl.target.span, reason=reason))
        return None, diags
    sink = _Sink(source)
    args = _arguments(decl, sig, judge, sink)
    expect = _expectation(decl.expect, sig, judge, sink)
    diags += sink.diagnostics
    if any(d.severity is Severity.ERROR for d in diags):
        return None, diags
    test = ir.Test(
        name=decl.name,
        signature=sig.name,
        args=args,
        expect=expect,
        repeat=attrs.get("repeat", 1),
        min_pass_rate=attrs.get("min_pass_rate", 1.0),
        doc=decl.doc,
        origin=ir.Origin(source, decl.span),
    )
    return test, diags


@dataclass
class _Sink:
    source: SourceFile
    diagnostics: list[Diagnostic] = field(default_factory=list)

    def argument(self, span: Span, reason: str, **extra: Any) -> None:
        self.diagnostics.append(codes.TEST_ARGUMENT.at(self.source, span, reason=reason, **extra))

    def expectation(self, span: Span, reason: str, **extra: Any) -> None:
        self.diagnostics.append(
            codes.TEST_EXPECTATION.at(self.source, span, reason=reason, **extra)
        )


class _Judge:
    """The runtime's validator over the project's named types, loaded once."""

    def __init__(self, project: ir.Project) -> None:
        self.project = project
        self._named: dict[str, Any] | None = None

    def problems(self, place: _Place, value: Any) -> list[str]:
        """What the strict validator finds wrong with `value` at `place`; a repair it would
        make counts too, since the runtime would change the value."""
        from sigspec.runtime.validate import check

        if self._named is None:
            self._named = descriptors.named_descriptors(self.project.types)
        if place.field is None:
            _, errors, repairs = check(descriptors.descriptor(place.type), value, self._named)
            found = [*errors, *((p, f"it would be changed: {note}") for p, note in repairs)]
            return [m if p in ("", "root") else f"{p}: {m}" for p, m in found]
        own = descriptors.field(place.field, fallback=False)
        name = place.field.name
        _, errors, repairs = check(("map", (own,), True), {name: value}, self._named)
        found = [*errors, *((p, f"it would be changed: {note}") for p, note in repairs)]
        return [m if p == name else f"{p.removeprefix(name + '.')}: {m}" for p, m in found]

    def normalised(self, descriptor: Any, value: Any) -> Any:
        from sigspec.runtime.validate import check

        if self._named is None:
            self._named = descriptors.named_descriptors(self.project.types)
        result, _, _ = check(descriptor, value, self._named)
        return result


# ---- arguments ----------------------------------------------------------------------------


def _arguments(
    decl: ast.TestDecl, sig: ir.Signature, judge: _Judge, sink: _Sink
) -> tuple[tuple[str, Any], ...]:
    params = {ir.fold(p.name): p for p in sig.params}
    given: dict[str, ast.TestArg] = {}
    out: list[tuple[str, Any]] = []
    for arg in decl.args:
        param = params.get(ir.fold(arg.name))
        if param is None:
            found = suggest(arg.name, [p.name for p in sig.params], scope="its parameters")
            sink.argument(
                arg.name_span,
                f"`{sig.name}` has no parameter `{arg.name}`",
                hints=found.hints,
                fixes=found.fixes(arg.name_span),
            )
            continue
        first = given.setdefault(ir.fold(arg.name), arg)
        if first is not arg:
            label = Label(sink.source, first.name_span, "first given here")
            sink.argument(arg.name_span, f"`{arg.name}` is given twice", labels=(label,))
            continue
        value = to_json(arg.value)
        for problem in judge.problems(_Place(param.type, param), value):
            shown = ir.render_type(param.type)
            sink.argument(arg.value.span, f"`{param.name}` takes `{shown}`: {problem}")
        out.append((param.name, value))
    for param in sig.params:
        if param.required and ir.fold(param.name) not in given:
            shown = ir.render_type(param.type)
            sink.argument(decl.target.span, f"`{sig.name}` needs `{param.name}` (`{shown}`)")
    return tuple(out)


# ---- the expectation --------------------------------------------------------------------------


def _output(sig: ir.Signature) -> ir.TypeRef:
    """What the client returns: a text signature answers with its text."""
    return ir.Prim("string") if sig.mode == "text" else sig.output


def _expectation(
    expect: ast.Expectation, sig: ir.Signature, judge: _Judge, sink: _Sink
) -> ir.Exact | tuple[ir.Check, ...]:
    output = _output(sig)
    match expect:
        case ast.Valid():
            return ()
        case ast.Checks(items):
            return tuple(c for c in (_check(c, output, judge, sink) for c in items) if c)
        case _:
            value = to_json(expect)
            place = _Place(output)
            for problem in judge.problems(place, value):
                sink.expectation(
                    expect.span, f"`{sig.name}` returns `{ir.render_type(output)}`: {problem}"
                )
            if sig.mode == "json":
                value = judge.normalised(descriptors.output_descriptor(sig, judge.project), value)
            return ir.Exact(value)


def _check(check: ast.Check, output: ir.TypeRef, judge: _Judge, sink: _Sink) -> ir.Check | None:
    followed = _follow(check.subject, output, judge.project.types, sink)
    if followed is None:
        return None
    places, path = followed
    value = to_json(check.value)
    reason = _judged(check, places, value, judge)
    if reason is not None:
        sink.expectation(check.span, reason)
        return None
    origin = ir.Origin(sink.source, check.span)
    return ir.Check(path, check.op, value, check.length, origin)


def _follow(
    subject: ast.Subject, output: ir.TypeRef, types: Any, sink: _Sink
) -> tuple[list[_Place], tuple[ast.PathStep, ...]] | None:
    """The places `subject` may name in the output, and its path with each field named as
    declared (`my_name` matches `my-name`); None (reported) when it names nothing."""
    places = [_Place(output)]
    path: list[ast.PathStep] = []
    for index, step in enumerate(subject.path):
        nxt: list[_Place] = []
        names: list[str] = []
        for place in places:
            for member in _members(place.type, types):
                nxt += _step(member, step, names)
        if not nxt:
            # Written only for the message: at every step it made long paths quadratic.
            before = subject_text(subject.path[:index])
            if isinstance(step, int):
                reason = f"`{before}` is no list, so `[{step}]` names nothing"
                sink.expectation(subject.steps[index], reason)
            else:
                where = "the output" if not index else f"`{before}`"
                found = suggest(step, names, scope="its fields")
                at = subject.steps[index]
                sink.expectation(
                    at, f"{where} has no field `{step}`", hints=found.hints, fixes=found.fixes(at)
                )
            return None
        # Union members often share a field's type: without this the places double at each
        # step of a path through a recursive union.
        places = _distinct(nxt)
        path.append(next((p.field.name for p in nxt if p.field is not None), step))
    return places, tuple(path)


def _distinct(places: list[_Place]) -> list[_Place]:
    """`places` without repeats, in order (a field's default may be a dict: no hashing)."""
    out: list[_Place] = []
    for place in places:
        if place not in out:
            out.append(place)
    return out


def _members(t: ir.TypeRef, types: Any) -> list[ir.TypeRef]:
    """The shapes a value of `t` may take: names followed, `?` and unions flattened."""
    out: list[ir.TypeRef] = []
    stack = [t]
    while stack:
        item = deref(stack.pop(), types)
        if isinstance(item, ir.Optional):
            stack.append(item.inner)
        elif isinstance(item, ir.Union):
            stack += reversed(item.members)
        else:
            out.append(item)
    return out


def _step(t: ir.TypeRef, step: ast.PathStep, names: list[str]) -> list[_Place]:
    if isinstance(t, ir.Prim) and (t.kind == "any" or (t.kind == "map" and isinstance(step, str))):
        return [_Place(ir.Prim("any"))]
    if isinstance(step, int):
        return [_Place(t.item)] if isinstance(t, ir.ListOf) else []
    if not isinstance(t, ir.MapOf):
        return []
    found = [f for f in t.fields if ir.fold(f.name) == ir.fold(step)]
    names += [f.name for f in t.fields]
    if found:
        return [_Place(found[0].type, found[0])]
    return [_Place(ir.Prim("any"))] if t.open else []


# ---- operators ----------------------------------------------------------------------------------


def _judged(check: ast.Check, places: list[_Place], value: Any, judge: _Judge) -> str | None:
    """Why `check` cannot hold for any output (or cannot be read), else None."""
    subject = subject_text(check.subject.path)
    kinds = [m for p in places for m in _members(p.type, judge.project.types)]
    if check.length:
        return _length(subject, kinds, value)
    if check.op in _ORDERED:
        return _ordered(check.op, subject, kinds, value)
    if check.op == "~":
        return _matched(subject, kinds, value)
    if check.op != "in":
        return _never(subject, places, [value], judge)
    if not isinstance(value, list):
        return f'`in` takes a list of values, as in `{subject} in ["a", "b"]`'
    if not value:
        return f"`{subject} in []` can never hold: the list is empty"
    return _never(subject, places, value, judge)


def _ordered(op: str, subject: str, kinds: list[ir.TypeRef], value: Any) -> str | None:
    if not all(_numeric(k) for k in kinds):
        return f"`{op}` compares numbers, and `{subject}` is no number"
    if type(value) not in (int, float):
        return f"`{subject} {op}` needs a number to compare with"
    return None


def _matched(subject: str, kinds: list[ir.TypeRef], value: Any) -> str | None:
    if not all(_stringy(k) for k in kinds):
        return f"`~` matches text, and `{subject}` is no string"
    if not isinstance(value, str):
        return "`~` takes a pattern as a string"
    return _pattern(value)


def _never(subject: str, places: list[_Place], values: list[Any], judge: _Judge) -> str | None:
    """Why one of `values` is no value `subject` can hold, else None."""
    for item in values:
        # A run compares numbers by value (`2 == 2.0`), so a whole float may stand for an int.
        candidates = [item, int(item)] if _whole(item) and isinstance(item, float) else [item]
        problems = [judge.problems(p, c) for p in places for c in candidates]
        if all(problems):
            return f"`{subject}` can never be {_shown(item)}: {problems[0][0]}"
    return None


def _whole(value: Any) -> bool:
    """A whole number: `2`, or `2.0` (equal when a run compares them)."""
    return (type(value) is int) or (type(value) is float and value.is_integer())


def _length(subject: str, kinds: list[ir.TypeRef], value: Any) -> str | None:
    if not all(_sized(k) for k in kinds):
        return f"`len` measures a string, a list or a map, and `{subject}` is none of them"
    if not _whole(value) or value < 0:
        return f"`len({subject})` is compared with a whole number of 0 or more"
    return None


def _pattern(regex: str) -> str | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            re.compile(to_python(regex))
    except Unportable as exc:
        return f"the pattern uses {exc.what} ({exc.part}), which not every engine reads alike"
    except (re.error, ValueError, RecursionError, OverflowError) as exc:
        return f"the pattern does not compile: {exc}"
    return None


def _shown(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)
    return f"`{text}`" if len(text) <= 40 else f"`{text[:37]}...`"


def _numeric(t: ir.TypeRef) -> bool:
    if isinstance(t, ir.Prim):
        return t.kind in ("int", "float", "any")
    return isinstance(t, ir.Literal) and type(t.value) in (int, float)


def _stringy(t: ir.TypeRef) -> bool:
    if isinstance(t, ir.Prim):
        return t.kind in ("string", "keyword", "datetime", "any")
    return isinstance(t, ir.Literal) and isinstance(t.value, str)


def _sized(t: ir.TypeRef) -> bool:
    if isinstance(t, ir.Prim):
        return t.kind in ("string", "keyword", "map", "any")
    return isinstance(t, ir.ListOf | ir.MapOf) or (
        isinstance(t, ir.Literal) and isinstance(t.value, str)
    )
