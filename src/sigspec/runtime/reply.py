# Finding the answer in a raw LLM reply (reference/reply-policy.md): candidates, a lenient
# JSON reader that repairs syntax only where the intent is unambiguous, and the rule that the
# candidate that validates wins while disagreeing candidates are rejected. Time is linear in
# the reply's length; nothing is ever evaluated.
from __future__ import annotations

import json
import re

from sigspec.runtime.validate import (  # generated: from ._runtime
    ParseResult,
    ReplyError,
    number_literal,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


MAX_DEPTH = 256
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
            raise ValueError(f"the key {key!r} is given twice with different values")
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


class _Read:
    __slots__ = ("repairs", "truncated", "value")

    def __init__(self, value: Any, repairs: list[str], truncated: list[tuple[Any, ...]]) -> None:
        self.value = value
        self.repairs = repairs
        self.truncated = truncated  # paths of objects the text ended inside


# ---- reasoning and candidates --------------------------------------------------------------

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1\s*>", re.S | re.I)
_LONE_THINK = re.compile(r"</(?:think|thinking|reasoning)\s*>", re.I)
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.S | re.M)
_TAG = re.compile(r"<(/?)([A-Za-z][\w.-]*)(?:\s[^<>]*)?>")
_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
# Unrolled (`[^"\\]*` runs at C speed): a 10 MB string is one quick match, not 10M steps.
_STRING_AT = {
    '"': re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S),
    "'": re.compile(r"'[^'\\\n]*(?:\\.[^'\\\n]*)*'"),
}
_BRACKETS = re.compile(r"[{}\[\]\"']")


def strip_reasoning(text: str) -> str:
    text = _THINK.sub("", text)
    ends = [m.end() for m in _LONE_THINK.finditer(text)]
    return text[ends[-1] :] if ends else text


def raw_spans(text: str) -> list[tuple[int, int]]:
    """Every balanced `{...}`/`[...]` span (strings inside brackets skipped), and an unclosed
    outermost one to the end of the text. One pass."""
    stack: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        match = _BRACKETS.search(text, pos)
        if match is None:
            break
        char, pos = match.group(), match.end()
        if char in "\"'":
            if stack:
                string = _STRING_AT[char].match(text, match.start())
                if string is not None:
                    pos = string.end()
            continue
        if char in "{[":
            stack.append((match.start(), char))
        elif stack and stack[-1][1] == ("{" if char == "}" else "["):
            start, _ = stack.pop()
            spans.append((start, pos))
        else:
            stack.clear()  # a closer that opens nothing: what came before is not JSON
    if stack:
        spans.append((stack[0][0], len(text)))
    spans.sort()
    return spans


def _tag_bodies(text: str) -> list[str]:
    open_at: dict[str, list[int]] = {}
    bodies: list[tuple[int, str]] = []
    for match in _TAG.finditer(text):
        name = match.group(2).lower()
        if not match.group(1):
            open_at.setdefault(name, []).append(match.end())
        elif open_at.get(name):
            start = open_at[name].pop()
            bodies.append((start, text[start : match.start()]))
    return [body for _, body in sorted(bodies)]


def explicit_candidates(text: str) -> list[str]:
    """Fenced blocks, tag contents, inline code spans, a whole quoted reply: most explicit
    first, duplicates removed. Raw JSON anywhere in the text comes after, in `parse_reply`."""
    found: list[str] = [m.group(2) for m in _FENCE.finditer(text)]
    found += _tag_bodies(text)
    found += [m.group(1) for m in _CODE.finditer(text)]
    stripped = text.strip()
    if stripped.startswith('"'):
        found.append(stripped)
    seen: set[str] = set()
    unique = []
    for candidate in found:
        key = candidate.strip()
        if key and key not in seen:
            seen.add(key)
            unique.append(key)
    return unique[:MAX_CANDIDATES]


# ---- the lenient reader -------------------------------------------------------------------

# Whitespace and comments (group 1), then one token (its group names its kind) or the end
# of the text. The reader pulls one match per token (no token list): a short messy reply is
# a dozen C-driven matches.
_TOKEN = re.compile(
    r"""((?:[ \t\r\n\ufeff]+|//[^\n]*|/\*.*?\*/|\#[^\n]*)*)
    (?:("[^"\\]*(?:\\.[^"\\]*)*")
    |('[^'\\]*(?:\\.[^'\\]*)*')
    |(\u201c[^\u201d]*\u201d|\u2018[^\u2019]*\u2019)
    |(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?![\w.])
    |([A-Za-z_$][\w$]*)
    |([{}\[\]:,])
    |(\Z))""",
    re.S | re.X,
)
_KINDS = ("", "", "dq", "sq", "cq", "num", "word", "punct", "end")  # by group number
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
            return token[1:-1]  # no escapes: what decoding it as a JSON string would give
        body = re.sub(r"\\'", "'", token[1:-1])
        body = re.sub(r'(?<!\\)"', '\\"', body)
        return str(_LOOSE.decode(f'"{body}"'))
    repairs.append("read a string in curly quotes")
    return token[1:-1]


class _Reader:
    """Reads one value from `text`, pulling (kind, text, newline before) tokens; anything
    that is no token is broken."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.end = 0  # where the next gap starts
        self.repairs: list[str] = []
        self.truncated: list[tuple[Any, ...]] = []
        self.ahead = self._lex()

    def _lex(self) -> tuple[str, str, bool] | None:
        match = _TOKEN.match(self.text, self.end)
        if match is None:
            raise _Broken(f"unexpected text after {self.text[max(0, self.end - 12) : self.end]!r}")
        self.end = match.end()
        gap = match.group(1)
        if gap and ("/" in gap or "#" in gap) and "removed comments" not in self.repairs:
            self.repairs.insert(0, "removed comments")  # first, wherever the comment was
        kind = match.lastindex or 0
        if kind == 8:  # the end of the text
            return None
        return _KINDS[kind], match.group(kind), "\n" in gap

    def peek(self) -> tuple[str, str, bool] | None:
        return self.ahead

    def take(self) -> tuple[str, str, bool]:
        token = self.ahead
        if token is None:
            raise _Broken("the text ends too early")
        self.ahead = self._lex()
        return token

    def skip(self) -> None:
        """Past the token `peek` showed."""
        self.ahead = self._lex()

    def value(self, path: tuple[Any, ...], depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise _Broken("nested too deeply")
        kind, text, _ = self.take()
        if kind == "punct" and text == "{":
            return self.object(path, depth)
        if kind == "punct" and text == "[":
            return self.array(path, depth)
        if kind in ("dq", "sq", "cq"):
            return _string(kind, text, self.repairs)
        if kind == "num":
            return _number(text)
        if kind == "word" and text in _WORDS:
            return _WORDS[text]
        if kind == "word" and text in _PYTHON:
            self.repairs.append(f"read Python's {text} as JSON")
            return _PYTHON[text]
        raise _Broken(f"unexpected {text!r}")

    def key(self) -> str:
        kind, text, _ = self.take()
        if kind in ("dq", "sq", "cq"):
            return _string(kind, text, self.repairs)
        if kind == "word" and text not in _WORDS and text not in _PYTHON:
            self.repairs.append(f"quoted the bare key {text}")
            return text
        raise _Broken(f"expected a key, got {text!r}")

    def separator(self, close: str, path: tuple[Any, ...], is_object: bool) -> bool:
        """After a member: True when the container closes. Handles the repairs around commas."""
        token = self.peek()
        if token is None:
            if is_object:  # the text ends right after a complete member of an object
                self.truncated.append(path)
                return True
            raise _Broken("the text ends inside a list")
        kind, text, newline = token
        if kind == "punct" and text == close:
            self.skip()
            return True
        if kind == "punct" and text == ",":
            self.skip()
            after = self.peek()
            if after is not None and after[0] == "punct" and after[1] == close:
                self.repairs.append("removed a trailing comma")
                self.skip()
                return True
            return False
        if newline:
            self.repairs.append("added a missing comma between lines")
            return False
        raise _Broken(f"expected ',' or {close!r}, got {text!r}")

    def object(self, path: tuple[Any, ...], depth: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        token = self.peek()
        if token is not None and token[0] == "punct" and token[1] == "}":
            self.skip()
            return out
        while True:
            name = self.key()
            colon = self.take()
            if colon[1] != ":":
                raise _Broken(f"expected ':' after a key, got {colon[1]!r}")
            item = self.value((*path, name), depth + 1)
            if name in out and out[name] != item:
                raise _Broken(f"the key {name!r} is given twice with different values")
            out[name] = item
            if self.separator("}", path, True):
                return out

    def array(self, path: tuple[Any, ...], depth: int) -> list[Any]:
        out: list[Any] = []
        token = self.peek()
        if token is not None and token[0] == "punct" and token[1] == "]":
            self.skip()
            return out
        while True:
            out.append(self.value((*path, len(out)), depth + 1))
            if self.separator("]", path, False):
                return out


# Made once: json.loads with options builds a new decoder on every call.
_LOOSE = json.JSONDecoder(strict=False)


def read_json(text: str) -> _Read:
    """Strict JSON when it is; otherwise the lenient reader with its repairs."""
    try:
        return _Read(strict_json(text), [], [])
    except (ValueError, RecursionError):
        pass
    reader = _Reader(text)
    value = reader.value((), 0)
    while True:
        token = reader.peek()
        if token is None:
            break
        if token[0] == "punct" and token[1] == ",":
            reader.repairs.append("removed a trailing comma")
            reader.skip()
            continue
        raise _Broken(f"unexpected {token[1]!r} after the value")
    if reader.truncated:
        reader.repairs.append("closed an object the reply left open")
    return _Read(value, reader.repairs, reader.truncated)


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
    def __init__(self, descriptor: Any, types: dict[str, Any], check: Any) -> None:
        self.descriptor = descriptor
        self.types = types
        self.check = check  # check(descriptor, value, types, lenient=...) -> (value, errs, reps)
        self.accepted: list[tuple[Any, list[tuple[str, str]]]] = []
        self.best: list[tuple[str, str]] | None = None
        self.parsed_any = False
        self.seen: set[str] = set()

    def judge(self, read: _Read) -> None:
        # Lenient mode changes nothing that is already valid (a union prefers an exact
        # member), so one lenient pass decides; the generated fast path runs inside `check`.
        value, errors, repairs = self.check(self.descriptor, read.value, self.types, lenient=True)
        if errors:
            value, errors, repairs = self._unwrapped(read.value, errors, repairs)
        if not errors and read.truncated and not _forced(read, self.descriptor, self.types):
            errors = [("root", "the reply is cut off where more than closing braces could follow")]
        if errors:
            if self.best is None or len(errors) < len(self.best):
                self.best = errors
            return
        self.accepted.append((value, [("root", r) for r in read.repairs] + repairs))

    def _unwrapped(self, value: Any, errors: list[Any], repairs: list[Any]) -> tuple[Any, ...]:
        """A top-level array given as an object with one key holding the array."""
        if (
            _resolve(self.descriptor, self.types)[0] != "list"
            or not isinstance(value, dict)
            or len(value) != 1
        ):
            return value, errors, repairs
        ((key, inner),) = value.items()
        result, inner_errors, inner_repairs = self.check(
            self.descriptor, inner, self.types, lenient=True
        )
        if inner_errors:
            return value, errors, repairs
        return (
            result,
            [],
            [("root", f"unwrapped the array from {{{key!r}: [...]}}"), *inner_repairs],
        )

    def consider(self, text: str) -> bool:
        if text in self.seen:
            return True  # the same text as an earlier candidate: the same answer
        self.seen.add(text)
        try:
            read = read_json(text)
        except (_Broken, ValueError, RecursionError):
            return False
        self.parsed_any = True
        self.judge(read)
        return True


def parse_reply(text: str, descriptor: Any, types: dict[str, Any], check: Any) -> ParseResult:
    """The one answer in `text` that fits `descriptor`, or ReplyError. See reply-policy.md."""
    if not isinstance(text, str) or not text.strip():
        raise ReplyError("the reply is empty")
    search = _Search(descriptor, types, check)
    stripped = text.strip().lstrip("\ufeff").strip()
    if stripped[:1] in ("{", "["):  # the common case: the whole reply is the JSON answer
        try:
            value = strict_json(stripped)
        except (ValueError, RecursionError):
            pass
        else:
            result, errors, repairs = check(descriptor, value, types, lenient=False)
            # Valid as it stands; with a repair (a @fallback default, say) the lenient search
            # below decides, since a coercion may keep what the model meant.
            if not errors and not repairs:
                return ParseResult(result, repairs)
    body = strip_reasoning(text)
    budget = 8 * len(body) + 4096  # characters parsed in all: keeps hostile replies linear
    for candidate in explicit_candidates(body):
        budget -= len(candidate)
        search.consider(candidate.strip())
    covered = -1
    for start, end in raw_spans(body):
        if start < covered:
            continue
        budget -= end - start
        if budget < 0:
            break
        if search.consider(body[start:end].strip()):
            covered = end
    return _decide(search)


def _decide(search: _Search) -> ParseResult:
    if not search.accepted:
        if not search.parsed_any:
            raise ReplyError("no JSON found in the reply")
        raise ReplyError("the reply does not match the expected output", search.best)
    if (
        len(search.accepted) > 1
        and len({json.dumps(v, sort_keys=True, ensure_ascii=False) for v, _ in search.accepted}) > 1
    ):
        raise ReplyError("the reply holds several different answers")
    return ParseResult(*search.accepted[0])
