"""Mustache templates in `@prompt` and `@system`: tags, sections, and the names they use.

A template may name only the signature's params; inside `{{#list}}` names refer to the
fields of the list's elements, and `{{.}}` is only for lists of scalars (as PtcRunner's
templates read them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.semantics import ir
from sigspec.semantics.types import Types, is_scalar, strip_optional
from sigspec.syntax import ast

_NAME = re.compile(r"\.|[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*")


@dataclass(frozen=True, slots=True)
class Tag:
    kind: str  # "var", "section", "inverted", "close"
    name: str
    start: int = 0  # the tag's extent in the template, braces included
    end: int = 0

    def name_at(self, template: str) -> tuple[int, int]:
        """The extent of the name inside the tag (what a fix replaces)."""
        at = template.find(self.name, self.start, self.end)
        return (at, at + len(self.name)) if at >= 0 else (self.start, self.end)


class TemplateError(ValueError):
    """A template the checker refuses; `start` and `end` are where, in the template."""

    def __init__(self, message: str, start: int = 0, end: int = 0) -> None:
        super().__init__(message)
        self.start = start
        self.end = end


class Placement:
    """Where a template is written in its source: its `[start, end)` as a source span. The
    string literal is decoded again with its offsets (`decode_offsets`) on the first call
    only, as few templates have anything to report; a string that cannot be mapped, or an
    error without an extent, falls back to the attribute."""

    def __init__(self, template: str, source: SourceFile, attr: ast.Attribute) -> None:
        self._template = template
        self._source = source
        self._attr = attr
        self._offsets: tuple[int, ...] | None = None

    def span(self, start: int, end: int) -> Span:
        offsets = self._offsets if self._offsets is not None else self._map()
        if not offsets or end <= start:
            return self._attr.span
        last = len(offsets) - 1
        return Span(offsets[min(start, last)], offsets[min(end, last)])

    def _map(self) -> tuple[int, ...]:
        from sigspec.syntax.strings import StringError, decode_offsets

        self._offsets = ()
        arg = self._attr.args[0] if self._attr.args else None
        if not isinstance(arg, ast.ScalarValue):
            return ()
        try:
            value, offsets = decode_offsets(self._source.text[arg.span.start : arg.span.end])
        except StringError:
            return ()
        if value == self._template:
            self._offsets = tuple(arg.span.start + o for o in offsets)
        return self._offsets


def tags(template: str) -> list[Tag]:
    """The tags of a template, read by the runtime's tokenizer (what the client will
    render), with what a signature's template may not hold refused and sections balanced."""
    from sigspec.runtime.mustache import MustacheError, tokenize  # here: only @prompt pays

    try:
        tokens = tokenize(template)
    except MustacheError as exc:
        raise TemplateError(str(exc), exc.start, exc.end) from None
    out: list[Tag] = []
    open_sections: list[Tag] = []
    for token in tokens:
        if token.kind in ("text", "comment"):
            continue
        tag = Tag(token.kind, token.value, token.start, token.end)
        raw = template[token.start : token.end]
        if token.kind in ("partial", "delims"):
            raise _error(f"`{raw}`: partials and delimiter changes are not supported", tag)
        if not _NAME.fullmatch(token.value):
            raise _error(f"`{raw}` is not a valid tag", tag)
        if token.kind == "close":
            _close(open_sections, tag)
        elif token.kind in ("section", "inverted"):
            open_sections.append(tag)
        out.append(tag)
    if open_sections:
        raise _error(
            f"section `{{{{#{open_sections[-1].name}}}}}` is never closed", open_sections[-1]
        )
    return out


def _error(message: str, tag: Tag) -> TemplateError:
    return TemplateError(message, tag.start, tag.end)


def _close(open_sections: list[Tag], tag: Tag) -> None:
    if not open_sections or open_sections[-1].name != tag.name:
        expected = f"`{{{{/{open_sections[-1].name}}}}}`" if open_sections else "no closing tag"
        raise _error(f"`{{{{/{tag.name}}}}}` closes nothing open here; expected {expected}", tag)
    open_sections.pop()


@dataclass(frozen=True, slots=True)
class _Frame:
    fields: dict[str, ir.TypeRef] | None  # None: no named fields here (a scalar element)
    element: ir.TypeRef | None  # the element type inside a list section
    section: str  # for messages: "the top level" or the section's name in backticks


def check_template(
    template: str, sig: ir.Signature, types: Types, source: SourceFile, at: Placement
) -> tuple[set[str], list[Diagnostic]]:
    """Names of params the template uses, and its diagnostics, each at its tag."""
    try:
        found = tags(template)
    except TemplateError as exc:
        span = at.span(exc.start, exc.end)
        return set(), [codes.INVALID_PROMPT_TEMPLATE.at(source, span, reason=exc)]
    params = {ir.fold(p.name): p.type for p in sig.params}
    stack = [_Frame(params, None, "the top level")]
    used: set[str] = set()
    diags: list[Diagnostic] = []
    where = _Where(template, source, at)
    for tag in found:
        if tag.kind == "close":
            stack.pop()
            continue
        if len(stack) == 1 and tag.name != ".":
            used.add(ir.fold(tag.name.split(".")[0]))
        resolved, diag = _lookup(tag, stack[-1], sig=sig, types=types, where=where)
        if diag is not None:
            diags.append(diag)
        if tag.kind in ("section", "inverted"):
            stack.append(_enter(tag, resolved, stack[-1], types))
    return used, diags


@dataclass(frozen=True, slots=True)
class _Where:
    template: str
    source: SourceFile
    at: Placement

    def tag(self, tag: Tag) -> Span:
        return self.at.span(tag.start, tag.end)

    def name(self, tag: Tag) -> Span:
        return self.at.span(*tag.name_at(self.template))


def _lookup(
    tag: Tag, frame: _Frame, *, sig: ir.Signature, types: Types, where: _Where
) -> tuple[ir.TypeRef | None, Diagnostic | None]:
    name, source, span = tag.name, where.source, where.tag(tag)
    if name == ".":
        if frame.element is None or not is_scalar(frame.element, types):
            what = "a map or list" if frame.element is not None else "the whole input"
            return None, codes.DOT_OVER_NON_SCALAR.at(
                source, span, section=frame.section, what=what
            )
        return frame.element, None
    if frame.fields is None:
        return None, codes.SECTION_FIELD_MISSING.at(source, span, name=name, section=frame.section)
    current: dict[str, ir.TypeRef] | None = frame.fields
    resolved: ir.TypeRef | None = None
    for part in name.split("."):
        if current is None or ir.fold(part) not in current:
            return None, _missing(tag, frame, sig, where)
        resolved = current[ir.fold(part)]
        current = _fields_of(resolved, types)
    return resolved, None


def _missing(tag: Tag, frame: _Frame, sig: ir.Signature, where: _Where) -> Diagnostic:
    """An unknown name: the close ones as fixes of the name (a dotted name as a whole), and
    the names there are when few."""
    from sigspec.diagnostics.suggest import suggest

    name, span, fix_at = tag.name, where.tag(tag), where.name(tag)
    if frame.section == "the top level":
        found = suggest(name, [p.name for p in sig.params], scope=f"parameters of `{sig.name}`")
        return codes.UNKNOWN_PROMPT_VARIABLE.at(
            where.source,
            span,
            name=name,
            signature=sig.name,
            hints=found.hints,
            fixes=found.fixes(fix_at),
        )
    fields = list(frame.fields or ())  # folded names: each one a valid spelling
    found = suggest(name, fields, scope=f"fields of the elements of {frame.section}")
    return codes.SECTION_FIELD_MISSING.at(
        where.source,
        span,
        name=name,
        section=frame.section,
        hints=found.hints,
        fixes=found.fixes(fix_at),
    )


def _fields_of(t: ir.TypeRef, types: Types) -> dict[str, ir.TypeRef] | None:
    base = strip_optional(t, types)
    if isinstance(base, ir.MapOf):
        return {ir.fold(f.name): f.type for f in base.fields}
    return None


def _enter(tag: Tag, resolved: ir.TypeRef | None, frame: _Frame, types: Types) -> _Frame:
    if resolved is None or tag.kind == "inverted":
        return frame  # an unknown name was reported; an inverted section keeps the context
    base = strip_optional(resolved, types)
    if isinstance(base, ir.ListOf):
        return _Frame(_fields_of(base.item, types), base.item, f"`{tag.name}`")
    if isinstance(base, ir.MapOf):
        return _Frame(_fields_of(base, types), None, f"`{tag.name}`")
    return frame  # a boolean or scalar section is a condition: same context


def template_attrs(sig: ir.Signature) -> Iterator[tuple[str, str]]:
    if sig.prompt is not None:
        yield "prompt", sig.prompt
    if sig.system is not None:
        yield "system", sig.system
