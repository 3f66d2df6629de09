"""Where the cursor stands, for completion: read from the text before it by a light scan.

A document being typed seldom parses, so the context is not taken from the AST: the text up to
the cursor is cut into tokens (strings and comments whole, open ones running to the cursor),
brackets are tracked with what each opened (parameters, a map type, a value, an attribute's
arguments, a test's call or checks), and the last tokens say what may come next. A declaration
keyword or an attribute at the start of a line starts afresh, so a broken declaration above
does not confuse the next. In a test (`test NAME = signature(args) -> {checks}`) the
brackets after its name hold values, but for the call's argument names and the checks'
subjects.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal[
    "none",
    "primitive",
    "type",
    "attribute",
    "template",
    "step",
    "tool",
    "mode",
    "keyword",
    "argument",
    "subject",
    "expectation",
]

_TOKEN = re.compile(
    r'(?P<triple>"""(?:[^"\\]|\\.|"(?!""))*""")'
    r'|(?P<open_triple>"""(?:[^"\\]|\\.|"(?!""))*\Z)'
    r'|(?P<string>"(?:[^"\\\n]|\\.)*")'
    r'|(?P<open_string>"(?:[^"\\\n]|\\.)*\Z)'
    r"|(?P<comment>\#[^\n]*)"
    r"|(?P<prim>:[A-Za-z_][A-Za-z0-9_-]*|:(?![ \t]*[\"\d\[{tfn-]))"
    r"|(?P<attr>@[A-Za-z_][A-Za-z0-9_]*|@)"
    r"|(?P<arrow>->)|(?P<pipe>\|>)|(?P<ellipsis>\.\.\.)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_-]*)"
    r"|(?P<number>-?[0-9][0-9.eE+-]*)"
    r"|(?P<space>\s+)"
    r"|(?P<punct>.)",
    re.S,
)
_KEYWORDS = frozenset({"signature", "tool", "type", "pipeline", "import", "test"})
_TEMPLATES = frozenset({"prompt", "system"})
_NEXT_DECL = re.compile(r"(?m)^[ \t]*(signature|tool|type|pipeline|import|test)\b")
_NEXT_SIGNATURE = re.compile(r"(?m)^[ \t]*(?:signature|tool)[ \t]+([A-Za-z_][A-Za-z0-9_-]*)")
_HEAD = re.compile(r"(?m)^(?:(?:signature|tool|type|pipeline|import|test)(?![A-Za-z0-9_-])|@)")
# Strings and comments, matched from the left as the tokens are: a head inside one is none.
_SKIPPED = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*(?:"""|\Z)|"(?:[^"\\\n]|\\.)*"?|\#[^\n]*')
_TAG = re.compile(r"\{\{\s*([#^/])\s*([A-Za-z_.][A-Za-z0-9_.-]*)\s*\}\}")
_TAG_WORD = re.compile(r"[A-Za-z0-9_.-]*\Z")
_AHEAD = 4000  # code points read after the cursor for the arguments a call gives


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Context:
    """What to offer at the cursor, and the extent `[start, end)` a chosen item replaces."""

    kind: Kind
    start: int = 0
    end: int = 0
    place: str | None = None  # attribute: "field" or the declaration keyword; None: unknown
    # template: the signature the template belongs to; argument, subject: the test's
    signature: str | None = None
    # template: the open sections, outermost first; an inverted one as `^name`
    sections: tuple[str, ...] = ()
    sigil: str = ""  # template: "#", "^", "/", "&" or "{" written after the braces
    closed: bool = False  # template: the braces are closed after the cursor already
    given: tuple[str, ...] = ()  # argument: the names the call gives already
    path: tuple[str | int, ...] = ()  # subject: the steps before the cursor (`items[0].`)
    nested: bool = False  # subject: inside `len(...)`


@dataclass(frozen=True, slots=True)
class _Open:
    kind: str  # "params", "map", "list", "group", "value", "attr", "args", "checks"
    name: str = ""  # "attr": the attribute's name; "args", "checks": the test's signature
    at: int = 0  # where the bracket stands in the text


def tokens(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """The tokens of `text[start:end]` (spaces and comments included), an open string at the
    end whole; offsets are into `text`."""
    found = _TOKEN.finditer(text, start, len(text) if end is None else end)
    return [Token(m.lastgroup or "punct", m.group(), m.start(), m.end()) for m in found]


def _scan_start(text: str, offset: int) -> int:
    """Where to start reading for the cursor at `offset`: the last declaration keyword or
    attribute at the start of a line before it, outside strings and comments (the scan
    starts afresh there anyway), so a long file is not read whole on every keystroke."""
    heads = [m.start() for m in _HEAD.finditer(text, 0, offset)]
    if not heads:
        return 0
    skipped = [(m.start(), m.end()) for m in _SKIPPED.finditer(text, 0, offset)]
    starts = [a for a, _ in skipped]
    for head in reversed(heads):
        index = bisect.bisect_right(starts, head) - 1
        if index < 0 or skipped[index][1] <= head:
            return head
    return 0


def context_at(text: str, offset: int) -> Context:
    """The completion context at code-point `offset` of `text`."""
    every = tokens(text, _scan_start(text, offset), offset)
    last = every[-1] if every else None
    if last is not None and last.kind in ("comment", "number", "string", "triple"):
        return Context("none")
    significant = [t for t in every if t.kind not in ("space", "comment")]
    if last is not None and last.kind in ("open_string", "open_triple"):
        return _in_string(text, offset, significant)
    stack = _brackets(text, significant[:-1] if _touches(last, offset) else significant)
    if last is not None and last.end == offset and last.kind == "attr":
        if last.start == 0 or text[last.start - 1] == "\n":
            stack = []  # at the start of a line: a declaration's, as `_brackets` reads it
        return Context("attribute", last.start + 1, offset, place=_place(text, offset, stack))
    if last is not None and last.end == offset and last.kind == "prim":
        before = _before(significant, 1)
        if before is not None and before.kind in ("string", "triple"):
            return Context("none")
        return Context("primitive", last.start + 1, offset)
    word = last if last is not None and last.end == offset and last.kind == "name" else None
    previous = significant[:-1] if word is not None else significant
    start = word.start if word is not None else offset
    if word is not None and word.text in _KEYWORDS and _line_start(text, start) == start:
        stack = []  # a keyword starting a line starts afresh, as `_brackets` reads it
    top = stack[-1] if stack else None
    if top is not None and top.kind in ("args", "checks"):
        return _in_test(text, offset, start, previous, top)
    prev = _before(previous, 0)
    if not stack and prev is not None and prev.kind == "arrow" and _in_test_head(text, previous):
        return Context("expectation", start, offset)  # not a type: `valid`, a value, checks
    kind = _after(previous, stack)
    if kind == "none" and not stack and not text[_line_start(text, start) : start].strip():
        kind = "keyword"  # the start of a line between declarations: the next one's
    return Context(kind, start, offset)


def _in_test_head(source: str, significant: list[Token]) -> bool:
    """Do these tokens end in a test's head (`test NAME = ...`), no other declaration or
    attribute starting a line since?"""
    for index in range(len(significant) - 1, -1, -1):
        if _starts_test(significant, index):
            return True
        token = significant[index]
        if (token.kind == "attr" or token.text in _KEYWORDS) and _line_start(
            source, token.start
        ) == token.start:
            return False
    return False


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _in_test(text: str, offset: int, start: int, previous: list[Token], top: _Open) -> Context:
    """In a test's call, an argument's name; in its checks, a subject (a name, or a field
    of the steps written before a `.`)."""
    prev = _before(previous, 0)
    if prev is None:
        return Context("none")
    if top.kind == "args":
        if prev.text not in ("(", ","):
            return Context("none")
        given = _given(text, top.at, offset)
        return Context("argument", start, offset, signature=top.name, given=given)
    if prev.text in ("{", ",", "("):
        nested = prev.text == "("
        return Context("subject", start, offset, signature=top.name, nested=nested)
    path = _subject_path(previous) if prev.text == "." else None
    if path is None:
        return Context("none")
    return Context("subject", start, offset, signature=top.name, path=path)


def _given(text: str, opened: int, offset: int) -> tuple[str, ...]:
    """The argument names a call gives (`name =` at its own depth), before and after the
    cursor, but for the word the cursor is in."""
    out: list[str] = []
    depth = 0
    name: Token | None = None
    for token in tokens(text, opened + 1, min(len(text), offset + _AHEAD)):
        if token.kind in ("space", "comment"):
            continue
        if token.text in ("(", "[", "{"):
            depth += 1
        elif token.text in (")", "]", "}"):
            if depth == 0:
                break
            depth -= 1
        elif (
            token.text == "="
            and depth == 0
            and name is not None
            and not name.start <= offset <= name.end
        ):
            out.append(name.text)
        name = token if token.kind == "name" and depth == 0 else None
    return tuple(out)


def _subject_path(previous: list[Token]) -> tuple[str | int, ...] | None:
    """The steps of a subject written before the `.` that ends `previous` (`items[0].`),
    None when that is no subject."""
    steps: list[str | int] = []
    index = len(previous) - 2
    while index >= 0:
        token = previous[index]
        if token.kind == "name":
            steps.append(token.text)
            index -= 1
        elif token.text == "]" and index >= 2 and previous[index - 2].text == "[":
            number = previous[index - 1].text
            if not number.isdigit():
                return None
            steps.append(int(number))
            index -= 3
            continue  # an index follows a name, another index or `$`
        elif token.text == "$":
            break
        else:
            return None
        if index >= 0 and previous[index].text == ".":
            index -= 1
            continue
        break  # the name the subject starts with
    return tuple(reversed(steps))


def _touches(last: Token | None, offset: int) -> bool:
    return last is not None and last.end == offset and last.kind in ("attr", "prim", "name")


def _before(significant: list[Token], back: int) -> Token | None:
    return significant[-1 - back] if len(significant) > back else None


def _brackets(source: str, significant: list[Token]) -> list[_Open]:
    """The brackets open after these tokens, each with what it opened; a declaration keyword
    or an attribute at the start of a line closes them all."""
    stack: list[_Open] = []
    test: str | None = None  # in a test: the signature it calls ("" until written)
    for index, token in enumerate(significant):
        text = token.text
        starts_line = token.start == 0 or source[token.start - 1] == "\n"
        if starts_line and (token.kind == "attr" or text in _KEYWORDS):
            stack.clear()
            test = None
        if not stack and _starts_test(significant, index):
            test = ""
        if token.kind != "punct":
            continue
        prev = significant[index - 1] if index else None
        if text in "([{":
            if test is not None:
                if text == "(" and not stack and prev is not None and prev.kind == "name":
                    test = prev.text
                stack.append(_in_test_opened(text, test, token.start, stack))
                continue
            stack.append(_opened(text, prev, significant[index - 2] if index > 1 else None, stack))
        elif text in ")]}" and stack:
            stack.pop()
    return stack


def _starts_test(significant: list[Token], index: int) -> bool:
    """`test NAME =`: a test's head (a field or type named `test` is followed otherwise)."""
    following = significant[index : index + 3]
    return (
        len(following) == 3
        and following[0].text == "test"
        and following[1].kind == "name"
        and following[2].text == "="
    )


def _in_test_opened(bracket: str, signature: str, at: int, stack: list[_Open]) -> _Open:
    """In a test, the call's arguments, the checks (and `len(` inside them), or a value."""
    top = stack[-1].kind if stack else ""
    if not stack and bracket == "(":
        return _Open("args", signature, at)
    if (not stack and bracket == "{") or (top == "checks" and bracket == "("):
        return _Open("checks", signature, at)
    return _Open("value", at=at)


def _opened(bracket: str, prev: Token | None, prev2: Token | None, stack: list[_Open]) -> _Open:
    top = stack[-1].kind if stack else ""
    in_value = top in ("value", "attr") or (
        prev is not None and prev.text == "=" and top in ("params", "map")
    )
    if bracket == "(":
        if prev is not None and prev.kind == "attr":
            return _Open("attr", prev.text[1:])
        if prev2 is not None and prev2.text in ("signature", "tool") and prev is not None:
            return _Open("params")
        return _Open("value" if in_value else "group")
    if in_value:
        return _Open("value")
    return _Open("map" if bracket == "{" else "list")


def _after(previous: list[Token], stack: list[_Open]) -> Kind:
    """What may come after these tokens: a type, a pipeline step, a tool, a mode, or none."""
    prev = _before(previous, 0)
    if prev is None:
        return "none"
    top = stack[-1] if stack else None
    if top is not None and top.kind in ("attr", "value"):
        return _in_arguments(prev, top)
    if prev.kind == "pipe":
        return "step"
    if prev.text == "=":
        head = _before(previous, 2)
        if head is not None and head.text in ("pipeline", "test") and not stack:
            return "step"  # a test calls a signature, as a pipeline step does
        return "type" if head is not None and head.text == "type" and not stack else "none"
    if prev.kind == "arrow" or prev.text == "|":
        return "type"
    if prev.text in ("[", "(") and top is not None and top.kind in ("list", "group"):
        return "type"
    if prev.kind == "name" and top is not None and top.kind in ("params", "map"):
        opener = _before(previous, 1)
        if opener is not None and opener.text in ("(", "{", ","):
            return "type"
    return "none"


def _in_arguments(prev: Token, top: _Open) -> Kind:
    """In an attribute's arguments: the tools of `@tools`, the modes of `@output`."""
    if top.name == "tools" and prev.text in ("(", ","):
        return "tool"
    if top.name == "output" and prev.text == "(":
        return "mode"
    return "none"


def _place(text: str, offset: int, stack: list[_Open]) -> str | None:
    """Where an attribute at the cursor stands: on a field, or on the next declaration."""
    if any(o.kind in ("params", "map") for o in stack):
        return "field"
    if stack:
        return None
    found = _NEXT_DECL.search(text, offset)
    return found.group(1) if found is not None else None


def _in_string(text: str, offset: int, significant: list[Token]) -> Context:
    """Inside a string: a template attribute's argument after `{{` is a Mustache tag."""
    string = significant[-1]
    paren, attr = _before(significant, 1), _before(significant, 2)
    if paren is None or paren.text != "(" or attr is None or attr.text[1:] not in _TEMPLATES:
        return Context("none")
    quotes = 3 if string.kind == "open_triple" else 1
    body = text[string.start + quotes : offset]
    opening = body.rfind("{{")
    if opening < 0 or body.rfind("}}") > opening:
        return Context("none")
    if opening > 0 and body[opening - 1] == "{":
        opening -= 1  # `{{{name}}}`: the sigil is the third brace
    inside = body[opening + 2 :]
    sigil = inside[:1] if inside[:1] in ("#", "^", "/", "&", "{") else ""
    word = _TAG_WORD.search(inside)
    assert word is not None  # the pattern matches the empty string at the end
    if inside[len(sigil) : word.start()].strip():
        return Context("none")
    start = offset - (len(inside) - word.start())
    found = _NEXT_SIGNATURE.search(text, offset)
    rest = text[offset : offset + 40]
    return Context(
        "template",
        start,
        offset,
        signature=found.group(1) if found is not None else None,
        sections=_sections(body[:opening]),
        sigil=sigil,
        closed=bool(re.match(r"[A-Za-z0-9_.-]*\s*\}\}", rest)),
    )


def _sections(template: str) -> tuple[str, ...]:
    """The sections open at the end of a template's text."""
    open_: list[str] = []
    for match in _TAG.finditer(template):
        sigil, name = match.groups()
        if sigil in "#^":
            open_.append(name if sigil == "#" else f"^{name}")
        elif open_:
            open_.pop()
    return tuple(open_)
