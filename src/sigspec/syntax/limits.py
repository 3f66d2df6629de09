"""How much of a `.sig` file the front end reads: limits with generous defaults.

The defaults bound the work one file can cost (parsing runs at a few hundred KB a second,
and every later stage is linear in declarations) while staying far above any hand-written
file: the largest real projects hold files of tens of KB and tens of declarations. The
configuration passes its own values as a `SourceLimits`; nothing here reads it.
"""

from __future__ import annotations

from dataclasses import dataclass

# 4 MiB: about 40 times the largest hand-written .sig file seen, and what a file may hold
# before `sigspec lint` spends more than ~15 s on it.
MAX_FILE_BYTES = 4 * 1024 * 1024
# 10,000: far above hand-written files (tens), and still linted within a few seconds.
MAX_DECLARATIONS = 10_000


@dataclass(frozen=True, slots=True)
class SourceLimits:
    max_file_bytes: int = MAX_FILE_BYTES
    max_declarations: int = MAX_DECLARATIONS

    def __post_init__(self) -> None:
        if self.max_file_bytes < 1 or self.max_declarations < 1:
            raise ValueError("source limits must be positive")


DEFAULT_LIMITS = SourceLimits()


def utf8_size(text: str, limit: int) -> int:
    """The UTF-8 size of `text`, encoding it only when its length alone cannot tell that it
    is within `limit` (a character takes at most 4 bytes)."""
    if len(text) * 4 <= limit:
        return len(text)  # not exact, but known to be within the limit
    return len(text.encode("utf-8", "surrogatepass"))
