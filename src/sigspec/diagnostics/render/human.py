"""rustc-style text: `path:line:col: error[code]: message`, the source line, carets, help."""

from __future__ import annotations

from collections.abc import Sequence

from sigspec.diagnostics.model import Diagnostic, Label, Severity
from sigspec.diagnostics.source import SourceFile, Span

_COLORS = {
    Severity.ERROR: "\x1b[1;31m",
    Severity.WARNING: "\x1b[1;33m",
    Severity.NOTE: "\x1b[1;36m",
}
_BOLD, _BLUE, _RESET = "\x1b[1m", "\x1b[1;34m", "\x1b[0m"


def render(diagnostics: Sequence[Diagnostic], color: bool) -> str:
    return "".join(render_one(d, color) + "\n" for d in diagnostics)


def render_one(d: Diagnostic, color: bool) -> str:
    paint = _painter(color)
    head = f"{d.severity.value}[{d.code}]"
    # Paths and messages can carry a file's or a folder's own characters: escape sequences
    # in them would reach the terminal (or a CI log) as commands.
    where = _visible(_where(d.source, d.span))
    message = _visible(d.message)
    lines = [f"{paint(_BOLD, where)}{paint(_COLORS[d.severity], head)}: {paint(_BOLD, message)}"]
    if d.source is not None and d.span is not None:
        lines += _excerpt(d.source, d.span, paint, _COLORS[d.severity])
    for label in d.labels:
        where = _visible(_label_where(label))
        lines.append(f"  {paint(_BLUE, 'note')}: {_visible(label.message)} at {where}")
    lines += [f"  {paint(_BLUE, '= help')}: {_visible(hint)}" for hint in d.hints]
    return "\n".join(lines)


def _painter(color: bool):  # type: ignore[no-untyped-def]
    def paint(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if color and text else text

    return paint


def _where(source: SourceFile | None, span: Span | None) -> str:
    if source is None:
        return ""
    if span is None:
        return f"{source.path}: "
    pos = source.position(span.start)
    return f"{source.path}:{pos.line}:{pos.column}: "


def _label_where(label: Label) -> str:
    pos = label.source.position(label.span.start)
    return f"{label.source.path}:{pos.line}:{pos.column}"


# A source line is shown whole up to this many characters, else a window around the span:
# a one-line file of a megabyte with thousands of findings must not print it thousands of times.
_WIDE = 160
_BEFORE = 60


def _excerpt(source: SourceFile, span: Span, paint, color: str) -> list[str]:  # type: ignore[no-untyped-def]
    start = source.position(span.start)
    end = source.position(span.end)
    text = source.line_text(start.line)
    last = end.column if end.line == start.line else len(text) + 1
    first = start.column - 1  # 0-based start of the span in the line
    lead = ""
    if len(text) > _WIDE:
        cut = max(0, first - _BEFORE)
        lead = "..." if cut else ""
        tail = "..." if cut + _WIDE < len(text) else ""
        text, first, last = text[cut : cut + _WIDE], first - cut, min(last - cut, _WIDE + 1)
        shown = lead + _visible(text) + tail
    else:
        shown = _visible(text)
    width = len(str(start.line))
    caret_count = max(1, last - 1 - first)
    pad = len(lead) + len(_visible(text[:first]))
    gutter = paint(_BLUE, " " * width + " |")
    return [
        gutter,
        f"{paint(_BLUE, f'{start.line} |')} {shown}",
        f"{gutter} {' ' * pad}{paint(color, '^' * caret_count)}",
    ]


def _visible(text: str) -> str:
    """Tabs and control characters shown so that carets stay aligned and the terminal safe."""
    if text.isprintable():  # no tab, no control character: most lines (one C call)
        return text
    out = []
    for ch in text.replace("\t", "    "):
        out.append(ch if ch.isprintable() else f"\\x{ord(ch):02x}" if ord(ch) < 256 else "?")
    return "".join(out)
