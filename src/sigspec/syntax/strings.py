"""String literal decoding (JSON escapes); the formatter's encoding is `syntax/fmt/literals.py`."""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class StringError(ValueError):
    pass


def _unescape(body: str) -> str:
    def replace(match: re.Match[str]) -> str:
        esc = match.group(1)
        if esc in _SIMPLE:
            return _SIMPLE[esc]
        if esc.startswith("u") and len(esc) == 5:
            return chr(int(esc[1:], 16))
        raise StringError(f"unknown escape `\\{esc}`")

    decoded = _ESCAPE.sub(replace, body)
    try:  # join surrogate pairs written as two \u escapes
        return decoded.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeError as exc:
        raise StringError("unpaired surrogate in \\u escape") from exc


def decode(token: str) -> str:
    """The value of a string token; a newline right after an opening triple quote is dropped."""
    if token.startswith('"""'):
        body = token[3:-3]
        body = body.removeprefix("\r\n") if body.startswith("\r\n") else body.removeprefix("\n")
        return _unescape(body)
    return _unescape(token[1:-1])
