"""Does a JSON value fit a type? The DESIGN 2 rules, used here to check defaults.

Returns reasons (empty when the value fits); the generated validators implement the same
rules for replies at run time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import assert_never

from sigspec.semantics.ir import (
    Constraint,
    Format,
    Items,
    JsonValue,
    Length,
    ListOf,
    Literal,
    MapOf,
    Optional,
    Pattern,
    Prim,
    Range,
    Ref,
    TypeRef,
    Union,
    fold,
)
from sigspec.semantics.types import Types, deref

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})\Z")


def json_kind(value: JsonValue) -> str:
    """The word used in messages: `expected int, got string`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "map"


def is_datetime(value: str) -> bool:
    if not _RFC3339.match(value):
        return False
    try:
        datetime.fromisoformat(value.replace("z", "Z").replace("t", "T"))
    except ValueError:
        return False
    return True


def check_value(value: JsonValue, t: TypeRef, types: Types, path: str = "") -> list[str]:
    match t:
        case Ref():
            return check_value(value, deref(t, types), types, path)
        case Optional(inner):
            return [] if value is None else check_value(value, inner, types, path)
        case Prim(kind):
            return _check_prim(value, kind, path)
        case Literal(expected):
            same = type(value) is type(expected) and value == expected
            return [] if same else [f"{path or 'value'}: expected {_lit(expected)}"]
        case Union(members):
            if any(not check_value(value, m, types, path) for m in members):
                return []
            return [f"{path or 'value'}: matches none of the union's members"]
        case ListOf(item):
            if not isinstance(value, list):
                return [f"{path or 'value'}: expected list, got {json_kind(value)}"]
            return [
                e for i, v in enumerate(value) for e in check_value(v, item, types, _at(path, i))
            ]
        case MapOf():
            return _check_map(value, t, types, path)
        case _:
            assert_never(t)


def _lit(value: JsonValue) -> str:
    import json

    return json.dumps(value)


def _at(path: str, key: int | str) -> str:
    return f"{path}.{key}" if path else str(key)


_PRIM_TEST: dict[str, Callable[[JsonValue], bool]] = {
    "string": lambda v: isinstance(v, str),
    "keyword": lambda v: isinstance(v, str),
    "int": lambda v: type(v) is int,
    "float": lambda v: type(v) in (int, float),
    "bool": lambda v: type(v) is bool,
    "map": lambda v: isinstance(v, dict),
    "any": lambda v: True,
    "datetime": lambda v: isinstance(v, str) and is_datetime(v),
}


def _check_prim(value: JsonValue, kind: str, path: str) -> list[str]:
    if _PRIM_TEST[kind](value):
        return []
    got = json_kind(value)
    if kind == "datetime" and got == "string":
        return [f"{path or 'value'}: expected an RFC 3339 date-time with an offset"]
    return [f"{path or 'value'}: expected {kind}, got {got}"]


def _check_map(value: JsonValue, t: MapOf, types: Types, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path or 'value'}: expected map, got {json_kind(value)}"]
    by_name = {fold(k): k for k in value}
    errors: list[str] = []
    for field in t.fields:
        key = by_name.get(fold(field.name))
        if key is None:
            if field.required:
                errors.append(f"{_at(path, field.name)}: required field is missing")
            continue
        errors += check_value(value[key], field.type, types, _at(path, field.name))
        errors += check_constraints(value[key], field.constraints, _at(path, field.name))
    if not t.open:
        declared = {fold(f.name) for f in t.fields}
        errors += [f"{_at(path, k)}: unexpected field" for k in value if fold(k) not in declared]
    return errors


def check_constraints(
    value: JsonValue, constraints: tuple[Constraint, ...], path: str
) -> list[str]:
    where = path or "value"
    return [e for c in constraints for e in _constraint_errors(value, c, where)]


def _bounds(size: float, lo: float | None, hi: float | None, low: str, high: str) -> list[str]:
    errors = []
    if lo is not None and size < lo:
        errors.append(low.format(lo))
    if hi is not None and size > hi:
        errors.append(high.format(hi))
    return errors


def _constraint_errors(value: JsonValue, c: Constraint, where: str) -> list[str]:
    match c:
        case Range(lo, hi) if type(value) in (int, float):
            return _bounds(
                value,
                lo,
                hi,
                f"{where}: {value} is less than the minimum {{}}",
                f"{where}: {value} is greater than the maximum {{}}",
            )
        case Length(lo, hi) if isinstance(value, str):
            return _bounds(
                len(value),
                lo,
                hi,
                f"{where}: shorter than {{}} characters",
                f"{where}: longer than {{}} characters",
            )
        case Items(lo, hi) if isinstance(value, list):
            return _bounds(
                len(value),
                lo,
                hi,
                f"{where}: fewer than {{}} items",
                f"{where}: more than {{}} items",
            )
        case Pattern(regex) if isinstance(value, str) and not re.search(regex, value):
            return [f"{where}: does not match the pattern {regex!r}"]
        case Range() | Length() | Items() | Pattern() | Format():
            # Not applicable to this value's kind, or satisfied; formats are annotations
            # whose assertion is the validators' business.
            return []
        case _:
            assert_never(c)
