"""String and number literals as the formatter writes them: read back, each is the same value.

A string keeps printable characters as they are (`\\u00e9` becomes `é`) and writes every
character that could hide or rearrange text as an escape: controls, format characters (bidi
overrides, zero-width spaces, the BOM) and line or paragraph separators. A file `fmt` writes
never gains an invisible character that its source spelled as an escape.
"""

from __future__ import annotations

import json
import re
import unicodedata

from sigspec.syntax import ast

# Categories shown as `\uXXXX`: controls, format characters, line and paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp"})
# Zero-width (non-)joiners are format characters that words in several scripts, and emoji
# sequences, need in place; they hide nothing.
_JOINERS = frozenset({"\u200c", "\u200d"})
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
# In a triple-quoted string newlines and tabs stay as they are, and quotes are handled after.
_TRIPLE_SHORT = {"\\": "\\\\", "\b": "\\b", "\f": "\\f", "\r": "\\r"}
_KEPT_IN_TRIPLE = frozenset({"\n", "\t", '"'})
# A quote followed by a quote, or the last one, would end the literal early.
_CLOSING_QUOTE = re.compile(r'"(?=")|"\Z')


def _hidden(char: str) -> bool:
    return char not in _JOINERS and unicodedata.category(char) in _HIDDEN


def _unicode_escape(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, which the reader joins again
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _escape(char: str, short: dict[str, str], kept: frozenset[str]) -> str:
    if char in short:
        return short[char]
    if " " <= char <= "~" or char in kept or not _hidden(char):
        return char
    return _unicode_escape(char)


def encode(value: str) -> str:
    """A `"..."` literal for `value`."""
    return '"' + "".join(_escape(c, _SHORT, frozenset()) for c in value) + '"'


def encode_triple(value: str) -> str:
    """A `\"\"\"...\"\"\"` literal for `value`, its newlines kept as lines."""
    body = "".join(_escape(c, _TRIPLE_SHORT, _KEPT_IN_TRIPLE) for c in value)
    body = _CLOSING_QUOTE.sub(lambda _: '\\"', body)
    # The reader drops a newline right after the opening quotes, so a multi-line value can
    # always start on its own line.
    lead = "\n" if "\n" in body else ""
    return f'"""{lead}{body}"""'


def scalar(value: ast.JsonScalar) -> str:
    """A number, `true`, `false` or `null`; `repr` keeps every float exactly (and `-0.0`)."""
    if isinstance(value, float):
        return repr(value)
    return json.dumps(value)
