"""Inline suppression: `# sigspec: ignore[code, ...] reason`.

On its own line the comment covers the next line holding code (attribute lines skipped, so
it can stand above a decorated declaration); after code, its own line.
Suppressions that match nothing are reported (`unused-suppression`), but only for the codes
the running command can produce: `lint` judges front-end codes, `compile` provider codes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast

_SUPPRESS = re.compile(r"#\s*sigspec:\s*ignore\[([^\]]*)\]\s*(.*)$")
COMPILE_CODES = frozenset({"provider-loss", "provider-unsupported", "provider-limit"})


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
    for comment in comments:
        match = _SUPPRESS.search(comment.text)
        if match is None:
            continue
        named = frozenset(c.strip() for c in match.group(1).split(",") if c.strip())
        unknown = sorted(c for c in named if c not in codes.CODES)
        reason = (
            "no code given"
            if not named
            else f"unknown code `{unknown[0]}`"
            if unknown
            else "give a reason after the brackets"
            if not match.group(2).strip()
            else ""
        )
        if reason:
            problems.append(codes.INVALID_SUPPRESSION.at(source, comment.span, reason=reason))
            continue
        found.append(Suppression(source, comment.span, _target_line(source, comment.span), named))
    return found, problems


def _target_line(source: SourceFile, span: Span) -> int:
    pos = source.position(span.start)
    if source.line_text(pos.line)[: pos.column - 1].strip():
        return pos.line  # after code: this line
    line = pos.line + 1
    while line <= source.line_count:
        text = source.line_text(line).strip()
        if text and not text.startswith(("#", "@")):  # past comments and attribute lines
            return line
        line += 1
    return pos.line


def apply(
    diagnostics: Sequence[Diagnostic],
    suppressions: Sequence[Suppression],
    *,
    judged: Callable[[str], bool],
) -> list[Diagnostic]:
    """Drop suppressed diagnostics; report suppressions of judged codes that matched nothing."""
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
        for code in sorted(c for c in s.codes - s.used if judged(c)):
            kept.append(codes.UNUSED_SUPPRESSION.at(s.source, s.span, code=code))
    return kept
