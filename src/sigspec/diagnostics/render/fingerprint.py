"""GitHub code scanning's `primaryLocationLineHash`: which alerts of two runs are the same.

GitHub matches a result across commits by this hash of the text from the start of its first
line. Its `upload-sarif` action computes the hash when a log has none, but a log sent through
the REST API is taken as it is (duplicate alerts), so the report carries it. The algorithm is
the one GitHub documents through the action's source (`src/fingerprints.ts` of
github/codeql-action): line endings are read as `\\n` (`\\r\\n` and a lone `\\r` alike), spaces
and tabs are dropped everywhere, an end mark (0xFFFF) and zeros follow the text, and a
line's hash is the polynomial hash, base 37 modulo 2**64, of the 100 UTF-16 code units from
the line's first one; the hex value gets `:N`, N counting the lines with that hash so far.
"""

from __future__ import annotations

import sys
from array import array

_BLOCK = 100
_BASE = 37
_MASK = (1 << 64) - 1
_END = 0xFFFF


def line_hashes(text: str, lines: int) -> list[str]:
    """The hashes of the first `lines` lines of `text` (fewer when it has fewer lines)."""
    units = _units(text.replace("\r\n", "\r").replace("\r", "\n").translate(_DROPPED))
    units.append(_END)
    starts = [0, *(i + 1 for i, unit in enumerate(units) if unit == _NEWLINE)]
    counts: dict[str, int] = {}
    hashes = []
    for start in starts[:lines]:
        value = 0
        window = units[start : start + _BLOCK]
        for unit in window:
            value = (value * _BASE + unit) & _MASK
        for _ in range(_BLOCK - len(window)):  # the zeros after the end mark
            value = (value * _BASE) & _MASK
        key = format(value, "x")
        counts[key] = counts.get(key, 0) + 1
        hashes.append(f"{key}:{counts[key]}")
    return hashes


_DROPPED = {ord(" "): None, ord("\t"): None}
_NEWLINE = ord("\n")


def _units(text: str) -> array[int]:
    """UTF-16 code units, as JavaScript's `charCodeAt` reads a string."""
    units = array("H")
    units.frombytes(text.encode("utf-16-le", "surrogatepass"))
    if sys.byteorder == "big":
        units.byteswap()
    return units
