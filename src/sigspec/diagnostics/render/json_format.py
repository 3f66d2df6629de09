"""A stable JSON list of diagnostics for tools."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sigspec.diagnostics.model import Diagnostic, Fix
from sigspec.diagnostics.render.common import region
from sigspec.diagnostics.source import SourceFile


def as_dict(d: Diagnostic) -> dict[str, Any]:
    r = region(d)
    return {
        "path": d.path,
        "line": r.line if r else None,
        "column": r.column if r else None,
        "end_line": r.end_line if r else None,
        "end_column": r.end_column if r else None,
        "severity": d.severity.value,
        "code": d.code,
        "message": d.message,
        "hints": list(d.hints),
        "fixes": [_fix(d.source, fix) for fix in d.fixes] if d.source else [],
        "labels": [
            {
                "path": lb.source.path,
                "line": lb.source.position(lb.span.start).line,
                "column": lb.source.position(lb.span.start).column,
                "message": lb.message,
            }
            for lb in d.labels
        ],
    }


def _fix(source: SourceFile, fix: Fix) -> dict[str, Any]:
    """A replacement a hint names: the text the range (1-based, end exclusive) would hold."""
    start, end = source.position(fix.span.start), source.position(fix.span.end)
    return {
        "line": start.line,
        "column": start.column,
        "end_line": end.line,
        "end_column": end.column,
        "text": fix.text,
    }


def render(diagnostics: Sequence[Diagnostic], color: bool) -> str:
    return json.dumps([as_dict(d) for d in diagnostics], indent=2, ensure_ascii=False) + "\n"
