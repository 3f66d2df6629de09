"""Range formatting, free of pygls: the declarations a range touches, reprinted as `sigspec fmt`
prints them, every other character left as it is.

The file is formatted whole (and refused whole: a text that does not parse, or a reprint the
fmt proof rejects, gets no edits), then both texts are cut into one region per declaration
at the same places: a region runs from the line after the previous declaration ends (so
the blank lines, comments and doc comment above a declaration are its own) to the line
after it ends (its trailing comment included); the first starts the file, the last ends it.
The reprint has the declarations in the same order (the proof says so), so replacing regions
of the source by the reprint's regions of the same index, one or all, converges on the whole
file's format; each edit is itself held to the fmt proof (a comment the formatter moves
across a boundary widens it).
"""

from __future__ import annotations

from dataclasses import dataclass

from sigspec.diagnostics.source import SourceFile
from sigspec.syntax import ast
from sigspec.syntax.fmt.run import format_source, reprint_difference
from sigspec.syntax.parser import parse_module


@dataclass(frozen=True, slots=True)
class Replacement:
    """Replace the code points `[start, end)` of the source with `text`."""

    start: int
    end: int
    text: str


def regions(text: str, module: ast.Module | None = None) -> list[int] | None:
    """The region boundaries of a text that parses (`module`: its parse, when at hand):
    `[0, b1, ..., len(text)]`, one region per declaration (one for a file without any);
    None when it does not parse."""
    if module is None:
        module, _ = parse_module(SourceFile("", text))
        if module is None:
            return None
    bounds = [0]
    for before, decl in zip(module.decls, module.decls[1:], strict=False):
        after = text.find("\n", before.span.end)
        start = after + 1 if 0 <= after < decl.span.start else decl.span.start
        bounds.append(max(start, bounds[-1]))
    bounds.append(len(text))
    return bounds


def format_range(path: str, text: str, start: int, end: int) -> Replacement | None:
    """The one edit reprinting the declarations `[start, end)` touches (a cursor, `start ==
    end`, touches the declaration around it); None when nothing changes or the file's format
    is refused.

    The edited text must pass the fmt proof against the source as a whole file does (the
    same declarations, comments and syntax warnings): the formatter may move a comment from
    inside one declaration to beside the next, out of the regions replaced. When it does not
    pass, the edit takes in the neighbouring declarations, up to the whole file.

    In a file whose lines end in CRLF the reprint's lines do too when that means the same
    (`_line_end_styles`)."""
    source = SourceFile(path, text)
    result = format_source(source)
    module, diags = parse_module(source)
    if result.text is None or result.text == text or module is None:
        return None
    old, new = regions(text, module), regions(result.text)
    if old is None or new is None or len(old) != len(new):
        return None  # the proof rules this out; kept as a guard, never an exception
    first, last = _touched(old, start, end)
    count = len(old) - 1
    for wider in range(count):
        low, high = max(0, first - wider), min(count - 1, last + wider)
        piece = result.text[new[low] : new[high + 1]]
        for text_of in _line_end_styles(text, piece):
            edit = Replacement(old[low], old[high + 1], text_of)
            edited = text[: edit.start] + edit.text + text[edit.end :]
            if (
                edited == result.text
                or reprint_difference(module, diags, SourceFile(path, edited)) is None
            ):
                return None if text[edit.start : edit.end] == edit.text else edit
    return Replacement(0, len(text), result.text)


def _line_end_styles(text: str, reprint: str) -> list[str]:
    """The reprint (LF lines, as `sigspec fmt` writes) to try: first with the line ends of
    `text` when those are CRLF, so that a selection does not leave the file mixed. (Not
    always possible: a CRLF inside a triple-quoted string is part of its value, which the
    reprint writes as an escape; then LF it is, as the whole file's format does.)"""
    if "\r\n" not in text:
        return [reprint]
    return [reprint.replace("\n", "\r\n"), reprint]


def _touched(bounds: list[int], start: int, end: int) -> tuple[int, int]:
    """The first and last region the range touches; a cursor touches the region holding it
    (the last at the end of the file)."""
    count = len(bounds) - 1
    hit = [
        i
        for i in range(count)
        if (bounds[i] <= start < bounds[i + 1]) or (start < bounds[i + 1] and end > bounds[i])
    ]
    if not hit:
        return count - 1, count - 1
    return hit[0], hit[-1]
