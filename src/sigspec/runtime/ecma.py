"""What a `@pattern` means: ECMA-262 regular expressions (Unicode mode, the `u` flag), as JSON
Schema reads `pattern` and as the TypeScript runtime runs them, translated to Python `re`.

A pattern is searched for anywhere in the string (JSON Schema's unanchored search). The
translation keeps ECMA-262's meaning exactly: `$` is the end of the string only (Python's
also matches before a final newline), `\\d`, `\\w`, `\\b` are ASCII (Python's are Unicode),
`\\s` is ECMA-262's own set of spaces and line terminators, `.` stops at `\\n`, `\\r`,
U+2028 and U+2029 (Python's only at `\\n`), and characters are code points (astral ones
included), as with the `u` flag. Syntax outside the subset both engines share raises
`Unportable` (Python-only or ECMA-only constructs); text that is no ECMA-262 pattern in
Unicode mode raises `ValueError`. Both name the offending part of the pattern.

The checker translates each pattern once (`lint` reports the errors) and the generated
validators hold the translation; the runtime translates a descriptor's pattern on first use.
"""

from __future__ import annotations

# mypy treats a variable named TYPE_CHECKING as true (no `typing` import at run time).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# ECMA-262's WhiteSpace and LineTerminator code points, as a Python class body.
SPACES = (
    "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f"
    "\\u3000\\ufeff"
)
_DOT = "[^\\n\\r\\u2028\\u2029]"
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_CONTROL_ESCAPES = {"f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_ASCII_CLASSES = frozenset("dDwW")  # meant as ECMA-262 means them under `(?a)`
_PYTHON_ESCAPES = {
    "A": "Python's start-of-string escape (write `^`)",
    "Z": "Python's end-of-string escape (write `$`)",
    "z": "an end-of-string escape (write `$`)",
    "G": "a match-position escape",
}


class Unportable(ValueError):
    """Syntax one of the engines lacks or reads differently: what it is and its text."""

    def __init__(self, what: str, part: str) -> None:
        super().__init__(f"{what} (`{part}`)")
        self.what = what
        self.part = part


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        # Whether the translation uses `\d`, `\w` or `\b` (meant in Python's ASCII mode).
        self.ascii = False
        self.names: set[str] = set()

    def peek(self, offset: int = 0) -> str:
        i = self.at + offset
        return self.text[i] if i < len(self.text) else ""

    def fail(self, message: str) -> ValueError:
        return ValueError(f"{message} at offset {self.at}")

    def disjunction(self) -> str:
        out = [self.alternative()]
        while self.peek() == "|":
            self.at += 1
            out.append(self.alternative())
        return "|".join(out)

    def alternative(self) -> str:
        out: list[str] = []
        while self.peek() not in ("", "|", ")"):
            start = self.at
            term, quantifiable = self.term()
            out.append(self.quantifier(term, start) if quantifiable else term)
            if not quantifiable and self.peek() in ("*", "+", "?", "{"):
                raise self.fail("nothing to repeat")
        return "".join(out)

    def term(self) -> tuple[str, bool]:
        """One term's translation, and whether a quantifier may follow it."""
        c = self.peek()
        self.at += 1
        if c == "^":
            return "^", False
        if c == "$":
            return "\\Z", False
        if c == ".":
            return _DOT, True
        if c == "(":
            return self.group()
        if c == "[":
            return self.bracket(), True
        if c == "\\":
            return self.escape()
        if c in "*+?":
            self.at -= 1
            raise self.fail("nothing to repeat")
        if c in "{}]":
            self.at -= 1
            raise self.fail(f"a lone `{c}` (write `\\{c}`)")
        return literal(ord(c)), True

    def group(self) -> tuple[str, bool]:
        start = self.at - 1
        prefix, quantifiable = "(", True
        if self.peek() == "?":
            head = self.text[self.at : self.at + 3]
            if head.startswith(("?:", "?=", "?!")) or head in ("?<=", "?<!"):
                kind = head[:3] if head.startswith("?<") else head[:2]
                prefix, quantifiable = "(" + kind, kind == "?:"
                self.at += len(kind)
            elif head.startswith("?<"):
                self.group_name()
            else:
                raise self.python_group(start)
        body = self.disjunction()
        if self.peek() != ")":
            raise self.fail("a group is not closed")
        self.at += 1
        return f"{prefix}{body})", quantifiable

    def group_name(self) -> None:
        """`(?<name>`: a capturing group (names change nothing without back-references)."""
        end = self.text.find(">", self.at)
        name = self.text[self.at + 2 : end] if end > 0 else ""
        if not name.replace("$", "_").isidentifier():
            raise self.fail("a group name is not an identifier")
        if name in self.names:
            raise self.fail(f"the group name `{name}` is used twice")
        self.names.add(name)
        self.at = end + 1

    def python_group(self, start: int) -> ValueError:
        rest = self.text[start:]
        for head, what in (
            ("(?P<", "a Python named group (write `(?<name>...)`)"),
            ("(?P=", "a Python back-reference"),
            ("(?#", "a Python comment"),
            ("(?>", "an atomic group"),
            ("(?(", "a conditional group"),
        ):
            if rest.startswith(head):
                return Unportable(what, head)
        if rest[2:3].isalpha() or rest[2:3] == "-":
            end = min((i for i in (rest.find(")"), rest.find(":")) if i > 0), default=3)
            return Unportable("inline flags", rest[: end + 1])
        return self.fail(f"`{rest[:3]}` starts no group")

    def quantifier(self, atom: str, start: int) -> str:
        """`atom` (the translation of the term at `start`) with its quantifier."""
        c = self.peek()
        if c in ("*", "+", "?"):
            self.at += 1
            count = c
        elif c == "{":
            count = self.count()
        else:
            return atom
        if self.peek() == "?":
            self.at += 1
            count += "?"
        elif self.peek() == "+":
            raise Unportable("a possessive quantifier", self.text[start : self.at + 1])
        if self.peek() in ("*", "+", "?", "{"):
            raise self.fail("nothing to repeat")
        return atom + count

    def count(self) -> str:
        """`{n}`, `{n,}`, `{n,m}`; any other `{` is an error in Unicode mode."""
        close = self.text.find("}", self.at)
        body = self.text[self.at + 1 : close] if close > 0 else ""
        low, _, high = body.partition(",")
        if not (low.isascii() and low.isdigit()) or (
            high and not (high.isascii() and high.isdigit())
        ):
            raise self.fail("a `{` that is not a repetition count (write `\\{`)")
        if high and int(high) < int(low):
            raise self.fail(f"the repetition count {{{body}}} is out of order")
        self.at = close + 1
        return "{" + body + "}"

    def escape(self) -> tuple[str, bool]:
        c = self.peek()
        self.at += 1
        if c in ("b", "B"):
            self.ascii = True
            # Python's `\B` fails on the empty string (before 3.14), ECMA-262's holds.
            return ("\\b" if c == "b" else "(?:\\B|\\A\\Z)"), False
        if c in _ASCII_CLASSES:
            self.ascii = True
            return "\\" + c, True
        if c == "s":
            return f"[{SPACES}]", True
        if c == "S":
            return f"[^{SPACES}]", True
        if (c.isdigit() and c != "0") or c == "k":
            raise Unportable("a back-reference", "\\" + c)
        return literal(self.character_escape(c)), True

    def character_escape(self, c: str) -> int:
        """The code point of `\\c...` (`c` taken), outside or inside a class."""
        if c in _CONTROL_ESCAPES:
            return ord(_CONTROL_ESCAPES[c])
        if c == "0":
            if self.peek().isdigit():
                raise self.fail(
                    "`\\0` followed by a digit (octal escapes are not allowed)"
                )
            return 0
        if c == "c" and self.peek().isascii() and self.peek().isalpha():
            self.at += 1
            return ord(self.text[self.at - 1]) % 32
        if c == "x":
            return self.hex_digits(2)
        if c == "u":
            return self.unicode_escape()
        if c in ("p", "P"):
            raise Unportable("a Unicode property escape", f"\\{c}{{...}}")
        if c in _SYNTAX:
            return ord(c)
        if c in _PYTHON_ESCAPES:
            raise Unportable(_PYTHON_ESCAPES[c], "\\" + c)
        raise self.fail(f"`\\{c}` is no escape in ECMA-262's Unicode mode")

    def hex_digits(self, width: int) -> int:
        digits = self.text[self.at : self.at + width]
        if len(digits) != width or any(
            d not in "0123456789abcdefABCDEF" for d in digits
        ):
            raise self.fail(f"a `\\x` or `\\u` escape needs {width} hex digits")
        self.at += width
        return int(digits, 16)

    def unicode_escape(self) -> int:
        if self.peek() == "{":
            close = self.text.find("}", self.at)
            digits = self.text[self.at + 1 : close] if close > 0 else ""
            if not digits or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise self.fail("a `\\u{...}` escape needs hex digits")
            self.at = close + 1
            if int(digits, 16) > 0x10FFFF:
                raise self.fail("a `\\u{...}` escape beyond U+10FFFF")
            return int(digits, 16)
        code = self.hex_digits(4)
        # A surrogate pair written as two escapes is one code point in Unicode mode.
        if 0xD800 <= code <= 0xDBFF and self.text.startswith("\\u", self.at):
            saved = self.at
            self.at += 2
            low = self.hex_digits(4) if self.peek() != "{" else -1
            if 0xDC00 <= low <= 0xDFFF:
                return 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            self.at = saved
        return code

    def bracket(self) -> str:
        negated = self.peek() == "^"
        self.at += negated
        members: list[str] = []
        non_space = False  # holds `\S`, which a Python class cannot hold
        while self.peek() != "]":
            if not self.peek():
                raise self.fail("a character class is not closed")
            low = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.at += 1
                high = self.class_atom()
                if isinstance(low, str) or isinstance(high, str):
                    raise self.fail("a class escape in a range")
                if high < low:
                    raise self.fail("a range out of order")
                members.append(f"{class_char(low)}-{class_char(high)}")
            elif low == "\\S":
                non_space = True
            else:
                members.append(low if isinstance(low, str) else class_char(low))
        self.at += 1
        return _class("".join(members), negated, non_space)

    def class_atom(self) -> int | str:
        """A class member: a code point, or the translation of a class escape."""
        c = self.peek()
        self.at += 1
        if c != "\\":
            return ord(c)
        e = self.peek()
        self.at += 1
        if e == "b":
            return 8
        if e == "-":
            return ord("-")
        if e in _ASCII_CLASSES:
            self.ascii = True
            return "\\" + e
        if e == "s":
            return SPACES
        if e == "S":
            return "\\S"
        if (e.isdigit() and e != "0") or e == "k":
            raise self.fail(f"`\\{e}` in a character class")
        return self.character_escape(e)


def _class(members: str, negated: bool, non_space: bool) -> str:
    if non_space and members == SPACES:  # `[\s\S]`: any character, `[^\s\S]` none
        return _class("", not negated, False)
    if not non_space:
        if not members:  # `[]` matches nothing, `[^]` any character
            return "[\\x00-\\U0010ffff]" if negated else "[^\\x00-\\U0010ffff]"
        return f"[{'^' if negated else ''}{members}]"
    if negated:  # neither a member nor a non-space: a space that is no member
        return f"(?:(?![{members}])[{SPACES}])" if members else f"[{SPACES}]"
    return f"(?:[{members}]|[^{SPACES}])" if members else f"[^{SPACES}]"


def literal(code: int) -> str:
    """A character as a Python pattern matches it literally."""
    c = chr(code)
    if c.isascii() and (c.isalnum() or c in "_ "):
        return c
    if c.isascii() and c.isprintable():
        return "\\" + c
    return class_char(code)


def class_char(code: int) -> str:
    """A character inside a Python class: letters and digits as they are, the rest as
    escapes (no `[`, `-`, `&`, `~` or `|` left to read as set syntax)."""
    c = chr(code)
    if (c.isascii() and c.isalnum()) or c == "_":
        return c
    if c.isascii() and c.isprintable():
        return "\\" + c
    if code > 0xFFFF:
        return f"\\U{code:08x}"
    if code > 0xFF:
        return f"\\u{code:04x}" if not c.isprintable() or c.isspace() else c
    return f"\\x{code:02x}"


def to_python(pattern: str) -> str:
    """The Python `re` pattern that means what ECMA-262 (Unicode mode) means by `pattern`.
    Raises `Unportable` or `ValueError` (see the module's docstring)."""
    reader = _Reader(pattern)
    body = reader.disjunction()
    if reader.at < len(pattern):
        raise reader.fail("a lone `)`")
    return ("(?a)" if reader.ascii else "") + body


_COMPILED: dict[str, re.Pattern[str]] = {}


def compiled(pattern: str) -> re.Pattern[str]:
    """`pattern` translated and compiled, once per process (raises `ValueError` as
    `to_python` does, or when Python cannot run the translation)."""
    found = _COMPILED.get(pattern)
    if found is None:
        import re as regex

        try:
            found = _COMPILED[pattern] = regex.compile(to_python(pattern))
        except regex.error as exc:  # a lookbehind of varying length
            raise ValueError(f"Python cannot run it: {exc}") from exc
    return found
