"""Coordinates shared by the renderers: 1-based line and column, start and end."""

from __future__ import annotations

from dataclasses import dataclass

from sigspec.diagnostics.model import Diagnostic


@dataclass(frozen=True, slots=True)
class Region:
    line: int
    column: int
    end_line: int
    end_column: int


def region(d: Diagnostic) -> Region | None:
    if d.source is None or d.span is None:
        return None
    start = d.source.position(d.span.start)
    end = d.source.position(max(d.span.end, d.span.start))
    return Region(start.line, start.column, end.line, end.column)
