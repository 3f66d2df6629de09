# What the validator, the reply parser and the client share: the parser's answer and its error,
# the reading of a JSON number literal, and the notation messages quote values in (described
# in validate.py's header). Standard library only, and nothing imported at import time: the
# reply parser loads on the first parse, and both it and the validator need these.
from __future__ import annotations

# mypy treats a variable named TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ReplyError(ValueError):
    """No acceptable answer in the reply: `.reason`, and `.errors` of the best candidate."""

    def __init__(
        self, reason: str, errors: list[tuple[str, str]] | None = None
    ) -> None:
        self.reason = reason
        self.errors = errors or []
        detail = "; ".join(f"{p}: {m}" for p, m in self.errors[:5])
        super().__init__(f"{reason}: {detail}" if detail else reason)


# The validators recurse once per level (up to three frames): past this, a value within the
# limit could still exhaust Python's default stack of 1000 frames.
MAX_DEPTH = 256


class Limits:
    """What the reply parser and the validator accept at most; past a limit a reply is
    rejected with a message naming it (`ReplyError`, `ValidationError`). Frozen; give only the
    limits to change: `Limits(depth=64)`. A plain class, not a dataclass: `dataclasses` would
    cost a generated module's import a few milliseconds.

    - `reply_chars`: characters in a reply (code points; 1 Mi by default, twice the longest
      output today's models write (128k tokens), and about a second of parsing for the worst
      shape, a reply of nothing but brackets).
    - `depth`: how deep lists and maps nest in a value (128: JSON answers nest a few levels;
      Python's validator takes up to three stack frames a level, so 128 leaves most of the
      interpreter's default 1000 frames to the caller). At most `MAX_DEPTH`, 256: deeper, the
      validator itself would run out of stack.
    - `tags`: XML-like tags (`<answer>`, `</answer>`) in a reply that must be searched for its
      answer (10,000: a reply of prose and markup has tens).
    """

    __slots__ = ("depth", "reply_chars", "tags")
    depth: int
    reply_chars: int
    tags: int

    def __init__(
        self, *, reply_chars: int = 1024 * 1024, depth: int = 128, tags: int = 10_000
    ) -> None:
        for name, value in (
            ("reply_chars", reply_chars),
            ("depth", depth),
            ("tags", tags),
        ):
            if type(value) is not int or value < 1:
                raise ValueError(f"the limit {name} must be a positive integer")
            object.__setattr__(self, name, value)
        if depth > MAX_DEPTH:
            raise ValueError(f"the limit depth can be at most {MAX_DEPTH}, not {depth}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Limits are frozen: make new ones, Limits(depth=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Limits are frozen")

    def __repr__(self) -> str:
        return f"Limits(reply_chars={self.reply_chars}, depth={self.depth}, tags={self.tags})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Limits) and (
            self.reply_chars,
            self.depth,
            self.tags,
        ) == (
            other.reply_chars,
            other.depth,
            other.tags,
        )

    def __hash__(self) -> int:
        return hash((self.reply_chars, self.depth, self.tags))

    def __reduce__(self) -> tuple[Any, ...]:  # pickle and copy: no attribute may be set
        return (_limits, (self.reply_chars, self.depth, self.tags))


def _limits(reply_chars: int, depth: int, tags: int) -> Limits:
    return Limits(reply_chars=reply_chars, depth=depth, tags=tags)


LIMITS = Limits()  # the defaults; every entry point takes `limits=` to override them


def too_deep(value: Any, depth: int) -> bool:
    """Do lists and maps nest in `value` more than `depth` levels (a scalar is level 0)? An
    explicit stack, not recursion: the value may nest past the interpreter's own limit."""
    t = type(value)
    if t is not list and t is not dict:
        return False
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        container, level = pop()
        if level > depth:
            return True
        for item in container.values() if type(container) is dict else container:
            t = type(item)
            if t is list or t is dict:
                push((item, level + 1))
    return False


def depth_message(depth: int) -> str:
    return f"nested more than {depth} levels deep (the nesting-depth limit)"


class ParseResult:
    """The answer: `.value`, plain JSON data, and `.repairs`, every change as (path, note)."""

    __slots__ = ("repairs", "value")

    def __init__(
        self, value: Any, repairs: list[tuple[str, str]] | None = None
    ) -> None:
        self.value = value
        self.repairs = repairs or []

    def __repr__(self) -> str:
        return f"ParseResult(value={self.value!r}, repairs={self.repairs!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ParseResult)
            and other.value == self.value
            and other.repairs == self.repairs
        )

    __hash__ = None  # type: ignore[assignment]


def number_literal(text: str) -> int | float | None:
    """What json.loads reads from a JSON number literal, with no `json` needed; None for one
    too large for a float (1e400 is no JSON value). An integer longer than int() takes raises
    ValueError, as json.loads does."""
    if text.lstrip("-").isdigit():
        return int(text)
    number = float(text)
    return None if number in (float("inf"), float("-inf")) else number


_KINDS = {
    type(None): "null",
    bool: "bool",
    int: "int",
    float: "float",
    str: "string",
    list: "list",
    dict: "map",
}


def kind_of(value: Any) -> str:
    """The word used in messages: `expected int, got string`."""
    t = type(value)
    return _KINDS.get(t) or t.__name__


def shown(value: Any) -> str:
    """A value as messages quote it (validate.py's header): a string, a boolean or null in JSON
    notation, a number by `number_text`, a map or a list by its kind."""
    t = type(value)
    if t is str:
        return _string_text(value)
    if t is float:
        return number_text(value)
    if t is int:
        return str(value)
    if t is bool:
        return "true" if value else "false"
    return "null" if value is None else kind_of(value)


def number_text(number: float) -> str:
    """A float as JavaScript's `String(number)` (and, when finite, `JSON.stringify`) writes it,
    so that the TypeScript runtime needs no formatter: the shortest digits that read back as
    the same float (what `repr` finds too), no `.0` on a whole number, an exponent only below
    1e-6 or from 1e21 on (`1e-7`, `1e+21`); NaN, Infinity and -Infinity as JavaScript spells
    them."""
    if number - number != 0.0:  # NaN or an infinity (for which v - v is NaN)
        return "Infinity" if number > 0 else "-Infinity" if number < 0 else "NaN"
    if number == 0:
        return "0"  # -0.0 too, as in JavaScript
    sign = "-" if number < 0 else ""
    # repr's digits and where its decimal point falls: the value is 0.DIGITS * 10**point.
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    written = whole + fraction
    digits = written.lstrip("0")
    point = len(whole) + int(exponent or 0) - (len(written) - len(digits))
    digits = digits.rstrip("0")
    # ECMAScript's Number::toString, step for step.
    if len(digits) <= point <= 21:
        return sign + digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return f"{sign}{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    tail = f".{digits[1:]}" if len(digits) > 1 else ""
    return f"{sign}{digits[0]}{tail}e{'+' if point > 0 else '-'}{abs(point - 1)}"


def _string_text(text: str) -> str:
    """`JSON.stringify(text)`: json.dumps keeping non-ASCII, and a lone surrogate (json.loads
    reads one from `"\\ud800"`) escaped as JavaScript escapes it."""
    import json

    quoted = json.dumps(text, ensure_ascii=False)
    if quoted.isascii():
        return quoted
    try:
        quoted.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(
            f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in quoted
        )
    return quoted
