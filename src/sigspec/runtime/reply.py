# Finding the answer in a raw LLM reply: candidates, a lenient
# JSON reader that repairs syntax only where the intent is unambiguous, and the rule that the
# candidate that validates wins while disagreeing candidates are rejected. Time is linear in
# the reply's length, and so is memory: candidates are spans of the reply, sliced only when
# read, and all candidates together read at most eight times the reply. Nothing is ever
# evaluated, and nothing recurses on the reply's nesting (the `json` module's decoder aside,
# which stops at the interpreter's limit: its RecursionError is a text that is no answer).
from __future__ import annotations

import json
import re

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
    from typing import Any


MAX_CANDIDATES = 64


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _finite(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError(f"{text} is too large for a JSON number")
    return number


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out and out[key] != value:
            raise ValueError(
                f"the key {shown(key)} is given twice with different values"
            )
        out[key] = value
    return out


# Made once: json.loads with options builds a new decoder on every call.
_STRICT = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)
# With a float hook the C decoder runs at half speed, so only the rarer paths use it (a number
# in a string, JSON in a string, the lenient reader): there an overflowing literal such as
# 1e400 is rejected instead of becoming infinity. A whole reply that is strict JSON is decoded
# at full speed and keeps Python's reading of it.
_FINITE = json.JSONDecoder(
    object_pairs_hook=_pairs, parse_constant=_no_constant, parse_float=_finite
)


def strict_json(text: str) -> Any:
    """json.loads, rejecting NaN and conflicting duplicate keys."""
    return _STRICT.decode(text)


def finite_json(text: str) -> Any:
    """strict_json, also rejecting numbers too large for a float."""
    return _FINITE.decode(text)


class _Broken(ValueError):
    pass


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


# ---- reasoning and candidates --------------------------------------------------------------

# Reasoning tags: an opener (group 1, no space allowed) or a closer (group 2).
_REASONING_TAG = re.compile(
    r"<(?:(think|thinking|reasoning)|/(think|thinking|reasoning)\s*)>", re.I
)
_LONE_THINK = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.I)
_REASONING_OPENER = re.compile(r"<(?:think|thinking|reasoning)>", re.I)
_TAG = re.compile(r"<(/?)([A-Za-z][\w.-]*)(?:\s[^<>]*)?>")
# A fence: its marker (group 1, possessive: a line of 10 MB of backticks and no newline would
# otherwise be retried at every shorter marker, quadratic), its body line by line (group 2),
# and the last line of a block the text ends inside (group 3).
_FENCE = re.compile(
    r"^[ \t]*(`{3,}+|~{3,}+)[^\n]*\n((?:[^\n]*+\n)*?)(?:[ \t]*\1[ \t]*$|([^\n]*)\Z)",
    re.M,
)
# The lookbehind after the first backtick, not before it: a pattern that starts with a literal
# is searched at C speed.
_CODE = re.compile(r"`(?<!``)([^`\n]+)`(?!`)")
# A whole reply that is a JSON number or boolean (no `null`: the policy rejects it; no bare
# words), the natural answer when the output is a scalar.
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false")
# Outside brackets: the text up to the next opener, then a whole bracket pair with no bracket
# or quote inside (group 1: most spans, taken in one step) or else the opener alone (group 2).
_OUTSIDE = re.compile(r"[^{\[]*+(?:(\{[^{}\[\]\"']*+\}|\[[^{}\[\]\"']*+\])|([{\[]))")
_OPENERS = frozenset("{[")  # also the lenient reader's
_OPENER_RUN = re.compile(r"[{\[]*")
_CLOSER_RUN = re.compile(r"[}\]]+")
_CLOSERS = frozenset("}]")
_DQ_STRING = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
_SQ_STRING = r"'[^'\\\n]*+(?:\\[^\n][^'\\\n]*+)*+'"
_DQ_AT = re.compile(_DQ_STRING, re.S)


def _inside(dq: bool, sq: bool) -> re.Pattern[str]:
    """Inside brackets: all up to the next bracket (group 1) in one match, whole strings
    skipped, so a 10 MB list of strings is one C-speed match, not a Python step per string.
    A quote matched alone opens no string, and then no later quote of its kind can (up to
    the line's end for single quotes): the patterns without that kind keep the scan linear,
    where retrying every quote was quadratic. While single quotes are out, the match stops
    at a line break (which brings them back) and at a double quote (whose string may run
    past the line break: `raw_spans` takes it)."""
    quotes = ('"' if dq else "") + ("'" if sq else "")
    if not sq:
        stops = "{}\\[\\]\\n" + quotes
        return re.compile(f"[^{stops}]*+([{stops}])")
    stops = "{}\\[\\]" + quotes
    strings = [s for s, alive in ((_DQ_STRING, dq), (_SQ_STRING, sq)) if alive]
    return re.compile(
        "(?:" + "|".join([f"[^{stops}]++", *strings]) + f")*+([{stops}])", re.S
    )


_INSIDE = {(dq, sq): _inside(dq, sq) for dq in (True, False) for sq in (True, False)}
_STOPS = frozenset("\"'\n")  # what may stop the scan inside brackets, besides a bracket


def strip_reasoning(text: str) -> str:
    """The reply without its reasoning: closed blocks, all before a lone closer, and all from
    an opener never closed (a reply cut off while reasoning: a draft there is no answer)."""
    if (
        "</" in text
    ):  # blocks and lone closers need a closing tag; most replies have none
        text = _without_reasoning_blocks(text)
        ends = [m.end() for m in _LONE_THINK.finditer(text)] if "</" in text else []
        text = text[ends[-1] :] if ends else text
    opener = _REASONING_OPENER.search(text) if "<" in text else None
    return text[: opener.start()] if opener else text


def _without_reasoning_blocks(text: str) -> str:
    """The text without its `<think>...</think>` blocks (any of the three names, either case;
    each closed by the next closer of its name), leftmost first: what substituting the lazy
    `<(name)>.*?</name>` would give, but linear: that pattern scanned to the end of the text
    for every opener no closer follows (`<think></x>` repeated took 30 s for 220 KB)."""
    openers: list[tuple[int, int, str]] = []
    closers: dict[str, list[tuple[int, int]]] = {}
    for match in _REASONING_TAG.finditer(text):
        if match.group(1):
            openers.append((match.start(), match.end(), match.group(1).lower()))
        else:
            closers.setdefault(match.group(2).lower(), []).append(match.span())
    kept: list[str] = []
    pos = 0
    # Each name's first closer not yet passed: openers come in order, so it only moves on.
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
    """Every balanced `{...}`/`[...]` span (strings inside brackets skipped), and an unclosed
    outermost one to the end of the text. One pass: outside brackets one match takes a flat
    pair whole or finds the next opener; inside, one match takes all up to the next bracket."""
    return [(start, end) for start, end, _ in nested_spans(text)]


def nested_spans(text: str) -> list[tuple[int, int, int]]:
    """`raw_spans`, each with how deep brackets nest in it (a flat pair: 1), so that a span
    past the depth limit is known without reading it (nested brackets: each span inside
    another, each read to the limit, was a read of most of the text each)."""
    # [where it opens, the bracket, the deepest nesting found inside so far]
    stack: list[list[Any]] = []
    spans: list[tuple[int, int, int]] = []
    pos = 0
    dq = True  # may a double quote still open a string
    sq_dead_to = -1  # single quotes open no string before this position (a line's end)
    while True:
        if not stack:
            match = _OUTSIDE.match(text, pos)
            if match is None:
                break
            pos = match.end()
            if match.group(1) is not None:  # a flat pair: a span of its own
                spans.append((*match.span(1), 1))
                continue
            at = match.start(2)
        else:
            match = _INSIDE[dq, pos >= sq_dead_to].match(text, pos)
            if match is None:
                break
            at = match.start(1)
            pos = match.end()
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
            pos = _close(text, at, stack, spans)
    if stack:
        spans.append((stack[0][0], len(text), _open_height(stack)))
    spans.sort()
    return spans


def _close(
    text: str, at: int, stack: list[list[Any]], spans: list[tuple[int, int, int]]
) -> int:
    """The closer at `at` and those right after it, while brackets stay open: each closes its
    opener's span, or, closing none, ends the brackets (what came before is not JSON). Where
    the scan goes on."""
    end = (
        _CLOSER_RUN.match(text, at).end()  # type: ignore[union-attr]  # one closer at least
        if text[at + 1 : at + 2] in _CLOSERS
        else at + 1
    )
    for index in range(at, end):
        start, opener, height = stack[-1]
        if opener != ("{" if text[index] == "}" else "["):
            stack.clear()
            return index + 1
        stack.pop()
        spans.append((start, index + 1, height))
        if not stack:
            return index + 1
        if stack[-1][2] <= height:
            stack[-1][2] = height + 1
    return end


def _open_height(stack: list[list[Any]]) -> int:
    """How deep brackets nest in the outermost bracket never closed: each open bracket holds
    the ones above it."""
    height = 0
    for entry in reversed(stack):
        height = max(height + 1, entry[2])
    return height


def _quote_stop(
    text: str, at: int, pos: int, dq: bool, sq_dead_to: int
) -> tuple[bool, int, int]:
    """The bracket scan stopped at a quote or a line break (rare: see `_inside`). Returns the
    new quote state and where the scan goes on."""
    char = text[at]
    if char == "'":  # opens no string: no single quote can before the line's end
        line_end = text.find("\n", at)
        return dq, len(text) if line_end < 0 else line_end, pos
    if char == '"' and at < sq_dead_to:  # single quotes out: a string is taken here
        string = _DQ_AT.match(text, at)
        if string is not None:
            return dq, sq_dead_to, string.end()
    # A double quote that opens no string, or the line break that brings single quotes back.
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
    """Where each tag's body lies, by where it starts: spans, not strings, since the bodies of
    nested tags overlap (a body apiece was quadratic in memory)."""
    if "</" not in text:  # a body needs a closing tag
        return []
    open_at: dict[str, list[int]] = {}
    spans: list[tuple[int, int]] = []
    # One `groups()` and one dict lookup a tag: a 10 MB reply holds a million tags or more.
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


def _fenced(text: str) -> list[str]:
    """The bodies of fenced blocks (most replies have none: two C searches say so)."""
    if "```" not in text and "~~~" not in text:
        return []
    return [m.group(2) + (m.group(3) or "") for m in _FENCE.finditer(text)]


def _all_candidates(text: str) -> Iterator[str]:
    """Every explicit candidate in order, each sliced only when asked for."""
    yield from _fenced(
        text
    )  # fenced blocks never overlap: all of them are at most the text
    for start, end in _tag_spans(text):
        yield text[start:end]
    if "`" in text:
        for match in _CODE.finditer(text):
            yield match.group(1)
    stripped = text.strip()
    if stripped.startswith('"') or _SCALAR.fullmatch(stripped):
        yield stripped


def explicit_candidates(text: str, budget: int | None = None) -> list[str]:
    """Fenced blocks, tag contents, inline code spans, a whole reply that is a JSON string,
    number or boolean (the answer to a signature whose output is a scalar): most explicit
    first, duplicates removed, at most MAX_CANDIDATES of them and, with a `budget`, no more
    characters in all than it (the bodies of nested tags overlap: all of them are quadratic
    in the reply's length). Raw JSON anywhere in the text comes after, in `parse_reply`."""
    seen: set[str] = set()
    unique: list[str] = []
    for candidate in _all_candidates(text):
        if budget is not None:
            budget -= len(candidate)
            if budget < 0:
                break
        key = candidate.strip()
        if key and key not in seen:
            seen.add(key)
            unique.append(key)
            if len(unique) == MAX_CANDIDATES:
                break
    return unique


# ---- the lenient reader -------------------------------------------------------------------

# The pieces of a candidate: whitespace, comments and tokens. One C-driven `findall` cuts the
# whole text; pieces are told apart by their first character (their first characters never
# overlap), and text that is no piece is left out, which the lengths then show.
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
# The last branch takes a string or comment never closed, and all that follows, as one piece:
# `findall` would otherwise retry every later quote, each scanning to the end (quadratic). Such
# a piece is the last one and is no closed string or comment, which `_CLOSED` tells.
_CLOSED = re.compile(
    r""""[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*'|/\*.*?\*/|//[^\n]*
    |\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019""",
    re.S | re.X,
)
# The longest run of pieces from the start: where it ends, the text holds something that is no
# piece. Tested before `findall`, which would go on over all the rest: a candidate of junk
# (the body of a tag around the answer) fails at its first character, not after a scan of it.
_RUN = re.compile(f"(?:{_PIECE.pattern})*+", re.S | re.X)
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
        raise _Broken(f"{token} is too large for a JSON number")
    return number


def _string(kind: str, token: str, repairs: list[str]) -> str:
    if kind == "dq":
        if any(c in token for c in "\n\r\t"):
            repairs.append("kept raw line breaks or tabs inside a string")
        if "\\" not in token:
            return token[1:-1]  # nothing to unescape (raw control characters are kept)
        return str(_LOOSE.decode(token))
    if kind == "sq":
        repairs.append("read a single-quoted string")
        if "\\" not in token:
            return token[
                1:-1
            ]  # no escapes: what decoding it as a JSON string would give
        body = re.sub(r"\\'", "'", token[1:-1])
        body = re.sub(r'(?<!\\)"', '\\"', body)
        return str(_LOOSE.decode(f'"{body}"'))
    repairs.append("read a string in curly quotes")
    return token[1:-1]


_VALUE, _KEY, _COLON, _SEP = 0, 1, 2, 3  # what the lenient reader expects next


def _path(stack: list[list[Any]]) -> tuple[Any, ...]:
    """Where the innermost open container sits: each parent's pending key, or the index its
    child will take."""
    return tuple(f[2] if f[1] else len(f[0]) for f in stack[:-1])


def _put(stack: list[list[Any]], value: Any) -> bool:
    """A finished value into the innermost open container; True when it was the top value."""
    if not stack:
        return True
    frame = stack[-1]
    if frame[1]:
        out, name = frame[0], frame[2]
        if name in out and out[name] != value:
            raise _Broken(f"the key {shown(name)} is given twice with different values")
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
    raise _Broken(f"expected a key, got {shown(piece)}")


def _scalar(piece: str, repairs: list[str]) -> Any:
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
    raise _Broken(f"unexpected {shown(piece)}")


def _close_open_maps(stack: list[list[Any]], truncated: list[tuple[Any, ...]]) -> Any:
    """The text ended right after a complete member: forced only if every open container is
    a map (checked against the schema later, by `_forced`). The top value."""
    while True:
        if not stack[-1][1]:
            raise _Broken("the text ends inside a list")
        truncated.append(_path(stack))
        value = stack.pop()[0]
        if _put(stack, value):
            return value


# One loop with an explicit stack, deliberately long: the reader is the hot part of parsing a
# messy reply (issue 5's 30 us budget), and a call per token costs a tenth of its time.
def _lenient(text: str, depth: int) -> _Read:  # noqa: C901, PLR0912, PLR0915
    """Reads one value from `text`, repairing only what reply-policy.md allows; _Broken for
    anything else, _TooDeep for containers nested more than `depth` levels."""
    if _RUN.match(text).end() != len(text):  # type: ignore[union-attr]  # `*` always matches
        raise _Broken("the text holds something that is no JSON")
    pieces = _PIECE.findall(text)
    if (
        pieces
        and pieces[-1][0] in _UNCLOSED_START
        and not _CLOSED.fullmatch(pieces[-1])
    ):
        raise _Broken("a string or comment is never closed")
    repairs: list[str] = []
    truncated: list[tuple[Any, ...]] = []
    comments = newline = done = False
    # Open containers as [container, is_object, pending key]; a finished value goes into the
    # innermost one, or is the answer at the top.
    stack: list[list[Any]] = []
    state = _VALUE
    closable = 0  # may the next token close the container: 1 right after it opened, 2 after a comma
    value: Any = None
    for piece in pieces:
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
                raise _Broken(f"unexpected {shown(piece)} after the value")
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
                state, closable = (
                    (_KEY if frame[1] else _VALUE),
                    0,
                )  # and this token is that
            else:
                raise _Broken(f"expected ',' or a closer, got {shown(piece)}")
        if finished:
            pass
        elif closable and piece == ("}" if state == _KEY else "]"):
            if closable == 2:
                repairs.append("removed a trailing comma")
            value, finished = stack.pop()[0], True
        elif state == _KEY:
            stack[-1][2] = _key(piece, repairs)
            state, closable = _COLON, 0
            continue
        elif state == _COLON:
            if piece != ":":
                raise _Broken(f"expected ':' after a key, got {shown(piece)}")
            state, closable = _VALUE, 0
            continue
        else:
            if piece in _OPENERS:
                if len(stack) >= depth:
                    raise _TooDeep(depth_message(depth))
                stack.append([{} if piece == "{" else [], piece == "{", None])
                state, closable = (_KEY if piece == "{" else _VALUE), 1
                continue
            value = _scalar(piece, repairs)
        done = _put(stack, value)
        state, closable = _SEP, 0
    if not done:
        if state != _SEP:
            raise _Broken("the text ends too early")
        if (
            pieces[-1][0] in _NUMBER_START
        ):  # `0.9` may be the start of `0.95`: not forced
            raise _Broken("the text ends in a number, which may be cut short")
        value = _close_open_maps(stack, truncated)
    if comments:
        repairs.insert(0, "removed comments")  # first, wherever the comment was
    if truncated:
        repairs.append("closed an object the reply left open")
    return _Read(value, repairs, truncated)


# Made once: json.loads with options builds a new decoder on every call.
_LOOSE = json.JSONDecoder(strict=False)
# An object whose first key is not a double-quoted string (a bare or single-quoted key, a
# comment) is no strict JSON: the lenient reader takes it without a failed strict attempt.
_NOT_STRICT = re.compile(r'[ \t\r\n]*\{[ \t\r\n]*[^ \t\r\n"}]')


def read_json(text: str, depth: int = LIMITS.depth) -> _Read:
    """Strict JSON when it is; otherwise the lenient reader with its repairs. Either way no
    list or map nested more than `depth` levels (_TooDeep)."""
    if not _NOT_STRICT.match(
        text
    ):  # a failed strict attempt costs a Python-built error
        try:
            value = strict_json(text)
        except (ValueError, RecursionError):
            pass
        else:
            if too_deep(value, depth):
                raise _TooDeep(depth_message(depth))
            return _Read(value, [], [])
    return _lenient(text, depth)


# ---- choosing the answer -------------------------------------------------------------------


def _resolve(descriptor: Any, types: dict[str, Any]) -> Any:
    while descriptor[0] in ("ref", "opt"):
        descriptor = types[descriptor[1]] if descriptor[0] == "ref" else descriptor[1]
    return descriptor


def _at_path(
    descriptor: Any, value: Any, path: tuple[Any, ...], types: dict[str, Any]
) -> tuple[Any, Any]:
    for step in path:
        descriptor = _resolve(descriptor, types)
        if descriptor[0] == "map" and isinstance(value, dict):
            folded = str(step).replace("-", "_")
            field_ = next((f for f in descriptor[1] if f[1] == folded), None)
            descriptor = field_[2] if field_ else ("any",)
            value = value.get(step)
        elif descriptor[0] == "list" and isinstance(value, list):
            descriptor, value = descriptor[1], value[step]
        else:
            return ("any",), None
    return _resolve(descriptor, types), value


def _forced(read: _Read, descriptor: Any, types: dict[str, Any]) -> bool:
    """Truncation is repaired only when nothing but closing braces could follow: every open
    container is a closed map that already has all of its fields."""
    for path in read.truncated:
        target, value = _at_path(descriptor, read.value, path, types)
        if target[0] != "map" or target[2] or not isinstance(value, dict):
            return False
        present = {key.replace("-", "_") for key in value}
        if any(f[1] not in present for f in target[1]):
            return False
    return True


class _Search:
    def __init__(
        self, descriptor: Any, types: dict[str, Any], check: Any, limits: Limits | None
    ) -> None:
        self.descriptor = descriptor
        self.types = types
        # check(descriptor, value, types, lenient=..., limits=...) -> (value, errors, repairs)
        self.check = check
        self.limits = limits
        self.depth = (limits or LIMITS).depth
        self.accepted: list[tuple[Any, list[tuple[str, str]]]] = []
        self.best: list[tuple[str, str]] | None = None
        self.parsed_any = False
        self.too_deep = False  # a candidate was JSON nested past the depth limit
        self.seen: set[str] = set()

    def judge(self, read: _Read) -> None:
        # Lenient mode changes nothing that is already valid (a union prefers an exact
        # member), so one lenient pass decides; the generated fast path runs inside `check`.
        value, errors, repairs = self.check(
            self.descriptor, read.value, self.types, lenient=True, limits=self.limits
        )
        if errors:
            value, errors, repairs = self._unwrapped(read.value, errors, repairs)
        if (
            not errors
            and read.truncated
            and not _forced(read, self.descriptor, self.types)
        ):
            errors = [
                (
                    "root",
                    "the reply is cut off where more than closing braces could follow",
                )
            ]
        if errors:
            if self.best is None or len(errors) < len(self.best):
                self.best = errors
            return
        self.accepted.append((value, [("root", r) for r in read.repairs] + repairs))

    def _unwrapped(
        self, value: Any, errors: list[Any], repairs: list[Any]
    ) -> tuple[Any, ...]:
        """A top-level array given as an object with one key holding the array."""
        if (
            _resolve(self.descriptor, self.types)[0] != "list"
            or not isinstance(value, dict)
            or len(value) != 1
        ):
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

    def consider(self, text: str) -> bool:
        if text in self.seen:
            return True  # the same text as an earlier candidate: the same answer
        self.seen.add(text)
        try:
            read = read_json(text, self.depth)
        except _TooDeep:
            self.too_deep = True
            return False
        except (_Broken, ValueError, RecursionError):
            return False
        self.parsed_any = True
        self.judge(read)
        return True


def _whole_reply(
    text: str, descriptor: Any, types: dict[str, Any], check: Any, limits: Limits | None
) -> ParseResult | None:
    """The common case: the whole reply is strict JSON, valid as it stands. With a repair (a
    @fallback default, say) the lenient search decides, since a coercion may keep what the
    model meant."""
    stripped = text.strip().lstrip("\ufeff").strip()
    if stripped[:1] not in ("{", "["):
        return None
    try:
        value = strict_json(stripped)
    except (ValueError, RecursionError):
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
    """The one answer in `text` that fits `descriptor`, or ReplyError. See reply-policy.md.
    A reply past a limit (`Limits`: its size, its tags, its nesting) is a ReplyError naming
    the limit."""
    if not isinstance(text, str) or not text.strip():
        raise ReplyError("the reply is empty")
    bounds = limits or LIMITS
    if len(text) > bounds.reply_chars:
        raise ReplyError(
            f"the reply is longer than {bounds.reply_chars} characters (the reply-size limit)"
        )
    whole = _whole_reply(text, descriptor, types, check, limits)
    if whole is not None:
        return whole
    if count_tags(text, bounds.tags) > bounds.tags:
        raise ReplyError(
            f"the reply holds more than {bounds.tags} tags (the tag limit)"
        )
    search = _Search(descriptor, types, check, limits)
    body = strip_reasoning(text)
    budget = (
        8 * len(body) + 4096
    )  # characters parsed in all: keeps hostile replies linear
    for candidate in explicit_candidates(body, budget):
        budget -= len(candidate)
        search.consider(candidate)
    covered = -1
    for start, end, height in nested_spans(body):
        if start < covered:
            continue
        if height > search.depth:  # not read: the reader would stop at the limit
            search.too_deep = True
            covered = end  # nor any span inside it: part of a value past the limit is no answer
            continue
        budget -= end - start
        if budget < 0:
            break
        if search.consider(body[start:end].strip()):
            covered = end
    return _decide(search)


def _decide(search: _Search) -> ParseResult:
    if not search.accepted:
        if search.too_deep:  # most likely the answer, whatever smaller JSON it holds
            raise ReplyError(f"the reply's JSON is {depth_message(search.depth)}")
        if not search.parsed_any:
            raise ReplyError("no JSON found in the reply")
        raise ReplyError("the reply does not match the expected output", search.best)
    if (
        len(search.accepted) > 1
        and len(
            {
                json.dumps(v, sort_keys=True, ensure_ascii=False)
                for v, _ in search.accepted
            }
        )
        > 1
    ):
        raise ReplyError("the reply holds several different answers")
    return ParseResult(*search.accepted[0])
