"""Judging one run of a test: does an output satisfy the test's expectation? Pure.

The output is the validated JSON value the client returned (a text signature's: its text).
Equality is JSON's: numbers by value (1 equals 1.0), but `true` never equals `1`; a map is
equal to a map with the same keys and equal values. `~` searches an ECMA-262 pattern (as
`@pattern` reads it); `len` counts a string's code points, a list's items, a map's keys. A
path the output lacks fails the check, and says so; but a last field it leaves out (optional)
is `None` to the client, so it is `null` to `==`, `!=` and `in`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sigspec.semantics import ir

SHOWN = 80  # characters of an actual value shown in a reason


@dataclass(frozen=True, slots=True)
class Missing:
    """A path step the output does not have: why, in words. `absent`: only the last step,
    a field the output's map leaves out (an optional one), which the client returns as
    `None`, so that `==`, `!=` and `in` compare it as `null`."""

    reason: str
    absent: bool = False


def shortened(value: Any) -> str:
    """`value` as JSON, cut to `SHOWN` characters."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_equal(a: Any, b: Any) -> bool:
    """Deep JSON equality: numbers by value, booleans only equal booleans; in a map, a key
    left out equals one set to `null` (an optional field the model omitted or answered
    `null` is `None` to the client either way, and the runtime keeps each as it came)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return bool(a == b)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        keys = a.keys() | b.keys()
        return all(json_equal(a.get(k), b.get(k)) for k in keys)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def subject_text(path: Sequence[str | int]) -> str:
    """A path as the .sig file writes it: `$`, `items[0].name`, `$[1]`."""
    text = ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return "$" + text if not text or text.startswith("[") else text


def follow(value: Any, path: Sequence[str | int]) -> Any:
    """The value at `path`, or `Missing` saying which step the output lacks."""
    for index, step in enumerate(path):
        where = subject_text(path[:index]) if index else "$"
        if isinstance(step, int):
            if not isinstance(value, list):
                return Missing(f"{where} is not a list")
            if step >= len(value):
                items = "1 item" if len(value) == 1 else f"{len(value)} items"
                return Missing(f"{where} has {items}, no [{step}]")
            value = value[step]
        else:
            if not isinstance(value, Mapping):
                return Missing(f"{where} is not a map")
            key = _key(value, step)
            if key is None:
                last = index == len(path) - 1
                return Missing(f"{subject_text(path[: index + 1])} is missing", absent=last)
            value = value[key]
    return value


def _key(value: Mapping[str, Any], step: str) -> str | None:
    """The key of `value` that `step` names: itself, or the one it equals with `-` and `_`
    taken as the same character (the checker matched the field's name so)."""
    if step in value:
        return step
    return next((k for k in value if ir.fold(k) == ir.fold(step)), None)


def _length(value: Any) -> int | None:
    if isinstance(value, str | list | Mapping):
        return len(value)
    return None


_NULLABLE = frozenset({"==", "!=", "in"})  # the operators an absent field answers as `null`

_ORDERED = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def holds(op: str, actual: Any, expected: Any) -> bool:
    """`actual OP expected` (never raises: a comparison of the wrong kinds is false)."""
    if op == "==":
        return json_equal(actual, expected)
    if op == "!=":
        return not json_equal(actual, expected)
    if op == "in":
        return isinstance(expected, list) and any(json_equal(actual, e) for e in expected)
    if op == "~":
        return isinstance(actual, str) and _search(str(expected), actual)
    if op in _ORDERED:
        return is_number(actual) and is_number(expected) and bool(_ORDERED[op](actual, expected))
    raise ValueError(f"unknown operator {op!r}")


def _search(pattern: str, text: str) -> bool:
    from sigspec.runtime.ecma import compiled

    return compiled(pattern).search(text) is not None  # as `@pattern` runs it, compiled once


def check_reason(check: ir.Check, output: Any) -> str | None:
    """Why `check` fails on `output` (the check, then the actual value), or None."""
    found = follow(output, check.path)
    subject = subject_text(check.path)
    shown = f"len({subject})" if check.length else subject
    wanted = f"{shown} {check.op} {shortened(check.value)}"
    if isinstance(found, Missing):
        nullable = found.absent and not check.length and check.op in _NULLABLE
        if nullable and holds(check.op, None, check.value):
            return None
        return f"{wanted}: {found.reason}"
    actual = found
    if check.length:
        actual = _length(found)
        if actual is None:
            return f"{wanted}: {subject} is {shortened(found)}, which has no length"
    try:
        if holds(check.op, actual, check.value):
            return None
    except ValueError as exc:  # a pattern the checker let through that Python cannot run
        return f"{wanted}: the pattern cannot be run here ({exc})"
    return f"{wanted}: {shown} is {shortened(actual)}"


def reason(expect: ir.Exact | tuple[ir.Check, ...], output: Any) -> str | None:
    """Why `output` does not satisfy `expect` (the first failed check), or None."""
    if isinstance(expect, ir.Exact):
        if json_equal(output, expect.value):
            return None
        return f"expected exactly {shortened(expect.value)}, got {shortened(output)}"
    for check in expect:
        found = check_reason(check, output)
        if found is not None:
            return found
    return None
