"""GitHub Actions workflow commands: `::error file=...,line=...::message`."""

from __future__ import annotations

from collections.abc import Sequence

from sigspec.diagnostics.model import Diagnostic, Severity
from sigspec.diagnostics.render.common import region

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(diagnostics: Sequence[Diagnostic], color: bool) -> str:
    lines = []
    for d in diagnostics:
        props = []
        if d.path:
            props.append(f"file={_prop(d.path)}")
        r = region(d)
        if r is not None:
            props += [
                f"line={r.line}",
                f"col={r.column}",
                f"endLine={r.end_line}",
                f"endColumn={r.end_column}",
            ]
        props.append(f"title={_prop(f'sigspec ({d.code})')}")
        message = "\n".join([d.message, *(f"help: {h}" for h in d.hints)])
        lines.append(f"::{_LEVEL[d.severity]} {','.join(props)}::{_data(message)}\n")
    return "".join(lines)
