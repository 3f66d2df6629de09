"""Formatting one source text: parse, reprint, and prove the reprint says the same.

The proof here is the syntax's: the reprint parses, to the same declarations (the AST without
positions, numbers told apart by type) with the same doc comments, the same other comments
and the same syntax diagnostics. What the declarations mean once checked, across the files
that import each other, is the command's proof (`commands/fmt.py`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, fields, is_dataclass
from functools import cache
from typing import Any

from sigspec.diagnostics import Diagnostic, has_errors
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast
from sigspec.syntax.fmt import printer
from sigspec.syntax.limits import DEFAULT_LIMITS, SourceLimits
from sigspec.syntax.parser import parse_module


@dataclass(frozen=True, slots=True)
class Formatted:
    text: str | None  # None when the source could not be parsed or the reprint was refused
    diagnostics: tuple[Diagnostic, ...]
    refused: str | None = None  # why the reprint was not trusted: a bug in the formatter


def format_source(source: SourceFile, limits: SourceLimits = DEFAULT_LIMITS) -> Formatted:
    """`source` in the canonical layout, once its reprint is proven to parse to the same syntax
    (`limits`: the configuration's, as `lint` applies them)."""
    module, diags = parse_module(source, limits)
    if module is None or has_errors(diags):
        return Formatted(None, diags)
    text = printer.format_module(source, module)
    if text == source.text:
        return Formatted(text, diags)
    problem = reprint_difference(module, diags, SourceFile(source.path, text), limits)
    if problem is not None:
        return Formatted(None, diags, refused=problem)
    return Formatted(text, diags)


def reprint_difference(
    module: ast.Module,
    diags: tuple[Diagnostic, ...],
    reprint: SourceFile,
    limits: SourceLimits = DEFAULT_LIMITS,
) -> str | None:
    """How the reprint's syntax differs from the source's, in words; None when it does not."""
    again, again_diags = parse_module(reprint, limits)
    if again is None or has_errors(again_diags):
        first = next((d for d in again_diags if d.is_error), None)
        where = ""
        if first is not None and first.span is not None:
            pos = reprint.position(first.span.start)
            where = f" (line {pos.line}: {first.message})"
        return f"the formatted text does not parse{where}"
    if Counter(d.code for d in diags) != Counter(d.code for d in again_diags):
        return "the formatted text has other syntax warnings"
    if strip_spans(module) != strip_spans(again):
        return _declaration_change(module, again)
    if _comments(module) != _comments(again):
        return "the formatted text loses or changes a comment"
    return None


def _declaration_change(before: ast.Module, after: ast.Module) -> str:
    for old, new in zip(before.decls, after.decls, strict=False):
        if strip_spans(old) != strip_spans(new):
            name = getattr(old, "name", None) or getattr(old, "path", "")
            return f"the formatted text changes the declaration `{name}`"
    return "the formatted text has other declarations"


def _comments(module: ast.Module) -> Counter[str]:
    # The formatter drops whitespace at the end of a comment; nothing else of one.
    return Counter(c.text.rstrip() for c in module.comments)


_NOT_MEANING = frozenset({"span", "name_span", "path_span", "triple"})


@cache
def _kept(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind) if f.name not in _NOT_MEANING)


def strip_spans(node: Any) -> Any:
    """The AST with spans and comments removed: what `fmt` must preserve exactly. Numbers
    carry their type, since `1`, `1.0` and `true` are equal in Python but not in a schema."""
    if isinstance(node, ast.Module):
        return tuple(strip_spans(d) for d in node.decls)
    if isinstance(node, Span):
        return None
    if is_dataclass(node) and not isinstance(node, type):
        kind = type(node)
        return (kind.__name__, *(strip_spans(getattr(node, name)) for name in _kept(kind)))
    if isinstance(node, tuple):
        return tuple(strip_spans(x) for x in node)
    if isinstance(node, bool | int | float):
        return (type(node).__name__, repr(node))
    return node
