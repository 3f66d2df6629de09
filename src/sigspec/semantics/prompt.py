"""Mustache templates in `@prompt` and `@system`: tags, sections, and the names they use.

A template may name only the signature's params; inside `{{#list}}` names refer to the
fields of the list's elements, and `{{.}}` is only for lists of scalars (seed 001's rules).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.semantics import ir
from sigspec.semantics.types import Types, is_scalar, strip_optional

_NAME = re.compile(r"\.|[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*")


@dataclass(frozen=True, slots=True)
class Tag:
    kind: str  # "var", "section", "inverted", "close"
    name: str


class TemplateError(ValueError):
    pass


def tags(template: str) -> list[Tag]:
    """The tags of a template, read by the runtime's tokenizer (what the client will
    render), with what a signature's template may not hold refused and sections balanced."""
    from sigspec.runtime.mustache import MustacheError, tokenize  # here: only @prompt pays

    try:
        tokens = tokenize(template)
    except MustacheError as exc:
        raise TemplateError(str(exc)) from None
    out: list[Tag] = []
    open_sections: list[str] = []
    for token in tokens:
        if token.kind in ("text", "comment"):
            continue
        raw = template[token.start : token.end]
        if token.kind in ("partial", "delims"):
            raise TemplateError(f"`{raw}`: partials and delimiter changes are not supported")
        if not _NAME.fullmatch(token.value):
            raise TemplateError(f"`{raw}` is not a valid tag")
        if token.kind == "close":
            _close(open_sections, token.value)
        elif token.kind in ("section", "inverted"):
            open_sections.append(token.value)
        out.append(Tag(token.kind, token.value))
    if open_sections:
        raise TemplateError(f"section `{{{{#{open_sections[-1]}}}}}` is never closed")
    return out


def _close(open_sections: list[str], name: str) -> None:
    if not open_sections or open_sections[-1] != name:
        expected = f"`{{{{/{open_sections[-1]}}}}}`" if open_sections else "no closing tag"
        raise TemplateError(f"`{{{{/{name}}}}}` closes nothing open here; expected {expected}")
    open_sections.pop()


@dataclass(frozen=True, slots=True)
class _Frame:
    fields: dict[str, ir.TypeRef] | None  # None: no named fields here (a scalar element)
    element: ir.TypeRef | None  # the element type inside a list section
    section: str  # for messages


def check_template(
    template: str, sig: ir.Signature, types: Types, source: SourceFile, span: Span
) -> tuple[set[str], list[Diagnostic]]:
    """Names of params the template uses, and its diagnostics."""
    try:
        found = tags(template)
    except TemplateError as exc:
        return set(), [codes.INVALID_PROMPT_TEMPLATE.at(source, span, reason=exc)]
    params = {ir.fold(p.name): p.type for p in sig.params}
    stack = [_Frame(params, None, "the top level")]
    used: set[str] = set()
    diags: list[Diagnostic] = []
    for tag in found:
        if tag.kind == "close":
            stack.pop()
            continue
        if len(stack) == 1 and tag.name != ".":
            used.add(ir.fold(tag.name.split(".")[0]))
        resolved, diag = _lookup(
            tag.name, stack[-1], sig=sig, source=source, span=span, types=types
        )
        if diag is not None:
            diags.append(diag)
        if tag.kind in ("section", "inverted"):
            stack.append(_enter(tag, resolved, stack[-1], types))
    return used, diags


def _lookup(
    name: str, frame: _Frame, *, sig: ir.Signature, source: SourceFile, span: Span, types: Types
) -> tuple[ir.TypeRef | None, Diagnostic | None]:
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
            return None, _missing(name, frame, sig, source, span)
        resolved = current[ir.fold(part)]
        current = _fields_of(resolved, types)
    return resolved, None


def _missing(
    name: str, frame: _Frame, sig: ir.Signature, source: SourceFile, span: Span
) -> Diagnostic:
    from sigspec.diagnostics.suggest import did_you_mean

    if frame.section == "the top level":
        hints = did_you_mean(name, [p.name for p in sig.params])
        return codes.UNKNOWN_PROMPT_VARIABLE.at(
            source, span, name=name, signature=sig.name, hints=hints
        )
    hints = did_you_mean(name, list(frame.fields or ()))
    return codes.SECTION_FIELD_MISSING.at(
        source, span, name=name, section=frame.section, hints=hints
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
