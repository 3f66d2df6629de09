# What the validator and the reply parser share: the parser's answer and its error, and the
# reading of a JSON number literal. Standard library only, and nothing imported: the reply
# parser loads on the first parse, and both it and the validator need these.
from __future__ import annotations

# mypy treats a variable named TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ReplyError(ValueError):
    """No acceptable answer in the reply: `.reason`, and `.errors` of the best candidate."""

    def __init__(self, reason: str, errors: list[tuple[str, str]] | None = None) -> None:
        self.reason = reason
        self.errors = errors or []
        detail = "; ".join(f"{p}: {m}" for p, m in self.errors[:5])
        super().__init__(f"{reason}: {detail}" if detail else reason)


class ParseResult:
    """The answer: `.value`, plain JSON data, and `.repairs`, every change as (path, note)."""

    __slots__ = ("repairs", "value")

    def __init__(self, value: Any, repairs: list[tuple[str, str]] | None = None) -> None:
        self.value = value
        self.repairs = repairs or []

    def __repr__(self) -> str:
        return f"ParseResult(value={self.value!r}, repairs={self.repairs!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ParseResult)
            and other.value == self.value
            and other.repairs == self.repairs
        )

    __hash__ = None  # type: ignore[assignment]


def number_literal(text: str) -> int | float | None:
    """What json.loads reads from a JSON number literal, with no `json` needed; None for one
    too large for a float (1e400 is no JSON value). An integer longer than int() takes raises
    ValueError, as json.loads does."""
    if text.lstrip("-").isdigit():
        return int(text)
    number = float(text)
    return None if number in (float("inf"), float("-inf")) else number
