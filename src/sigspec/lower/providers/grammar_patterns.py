"""`@pattern` rewritten for the grammar engines (xgrammar and llguidance behind vLLM, llama.cpp
behind Ollama), keeping its ECMA-262 meaning.

The engines read a `pattern` otherwise than JSON Schema: xgrammar anchors it at both ends,
llama.cpp takes only `^...$` and no anchor, group syntax or escape beyond `\\x \\u \\t
\\n \\r`, neither knows `\\d \\w \\s` as ECMA-262 does (ASCII digits and word
characters, its own spaces), and both match the pattern against the raw text between the
quotes, where `"`, `\\` and control characters are escapes. So every pattern is rebuilt in
the one form all three read alike: `^(A|B)$`, each search alternative padded with "any
character" where it is not anchored, every class spelled as explicit ranges of characters a
JSON string holds unescaped (a lone character other than an ASCII letter or digit is a class
too, and no hex digit follows a `\\xHH` escape: see `render_class` and `_delimited`).

What cannot be rebuilt (lookaround, word boundaries, anchors inside the pattern, a repeated
group that can match nothing, which llama.cpp refuses as left recursion) raises `Refused`;
the checker has already rejected backreferences and Unicode properties. A class that would
also admit `"`, `\\` or a control character is narrowed to the rest, and so is the padding
(`Rewritten.narrowed`), which the provider reports. `tests/engines/` holds the engines to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sigspec.semantics.regex import Ranges, complement, intersect, normalize

# Characters a JSON string holds unescaped (no `"`, `\`, control characters or surrogates).
_UNSAFE: Ranges = ((0x00, 0x1F), (0x22, 0x22), (0x5C, 0x5C), (0xD800, 0xDFFF))
_DIGITS: Ranges = ((0x30, 0x39),)
_WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_SPACES: Ranges = (
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)
_LINE_ENDS: Ranges = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))
_CONTROL = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_SYNTAX = frozenset("^$\\.*+?()[]{}|/-")


class Refused(ValueError):
    """A construct the grammar engines have no equivalent for (the message names it)."""


@dataclass(frozen=True, slots=True)
class Rewritten:
    pattern: str
    narrowed: bool  # some class lost `"`, `\` or control characters
    # (min, max) repetitions of the single class the whole pattern is, `^[...]{m,n}$`, or None
    single: tuple[Ranges, int, int | None] | None = None


SAFE = complement(_UNSAFE)


def _char(code: int) -> str:
    c = chr(code)
    if c.isascii() and c.isalnum():
        return c
    return f"\\x{code:02X}" if code < 0x80 else c


def render_class(ranges: Ranges) -> str:
    """A class of explicit ranges; a lone letter or digit as itself. Any other lone
    character stays a class for llama.cpp: it splits a bare non-ASCII character into bytes
    and merges a bare escape into the literal before it, so that a quantifier after either
    repeats the wrong part."""
    lone = ranges[0][0] if len(ranges) == 1 and ranges[0][0] == ranges[0][1] else None
    if lone is not None and lone < 0x80 and chr(lone).isalnum():
        return _char(lone)
    parts = (_char(lo) if lo == hi else f"{_char(lo)}-{_char(hi)}" for lo, hi in ranges)
    return f"[{''.join(parts)}]"


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.narrowed = False
        self.atoms = 0
        self.last: tuple[Ranges, int, int | None] | None = None
        self.empty = False  # can the item (or alternative, or group) just read match ""?

    def peek(self, offset: int = 0) -> str:
        i = self.at + offset
        return self.text[i] if i < len(self.text) else ""

    def take(self) -> str:
        c = self.peek()
        self.at += 1
        return c

    def alternatives(self, top: bool) -> list[str]:
        out = [self.alternative(top)]
        empty = self.empty
        while self.peek() == "|":
            self.at += 1
            out.append(self.alternative(top))
            empty |= self.empty
        self.empty = empty
        return out

    def alternative(self, top: bool) -> str:
        """One alternative; at the top, padded with any text where it is not anchored."""
        start = top and self.peek() == "^"
        self.at += start
        out: list[str] = []
        end = False
        empty = True
        while self.peek() not in ("", "|", ")"):
            if top and self.peek() == "$" and self.peek(1) in ("", "|"):
                self.at += 1
                end = True
                break
            out.append(self.quantified())
            empty &= self.empty
        self.empty = empty
        pad = ("" if start else _ANY, "" if end else _ANY) if top else ("", "")
        self.narrowed |= bool(pad[0] or pad[1])  # the padding holds no `"`, `\`, controls
        return f"{pad[0]}{''.join(out)}{pad[1]}"

    def quantified(self) -> str:
        atom, ranges = self.atom()
        empty = self.empty if ranges is None else False
        high: int | None
        low, high = 1, 1
        c = self.peek()
        if c in ("*", "+", "?"):
            self.at += 1
            low, high = (0 if c != "+" else 1), (None if c != "?" else 1)
            atom += c
        elif c == "{":
            end = self.text.find("}", self.at)
            body = self.text[self.at + 1 : end].split(",")
            if end < 0 or not body[0].isdigit() or len(body) > 2:
                raise Refused(f"an unsupported repetition at offset {self.at}")
            low = int(body[0])
            high = low if len(body) == 1 else (int(body[1]) if body[1] else None)
            atom += self.text[self.at : end + 1]
            self.at = end + 1
        self.at += self.peek() == "?"  # lazy: the same strings when matched whole
        if empty and high != 1:  # llama.cpp refuses the left recursion it becomes
            raise Refused("a repeated group that can match nothing")
        self.empty = empty or low == 0
        self.atoms += 1
        self.last = (ranges, low, high) if ranges is not None else None
        return atom

    def atom(self) -> tuple[str, Ranges | None]:
        c = self.take()
        if c == "(":
            return self.group(), None
        if c in ("^", "$"):
            raise Refused("an anchor inside the pattern")
        if c == "[":
            return self.safe(self.klass())
        if c == ".":
            return self.safe(complement(_LINE_ENDS))
        if c == "\\":
            return self.safe(self.escape(in_class=False))
        return self.safe(((ord(c), ord(c)),))

    def safe(self, ranges: Ranges) -> tuple[str, Ranges]:
        kept = normalize(list(intersect(normalize(list(ranges)), SAFE)))
        if not kept:
            raise Refused('a character the engines cannot produce (`"`, `\\` or a control)')
        self.narrowed |= kept != ranges
        return render_class(kept), kept

    def group(self) -> str:
        if self.peek() == "?":
            if self.peek(1) == ":":
                self.at += 2
            elif self.peek(1) == "<" and self.peek(2) not in ("=", "!"):
                self.at = self.text.index(">", self.at) + 1  # a named group: its name goes
            else:
                raise Refused("a lookaround")
        body = "|".join(self.alternatives(top=False))
        if self.take() != ")":
            raise Refused("an unbalanced group")
        self.atoms += 1  # a group is never the single class of the pattern
        return f"({body})"

    def klass(self) -> Ranges:
        negated = self.peek() == "^"
        self.at += negated
        ranges: list[tuple[int, int]] = []
        while self.peek() != "]":
            if not self.peek():
                raise Refused("an unterminated class")
            lo = self.member()
            if self.peek() == "-" and self.peek(1) not in ("]", "") and len(lo) == 1:
                self.at += 1
                hi = self.member()
                if len(hi) != 1 or lo[0][0] != lo[0][1] or hi[0][0] != hi[0][1]:
                    raise Refused("a range bounded by a class escape")
                ranges.append((lo[0][0], hi[0][0]))
            else:
                ranges += lo
        self.at += 1
        normal = normalize(ranges)
        return complement(normal) if negated else normal

    def member(self) -> Ranges:
        c = self.take()
        if c != "\\":
            return ((ord(c), ord(c)),)
        if self.peek() == "b":
            self.at += 1
            return ((0x08, 0x08),)
        return self.escape(in_class=True)

    def escape(self, in_class: bool) -> Ranges:
        e = self.take()
        classes = {"d": _DIGITS, "w": _WORD, "s": _SPACES}
        if e.lower() in classes:
            found = classes[e.lower()]
            return found if e.islower() else complement(found)
        if e in _CONTROL:
            code = _CONTROL[e]
        elif e in _SYNTAX:
            code = ord(e)
        elif e == "0" and not self.peek().isdigit():
            code = 0
        elif e == "c" and self.peek().isalpha():
            code = ord(self.take()) % 32
        elif e in ("x", "u"):
            code = self.hex(e)
        elif e in ("b", "B"):
            raise Refused("a word boundary")
        elif e.isdigit() or e == "k":
            raise Refused("a backreference")
        elif e in ("p", "P"):
            raise Refused("a Unicode property class")
        else:
            raise Refused(f"the escape `\\{e}`")
        return ((code, code),)

    def hex(self, kind: str) -> int:
        if kind == "u" and self.peek() == "{":
            end = self.text.index("}", self.at)
            digits, self.at = self.text[self.at + 1 : end], end + 1
        else:
            width = 2 if kind == "x" else 4
            digits = self.text[self.at : self.at + width]
            self.at += width
        return int(digits, 16)


_ANY = f"{render_class(SAFE)}*"
_HEX_AFTER_ESCAPE = re.compile(r"(\\x[0-9A-F]{2})([0-9A-Fa-f])")


def _delimited(pattern: str) -> str:
    """No hex digit right after a `\\xHH` escape: xgrammar reads every hex digit that
    follows into the escape (`\\x2Ec` as U+02EC), so such a digit becomes an escape too."""
    while True:
        found = _HEX_AFTER_ESCAPE.sub(lambda m: f"{m[1]}\\x{ord(m[2]):02X}", pattern)
        if found == pattern:
            return found
        pattern = found


def rewrite(pattern: str) -> Rewritten:
    """`pattern` (ECMA-262, as the checker accepted it) in the form the grammar engines read
    as ECMA-262 does. Raises `Refused` naming what has no equivalent."""
    reader = _Reader(pattern)
    try:
        alternatives = reader.alternatives(top=True)
    except (IndexError, ValueError) as exc:
        if isinstance(exc, Refused):
            raise
        raise Refused(f"syntax the rewrite does not read ({exc})") from exc
    if reader.at < len(pattern):
        raise Refused("an unbalanced group")
    body = alternatives[0] if len(alternatives) == 1 else f"({'|'.join(alternatives)})"
    single = None
    whole = _delimited(f"^{body}$")
    if len(alternatives) == 1 and reader.atoms == 1 and _ANY not in body:
        single = reader.last
    return Rewritten(whole, reader.narrowed, single)


def with_lengths(found: Rewritten, low: int | None, high: int | None) -> str | None:
    """The pattern of one repeated class (`^[a-z]+$`) with string length bounds folded into
    its repetition (`^[a-z]{2,5}$`), or None when the pattern is not of that form: the
    engines drop lengths that come together with a pattern."""
    if found.single is None:
        return None
    ranges, rep_low, rep_high = found.single
    lo = max(rep_low, low or 0)
    hi = high if rep_high is None else (rep_high if high is None else min(rep_high, high))
    if hi is not None and hi < lo:
        return None
    return _delimited(f"^{render_class(ranges)}{{{lo},{'' if hi is None else hi}}}$")
