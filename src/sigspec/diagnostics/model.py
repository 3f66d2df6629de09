"""The diagnostic value: code, severity, message, where, and what might help."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from sigspec.diagnostics.source import SourceFile, Span
from sigspec.infra.pickling import by_fields


class Severity(Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Phase(Enum):
    """Which run finds a diagnostic. `sigspec lint` (and the front of every command) runs
    READ, SYNTAX and CHECK; `sigspec compile` adds COMPILE (what the targets report);
    `sigspec breaking` runs BREAKING; `sigspec import` runs IMPORT (its findings are about a
    JSON Schema, not a `.sig` file: nothing suppresses them)."""

    READ = "read"
    SYNTAX = "syntax"
    CHECK = "check"
    COMPILE = "compile"
    BREAKING = "breaking"
    IMPORT = "import"


LOAD_PHASES = frozenset({Phase.READ, Phase.SYNTAX, Phase.CHECK})


@by_fields
@dataclass(frozen=True, slots=True)
class Label:
    """A secondary location, e.g. "first defined here"."""

    source: SourceFile
    span: Span
    message: str


@by_fields
@dataclass(frozen=True, slots=True)
class Fix:
    """A replacement a hint names, for tools (an editor's quick fix): the text `span` of the
    diagnostic's source would hold instead. Hints stay the words people read."""

    span: Span
    text: str


@by_fields
@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    source: SourceFile | None = None
    span: Span | None = None
    labels: tuple[Label, ...] = ()
    hints: tuple[str, ...] = ()
    fixes: tuple[Fix, ...] = ()

    @property
    def path(self) -> str:
        return self.source.path if self.source is not None else ""

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Stable report order: by file, then position, then code; duplicates dropped."""

    def key(d: Diagnostic) -> tuple[str, int, int, str, str]:
        start = d.span.start if d.span is not None else -1
        end = d.span.end if d.span is not None else -1
        return (d.path, start, end, d.code, d.message)

    unique = {key(d): d for d in diagnostics}
    return tuple(unique[k] for k in sorted(unique))
