# Finding the answer in a raw LLM reply: candidates, a lenient JSON reader that repairs
# syntax only where the intent is unambiguous, and the rule that the candidate that
# validates wins while disagreeing candidates are rejected. Time is linear in the
# reply's length, and so is memory: candidates are spans of the reply, sliced only when
# read, and all candidates together read at most eight times the reply. Nothing is ever
# evaluated, and nothing recurses on the reply's nesting (the `json` module's decoder
# aside, which stops at the interpreter's limit: its RecursionError is a text that is no
# answer).
from __future__ import annotations

import json
import re
from json.scanner import make_scanner

from .common import (
    LIMITS,
    Limits,
    ParseResult,
    ReplyError,
    depth_message,
    number_literal,
    shown,
    too_deep,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, TypeGuard


MAX_CANDIDATES = 64


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _finite(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large for a JSON number")
    return number


def _same(a: Any, b: Any) -> bool:
    """Two JSON values are the same: Python's `==`, except that a boolean equals only a
    boolean (`True == 1` in Python, not in JSON; `1 == 1.0` in both). No recursion."""
    if a != b:
        return False
    pairs = [(a, b)]  # equal, so of the same shape: only booleans may differ
    while pairs:
        x, y = pairs.pop()
        if isinstance(x, bool) is not isinstance(y, bool):
            return False
        if _is_map(x):
            pairs.extend((v, y[k]) for k, v in x.items())
        elif _is_list(x):
            pairs.extend(zip(x, y, strict=True))
    return True


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A map from its pairs, rejecting a key given twice with different values. Built in
    C: a loop over the pairs was a fifth of decoding a list of small maps."""
    out = dict(pairs)
    if len(out) < len(pairs):  # a key given twice: the same value each time?
        for key, value in pairs:
            if not _same(out[key], value):
                raise ValueError(
                    f"the key {shown(key)} is given twice with different values"
                )
    return out


# Made once: json.loads with options builds a new decoder on every call.
_STRICT = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)
# With a float hook the C decoder runs at half speed, so only the rarer paths use it (a
# number in a string, JSON in a string, the lenient reader): there an overflowing
# literal such as 1e400 is rejected instead of becoming infinity. A whole reply that is
# strict JSON is decoded at full speed and keeps Python's reading of it.
_FINITE = json.JSONDecoder(
    object_pairs_hook=_pairs, parse_constant=_no_constant, parse_float=_finite
)


def strict_json(text: str) -> Any:
    """json.loads, rejecting NaN and conflicting duplicate keys."""
    return _STRICT.decode(text)


NOT_JSON: Any = object()
# The strict decoder's scanner, called as its `decode` calls it (the text is stripped
# already): two Python frames and two whitespace matches fewer, a tenth of a short
# reply's parse. (typeshed types the scanner's argument as a scanner; it is a decoder.)
_SCAN = make_scanner(_STRICT)  # type: ignore[arg-type]


def whole_json(text: str) -> Any:
    """The whole reply as strict JSON (a map or a list), or NOT_JSON: the clean reply's
    path."""
    stripped = text.strip()
    if stripped.startswith("\ufeff"):
        stripped = stripped.lstrip("\ufeff").strip()
    if not stripped.startswith(("{", "[")):
        return NOT_JSON
    try:
        value, end = _SCAN(stripped, 0)
    except (ValueError, RecursionError, StopIteration):
        return NOT_JSON
    return value if end == len(stripped) else NOT_JSON


def finite_json(text: str) -> Any:
    """strict_json, also rejecting numbers too large for a float."""
    return _FINITE.decode(text)


class _Broken(ValueError):
    """No JSON: `what` is wrong (`str()`), with a hint how to write it, at `at` (an
    offset in the text read; -1: where the reader stopped, filled in by `_lenient`)."""

    def __init__(self, what: str, hint: str = "", at: int = -1) -> None:
        super().__init__(what)
        self.what = what
        self.hint = hint
        self.at = at
        self.index = -1  # or the piece it is at, for `_lenient` to turn into `at`
        self.shift = 0  # characters into that piece
        self.open_string = False  # a string never closed: cut off, if the reply ends
        self.cut = -1  # the text's end, when a number is cut short there


class _TooDeep(_Broken):
    """The text nests deeper than the depth limit: the reply's error names the limit."""


class _Read:
    __slots__ = ("repairs", "truncated", "value")

    def __init__(
        self, value: Any, repairs: list[str], truncated: list[tuple[Any, ...]]
    ) -> None:
        self.value = value
        self.repairs = repairs
        self.truncated = truncated  # paths of objects the text ended inside


# ---- reasoning and candidates --------------------------------------------------------

# Reasoning tags: an opener (group 1, no space allowed) or a closer (group 2).
_REASONING_TAG = re.compile(
    r"<(?:(think|thinking|reasoning)|/(think|thinking|reasoning)\s*)>", re.I
)
_LONE_THINK = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.I)
_REASONING_OPENER = re.compile(r"<(?:think|thinking|reasoning)>", re.I)
_TAG = re.compile(r"<(/?)([A-Za-z][\w.-]*)(?:\s[^<>]*)?>")
# A fence: its marker (group 1), its body (group 2) up to a line holding the marker
# alone between blanks, or to the end of a text that ends inside it. The marker is a
# whole run, taken in a lookahead that is never backtracked into (Python 3.10 has no
# possessive `{3,}+`): a marker that could give back backticks was retried at every
# shorter one on a line of 10 MB of them and no newline, quadratic. The body is one lazy
# `.*?`, which keeps no record per line, where `(?:[^\n]*\n)*?` kept 60 bytes a line.
_FENCE = re.compile(
    r"^[ \t]*(?=(`{3,}|~{3,}))\1[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S
)
# The lookbehind after the first backtick, not before it: a pattern that starts with a
# literal is searched at C speed.
_CODE = re.compile(r"`(?<!``)([^`\n]+)`(?!`)")
# A whole reply that is a JSON number, boolean or null (no bare words), the natural answer
# when the output is a scalar; `null` is an answer only where the output admits null.
_SCALAR = re.compile(
    r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null"
)
# Outside brackets: the text up to the next opener, then a whole bracket pair with no
# bracket or quote inside (group 1: most spans, taken in one step) or else the opener
# alone (group 2), or else the text's end (which no backtracking then looks before).
_OUTSIDE = re.compile(r"[^{\[]*(?:(\{[^{}\[\]\"']*\}|\[[^{}\[\]\"']*\])|([{\[])|\Z)")
_OPENERS = frozenset("{[")  # also the lenient reader's
_OPENER_RUN = re.compile(r"[{\[]*")
_CLOSER_RUN = re.compile(r"[}\]]+")
_CLOSERS = frozenset("}]")
# The body of a string after its opening quote, up to where it closes: batches of at
# most 1000 escapes (`re` keeps a record per repetition until the match ends), so that
# `_string_end` reads a string of a million escapes in a thousand C-speed steps.
_BODIES = {
    '"': re.compile(r'[^"\\]*(?:\\.[^"\\]*){0,1000}', re.S),
    "'": re.compile(r"[^'\\\n]*(?:\\[^\n][^'\\\n]*){0,1000}"),
}


def _string_end(text: str, at: int, quote: str) -> int:
    """Where the string opening at `at` ends (past its closing quote), or -1 when it
    never closes: a double-quoted one may span lines, a single-quoted one may not."""
    body = _BODIES[quote]
    pos = at + 1
    while True:
        end = body.match(text, pos).end()  # type: ignore[union-attr]  # `*`: always
        if text[end : end + 1] == quote:
            return end + 1
        if end == pos or end == len(text):  # the text's end, a line break, a lone `\`
            return -1
        pos = end  # a batch of escapes ended: the next goes on


def _inside(dq: bool, sq: bool) -> re.Pattern[str]:
    """Inside brackets: all up to the next bracket in one match, strings without escapes
    skipped whole, so that a 10 MB list of strings is a few C-speed matches, not a
    Python step per string. `_next_stop` reads the strings the match stops at.

    Python 3.10 has no possessive quantifier: nothing here gives back what it took but
    the run inside a string never closed (one character compared per step). The
    repetition over strings is capped: `re` keeps a record of every repetition until
    the match ends, 75 bytes a character for a list of short strings."""
    quotes = ('"' if dq else "") + ("'" if sq else "")
    if not sq:
        return re.compile(f"[^{{}}\\[\\]\\n{quotes}]*")
    stops = "{}\\[\\]" + quotes
    plain = [s for s, alive in ((r'"[^"\\]*"', dq), (r"'[^'\\\n]*'", sq)) if alive]
    batch = f"(?:(?:{'|'.join(plain)})[^{stops}]*){{0,{_BATCH}}}"
    return re.compile(f"[^{stops}]*{batch}")


_BATCH = 1000  # strings skipped in one match
_INSIDE = {(dq, sq): _inside(dq, sq) for dq in (True, False) for sq in (True, False)}


def _next_stop(text: str, pos: int, dq: bool, sq: bool) -> int:
    """Where the scan inside brackets stops, from `pos`: a bracket; a quote that opens
    no string, after which no later quote of its kind can (up to the line's end for
    single quotes: `_quote_stop`), so that no quote is tried twice (retrying every
    quote was quadratic); a line break while single quotes are out (it brings them
    back). -1 when nothing stops it."""
    skip = _INSIDE[dq, sq]
    while True:
        end = skip.match(text, pos).end()  # type: ignore[union-attr]  # `*`: always
        if end == len(text):
            return -1
        quote = text[end]
        if not sq or quote not in "\"'":
            return end
        # A string with escapes, the first after a full batch, or a quote that opens
        # no string (its kind is then out, so this reads each character once).
        pos = _string_end(text, end, quote)
        if pos < 0:
            return end


_STOPS = frozenset("\"'\n")  # what may stop the scan inside brackets, besides a bracket


def strip_reasoning(text: str) -> str:
    """The reply without its reasoning: closed blocks, all before a lone closer, and all
    from an opener never closed (a reply cut off while reasoning: a draft there is no
    answer)."""
    # Blocks and lone closers need a closing tag; most replies have none
    if "</" in text:
        text = _without_reasoning_blocks(text)
        ends = [m.end() for m in _LONE_THINK.finditer(text)] if "</" in text else []
        text = text[ends[-1] :] if ends else text
    opener = _REASONING_OPENER.search(text) if "<" in text else None
    return text[: opener.start()] if opener else text


def _without_reasoning_blocks(text: str) -> str:
    """The text without its `<think>...</think>` blocks (any of the three names, either
    case; each closed by the next closer of its name), leftmost first: what substituting
    the lazy `<(name)>.*?</name>` would give, but linear: that pattern scanned to the
    end of the text for every opener no closer follows (`<think></x>` repeated took 30 s
    for 220 KB)."""
    openers: list[tuple[int, int, str]] = []
    closers: dict[str, list[tuple[int, int]]] = {}
    for match in _REASONING_TAG.finditer(text):
        if match.group(1):
            openers.append((match.start(), match.end(), match.group(1).lower()))
        else:
            closers.setdefault(match.group(2).lower(), []).append(match.span())
    kept: list[str] = []
    pos = 0
    # Each name's first closer not yet passed (openers come in order: it only moves on).
    first = dict.fromkeys(closers, 0)
    for start, end, name in openers:
        found = closers.get(name)
        if start < pos or not found:  # inside a removed block, or never closed
            continue
        index = first[name]
        while index < len(found) and found[index][0] < end:
            index += 1
        first[name] = index
        if index < len(found):
            kept.append(text[pos:start])
            pos = found[index][1]
    kept.append(text[pos:])
    return "".join(kept)


def raw_spans(text: str) -> list[tuple[int, int]]:
    """Every balanced `{...}`/`[...]` span (strings inside brackets skipped), an
    unclosed outermost one to the end of the text, and an outermost one up to a closer
    of the wrong kind (no JSON: read only to name its fault). One pass: outside
    brackets one match takes a flat pair whole or finds the next opener; inside, one
    match takes all up to the next bracket."""
    return [(start, end) for start, end, _, _ in nested_spans(text)]


def nested_spans(text: str) -> list[tuple[int, int, int, bool]]:
    """`raw_spans`, each with how deep brackets nest in it (a flat pair: 1), so that a
    span past the depth limit is known without reading it (nested brackets: each span
    inside another, each read to the limit, was a read of most of the text each); a
    span a wrong closer ends, with its depth negated; and whether a closer ended it
    (False for the outermost bracket never closed, which runs to the text's end)."""
    # [where it opens, the bracket, the deepest nesting found inside so far]
    stack: list[list[Any]] = []
    spans: list[tuple[int, int, int, bool]] = []
    broken = [0]  # the longest span a wrong closer ended so far
    pos = 0
    dq = True  # may a double quote still open a string
    sq_dead_to = -1  # single quotes open no string before this position (a line's end)
    while True:
        if not stack:
            match = _OUTSIDE.match(text, pos)
            if match is None or match.lastindex is None:  # the text's end
                break
            pos = match.end()
            if match.group(1) is not None:  # a flat pair: a span of its own
                spans.append((*match.span(1), 1, True))
                continue
            at = match.start(2)
        else:
            at = _next_stop(text, pos, dq, pos >= sq_dead_to)
            if at < 0:
                break
            pos = at + 1
        char = text[at]
        if char in _STOPS:
            dq, sq_dead_to, pos = _quote_stop(text, at, pos, dq, sq_dead_to)
        elif char in _OPENERS:
            if text[pos : pos + 1] in _OPENERS:  # a run of openers: taken in one step
                end = _OPENER_RUN.match(text, pos).end()  # type: ignore[union-attr]  # `*`
                stack += [[index, text[index], 1] for index in range(at, end)]
                pos = end
            else:
                stack.append([at, char, 1])
        else:
            pos = _close(text, at, stack, spans, broken)
    if stack:
        spans.append((stack[0][0], len(text), _open_height(stack), False))
    spans.sort()
    return spans


def _close(
    text: str,
    at: int,
    stack: list[list[Any]],
    spans: list[tuple[int, int, int, bool]],
    broken: list[int],
) -> int:
    """The closer at `at` and those right after it, while brackets stay open: each
    closes its opener's span, or, closing none, ends the brackets (what came before is
    not JSON: a span with its depth negated, if longer than any such span before, the
    one whose fault would be named). Where the scan goes on."""
    end = (
        _CLOSER_RUN.match(text, at).end()  # type: ignore[union-attr]  # one closer at least
        if text[at + 1 : at + 2] in _CLOSERS
        else at + 1
    )
    for index in range(at, end):
        start, opener, height = stack[-1]
        if opener != ("{" if text[index] == "}" else "["):
            if index + 1 - stack[0][0] > broken[0]:
                broken[0] = index + 1 - stack[0][0]
                spans.append((stack[0][0], index + 1, -_open_height(stack), True))
            stack.clear()
            return index + 1
        stack.pop()
        spans.append((start, index + 1, height, True))
        if not stack:
            return index + 1
        if stack[-1][2] <= height:
            stack[-1][2] = height + 1
    return end


def _open_height(stack: list[list[Any]]) -> int:
    """How deep brackets nest in the outermost bracket never closed: each open bracket
    holds the ones above it."""
    height = 0
    for entry in reversed(stack):
        height = max(height + 1, entry[2])
    return height


def _quote_stop(
    text: str, at: int, pos: int, dq: bool, sq_dead_to: int
) -> tuple[bool, int, int]:
    """The bracket scan stopped at a quote or a line break (rare: see `_inside`).
    Returns the new quote state and where the scan goes on."""
    char = text[at]
    if char == "'":  # opens no string: no single quote can before the line's end
        line_end = text.find("\n", at)
        return dq, len(text) if line_end < 0 else line_end, pos
    if char == '"' and at < sq_dead_to:  # single quotes out: a string is taken here
        after = _string_end(text, at, char)
        if after >= 0:
            return dq, sq_dead_to, after
    # A double quote that opens no string, or the line break that brings single quotes
    # back.
    return dq and char != '"', sq_dead_to, pos


def count_tags(text: str, most: int) -> int:
    """How many tags the text holds, counted up to `most + 1` (a count of `<` says most
    replies are under any limit without a regular expression)."""
    if text.count("<") <= most:
        return text.count("<")
    found = 0
    for _ in _TAG.finditer(text):
        found += 1
        if found > most:
            break
    return found


def _tag_spans(text: str) -> list[tuple[int, int]]:
    """Where each tag's body lies, by where it starts: spans, not strings, since the
    bodies of nested tags overlap (a body apiece was quadratic in memory)."""
    if "</" not in text:  # a body needs a closing tag
        return []
    open_at: dict[str, list[int]] = {}
    spans: list[tuple[int, int]] = []
    # One `groups()` and one dict lookup a tag: a 10 MB reply holds a million tags or
    # more.
    for match in _TAG.finditer(text):
        closing, name = match.groups()
        name = name.lower()
        starts = open_at.get(name)
        if not closing:
            if starts is None:
                open_at[name] = [match.end()]
            else:
                starts.append(match.end())
        elif starts:
            spans.append((starts.pop(), match.start()))
    spans.sort()
    return spans


def _fenced(text: str) -> list[tuple[int, int]]:
    """The bodies of fenced blocks (most replies have none: two C searches say so)."""
    if "```" not in text and "~~~" not in text:
        return []
    return [m.span(2) for m in _FENCE.finditer(text)]


def _all_candidates(text: str) -> Iterator[tuple[int, int]]:
    """Every explicit candidate in order, as its span of the text."""
    # Fenced blocks never overlap: all of them are at most the text
    yield from _fenced(text)
    yield from _tag_spans(text)
    if "`" in text:
        for match in _CODE.finditer(text):
            yield match.span(1)
    stripped = text.strip()
    if stripped.startswith('"') or _SCALAR.fullmatch(stripped):
        start = len(text) - len(text.lstrip())
        yield start, start + len(stripped)


def explicit_candidates(text: str, budget: int | None = None) -> list[str]:
    """Fenced blocks, tag contents, inline code spans, a whole reply that is a JSON
    string, number or boolean (the answer to a signature whose output is a scalar): most
    explicit first, duplicates removed, at most MAX_CANDIDATES of them and, with a
    `budget`, no more characters in all than it (the bodies of nested tags overlap: all
    of them are quadratic in the reply's length). Raw JSON anywhere in the text comes
    after, in `parse_reply`."""
    return [candidate for candidate, _ in _explicit(text, budget)]


def _explicit(text: str, budget: int | None = None) -> list[tuple[str, int]]:
    """`explicit_candidates`, each with where it starts in the text."""
    seen: set[str] = set()
    unique: list[tuple[str, int]] = []
    for start, end in _all_candidates(text):
        if budget is not None:
            budget -= end - start
            if budget < 0:
                break
        candidate = text[start:end]
        key = candidate.strip()
        if key and key not in seen:
            seen.add(key)
            unique.append((key, start + len(candidate) - len(candidate.lstrip())))
            if len(unique) == MAX_CANDIDATES:
                break
    return unique


# ---- the lenient reader --------------------------------------------------------------

# The pieces of a candidate: whitespace, comments and tokens. One C-driven `findall`
# cuts the whole text; pieces are told apart by their first character (their first
# characters never overlap), and text that is no piece is left out, which the lengths
# then show.
_PIECE = re.compile(  # the most frequent pieces first: each branch tried costs
    r"""[{}\[\]:,]
    |[ \t\r\n\ufeff]+
    |"[^"\\]*(?:\\.[^"\\]*)*"
    |[A-Za-z_$][\w$]*
    |-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![\w.])
    |'[^'\\]*(?:\\.[^'\\]*)*'
    |//[^\n]*|/\*.*?\*/|\#[^\n]*
    |\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019
    |["'\u201c\u2018].*|/\*.*""",
    re.S | re.X,
)
# The last branch takes a string or comment never closed, and all that follows, as one
# piece: `findall` would otherwise retry every later quote, each scanning to the end
# (quadratic). Such a piece is the last one and is no closed string or comment, which
# `_CLOSED` tells.
_CLOSED = re.compile(
    r""""[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*'|/\*.*?\*/|//[^\n]*
    |\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019""",
    re.S | re.X,
)
# A run of pieces: `_run_end` finds where the longest run from the start ends, which is
# where the text holds something that is no piece. Tested before `findall`, which would
# go on over all the rest: a candidate of junk (the body of a tag around the answer)
# fails at its first character, not after a scan of it. Batches of pieces, not one
# unbounded repetition: `re` keeps a record of each repetition until the match ends
# (Python 3.10 has no possessive `*+`, which keeps none). Punctuation and whitespace
# next to each other are taken as one repetition: fewer records, 20% faster. Strings
# of more than 32 escapes (a record each) are taken as never closed, with all the rest:
# the lengths of the pieces `findall` cuts then tell whether the text holds junk.
_RUN = re.compile(
    rf"(?:[{{}}\[\]:, \t\r\n\ufeff]+|{_PIECE.pattern}){{0,1000}}".replace(
        ')*"', '){0,32}"'
    ).replace(")*'", "){0,32}'"),
    re.S | re.X,
)
_UNCLOSED_START = frozenset("\"'\u201c\u2018/")
_GAP = frozenset(" \t\r\n\ufeff/#")
_COMMENT_START = frozenset("/#")
_QUOTES = {'"': "dq", "'": "sq", "\u201c": "cq", "\u2018": "cq"}
_NUMBER_START = frozenset("-0123456789")
_WORDS = {"true": True, "false": False, "null": None}
_PYTHON = {"True": True, "False": False, "None": None}


def _number(token: str) -> int | float:
    """A number token: 1e400 is no JSON value, rejected rather than read as infinity."""
    number = number_literal(token)
    if number is None:
        raise _Broken(f"the number {_snippet(token)} is too large")
    return number


# `\'` in a double-quoted string, after an even number of backslashes: an apostrophe.
_APOSTROPHE = re.compile(r"(?<!\\)((?:\\\\)*)\\'")
# A string's escapes as written: a valid one (`\\'` too, an apostrophe where the reader
# repairs it), or (group 1) the first invalid one.
_ESCAPE = re.compile(r'\\(?:["\\/bfnrt\']|u[0-9a-fA-F]{4})|(\\.?)', re.S)


def _string(kind: str, token: str, repairs: list[str]) -> str:
    written = token
    if kind == "dq":
        if any(c in token for c in "\n\r\t"):
            repairs.append("kept raw line breaks or tabs inside a string")
        if "\\" not in token:
            return token[1:-1]  # nothing to unescape (raw control characters are kept)
        if "\\'" in token:
            unquoted = _APOSTROPHE.sub(r"\1'", token)
            if unquoted != token:
                repairs.append("read \\' in a double-quoted string as an apostrophe")
                token = unquoted
        return _decoded(token, written)
    if kind == "sq":
        repairs.append("read a single-quoted string")
        if "\\" not in token:
            # No escapes: what decoding it as a JSON string would give
            return token[1:-1]
        body = re.sub(r"\\'", "'", token[1:-1])
        body = re.sub(r'(?<!\\)"', '\\"', body)
        return _decoded(f'"{body}"', written)
    repairs.append("read a string in curly quotes")
    return token[1:-1]


def _decoded(token: str, written: str) -> str:
    """A double-quoted string's value (`token`, `written` once repaired); _Broken naming
    its first invalid escape, at its place in the string as written."""
    try:
        return str(_LOOSE.decode(token))
    except ValueError:
        bad = next((m for m in _ESCAPE.finditer(written) if m.group(1)), None)
        if bad is None:  # not an escape (no other fault is known to the decoder)
            raise _Broken("invalid string") from None
        fault = _Broken(f"invalid escape {bad.group(1)} in a string", _ESCAPES)
        fault.shift = bad.start()
        raise fault from None


_ESCAPES = 'a string allows \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX'


_VALUE, _KEY, _COLON, _SEP = 0, 1, 2, 3  # what the lenient reader expects next


def _path(stack: list[list[Any]]) -> tuple[Any, ...]:
    """Where the innermost open container sits: each parent's pending key, or the index
    its child will take."""
    return tuple(f[2] if f[1] else len(f[0]) for f in stack[:-1])


def _put(stack: list[list[Any]], value: Any) -> bool:
    """A finished value into the innermost open container; True for the top value."""
    if not stack:
        return True
    frame = stack[-1]
    if frame[1]:
        out, name = frame[0], frame[2]
        if name in out and not _same(out[name], value):
            fault = _Broken(
                f"the key {shown(name)} is given twice with different values"
            )
            fault.index = frame[3]  # at the second key
            raise fault
        out[name] = value
    else:
        frame[0].append(value)
    return False


def _key(piece: str, repairs: list[str]) -> str:
    first = piece[0]
    if first in _QUOTES:
        return _string(_QUOTES[first], piece, repairs)
    if (
        (first.isalpha() or first in "_$")
        and piece not in _WORDS
        and piece not in _PYTHON
    ):
        repairs.append(f"quoted the bare key {piece}")
        return piece
    if piece in ",:":
        raise _Broken(f"unexpected {_PUNCTUATION[piece]}")
    if piece in _CLOSERS:
        raise _Broken(f"mismatched bracket {piece}", "the open object needs }")
    raise _Broken(f"a key must be a string, not {_snippet(piece)}")


def _scalar(piece: str, repairs: list[str], stack: list[list[Any]]) -> Any:
    first = piece[0]
    if first in _QUOTES:
        return _string(_QUOTES[first], piece, repairs)
    if first in _NUMBER_START:
        return _number(piece)
    if piece in _WORDS:
        return _WORDS[piece]
    if piece in _PYTHON:
        repairs.append(f"read Python's {piece} as JSON")
        return _PYTHON[piece]
    raise _no_value(piece, stack)


_PUNCTUATION = {",": "comma", ":": "colon"}
_NOT_NUMBERS = frozenset(("NaN", "Infinity", "nan", "inf", "infinity"))


def _no_value(piece: str, stack: list[list[Any]]) -> _Broken:
    """What is wrong where a value should be."""
    if piece in _NOT_NUMBERS:
        return _Broken(f"{piece} is not a JSON number", "JSON has no NaN or Infinity")
    if piece == "," or (stack and piece == ("}" if stack[-1][1] else "]")):
        return _Broken("missing value")
    if piece == ":":
        return _Broken("unexpected colon")
    if piece in _CLOSERS:
        if not stack:
            return _Broken(f"unexpected character {shown(piece)}")
        return _mismatched(piece, stack[-1])
    return _Broken(f"bare word {_snippet(piece)}", "a string needs double quotes")


def _snippet(token: str) -> str:
    """A token as a message shows it: its first 40 characters."""
    return token if len(token) <= 40 else token[:40] + "\u2026"


def _offset(pieces: list[str], index: int) -> int:
    return sum(map(len, pieces[:index]))


def _unescaped_quote(pieces: list[str], index: int, loose: bool) -> _Broken | None:
    """A string followed right after its closing quote by anything but punctuation (or,
    `loose`, by a word or number on its line): that quote ended it early."""
    before = index - 1
    while before >= 0 and pieces[before][0] in _GAP and "\n" not in pieces[before]:
        before -= 1
    first = pieces[index][0]
    if before < 0 or pieces[before][0] not in _QUOTES or first in "{}[]:,":
        return None
    if before < index - 1 and (first in _QUOTES or not loose):  # `"a" "b"`: a comma
        return None
    fault = _Broken("unescaped quote inside a string", _QUOTE_HINT)
    fault.at = _offset(pieces, before + 1) - 1
    return fault


_QUOTE_HINT = 'write \\" for a quote inside a string'


def _after_value(pieces: list[str], index: int, frame: list[Any]) -> _Broken:
    """What is wrong after a value in an open container."""
    piece = pieces[index]
    if piece in _CLOSERS:
        return _mismatched(piece, frame)
    if piece == ":":
        return _Broken("unexpected colon")
    return _unescaped_quote(pieces, index, True) or _Broken("missing comma")


def _mismatched(closer: str, frame: list[Any]) -> _Broken:
    needs = "the open object needs }" if frame[1] else "the open list needs ]"
    return _Broken(f"mismatched bracket {closer}", needs)


def _after_key(pieces: list[str], index: int) -> _Broken:
    return _unescaped_quote(pieces, index, False) or _Broken(
        "missing colon after a key"
    )


# Text after a value read whole: no fault of the answer's, which is a candidate of its own
# (a raw span) and is judged as such.
_TRAILING = "text after the JSON value"


def _cut_off(stack: list[list[Any]], at: int) -> _Broken:
    """The text ends inside its innermost open container."""
    if not stack:
        return _Broken("")  # nothing but whitespace and comments: no JSON at all
    inside = "an object" if stack[-1][1] else "a list"
    return _Broken(f"the reply is cut off inside {inside}", at=at)


# What the text may have been cut short inside of: a proper start of true, false or null.
_WORD_STARTS = frozenset(w[:n] for w in _WORDS for n in range(1, len(w)))


def _cut_word(pieces: list[str], index: int, stack: list[list[Any]]) -> bool:
    """The piece `index`, where a value should be, is a proper start of true, false or
    null inside a container, and only blanks or comments follow it: cut off there."""
    return (
        bool(stack)
        and pieces[index] in _WORD_STARTS
        and all(piece[0] in _GAP for piece in pieces[index + 1 :])
    )


_NUMBER_PREFIX = re.compile(r"-|-?(?:0|[1-9][0-9]*)(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?")
# What a message shows of text that is no piece: a word, number or elision.
_JUNK = re.compile(r"[A-Za-z0-9_.+\-\u2026]+")


def _junk(text: str, at: int) -> _Broken:
    """What is wrong with the text at `at`, where no piece starts."""
    match = _JUNK.match(text, at)
    word = match.group() if match else text[at]
    elided = [i for i in (word.find("..."), word.find("\u2026")) if i >= 0]
    if elided:
        mark = "..." if word[min(elided) :].startswith("...") else "\u2026"
        return _Broken(
            f"elided content {mark}", "write out the whole value", at + min(elided)
        )
    if word.lstrip("+-") in _NOT_NUMBERS:
        return _Broken(
            f"{_snippet(word)} is not a JSON number", "JSON has no NaN or Infinity", at
        )
    if word[0] in "+-.0123456789":
        fault = _Broken(f"invalid number {_snippet(word)}", at=at)
        # `0.` or `-` at the text's end: a number cut short
        if at + len(word) == len(text) and _NUMBER_PREFIX.fullmatch(word):
            fault.cut = len(text)
        return fault
    return _Broken(f"unexpected character {shown(text[at])}", at=at)


def _pieces(text: str) -> tuple[list[str], _Broken | None]:
    """The pieces of `text` up to the first that is no piece or is a string or comment
    never closed, and what is wrong there (None: nothing)."""
    end = _run_end(text)
    pieces = _PIECE.findall(text, 0, end)
    if sum(map(len, pieces)) != end:  # `findall` skipped text that is no piece
        end = 0
        for count, piece in enumerate(pieces):
            if not text.startswith(piece, end):
                del pieces[count:]
                break
            end += len(piece)
    last = pieces[-1] if pieces else ""
    if last[:1] in _UNCLOSED_START and not _CLOSED.fullmatch(last):
        pieces.pop()
        at = end - len(last)
        if last[0] == "/":
            return pieces, _Broken("comment never closed", at=at)
        fault = _Broken("string never closed", at=at)
        fault.open_string = True
        return pieces, fault
    return pieces, (_junk(text, end) if end < len(text) else None)


def _close_open_maps(stack: list[list[Any]], truncated: list[tuple[Any, ...]]) -> Any:
    """The text ended right after a complete member: forced only if every open container
    is a map (checked against the schema later, by `_forced`). The top value."""
    while True:
        if not stack[-1][1]:
            raise _Broken("the reply is cut off inside a list")
        truncated.append(_path(stack))
        value = stack.pop()[0]
        if _put(stack, value):
            return value


def _run_end(text: str) -> int:
    """Where the longest run of pieces from the text's start ends."""
    pos = 0
    while pos < len(text):
        run = _RUN.match(text, pos)
        if run is None or run.end() == pos:
            break
        pos = run.end()
    return pos


def _lenient(text: str, depth: int) -> _Read:
    """Reads one value from `text`, repairing only what reply-policy.md allows; _Broken
    naming the first problem (and where) for anything else, _TooDeep for containers
    nested more than `depth` levels."""
    pieces, stop = _pieces(text)
    repairs: list[str] = []
    truncated: list[tuple[Any, ...]] = []
    try:
        value, comments = _read(pieces, stop, depth, repairs, truncated)
    except _TooDeep:
        raise
    except _Broken as fault:
        if fault.at < 0:
            index = fault.index if fault.index >= 0 else len(pieces)
            fault.at = _offset(pieces, index) + fault.shift
        raise
    if comments:
        repairs.insert(0, "removed comments")  # first, wherever the comment was
    if truncated:
        repairs.append("closed an object the reply left open")
    return _Read(value, repairs, truncated)


# One loop with an explicit stack, deliberately long: the reader is the hot part of
# parsing a messy reply (issue 5's 30 us budget), and a call per token costs a tenth of
# its time.
def _read(  # noqa: C901, PLR0912, PLR0915
    pieces: list[str],
    stop: _Broken | None,
    depth: int,
    repairs: list[str],
    truncated: list[tuple[Any, ...]],
) -> tuple[Any, bool]:
    """The reader's loop: the value and whether comments were removed. A _Broken raised
    without a position is at the piece `index` (or `fault.index`), which `_lenient`
    turns into an offset."""
    comments = newline = done = False
    # Open containers as [container, is_object, pending key, its piece]; a finished
    # value goes into the innermost one, or is the answer at the top.
    stack: list[list[Any]] = []
    state = _VALUE
    # May the next token close the container: 1 right after it opened, 2 after a comma
    closable = 0
    value: Any = None
    index = -1
    try:
        for index, piece in enumerate(pieces):
            first = piece[0]
            if first in _GAP:
                if first in _COMMENT_START:
                    comments = True
                if "\n" in piece:
                    newline = True
                continue
            after_line, newline = newline, False
            if done:  # after the answer: trailing commas only
                if piece != ",":
                    raise _Broken(_TRAILING)
                repairs.append("removed a trailing comma")
                continue
            finished = False
            if state == _SEP:
                frame = stack[-1]
                if piece == ("}" if frame[1] else "]"):
                    value, finished = stack.pop()[0], True
                elif piece == ",":
                    state, closable = (_KEY if frame[1] else _VALUE), 2
                    continue
                elif after_line:
                    repairs.append("added a missing comma between lines")
                    # The token after the missing comma is the next key or value.
                    state, closable = (_KEY if frame[1] else _VALUE), 0
                else:
                    raise _after_value(pieces, index, frame)
            if finished:
                pass
            elif closable and piece == ("}" if state == _KEY else "]"):
                if closable == 2:
                    repairs.append("removed a trailing comma")
                value, finished = stack.pop()[0], True
            elif state == _KEY:
                frame = stack[-1]
                frame[2], frame[3] = _key(piece, repairs), index
                state, closable = _COLON, 0
                continue
            elif state == _COLON:
                if piece != ":":
                    raise _after_key(pieces, index)
                state, closable = _VALUE, 0
                continue
            else:
                if piece in _OPENERS:
                    if len(stack) >= depth:
                        raise _TooDeep(depth_message(depth))
                    stack.append([{} if piece == "{" else [], piece == "{", None, 0])
                    state, closable = (_KEY if piece == "{" else _VALUE), 1
                    continue
                value = _scalar(piece, repairs, stack)
            done = _put(stack, value)
            state, closable = _SEP, 0
    except _Broken as fault:
        if fault.at < 0 and fault.index < 0:
            fault.index = index
        if state == _VALUE and stop is None and _cut_word(pieces, index, stack):
            raise _cut_off(stack, _offset(pieces, len(pieces))) from None
        raise
    if stop is not None:
        if done:
            raise _Broken(_TRAILING, at=stop.at)
        raise _cut_off(stack, stop.cut) if stop.cut >= 0 else stop
    if not done:
        end = _offset(pieces, len(pieces))
        if state != _SEP:
            raise _cut_off(stack, end)
        # `0.9` may be the start of `0.95`: not forced
        if pieces[-1][0] in _NUMBER_START:
            raise _cut_off(stack, end)
        value = _close_open_maps(stack, truncated)
    return value, comments


# Made once: json.loads with options builds a new decoder on every call.
_LOOSE = json.JSONDecoder(strict=False)
# An object whose first key is not a double-quoted string (a bare or single-quoted key,
# a comment) is no strict JSON: the lenient reader takes it without a failed strict
# attempt.
_NOT_STRICT = re.compile(r'[ \t\r\n]*\{[ \t\r\n]*[^ \t\r\n"}]')


def read_json(text: str, depth: int = LIMITS.depth) -> _Read:
    """Strict JSON when it is; otherwise the lenient reader with its repairs. Either way
    no list or map nested more than `depth` levels (_TooDeep)."""
    # A failed strict attempt costs a Python-built error
    if not _NOT_STRICT.match(text):
        try:
            value = strict_json(text)
        except (ValueError, RecursionError):
            pass
        else:
            if too_deep(value, depth):
                raise _TooDeep(depth_message(depth))
            return _Read(value, [], [])
    return _lenient(text, depth)


# ---- choosing the answer -------------------------------------------------------------


def _is_map(value: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(value, dict)


def _is_list(value: Any) -> TypeGuard[list[Any]]:
    return isinstance(value, list)


def _resolve(descriptor: Any, types: dict[str, Any]) -> Any:
    while descriptor[0] in ("ref", "opt"):
        descriptor = types[descriptor[1]] if descriptor[0] == "ref" else descriptor[1]
    return descriptor


def _at_path(
    descriptor: Any, value: Any, path: tuple[Any, ...], types: dict[str, Any]
) -> tuple[Any, Any]:
    for step in path:
        descriptor = _resolve(descriptor, types)
        if descriptor[0] == "map" and _is_map(value):
            folded = str(step).replace("-", "_")
            field_ = next((f for f in descriptor[1] if f[1] == folded), None)
            descriptor = field_[2] if field_ else ("any",)
            value = value.get(step)
        elif descriptor[0] == "list" and _is_list(value):
            descriptor, value = descriptor[1], value[step]
        else:
            return ("any",), None
    return _resolve(descriptor, types), value


def _forced(read: _Read, descriptor: Any, types: dict[str, Any]) -> bool:
    """Truncation is repaired only when nothing but closing braces could follow: every
    open container is a closed map that already has all of its fields."""
    for path in read.truncated:
        target, value = _at_path(descriptor, read.value, path, types)
        if target[0] != "map" or target[2] or not _is_map(value):
            return False
        present = {key.replace("-", "_") for key in value}
        if any(f[1] not in present for f in target[1]):
            return False
    return True


class _Search:
    def __init__(
        self,
        descriptor: Any,
        types: dict[str, Any],
        check: Any,
        limits: Limits | None,
        *,
        reply: str,
        body: str,
    ) -> None:
        self.descriptor = descriptor
        self.types = types
        # Called as check(descriptor, value, types, lenient=..., limits=...), it returns
        # (value, errors, repairs).
        self.check = check
        self.limits = limits
        self.depth = (limits or LIMITS).depth
        self.accepted: list[tuple[Any, list[tuple[str, str]]]] = []
        self.best: list[tuple[str, str]] | None = None
        self.parsed_any = False
        self.too_deep = False  # a candidate was JSON nested past the depth limit
        self.seen: set[str] = set()
        self.reply = reply
        self.body = body  # the reply without its reasoning, where candidates start
        self.parsed = -1  # the length of the longest candidate that was JSON
        # The candidate that looked like JSON and was not, the most explicit and then
        # the longest: its fault, its text and where it starts in the body.
        self.fault: tuple[_Broken, str, int] | None = None
        self.explicit = True  # are the candidates considered now explicit ones
        self.fault_explicit = False

    def judge(self, read: _Read, text: str, start: int) -> bool:
        """Judges the candidate read; False when it is no JSON after all (its fault is
        blamed)."""
        # Lenient mode changes nothing that is already valid (a union prefers an exact
        # member), so one lenient pass decides; the generated fast path runs inside
        # `check`.
        value, errors, repairs = self.check(
            self.descriptor, read.value, self.types, lenient=True, limits=self.limits
        )
        if errors and not read.repairs and text[:1] in _OPENERS:
            fault = _too_large(text, self.depth)
            if fault is not None:
                self.blamed(fault, text, start)
                return False
        if errors:
            value, errors, repairs = self._unwrapped(read.value, errors, repairs)
        if (
            not errors
            and read.truncated
            and not _forced(read, self.descriptor, self.types)
        ):
            where = self.where(text, start, len(text))
            errors = [
                (
                    "root",
                    f"the reply is cut off {where}, where more than closing braces "
                    "could follow",
                )
            ]
        if errors:
            if self.best is None or len(errors) < len(self.best):
                self.best = errors
            return True
        self.accepted.append((value, [("root", r) for r in read.repairs] + repairs))
        return True

    def _unwrapped(
        self, value: Any, errors: list[Any], repairs: list[Any]
    ) -> tuple[Any, ...]:
        """A top-level array given as an object with one key holding the array."""
        wants_list = _resolve(self.descriptor, self.types)[0] == "list"
        if not wants_list or not _is_map(value) or len(value) != 1:
            return value, errors, repairs
        ((key, inner),) = value.items()
        result, inner_errors, inner_repairs = self.check(
            self.descriptor, inner, self.types, lenient=True, limits=self.limits
        )
        if inner_errors:
            return value, errors, repairs
        return (
            result,
            [],
            [
                ("root", f"unwrapped the array from {{{shown(key)}: [...]}}"),
                *inner_repairs,
            ],
        )

    def consider(self, text: str, start: int) -> bool:
        """Judges the candidate `text` starting at `start` in the body; False when it
        is no JSON."""
        if text in self.seen:
            return True  # the same text as an earlier candidate: the same answer
        self.seen.add(text)
        try:
            read = read_json(text, self.depth)
        except _TooDeep:
            self.too_deep = True
            return False
        except _Broken as fault:
            if text[:1] in _OPENERS:
                self.blamed(fault, text, start)
            return False
        except (ValueError, RecursionError):
            return False
        if not self.judge(read, text, start):
            return False
        self.parsed_any = True
        self.parsed = max(self.parsed, len(text))
        return True

    def blame(self, text: str, start: int) -> None:
        """Reads the candidate `text`, which is no JSON, only for its fault: only when
        that fault would be the one named (a reply of a million wrong closers would
        otherwise be a million reads)."""
        if self.fault is not None and (
            self.fault_explicit or len(text) <= len(self.fault[1])
        ):
            return
        try:
            read_json(text, self.depth)
        except _Broken as fault:
            if type(fault) is _Broken:
                self.blamed(fault, text, start)
        except (ValueError, RecursionError):
            pass

    def blamed(self, fault: _Broken, text: str, start: int) -> None:
        # Text after a value read whole is no fault of the answer's, which is a
        # candidate of its own (a raw span) and is judged as such.
        if not fault.what or fault.what == _TRAILING:
            return
        if self.fault is None or (
            self.explicit == self.fault_explicit and len(text) > len(self.fault[1])
        ):
            self.fault, self.fault_explicit = (fault, text, start), self.explicit

    def where(self, text: str, start: int, at: int) -> str:
        """The offset `at` in the candidate `text` (at `start` in the body) as a line
        and column of the reply (a body without reasoning is found in the reply
        again)."""
        reply = self.reply
        if len(self.body) != len(reply):
            found = reply.rfind(text)
            start = found if found >= 0 else start
        pos = start + at
        line = reply.count("\n", 0, pos) + 1
        column = pos - reply.rfind("\n", 0, pos)
        return f"at line {line}, column {column}"

    def broken(self) -> str | None:
        """The fault of the longest candidate that looked like JSON and was not, when
        no candidate that was JSON is as long: most likely the answer, broken."""
        if self.fault is None or len(self.fault[1]) <= self.parsed:
            return None
        fault, text, start = self.fault
        what, hint, at = fault.what, fault.hint, fault.at
        if fault.open_string and not self.body[start + len(text) :].strip():
            what, at = "the reply is cut off inside a string", len(text)
        message = f"{what} {self.where(text, start, at)}"
        return f"{message} ({hint})" if hint else message


def _too_large(text: str, depth: int) -> _Broken | None:
    """What is wrong with strict JSON holding a number too large for a float, which the
    strict decoder reads as infinity (at full speed, so the clean path keeps it): the
    lenient reader's fault, naming the number and its place. Only for a reply that fails
    to validate."""
    try:
        finite_json(text)
    except ValueError:
        try:
            _lenient(text, depth)
        except _Broken as fault:
            return fault
    return None


def _whole_reply(
    text: str, descriptor: Any, types: dict[str, Any], check: Any, limits: Limits | None
) -> ParseResult | None:
    """The common case: the whole reply is strict JSON, valid as it stands. With a
    repair (a @fallback default, say) the lenient search decides, since a coercion may
    keep what the model meant."""
    value = whole_json(text)
    if value is NOT_JSON:
        return None
    result, errors, repairs = check(
        descriptor, value, types, lenient=False, limits=limits
    )
    return None if errors or repairs else ParseResult(result, repairs)


def parse_reply(
    text: str,
    descriptor: Any,
    types: dict[str, Any],
    check: Any,
    limits: Limits | None = None,
) -> ParseResult:
    """The one answer in `text` that fits `descriptor`, or ReplyError. See
    reply-policy.md. A reply past a limit (`Limits`: its size, its tags, its nesting) is
    a ReplyError naming the limit."""
    # Callers without a type checker may pass anything.
    if not isinstance(text, str) or not text.strip():  # pyright: ignore[reportUnnecessaryIsInstance]
        raise ReplyError("the reply is empty")
    bounds = limits or LIMITS
    if len(text) > bounds.reply_chars:
        limit = f"{bounds.reply_chars} characters (the reply-size limit)"
        raise ReplyError(f"the reply is longer than {limit}")
    whole = _whole_reply(text, descriptor, types, check, limits)
    if whole is not None:
        return whole
    if count_tags(text, bounds.tags) > bounds.tags:
        raise ReplyError(
            f"the reply holds more than {bounds.tags} tags (the tag limit)"
        )
    body = strip_reasoning(text)
    search = _Search(descriptor, types, check, limits, reply=text, body=body)
    # Characters parsed in all: keeps hostile replies linear
    budget = 8 * len(body) + 4096
    for candidate, start in _explicit(body, budget):
        budget -= len(candidate)
        search.consider(candidate, start)
    search.explicit = False
    _search_spans(search, body, budget)
    return _decide(search)


# A span that opens as JSON does (an opener, then a key, a value or its closer), is no
# JSON and is ended by a closer is the answer, broken: no smaller value inside it is the
# answer (the `[]` of a broken list of maps is not the list). Prose in brackets
# (`[note: {...}]`) opens otherwise, and a bracket never closed (`scores in [0, 1).`)
# ends nothing: the values inside them are still candidates.
_OPENS_AS_JSON = re.compile(
    r'\{[ \t\r\n]*["}]|\[[ \t\r\n]*(?:["{\[\]0-9-]|true|false|null)'
)


def _search_spans(search: _Search, body: str, budget: int) -> None:
    """Raw JSON anywhere in the body, outermost first, within the budget of characters
    read."""
    covered = -1
    for start, end, height, ended in nested_spans(body):
        if start < covered:
            continue
        broken_answer = ended and _OPENS_AS_JSON.match(body, start) is not None
        if height < 0:  # ended by a wrong closer: no JSON, but its fault may be named
            if -height <= search.depth and budget >= end - start:
                budget -= end - start
                search.blame(body[start:end], start)
            if broken_answer:
                covered = end
            continue
        if height > search.depth:  # not read: the reader would stop at the limit
            search.too_deep = True
            # Nor any span inside it: part of a value past the limit is no answer.
            covered = end
            continue
        budget -= end - start
        if budget < 0:
            break
        if search.consider(body[start:end].strip(), start) or broken_answer:
            covered = end


def _decide(search: _Search) -> ParseResult:
    if not search.accepted:
        if search.too_deep:  # most likely the answer, whatever smaller JSON it holds
            raise ReplyError(f"the reply's JSON is {depth_message(search.depth)}")
        broken = search.broken()
        if broken is not None:
            raise ReplyError(broken)
        if not search.parsed_any:
            raise ReplyError("no JSON found in the reply")
        raise ReplyError("the reply does not match the expected output", search.best)
    if len(search.accepted) > 1:
        answers = {
            json.dumps(value, sort_keys=True, ensure_ascii=False)
            for value, _ in search.accepted
        }
        if len(answers) > 1:
            raise ReplyError("the reply holds several different answers")
    return ParseResult(*search.accepted[0])
