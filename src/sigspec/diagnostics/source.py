"""Source text and spans: the coordinates every later stage points with.

A `Span` is a pair of character offsets into one `SourceFile`; line and column are computed
only when a diagnostic is rendered (offsets are cheap to carry, lines are for people).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from sigspec.infra.pickling import by_fields


@by_fields
@dataclass(frozen=True, slots=True)
class Span:
    """Half-open character range [start, end) in one source file."""

    start: int
    end: int

    def cover(self, other: Span) -> Span:
        return Span(min(self.start, other.start), max(self.end, other.end))


@dataclass(frozen=True, slots=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based, in characters


@dataclass(frozen=True)
class SourceFile:
    """The text of one file (or inline string) and its display path."""

    path: str
    text: str
    _line_starts: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        starts = [0]
        starts.extend(i + 1 for i, ch in enumerate(self.text) if ch == "\n")
        object.__setattr__(self, "_line_starts", tuple(starts))

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return Position(index + 1, offset - self._line_starts[index] + 1)

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self._line_starts[line] - 1 if line < len(self._line_starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    @property
    def line_count(self) -> int:
        return len(self._line_starts)
