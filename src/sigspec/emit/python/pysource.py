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
from typing import Any

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


@dataclass(frozen=True)
class Json:
    """A JSON value (dicts, lists, strings, numbers, booleans, None) printed as a Python
    literal, with any `Code` inside it printed as it is (a constant's name in place of a
    value). The fast path for schemas: no tree of nodes, each subtree's one-line form made
    once."""

    value: Any

    @functools.cached_property
    def text(self) -> str:
        return _JsonPrinter().flat(self.value)


@dataclass(frozen=True)
class Union:
    """`A | B | None` in a type: on one line, else split before each `|` (ruff's layout of a
    binary expression inside brackets)."""

    members: tuple[Node, ...]

    @functools.cached_property
    def text(self) -> str:
        return " | ".join(m.text for m in self.members)


Node = Code | Pair | Brackets | Json | Union


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
    plain = '""' not in text and not text.endswith('"') and "\\" not in text
    if plain and text.replace("\n", "").isprintable():
        return text  # the common case: no quote can close the literal, nothing to escape
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
    if isinstance(value, Code | Pair | Brackets | Json | Union):
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


class _JsonPrinter:
    """Prints JSON values as `render` prints the trees `lit` makes, remembering each
    subtree's one-line form (by identity: the value does not change while printed)."""

    def __init__(self) -> None:
        self.flats: dict[int, str] = {}
        self.strings: dict[str, str] = {}  # schemas repeat their keys and descriptions

    def quoted(self, text: str) -> str:
        found = self.strings.get(text)
        if found is None:
            found = self.strings[text] = string(text)
        return found

    def flat(self, value: Any) -> str:
        if isinstance(value, dict | list):
            found = self.flats.get(id(value))
            if found is None:
                found = self.flats[id(value)] = self._flat(value)
            return found
        if isinstance(value, str):
            return self.quoted(value)
        if isinstance(value, Code):
            return value.text
        if value is None or isinstance(value, bool):
            return repr(value)
        if isinstance(value, int | float):
            return number(value)
        raise TypeError(f"no literal for {type(value).__name__}")

    def _flat(self, value: dict[str, Any] | list[Any]) -> str:
        if isinstance(value, dict):
            items = (f"{self.quoted(k)}: {self.flat(v)}" for k, v in value.items())
            return "{" + ", ".join(items) + "}"
        return "[" + ", ".join(self.flat(v) for v in value) + "]"

    def render(self, value: Any, indent: int, head: int, tail: int) -> str:
        one_line = self.flat(value)
        if not isinstance(value, dict | list) or not value:
            return one_line
        if len(INDENT) * indent + head + width(one_line) + tail <= WIDTH:
            return one_line
        inner = INDENT * (indent + 1)
        lines = ["{" if isinstance(value, dict) else "["]
        if isinstance(value, dict):
            for k, v in value.items():
                key = self.quoted(k) + ": "
                lines.append(inner + key + self.render(v, indent + 1, width(key), 1) + ",")
        else:
            lines += [inner + self.render(v, indent + 1, 0, 1) + "," for v in value]
        lines.append(INDENT * indent + ("}" if isinstance(value, dict) else "]"))
        return "\n".join(lines)


def render(node: Node, indent: int = 0, head: int = 0, tail: int = 0) -> str:
    """`node` at `indent` levels, `head` columns already on its first line and `tail` to
    follow it on its last."""
    if isinstance(node, Json):
        return _JsonPrinter().render(node.value, indent, head, tail)
    one_line = flat(node)
    if "\n" not in one_line and len(INDENT) * indent + head + width(one_line) + tail <= WIDTH:
        return one_line
    match node:
        case Union(members) if members:
            pad = INDENT * indent
            lines = [render(members[0], indent, head, 0)]
            lines += [pad + "| " + render(m, indent, 2, 0) for m in members[1:-1]]
            lines.append(pad + "| " + render(members[-1], indent, 2, tail))
            return "\n".join(lines)
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


def _opening(node: Node) -> str:
    """What a node's first line holds when its brackets are opened."""
    match node:
        case Brackets(head, open_, items, _close, _kind) if items:
            return head + open_
        case Json(value) if isinstance(value, dict | list) and value:
            return "{" if isinstance(value, dict) else "["
        case Pair(key, sep, value):
            return key + sep + _opening(value)
    return node.text


def assign(name: str, node: Node, annotation: str = "") -> str:
    """`name = node`, or `name: annotation = node`, as a statement line (or lines)."""
    target = f"{name}: {annotation} = " if annotation else f"{name} = "
    if isinstance(node, Json) and not isinstance(node.value, dict | list):
        node = Code(node.text)  # a scalar: no brackets to open
    if not isinstance(node, Code):
        if width(target + _opening(node)) > WIDTH:
            # ruff parenthesises a right-hand side whose brackets open past the edge
            return f"{target}(\n{INDENT}{render(node, 1)}\n)\n"
        return target + render(node, 0, width(target)) + "\n"
    one_line = node.text
    fits_wrapped = width(target + one_line) > WIDTH >= len(INDENT) + width(one_line)
    if "\n" not in one_line and fits_wrapped:
        # ruff wraps a right-hand side that fits once parenthesised
        return f"{target}(\n{INDENT}{one_line}\n)\n"
    return target + render(node, 0, width(target)) + "\n"
