"""Code actions, free of pygls: the quick fixes a diagnostic carries, and the edit that adds
a suppression comment for a diagnostic's code on its line.

A suppression reads `# sigspec: ignore[code] reason: ...` (`compiler/suppress.py`): on its own
line it covers the next line holding code, after code its own line. The comment goes on its
own line above the diagnostic's line when that line starts with code outside a string; at
the end of the line otherwise (an attribute line: a comment above one skips past it to the
declaration); into the suppression already covering the line when there is one. Every
placement is proven before it is offered: the edited text, scanned as `suppress.py` reads it,
holds a valid suppression of the code covering that line. A line that starts and ends inside
a multi-line string (a line inside a triple-quoted prompt) has no such place: no action is offered.

The reason is a placeholder the user replaces; `suppress.py` takes any non-empty reason, so
the placeholder lints clean (an empty one is `invalid-suppression`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sigspec.commands.lsp.context import Token, tokens
from sigspec.compiler import suppress
from sigspec.diagnostics import Phase, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast
from sigspec.syntax.parser import parse_module

REASON = "reason: ..."
_NOT_SUPPRESSED = frozenset({codes.INVALID_SUPPRESSION.name, codes.UNUSED_SUPPRESSION.name})


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the code points `[start, end)` of a text with `text`."""

    start: int
    end: int
    text: str

    def apply(self, source: str) -> str:
        return source[: self.start] + self.text + source[self.end :]


# ---- quick fixes carried by the published diagnostics ----------------------------------------


@dataclass(frozen=True, slots=True)
class QuickFix:
    """One replacement as the client got it: a range in its units, the text it held then."""

    range: Mapping[str, Any]
    old: str
    new: str

    @property
    def title(self) -> str:
        if not self.old:
            return f"Insert `{self.new}`"
        if not self.new:
            return f"Remove `{self.old}`"
        return f"Replace with `{self.new}`"


def fix_data(fixes: list[QuickFix]) -> dict[str, Any] | None:
    """What `Diagnostic.data` carries to the client: the fixes, or None when there are none."""
    if not fixes:
        return None
    return {"sigspec": {"fixes": [{"range": f.range, "old": f.old, "new": f.new} for f in fixes]}}


def read_fixes(data: object) -> list[QuickFix]:
    """The fixes in a diagnostic's data as the client sent it back; none from data this
    server did not write (an older server, another server, a client that drops it)."""
    if not isinstance(data, dict) or not isinstance(data.get("sigspec"), dict):
        return []
    found = data["sigspec"].get("fixes")
    if not isinstance(found, list):
        return []
    out = []
    for entry in found:
        if not isinstance(entry, dict):
            continue
        where, old, new = entry.get("range"), entry.get("old"), entry.get("new")
        if (
            isinstance(where, dict)
            and _is_range(where)
            and isinstance(old, str)
            and isinstance(new, str)
        ):
            out.append(QuickFix(where, old, new))
    return out


def _is_range(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    ends = (value.get("start"), value.get("end"))
    return all(
        isinstance(end, dict)
        and all(isinstance(end.get(k), int) and end[k] >= 0 for k in ("line", "character"))
        for end in ends
    )


# ---- suppressions ---------------------------------------------------------------------------


def suppressible(code: str) -> bool:
    """Can a comment silence this code? Not a breaking change (the configuration's
    `breaking_ignore` is for those), not a suppression's own problem. (Nor anything in a
    file that does not parse, whose comments are not read: `suppression` checks that.)"""
    known = codes.CODES.get(code)
    return (
        known is not None
        and known.phase not in (Phase.BREAKING, Phase.IMPORT)
        and code not in _NOT_SUPPRESSED
    )


@dataclass(frozen=True, slots=True)
class Placing:
    """What placing suppressions in one text reads, once for all of a request's
    diagnostics: the text parsed (None: it does not parse) and its suppressions."""

    source: SourceFile
    module: ast.Module | None
    found: tuple[suppress.Suppression, ...]


def placing(text: str) -> Placing:
    source = SourceFile("", text)
    module = parse_module(source)[0]
    found = suppress.find(source, _comments(text))[0] if module is not None else []
    return Placing(source, module, tuple(found))


def suppression(text: str, line: int, code: str, read: Placing | None = None) -> Edit | None:
    """The edit silencing `code` on `line` (1-based) of `text`, proven to; None if no
    comment can (or one already does). `read` is `placing(text)`, when already made."""
    read = read if read is not None else placing(text)
    source, module, found = read.source, read.module, read.found
    if module is None or not 1 <= line <= source.line_count:
        return None
    # The one on the line itself first, else one above the declaration covering its
    # attributes' lines.
    covering = next((s for s in found if s.line == line), None) or next(
        (s for s in found if line in s.lines), None
    )
    if covering is not None:
        return _merged(text, covering, code, line)
    start = _line_start(source, line)
    end = start + len(source.line_text(line))
    body = source.line_text(line)
    indent = body[: len(body) - len(body.lstrip())]
    comment = f"# sigspec: ignore[{code}] {REASON}"
    newline = "\r\n" if text.startswith("\r\n", end) else "\n"
    above = Edit(start, start, f"{indent}{comment}{newline}")
    after = Edit(end, end, f"  {comment}" if body.strip() else comment)
    candidates = [(after, line)]
    if body.strip() and not body.lstrip().startswith(("@", "#")):
        candidates.insert(0, (above, line + 1))
    head = _attributes_head(source, module, line)
    if head is not None:
        # A line of a declaration's attributes (a tag inside a multi-line `@prompt`, where
        # no comment can go): a comment above the attributes covers all their lines.
        at = _line_start(source, head)
        head_text = source.line_text(head)
        head_indent = head_text[: len(head_text) - len(head_text.lstrip())]
        candidates.append((Edit(at, at, f"{head_indent}{comment}{newline}"), line + 1))
    for edit, target in candidates:
        if _covers(edit.apply(text), target, code):
            return edit
    return None


def _merged(text: str, covering: suppress.Suppression, code: str, line: int) -> Edit | None:
    if code in covering.codes:
        return None
    comment = text[covering.span.start : covering.span.end]
    match = re.search(r"ignore\[([^\]]*)\]", comment)
    if match is None:
        return None
    at = covering.span.start + match.end(1)
    edit = Edit(at, at, f", {code}" if match.group(1).strip() else code)
    return edit if _covers(edit.apply(text), line, code) else None


def _covers(text: str, line: int, code: str) -> bool:
    """Does `text` hold a valid suppression of `code` covering `line`?"""
    source = SourceFile("", text)
    found, problems = suppress.find(source, _comments(text))
    if problems:
        return False
    return any(line in s.lines and code in s.codes for s in found)


def _attributes_head(source: SourceFile, module: ast.Module, line: int) -> int | None:
    """The first line of the attributes of the declaration whose attributes span `line`
    (from the first attribute to the end of the last), if any."""
    for decl in module.decls:
        if not decl.attrs:
            continue
        first = source.position(decl.attrs[0].span.start).line
        last = source.position(decl.attrs[-1].span.end).line
        if first <= line <= last:
            return first
    return None


def _comments(text: str) -> list[ast.Comment]:
    """The comments of a text as the lexer sees them (strings skipped), parsing or not."""
    every: list[Token] = tokens(text)
    return [ast.Comment(t.text, Span(t.start, t.end)) for t in every if t.kind == "comment"]


def _line_start(source: SourceFile, line: int) -> int:
    offset = 0
    for _ in range(line - 1):
        offset = source.text.index("\n", offset) + 1
    return offset
