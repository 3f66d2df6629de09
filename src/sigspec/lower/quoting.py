"""Text from outside the compiler (a .sig file's path, above all) inside the comments and
docstrings of generated files, per language: never able to end the comment or literal early.

Paths holding line breaks, control characters or bidirectional controls are refused before
anything is emitted (`compiler/portable.py`, `unsafe-path`); these functions still make any
text safe, so that an emitter called on such a path directly writes a comment, not code.
Every other character stays readable: a comment shows a name, a docstring's value is it.
"""

from __future__ import annotations

import re


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with each character that `str.isprintable` refuses (line and paragraph
    separators, controls, format characters, lone surrogates) written as its Python escape,
    so that the text stays on one line and shows what it holds."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _escape(c) for c in text)


def line_comment(text: str) -> str:
    """For a `#` (Python) or `//` (TypeScript) comment: only a line break can end those."""
    return visible(text)


def block_comment(text: str) -> str:
    """For a TypeScript `/* */` or `/** */` comment: `*/` is written `*\\/`."""
    return visible(text).replace("*/", "*\\/")


_DOCSTRING = re.compile(r'[\\"]')


def docstring(text: str) -> str:
    """For the inside of a Python `\"\"\"` docstring: backslashes and double quotes escaped
    and unprintable characters as escapes, so the docstring's value is `text` itself."""
    if text.isprintable():
        return _DOCSTRING.sub(r"\\\g<0>", text)
    return "".join("\\" + c if c in '\\"' else c if c.isprintable() else _escape(c) for c in text)
