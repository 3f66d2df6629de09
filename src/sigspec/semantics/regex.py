"""A small parser for `@pattern` regular expressions: the syntax JavaScript and Python share.

It exists for analysis (see `redos.py`), not for matching: it reads alternation, groups
(capturing, named, non-capturing, lookaround, atomic), quantifiers (greedy, lazy, possessive,
counted), character classes, escapes, comments and the inline flags `i`, `s`, `m` (leading
or scoped) into a tree of `Chars`, `Seq`, `Alt`, `Repeat` and `Empty`. What it cannot
follow precisely it reads conservatively: a lookaround or an anchor matches the empty
string, a back-reference any text, a case-insensitive letter every case variant.
It never raises on text that `re` compiled; anything unexpected gives a reason instead of a
tree (the caller reports the pattern as not analysed).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from functools import cache

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
    # Possessive or atomic: it keeps the first match it finds and is never backtracked into.
    atomic: bool = False


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


def subtract(a: Ranges, b: Ranges) -> Ranges:
    """The characters of `a` not in `b`."""
    return intersect(a, complement(b))


def intersect(a: Ranges, b: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
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


_MAX_CASED = 0x1E944  # no code point past this one has a case variant


@cache
def _case_classes() -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The code points with case variants (sorted) and, for each, every code point it is
    case-equivalent to. A superset of what `re.IGNORECASE` folds together (`K`, `k` and the
    Kelvin sign; `s`, `S` and the long s): a wider class can only report more. Built once,
    on the first case-insensitive pattern."""
    parent: dict[int, int] = {}

    def root(c: int) -> int:
        while parent.setdefault(c, c) != c:
            c = parent[c]
        return c

    for c in range(_MAX_CASED):
        char = chr(c)
        for other in (char.lower(), char.upper()):
            if other != char and len(other) == 1:
                parent[root(c)] = root(ord(other))
    groups: dict[int, list[int]] = {}
    for c in sorted(parent):
        groups.setdefault(root(c), []).append(c)
    cased = sorted(parent)
    return tuple(cased), tuple(tuple(groups[root(c)]) for c in cased)


def case_fold(ranges: Ranges) -> Ranges:
    """`ranges` with every case variant of its letters added."""
    cased, classes = _case_classes()
    extra: list[tuple[int, int]] = []
    for lo, hi in ranges:
        for i in range(bisect_left(cased, lo), bisect_right(cased, hi)):
            extra.extend((c, c) for c in classes[i])
    return normalize([*ranges, *extra]) if extra else ranges


class _Unsupported(Exception):
    """Syntax this parser does not follow: the pattern is not analysed."""


@dataclass(frozen=True, slots=True)
class Flags:
    ignorecase: bool = False
    dotall: bool = False


_FLAG_LETTERS = frozenset("aimsuL")  # `x` (verbose) changes what every character means


# ---- the parser ---------------------------------------------------------------------------


@dataclass
class _Reader:
    text: str
    at: int = 0
    depth: int = 0
    flags: Flags = Flags()

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
        while self.skip_comments() not in ("", "|", ")"):
            start = self.at
            atom = self.atom()
            items.append(self.quantified(atom, start))
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def skip_comments(self) -> str:
        """Step over `(?#...)` (Python ends it at the first `)`, escapes or not; a quantifier
        after it applies to the atom before it). Returns the next character."""
        while self.text.startswith("(?#", self.at):
            end = self.text.find(")", self.at)
            if end < 0:
                raise _Unsupported("an unclosed comment")
            self.at = end + 1
        return self.peek()

    def chars(self, ranges: Ranges, start: int) -> Chars:
        folded = case_fold(ranges) if self.flags.ignorecase else ranges
        return Chars(folded, start, self.at)

    def quantified(self, atom: Node, start: int) -> Node:
        while True:
            c = self.skip_comments()
            if c in ("*", "+", "?"):
                self.at += 1
                low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            elif c == "{" and (counted := self.counted()) is not None:
                low, high = counted
            else:
                return atom
            possessive = self.peek() == "+"
            if self.peek() in ("?", "+"):  # lazy: same paths, other order
                self.at += 1
            atom = Repeat(atom, low, high, start, self.at, possessive)

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
            return self.chars(self.bracket(), start)
        if c == ".":
            return Chars(complement(()) if self.flags.dotall else _ANY, start, self.at)
        if c in ("^", "$"):
            return Empty()
        if c == "\\":
            return self.escape(start)
        return self.chars(((ord(c), ord(c)),), start)

    def group(self) -> Node:
        start = self.at - 1
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise _Unsupported(f"groups are nested more than {MAX_NESTING} deep")
        outer = self.flags
        kind = self.group_kind()
        if kind == "reference":
            self.depth -= 1
            return self.named_reference(start)
        if kind == "flags":  # `(?i)`: nothing to match, the flags hold from here on
            self.depth -= 1
            return Empty()
        inner = self.alternation()
        if self.take() != ")":
            raise _Unsupported("a group is not closed")
        self.depth -= 1
        self.flags = outer
        if kind == "lookaround":
            return Empty()
        return Repeat(inner, 1, 1, start, self.at, atomic=True) if kind == "atomic" else inner

    def group_kind(self) -> str:
        """Read what follows `(`: "plain", "lookaround", "atomic", "reference" (at `(?P=`),
        or "flags" (a whole `(?i)`; scoped `(?i:` flags are set and give "plain")."""
        if self.peek() != "?":
            return "plain"
        self.at += 1
        kind = self.take()
        if kind in ("=", "!") or (kind == "<" and self.peek() in ("=", "!")):
            if kind == "<":
                self.at += 1
            return "lookaround"
        if kind == "P" and self.peek() == "=":
            return "reference"
        if kind in ("P", "<"):
            end = self.text.find(">", self.at)
            if end < 0:
                raise _Unsupported("a group name is not closed")
            self.at = end + 1
            return "plain"
        if kind == ">":
            return "atomic"
        if kind.isalpha() or kind == "-":
            self.at -= 1
            return "flags" if self.inline_flags() else "plain"
        if kind != ":":
            raise _Unsupported(f"`(?{kind}` groups are not supported")
        return "plain"

    def inline_flags(self) -> bool:
        """`(?is)` (True: the flags hold from here on; Python allows them only at the start)
        or `(?i-s:` (False: they hold until the group closes)."""
        value = True
        while (c := self.take()) not in (":", ")"):
            if c == "-" and value:
                value = False
            elif c not in _FLAG_LETTERS:
                raise _Unsupported(f"the inline flag `{c}` is not analysed")
            elif c == "i":
                self.flags = replace(self.flags, ignorecase=value)
            elif c == "s":
                self.flags = replace(self.flags, dotall=value)
        return c == ")"

    def named_reference(self, start: int) -> Node:
        end = self.text.find(")", self.at)
        if end < 0:
            raise _Unsupported("a back-reference is not closed")
        self.at = end + 1
        return _any_text(start, self.at)

    def escape(self, start: int) -> Node:
        c = self.take()
        if c in _CLASSES:
            return Chars(_CLASSES[c], start, self.at)
        if c in _ZERO_WIDTH_ESCAPES:
            return Empty()
        if (c.isdigit() and c != "0") or (c == "k" and self.peek() == "<"):
            if c == "k":  # JavaScript's named back-reference `\k<name>`
                end = self.text.find(">", self.at)
                if end < 0:
                    raise _Unsupported("a back-reference is not closed")
                self.at = end + 1
            return _any_text(start, self.at)
        code = self.escaped_code(c)
        return self.chars(((code, code),), start)

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
            # A `[` inside a set is a literal in both engines (Python warns that it may one
            # day start a nested set; JavaScript's `v` flag, which would, is not in use).
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


def _any_text(start: int, end: int) -> Node:
    """A back-reference repeats earlier text, so read it as any text at all."""
    return Repeat(Chars(complement(()), start, end), 0, None, start, end)


def read(pattern: str) -> Node | str:
    """The pattern's tree, or why this parser cannot follow it."""
    reader = _Reader(pattern)
    try:
        node = reader.alternation()
    except _Unsupported as exc:
        return str(exc)
    if reader.at != len(pattern):
        return f"unexpected `{pattern[reader.at]}` at offset {reader.at}"
    return node


def parse(pattern: str) -> Node | None:
    """The pattern's tree, or None when it uses syntax this parser does not follow."""
    node = read(pattern)
    return None if isinstance(node, str) else node
