"""Formatting one source text: parse, reprint, and prove nothing changed in meaning."""

from __future__ import annotations

from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from sigspec.diagnostics import Diagnostic, has_errors
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast
from sigspec.syntax.fmt.printer import format_module
from sigspec.syntax.parser import parse_module


@dataclass(frozen=True, slots=True)
class Formatted:
    text: str | None  # None when the source could not be parsed
    diagnostics: tuple[Diagnostic, ...]


def format_source(source: SourceFile) -> Formatted:
    module, diags = parse_module(source)
    if module is None or has_errors(diags):
        return Formatted(None, diags)
    return Formatted(format_module(source, module), diags)


_NOT_MEANING = frozenset({"span", "name_span", "path_span", "triple"})


def strip_spans(node: Any) -> Any:
    """The AST with spans and comments removed: what `fmt` must preserve exactly."""
    if isinstance(node, ast.Module):
        return tuple(strip_spans(d) for d in node.decls)
    if isinstance(node, Span):
        return None
    if is_dataclass(node) and not isinstance(node, type):
        kept = (f.name for f in fields(node) if f.name not in _NOT_MEANING)
        return (type(node).__name__, *(strip_spans(getattr(node, name)) for name in kept))
    if isinstance(node, tuple):
        return tuple(strip_spans(x) for x in node)
    return node
