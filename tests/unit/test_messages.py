"""The notation runtime messages quote values in (runtime/validate.py's header): JSON for
strings, booleans and null, numbers as JavaScript writes them, so that the TypeScript runtime
writes the same messages with `JSON.stringify` and `String` alone."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from sigspec.runtime import common
from sigspec.runtime.common import number_text, shown
from sigspec.runtime.validate import check

RUNTIME = Path(common.__file__).parent


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("café", '"café"'),
        ('say "hi" \\ bye', '"say \\"hi\\" \\\\ bye"'),
        ("line\nbreak\x01", '"line\\nbreak\\u0001"'),
        ("\ud800", '"\\ud800"'),  # a lone surrogate, escaped as JSON.stringify escapes it
        ("é\udfff", '"é\\udfff"'),
        (True, "true"),
        (None, "null"),
        (-7, "-7"),
        (10**30, "1" + "0" * 30),  # an int is written whole (JavaScript's lose precision)
        (5.0, "5"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (1e-7, "1e-7"),
        (0.00005, "0.00005"),
        (1e16, "10000000000000000"),
        (1.5e21, "1.5e+21"),
        (-1.25e-300, "-1.25e-300"),
        (float("nan"), "NaN"),
        (float("-inf"), "-Infinity"),
        ({"a": 1}, "map"),
        ([1], "list"),
    ],
)
def test_shown(value: Any, text: str) -> None:
    assert shown(value) == text


def test_number_text_is_the_shortest_that_reads_back() -> None:
    for number in (0.1 + 0.2, 1 / 3, 2.0**-1074, 123456.789e-20, 9007199254740993.0):
        assert float(number_text(number)) == number


def test_messages_use_the_notation() -> None:
    descriptor = ("map", (("e", "e", ("enum", ("é", "b")), False, False, None, False, ()),), True)
    _, errors, _ = check(descriptor, {"e": "ë", "x": float("inf")}, {})
    assert errors == [
        ("e", 'expected one of "é", "b", got "ë"'),
        ("x", "expected a finite number, got Infinity"),
    ]


def _repr_quotes(tree: ast.AST) -> list[int]:
    """Lines where an f-string quotes a value by `repr` (`!r`, or a `repr()` call inside),
    outside `__repr__` methods, whose business repr is."""
    found: list[int] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__repr__":
            continue
        if isinstance(node, ast.FormattedValue) and node.conversion == ord("r"):
            found.append(node.lineno)
        if isinstance(node, ast.JoinedStr):
            calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
            found += [c.lineno for c in calls if ast.unparse(c.func) == "repr"]
        found += _repr_quotes(node)
    return found


def test_no_runtime_message_quotes_a_value_by_repr() -> None:
    """repr writes what Python holds (`'x'`, `1e-05`, `inf`), which the TypeScript runtime
    could only emulate; messages use `shown`."""
    modules = sorted(RUNTIME.glob("*.py"))
    assert {m.stem for m in modules} >= {"validate", "reply", "client", "common", "mustache"}
    found = {
        module.name: lines
        for module in modules
        if (lines := _repr_quotes(ast.parse(module.read_text("utf-8"))))
    }
    assert found == {}


def test_the_scan_finds_repr_quotes() -> None:
    source = (
        "def f(v):\n    return f'got {v!r}' + f'{repr(v)}'\n"
        "class C:\n    def __repr__(self):\n        return f'C({self.x!r})'\n"
    )
    assert _repr_quotes(ast.parse(source)) == [2, 2]
