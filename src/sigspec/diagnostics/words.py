"""Counts in sentences, for every message the tool prints: "1 file", "2 files"."""

from __future__ import annotations


def noun(number: int, word: str) -> str:
    """`word` in the number `number` takes: `file` for 1, `files` for 0 or 2."""
    return word if number == 1 else f"{word}s"


def counted(number: int, word: str) -> str:
    """`1 file`, `2 files`, `0 errors`: a count with its noun in the number it takes."""
    return f"{number} {noun(number, word)}"


def were(number: int, noun: str) -> str:
    """`1 turn was`, `2 turns were`."""
    return f"{counted(number, noun)} {'was' if number == 1 else 'were'}"
