"""String literal decoding (JSON escapes); the formatter's encoding is `syntax/fmt/literals.py`."""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class StringError(ValueError):
    pass


def _replace(match: re.Match[str]) -> str:
    """One escape's character (half of a surrogate pair for some `\\u` escapes)."""
    esc = match.group(1)
    if esc in _SIMPLE:
        return _SIMPLE[esc]
    if esc.startswith("u") and len(esc) == 5:
        return chr(int(esc[1:], 16))
    raise StringError(f"unknown escape `\\{esc}`")


def _unescape(body: str) -> str:
    decoded = _ESCAPE.sub(_replace, body)
    try:  # join surrogate pairs written as two \u escapes
        return decoded.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeError as exc:
        raise StringError("unpaired surrogate in \\u escape") from exc


def _body(token: str) -> tuple[int, int]:
    """Where a string token's body starts and ends (after a triple quote's first newline)."""
    if not token.startswith('"""'):
        return 1, len(token) - 1
    start = 3 + (2 if token.startswith("\r\n", 3) else 1 if token.startswith("\n", 3) else 0)
    return start, len(token) - 3


def decode_offsets(token: str) -> tuple[str, tuple[int, ...]]:
    """The value of a string token (as `decode` gives it) and where in the token each of its
    characters is written (an escape is one character written as several; a surrogate pair
    of `\\u` escapes, one written as twelve), with one more entry: where the body ends. So
    the value's `[a, b)` is the token's `[offsets[a], offsets[b])`. For diagnostics that point
    into a string (a prompt's tags); `decode` stays the fast path."""
    start, end = _body(token)
    chars: list[str] = []
    offsets: list[int] = []
    at = start
    while at < end:
        match = _ESCAPE.match(token, at) if token[at] == "\\" else None
        char = _replace(match) if match else token[at]
        low = 0xDC00 <= ord(char) <= 0xDFFF
        if low and chars and 0xD800 <= ord(chars[-1]) <= 0xDBFF:
            chars[-1] = (chars[-1] + char).encode("utf-16", "surrogatepass").decode("utf-16")
        else:
            chars.append(char)
            offsets.append(at)
        at = match.end() if match else at + 1
    offsets.append(end)
    return "".join(chars), tuple(offsets)


def decode(token: str) -> str:
    """The value of a string token; a newline right after an opening triple quote is dropped."""
    if token.startswith('"""'):
        body = token[3:-3]
        body = body.removeprefix("\r\n") if body.startswith("\r\n") else body.removeprefix("\n")
        return _unescape(body)
    return _unescape(token[1:-1])
