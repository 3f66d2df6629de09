"""Python expressions printed the way `ruff format` prints them, so that generated modules are
format-clean without running a formatter (users' ruff is not ours to call).

An expression is a small tree: verbatim code (a name, a number, a string literal), a bracketed
list of items behind a head (`call`, `subscript`, `lit` of a list, tuple or dict), and pairs
(`key: value` in a dict, `name=value` in a call). `render` prints a tree on one line when it
fits in 88 columns, else opens its outermost brackets one item a line, each item followed by a
comma, and goes on inside them. That trailing comma is "magic" to ruff: a bracket that holds
one stays open, so ruff keeps what this module opens and has nothing to join.

Strings take ruff's preferred quotes (double, unless single ones need fewer escapes) and the
escapes `repr` would use, so nothing from a `.sig` file can end a literal early.
"""

from __future__ import annotations

import functools
import math
import textwrap
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

WIDTH = 88  # ruff's default line length, which users' projects mostly keep
INDENT = "    "

_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


@dataclass(frozen=True)
class Code:
    """Verbatim code: a name, a number, a literal."""

    text: str


@dataclass(frozen=True)
class Pair:
    """`key: value` in a dict, `name=value` among a call's arguments."""

    key: str
    sep: str
    value: Node

    @functools.cached_property
    def text(self) -> str:
        """The pair on one line (computed once: `render` asks at every level)."""
        return self.key + self.sep + self.value.text


@dataclass(frozen=True)
class Brackets:
    """`head(items)`, `head[items]`, `[items]`, `{items}`, `(items)`."""

    head: str
    open: str
    items: tuple[Node, ...]
    close: str
    # A subscript of one item takes no trailing comma (`list[int,]` is `list[tuple[int]]`),
    # and a tuple of one needs one (`(x,)`).
    kind: str = "plain"  # "plain", "subscript" or "tuple"

    @functools.cached_property
    def text(self) -> str:
        """The expression on one line (computed once: `render` asks at every level)."""
        inner = ", ".join(i.text for i in self.items)
        if self.kind == "tuple" and len(self.items) == 1:
            inner += ","
        return self.head + self.open + inner + self.close


Node = Code | Pair | Brackets


def string(text: str) -> str:
    """A string literal of `text` with ruff's preferred quotes."""
    quote = "'" if text.count('"') > text.count("'") else '"'
    if quote not in text and "\\" not in text and text.isprintable():
        return quote + text + quote  # the common case, without a look at each character
    return quote + "".join(_escaped(c, quote) for c in text) + quote


def _escaped(char: str, quote: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char == quote:
        return "\\" + char
    if char.isprintable():
        return char
    point = ord(char)
    if point < 0x100:
        return f"\\x{point:02x}"
    return f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}"


def _block_body(text: str) -> str:
    """`text` for the inside of a triple-quoted literal: line breaks kept, a quote escaped
    only where it would close the literal."""
    if '"' not in text and "\\" not in text and text.replace("\n", "").isprintable():
        return text
    out: list[str] = []
    quotes = 0  # unescaped quotes just written: a third would close the literal
    for char in text:
        if char == '"' and quotes < 2:
            quotes += 1
            out.append(char)
            continue
        quotes = 0
        out.append(char if char == "\n" else _escaped(char, '"'))
    while quotes:  # the closing quotes must not join the text's last ones
        out[-quotes] = '\\"'
        quotes -= 1
    return "".join(out)


def block(text: str) -> str:
    """A triple-quoted literal that shows `text` line by line, as a reader expects a prompt
    to look."""
    return '"""\\\n' + _block_body(text) + '"""'


def docstring(text: str, indent: int) -> str:
    """A docstring of `text` for a body at `indent` levels, as ruff leaves it: blank edges
    and trailing spaces dropped, later lines kept in their indentation relative to each
    other. Its value may differ from `text` in that whitespace only."""
    lines = [line.rstrip() for line in text.strip().split("\n")]
    rest = textwrap.dedent("\n".join(lines[1:])).split("\n") if len(lines) > 1 else []
    pad = INDENT * indent
    body = "\n".join([lines[0].lstrip(), *(pad + line if line else "" for line in rest)])
    escaped = _block_body(body)
    if escaped.startswith('"'):  # four quotes in a row would end the opening
        escaped = '\\"' + escaped[1:]
    if len(lines) == 1:
        return f'"""{escaped}"""'
    return f'"""{escaped}\n{pad}"""'


def number(value: int | float) -> str:
    """An int or float literal; a non-finite float (never in JSON) as the call that makes it."""
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'
    return repr(value).replace("e+", "e")  # ruff writes 1e22, not 1e+22


def code(text: str) -> Code:
    return Code(text)


def lit(value: object) -> Node:
    """A value of JSON's kinds (and tuples) as an expression tree."""
    if value is None or isinstance(value, bool):
        return Code(repr(value))
    if isinstance(value, int | float):
        return Code(number(value))
    if isinstance(value, str):
        return Code(string(value))
    if isinstance(value, Mapping):
        return Brackets("", "{", tuple(pair(lit(k), lit(v)) for k, v in value.items()), "}")
    if isinstance(value, tuple):
        return Brackets("", "(", tuple(lit(v) for v in value), ")", "tuple")
    if isinstance(value, Sequence):
        return Brackets("", "[", tuple(lit(v) for v in value), "]")
    if isinstance(value, Code | Pair | Brackets):
        return value
    raise TypeError(f"no literal for {type(value).__name__}")


def pair(key: Node, value: Node) -> Pair:
    """A dict entry."""
    return Pair(flat(key), ": ", value)


def call(func: str, *args: Node, **kwargs: Node) -> Brackets:
    items: list[Node] = list(args)
    items += [Pair(name, "=", value) for name, value in kwargs.items()]
    return Brackets(func, "(", tuple(items), ")")


def subscript(value: str, *items: Node) -> Brackets:
    return Brackets(value, "[", items, "]", "subscript")


def flat(node: Node) -> str:
    """The expression on one line."""
    return node.text


def width(text: str) -> int:
    """Columns `text` takes as ruff counts them: wide East Asian characters take two,
    combining marks none."""
    if text.isascii():
        return len(text)
    total = 0
    for char in text:
        if unicodedata.east_asian_width(char) in ("W", "F"):
            total += 2
        elif unicodedata.category(char) not in ("Mn", "Me"):
            total += 1
    return total


def render(node: Node, indent: int = 0, head: int = 0, tail: int = 0) -> str:
    """`node` at `indent` levels, `head` columns already on its first line and `tail` to
    follow it on its last."""
    one_line = flat(node)
    if "\n" not in one_line and len(INDENT) * indent + head + width(one_line) + tail <= WIDTH:
        return one_line
    match node:
        case Pair(key, sep, value):
            return key + sep + render(value, indent, head + width(key + sep), tail)
        case Brackets(head_text, open_, items, close, kind) if items:
            inner = INDENT * (indent + 1)
            comma = "" if kind == "subscript" and len(items) == 1 else ","
            lines = [head_text + open_]
            lines += [inner + render(i, indent + 1, 0, len(comma)) + comma for i in items]
            lines.append(INDENT * indent + close)
            return "\n".join(lines)
    return one_line


def assign(name: str, node: Node, annotation: str = "") -> str:
    """`name = node`, or `name: annotation = node`, as a statement line (or lines)."""
    target = f"{name}: {annotation} = " if annotation else f"{name} = "
    one_line = flat(node)
    fits_wrapped = width(target + one_line) > WIDTH >= len(INDENT) + width(one_line)
    if isinstance(node, Code) and "\n" not in one_line and fits_wrapped:
        # ruff wraps a right-hand side that fits once parenthesised
        return f"{target}(\n{INDENT}{one_line}\n)\n"
    return target + render(node, 0, width(target)) + "\n"
