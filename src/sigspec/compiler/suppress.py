"""Inline suppression: `# sigspec: ignore[code, ...] reason`.

On its own line the comment covers the next line holding code (attribute lines skipped, so
it can stand above a decorated declaration); after code, its own line.
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
        found.append(Suppression(source, comment.span, targets.target(comment.span), named))
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
    return "" if reason.strip() else "give a reason after the brackets"


@dataclass(frozen=True, slots=True)
class _CodeLines:
    """For each line, the first line at or after it that holds code (not a comment or an
    attribute line), found in one backward pass: walking forward from each comment made a
    run of consecutive suppressions quadratic (10,000 took 30 s)."""

    source: SourceFile
    next_code: tuple[int, ...]  # index = line number; 0 when no code line follows

    @classmethod
    def of(cls, source: SourceFile) -> _CodeLines:
        count = source.line_count
        following = [0] * (count + 2)
        for line in range(count, 0, -1):
            text = source.line_text(line).strip()
            is_code = bool(text) and not text.startswith(("#", "@"))
            following[line] = line if is_code else following[line + 1]
        return cls(source, tuple(following))

    def target(self, span: Span) -> int:
        """The line a suppression at `span` covers: its own after code, else the next line
        holding code (past comments and attribute lines), else its own."""
        pos = self.source.position(span.start)
        if self.source.line_text(pos.line)[: pos.column - 1].strip():
            return pos.line
        return self.next_code[pos.line + 1] or pos.line


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
        by_place.setdefault((s.source.path, s.line), []).append(s)
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
