"""Inline suppression: `# sigspec: ignore[code, ...] reason`.

On its own line the comment covers the next line holding code and the attributes before
it, all their lines: it can stand above a decorated declaration, and it covers a diagnostic
inside a multi-line triple-quoted `@prompt` (a tag there), where no comment can go. After code,
it covers its own line.
Suppressions that match nothing are reported (`unused-suppression`), but only for the codes
the running command can produce, which each code's phase says: `lint` judges what loading a
project finds, `compile` what its targets find. Breaking-change codes are not suppressed in a
file (the configuration's `breaking_ignore` is for them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sigspec.diagnostics import Diagnostic, Phase, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast

_SUPPRESS = re.compile(r"#\s*sigspec:\s*ignore\[([^\]]*)\]\s*(.*)$")


@dataclass(frozen=True)
class Suppression:
    source: SourceFile
    span: Span
    line: int  # the line whose diagnostics it silences
    codes: frozenset[str]
    used: set[str] = field(default_factory=set, compare=False)
    first: int = 0  # the first line it silences (the attributes above `line`); 0: `line`

    @property
    def lines(self) -> range:
        return range(self.first or self.line, self.line + 1)


def find(
    source: SourceFile, comments: Iterable[ast.Comment]
) -> tuple[list[Suppression], list[Diagnostic]]:
    found: list[Suppression] = []
    problems: list[Diagnostic] = []
    targets: _CodeLines | None = None  # built at the first suppression: most files have none
    for comment in comments:
        match = _SUPPRESS.search(comment.text)
        if match is None:
            continue
        named = frozenset(c.strip() for c in match.group(1).split(",") if c.strip())
        reason = _problem(named, match.group(2))
        if reason:
            problems.append(codes.INVALID_SUPPRESSION.at(source, comment.span, reason=reason))
            continue
        targets = targets or _CodeLines.of(source)
        first, line = targets.target(comment.span)
        found.append(Suppression(source, comment.span, line, named, first=first))
    return found, problems


def _problem(named: frozenset[str], reason: str) -> str:
    """What is wrong with a suppression comment, or ""."""
    unknown = sorted(c for c in named if c not in codes.CODES)
    breaking = sorted(c for c in named if c in codes.BREAKING)
    if not named:
        return "no code given"
    if unknown:
        return f"unknown code `{unknown[0]}`"
    if breaking:
        return f"`{breaking[0]}` is a breaking change: list it under `breaking_ignore` instead"
    imported = sorted(c for c in named if c in codes.IMPORT)
    if imported:
        return f"`{imported[0]}` is about a JSON Schema `sigspec import` reads, not a .sig file"
    return "" if reason.strip() else "give a reason after the brackets"


# A string as the grammar reads it (`grammar/sigspec.lark`), a comment, or any other character:
# what scanning an attribute's arguments steps over.
_ATTRIBUTE_STEP = re.compile(
    r'''"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n\r]|\\.)*"|#[^\n]*|.''', re.S
)
_ATTRIBUTE_NAME = re.compile(r"@[^\s(]*[ \t]*")
_BLANK = re.compile(r"(?:\s|#[^\n]*)*")
_INDENT = re.compile(r"[ \t]*")


def _skip(pattern: re.Pattern[str], text: str, at: int) -> int:
    """The offset after what `pattern` (which may match nothing) matches at `at`."""
    found = pattern.match(text, at)
    return found.end() if found else at


@dataclass(frozen=True, slots=True)
class _CodeLines:
    """For each line, the first line at or after it that holds code or an attribute (not a
    blank or comment line), found in one backward pass: walking forward from each comment
    made a run of consecutive suppressions quadratic (10,000 took 30 s)."""

    source: SourceFile
    starts: tuple[int, ...]  # index = line number - 1: the offset the line starts at
    next_content: tuple[int, ...]  # index = line number; 0 when none follows
    blocks: dict[int, tuple[int, int]] = field(default_factory=dict)  # memo of `_block`

    @classmethod
    def of(cls, source: SourceFile) -> _CodeLines:
        texts = source.text.split("\n")
        starts = [0]
        for text in texts[:-1]:
            starts.append(starts[-1] + len(text) + 1)
        following = [0] * (len(texts) + 2)
        for line in range(len(texts), 0, -1):
            text = texts[line - 1].strip()
            following[line] = line if text and not text.startswith("#") else following[line + 1]
        return cls(source, tuple(starts), tuple(following))

    def target(self, span: Span) -> tuple[int, int]:
        """The lines (first, last) a suppression at `span` covers: its own after code; else
        the next line holding code and the attributes before it (each to its last line);
        else its own."""
        pos = self.source.position(span.start)
        if self.source.text[self.starts[pos.line - 1] : span.start].strip():
            return pos.line, pos.line
        content = self.next_content[pos.line + 1]
        if not content:
            return pos.line, pos.line
        if content not in self.blocks:
            self.blocks[content] = self._block(content)
        first, last = self.blocks[content]
        return (first, last) if last else (pos.line, pos.line)

    def _block(self, line: int) -> tuple[int, int]:
        """(first, code line) of the declaration whose attributes start at `line`: the
        attributes' lines (strings and comments in their arguments stepped over) and the
        line of the code after them; (line, line) for a code line, (line, 0) at the end."""
        text = self.source.text
        at = _skip(_INDENT, text, self.starts[line - 1])
        while at < len(text) and text[at] == "@":
            at = _skip(_ATTRIBUTE_NAME, text, at)
            if at < len(text) and text[at] == "(":
                at = _arguments_end(text, at)
            at = _skip(_BLANK, text, at)
        if at >= len(text):
            return line, 0
        return line, self.source.position(at).line


def _arguments_end(text: str, at: int) -> int:
    """The offset after the `)` closing the `(` at `at` (strings stepped over whole), or the
    end of the text."""
    depth = 0
    for step in _ATTRIBUTE_STEP.finditer(text, at):
        char = step.group()
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return step.end()
    return len(text)


def apply(
    diagnostics: Sequence[Diagnostic],
    suppressions: Sequence[Suppression],
    *,
    phases: frozenset[Phase],
) -> list[Diagnostic]:
    """Drop suppressed diagnostics; report suppressions of codes found in `phases` (the
    running command's) that matched nothing."""
    by_place: dict[tuple[str, int], list[Suppression]] = {}
    for s in suppressions:
        for line in s.lines:
            by_place.setdefault((s.source.path, line), []).append(s)
    kept: list[Diagnostic] = []
    for d in diagnostics:
        line = d.source.position(d.span.start).line if d.source and d.span else -1
        match = next((s for s in by_place.get((d.path, line), []) if d.code in s.codes), None)
        if match is None:
            kept.append(d)
        else:
            match.used.add(d.code)
    for s in suppressions:
        for code in sorted(c for c in s.codes - s.used if codes.CODES[c].phase in phases):
            kept.append(codes.UNUSED_SUPPRESSION.at(s.source, s.span, code=code))
    return kept
