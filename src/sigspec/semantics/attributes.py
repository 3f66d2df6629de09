"""The attribute table: which `@name(...)` exists, where it may stand, what it takes.

`read_attributes` checks a node's attributes against the table and returns their
arguments as plain typed values, keyed by name, plus the spans for later diagnostics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sigspec.diagnostics import Diagnostic, Label, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.diagnostics.suggest import suggest
from sigspec.semantics.ir import MODES
from sigspec.syntax import ast


class ArgError(ValueError):
    pass


def _scalars(args: tuple[ast.AttrArg, ...] | None) -> list[Any]:
    out: list[Any] = []
    for arg in args or ():
        if isinstance(arg, ast.ScalarValue):
            out.append(arg.value)
        elif isinstance(arg, ast.NameArg):
            out.append(_Name(arg.name))
        else:
            raise ArgError("takes plain values, not lists or maps")
    return out


@dataclass(frozen=True, slots=True)
class _Name:
    name: str


def _count(args: list[Any], n: int) -> None:
    if len(args) != n:
        word = {0: "no arguments", 1: "one argument", 2: "two arguments"}[n]
        raise ArgError(f"takes {word}, got {len(args)}")


def _flag(args: list[Any]) -> bool:
    _count(args, 0)
    return True


def _number(args: list[Any]) -> int | float:
    _count(args, 1)
    if type(args[0]) not in (int, float):
        raise ArgError("takes a number")
    return args[0]  # type: ignore[no-any-return]


def _two_numbers(args: list[Any]) -> tuple[int | float, int | float]:
    _count(args, 2)
    if any(type(a) not in (int, float) for a in args):
        raise ArgError("takes two numbers: (low, high)")
    return args[0], args[1]


def _size(args: list[Any]) -> int:
    _count(args, 1)
    if type(args[0]) is not int or args[0] < 0:
        raise ArgError("takes a whole number of 0 or more")
    return int(args[0])


def _turns(args: list[Any]) -> int:
    _count(args, 1)
    if type(args[0]) is not int or args[0] < 1:
        raise ArgError("takes a whole number of 1 or more")
    return int(args[0])


def _repeat(args: list[Any]) -> int:
    _count(args, 1)
    if type(args[0]) is not int or not 1 <= args[0] <= MAX_REPEAT:
        raise ArgError(f"takes a whole number from 1 to {MAX_REPEAT}")
    return int(args[0])


def _rate(args: list[Any]) -> float:
    value = _number(args)
    if not 0 < value <= 1:
        raise ArgError("takes a share of the runs above 0 and at most 1, as in (0.8)")
    return float(value)


def _string(args: list[Any]) -> str:
    _count(args, 1)
    if not isinstance(args[0], str):
        raise ArgError('takes a string, as in ("...")')
    return args[0]


def _name_or_string(args: list[Any]) -> str:
    _count(args, 1)
    if isinstance(args[0], _Name):
        return args[0].name
    return _string(args)


def _optional_string(args: list[Any]) -> str:
    if not args:
        return ""
    return _string(args)


def _mode(args: list[Any]) -> str:
    value = _name_or_string(args)
    if value not in MODES:
        raise ArgError(f"takes one of {', '.join(MODES)}; got `{value}`")
    return value


def _names(args: list[Any]) -> tuple[str, ...]:
    if not args or not all(isinstance(a, _Name) for a in args):
        raise ArgError("takes one or more names, as in (search, fetch)")
    return tuple(a.name for a in args)


FIELD, SIGNATURE, TOOL, TYPE, PIPELINE, IMPORT, TEST = (
    "a field",
    "a signature",
    "a tool",
    "a type",
    "a pipeline",
    "an import",
    "a test",
)
MAX_REPEAT = 1000  # runs of one test: more is a load test, not a test
DECLS = frozenset({SIGNATURE, TOOL, TYPE, PIPELINE})

# name -> (places, argument reader)
TABLE: dict[str, tuple[frozenset[str], Callable[[list[Any]], Any]]] = {
    "min": (frozenset({FIELD}), _number),
    "max": (frozenset({FIELD}), _number),
    "min_length": (frozenset({FIELD}), _size),
    "max_length": (frozenset({FIELD}), _size),
    "min_items": (frozenset({FIELD}), _size),
    "max_items": (frozenset({FIELD}), _size),
    "pattern": (frozenset({FIELD}), _string),
    "format": (frozenset({FIELD}), _name_or_string),
    "clamp": (frozenset({FIELD}), _two_numbers),
    "fallback": (frozenset({FIELD}), _flag),
    "deprecated": (frozenset({FIELD}) | DECLS, _optional_string),
    "output": (frozenset({SIGNATURE}), _mode),
    "prompt": (frozenset({SIGNATURE}), _string),
    "system": (frozenset({SIGNATURE}), _string),
    "max_turns": (frozenset({SIGNATURE}), _turns),
    "allow_extra_keys": (frozenset({SIGNATURE}), _flag),
    "no_output_instructions": (frozenset({SIGNATURE}), _flag),
    "tools": (frozenset({SIGNATURE}), _names),
    "compression": (frozenset({SIGNATURE}), _flag),
    "repeat": (frozenset({TEST}), _repeat),
    "min_pass_rate": (frozenset({TEST}), _rate),
}

# JSON Schema's constraint keywords and the attribute each one is (`sigspec import` reads it).
SCHEMA_KEYWORDS = {
    "minimum": "min",
    "maximum": "max",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minItems": "min_items",
    "maxItems": "max_items",
}
# The keywords written as attributes, lower-cased: `@minimum` suggests `@min`.
SYNONYMS = {k.lower(): v for k, v in SCHEMA_KEYWORDS.items() if k.lower() != v}


@dataclass(frozen=True, slots=True)
class Attrs:
    values: dict[str, Any]
    spans: dict[str, Span]

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)


def read_attributes(
    attrs: tuple[ast.Attribute, ...], place: str, source: SourceFile
) -> tuple[Attrs, list[Diagnostic]]:
    values: dict[str, Any] = {}
    spans: dict[str, Span] = {}
    diags: list[Diagnostic] = []
    for attr in attrs:
        entry = TABLE.get(attr.name)
        if entry is None:
            found = suggest(attr.name, TABLE, prefix="@", synonyms=SYNONYMS)
            name = Span(attr.span.start, attr.span.start + 1 + len(attr.name))  # `@name`
            diags.append(
                codes.UNKNOWN_ATTRIBUTE.at(
                    source, attr.span, name=attr.name, hints=found.hints, fixes=found.fixes(name)
                )
            )
            continue
        places, reader = entry
        if place not in places:
            diags.append(
                codes.MISPLACED_ATTRIBUTE.at(source, attr.span, name=attr.name, place=place)
            )
            continue
        if attr.name in values:
            first = spans[attr.name]
            label = Label(source, first, "first given here")
            diags.append(
                codes.DUPLICATE_ATTRIBUTE.at(source, attr.span, name=attr.name, labels=(label,))
            )
            continue
        try:
            values[attr.name] = reader(_scalars(attr.args))
        except ArgError as exc:
            diags.append(
                codes.INVALID_ATTRIBUTE_ARGUMENT.at(source, attr.span, name=attr.name, reason=exc)
            )
            continue
        spans[attr.name] = attr.span
    return Attrs(values, spans), diags
