"""A small parser for `@pattern` regular expressions: the syntax JavaScript and Python share.

It exists for analysis (see `redos.py`), not for matching: it reads alternation, groups
(capturing, named, non-capturing, lookaround), quantifiers (greedy, lazy, possessive,
counted), character classes and escapes into a tree of `Chars`, `Seq`, `Alt`, `Repeat` and
`Empty`. What it cannot follow precisely it reads conservatively: a lookaround or an anchor
matches the empty string, a back-reference any text, and inline flags are ignored.
It never raises on text that `re` compiled; anything unexpected gives `None` (no analysis).
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_CODE = 0x10FFFF
MAX_NESTING = 100  # groups within groups; deeper patterns are not analysed

Ranges = tuple[tuple[int, int], ...]  # sorted, disjoint, inclusive code point ranges


@dataclass(frozen=True, slots=True)
class Chars:
    """One character from a set."""

    ranges: Ranges
    start: int  # offsets in the pattern, for messages
    end: int


@dataclass(frozen=True, slots=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    options: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    body: Node
    low: int
    high: int | None  # None: unbounded
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Empty:
    """Matches the empty string: anchors, lookarounds, word boundaries."""


Node = Chars | Seq | Alt | Repeat | Empty


# ---- character sets -------------------------------------------------------------------------


def normalize(ranges: list[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def complement(ranges: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    at = 0
    for lo, hi in ranges:
        if lo > at:
            out.append((at, lo - 1))
        at = hi + 1
    if at <= MAX_CODE:
        out.append((at, MAX_CODE))
    return tuple(out)


def overlap(a: Ranges, b: Ranges) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


def _chars(text: str) -> list[tuple[int, int]]:
    return [(ord(c), ord(c)) for c in text]


# ASCII meanings, with Unicode spaces for \s (JavaScript's \s includes them; Python's
# Unicode \d and \w add letters and digits of other scripts, which no common pattern
# relies on to keep two repetitions apart).
_DIGIT = normalize([(0x30, 0x39)])
_WORD = normalize([(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A), (0x5F, 0x5F)])
_SPACE = normalize(
    [*_chars("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"), (0x2000, 0x200A)]
)
_CLASSES = {
    "d": _DIGIT,
    "w": _WORD,
    "s": _SPACE,
    "D": complement(_DIGIT),
    "W": complement(_WORD),
    "S": complement(_SPACE),
}
_ANY = complement(normalize([(0x0A, 0x0A)]))  # `.`: all but a newline
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "0": "\0"}
_ZERO_WIDTH_ESCAPES = frozenset("bBAZzG")


class _Unsupported(Exception):
    """Syntax this parser does not follow: the pattern is not analysed."""


# ---- the parser ---------------------------------------------------------------------------


@dataclass
class _Reader:
    text: str
    at: int = 0
    depth: int = 0

    def peek(self, offset: int = 0) -> str:
        i = self.at + offset
        return self.text[i] if i < len(self.text) else ""

    def take(self) -> str:
        if self.at >= len(self.text):
            raise _Unsupported("unexpected end")
        c = self.text[self.at]
        self.at += 1
        return c

    def alternation(self) -> Node:
        options = [self.sequence()]
        while self.peek() == "|":
            self.at += 1
            options.append(self.sequence())
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def sequence(self) -> Node:
        items: list[Node] = []
        while self.peek() not in ("", "|", ")"):
            start = self.at
            atom = self.atom()
            items.append(self.quantified(atom, start))
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def quantified(self, atom: Node, start: int) -> Node:
        while True:
            c = self.peek()
            if c in ("*", "+", "?"):
                self.at += 1
                low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            elif c == "{" and (counted := self.counted()) is not None:
                low, high = counted
            else:
                return atom
            if self.peek() in ("?", "+"):  # lazy or possessive: same paths, other order
                self.at += 1
            atom = Repeat(atom, low, high, start, self.at)

    def counted(self) -> tuple[int, int | None] | None:
        """`{n}`, `{n,}`, `{n,m}` (else `{` is a literal, as in both engines)."""
        close = self.text.find("}", self.at)
        if close < 0:
            return None
        body = self.text[self.at + 1 : close]
        low_text, comma, high_text = body.partition(",")
        if not low_text.isdigit() or (high_text and not high_text.isdigit()):
            return None
        self.at = close + 1
        low = int(low_text[:6])
        high = None if comma and not high_text else int((high_text or low_text)[:6])
        return low, high

    def atom(self) -> Node:
        start = self.at
        c = self.take()
        if c == "(":
            return self.group()
        if c == "[":
            return Chars(self.bracket(), start, self.at)
        if c == ".":
            return Chars(_ANY, start, self.at)
        if c in ("^", "$"):
            return Empty()
        if c == "\\":
            return self.escape(start)
        return Chars(((ord(c), ord(c)),), start, self.at)

    def group(self) -> Node:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _Unsupported("nested too deep")
        zero_width = False
        if self.peek() == "?":
            self.at += 1
            kind = self.take()
            if kind in ("=", "!"):
                zero_width = True
            elif kind == "<" and self.peek() in ("=", "!"):
                self.at += 1
                zero_width = True
            elif kind in ("P", "<"):
                if kind == "P" and self.peek() == "=":
                    raise _Unsupported("named back-reference")
                if kind == "P":
                    self.take()  # the `<`
                end = self.text.find(">", self.at)
                if end < 0:
                    raise _Unsupported("group name")
                self.at = end + 1
            elif kind not in (":", ">"):  # inline flags, comments, conditionals
                raise _Unsupported("group kind")
        inner = self.alternation()
        if self.take() != ")":
            raise _Unsupported("unclosed group")
        self.depth -= 1
        return Empty() if zero_width else inner

    def escape(self, start: int) -> Node:
        c = self.take()
        if c in _CLASSES:
            return Chars(_CLASSES[c], start, self.at)
        if c in _ZERO_WIDTH_ESCAPES:
            return Empty()
        if c.isdigit() and c != "0":
            # A back-reference: it repeats earlier text, so read it as any text at all.
            return Repeat(Chars(complement(()), start, self.at), 0, None, start, self.at)
        code = self.escaped_code(c)
        return Chars(((code, code),), start, self.at)

    def escaped_code(self, c: str) -> int:
        if c in _SIMPLE_ESCAPES:
            return ord(_SIMPLE_ESCAPES[c])
        if c in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[c]
            if c == "u" and self.peek() == "{":
                end = self.text.find("}", self.at)
                digits, self.at = self.text[self.at + 1 : end], end + 1
            else:
                digits, self.at = self.text[self.at : self.at + width], self.at + width
            try:
                return min(int(digits, 16), MAX_CODE)
            except ValueError as exc:
                raise _Unsupported("escape") from exc
        if c == "c":
            return ord(self.take()) % 32
        if c == "N":
            raise _Unsupported("named character")
        return ord(c)

    def bracket(self) -> Ranges:
        negated = self.peek() == "^"
        if negated:
            self.at += 1
        ranges: list[tuple[int, int]] = []
        first = True
        while True:
            c = self.take()
            if c == "]" and not first:
                break
            first = False
            if c == "[":
                raise _Unsupported("nested set")  # Python warns; the meanings differ
            lo = self.class_member(c, ranges)
            if lo is None:
                continue
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.at += 1
                hi = self.class_member(self.take(), ranges)
                if hi is None or hi < lo:
                    raise _Unsupported("range")
                ranges.append((lo, hi))
            else:
                ranges.append((lo, lo))
        found = normalize(ranges)
        return complement(found) if negated else found

    def class_member(self, c: str, ranges: list[tuple[int, int]]) -> int | None:
        """A single character's code, or None after adding a class escape's ranges."""
        if c != "\\":
            return ord(c)
        e = self.take()
        if e in _CLASSES:
            ranges.extend(_CLASSES[e])
            return None
        if e == "b":
            return 8
        return self.escaped_code(e)


def parse(pattern: str) -> Node | None:
    """The pattern's tree, or None when it uses syntax this parser does not follow."""
    reader = _Reader(pattern)
    try:
        node = reader.alternation()
    except _Unsupported:
        return None
    return node if reader.at == len(pattern) else None
