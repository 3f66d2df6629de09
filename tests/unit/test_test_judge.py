"""The judge of one run (`commands/test/judge.py`): JSON equality, paths, every operator,
`len`, ECMA-262 patterns, and the reason a failed check gives."""

from __future__ import annotations

from typing import Any

import pytest

from sigspec.commands.test.judge import follow, json_equal, reason, subject_text
from sigspec.semantics import ir


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        (1, 1.0, True),
        (True, 1, False),
        (False, 0, False),
        (True, True, True),
        (None, None, True),
        (None, False, False),
        ("1", 1, False),
        ({"a": [1, 2.0]}, {"a": [1.0, 2]}, True),
        ({"a": 1}, {"a": 1, "b": None}, True),  # `b` left out is `b: null`: None either way
        ({"a": 1}, {"a": 1, "b": False}, False),
        ({"a": {}}, {"a": {"b": None}}, True),
        ([1, [True]], [1, [1]], False),
        ([], {}, False),
    ],
)
def test_json_equality(a: Any, b: Any, equal: bool) -> None:
    assert json_equal(a, b) is equal
    assert json_equal(b, a) is equal


def check(path: tuple[str | int, ...], op: str, value: Any, length: bool = False) -> ir.Check:
    return ir.Check(path, op, value, length)


OUTPUT = {
    "sentiment": "positive",
    "score": 0.75,
    "items": [{"name": "Acme"}, {"name": "beta"}],
    "total": 2,
    "note": None,
    "flag": True,
    "text": "naïve café",
    "my-name": "dashed",
    "snake_case": 1,
}


@pytest.mark.parametrize(
    "passing",
    [
        check(("sentiment",), "==", "positive"),
        check(("sentiment",), "!=", "negative"),
        check(("score",), ">=", 0.5),
        check(("score",), "<", 1),
        check(("total",), "==", 2.0),
        check(("total",), "in", [1, 2]),
        check(("flag",), "in", [True]),
        check(("items", 0, "name"), "~", "^[A-Z]"),
        check(("note",), "==", None),
        check(("items",), ">=", 2, length=True),
        check(("text",), "==", 10, length=True),  # code points, not bytes
        check((), ">", 3, length=True),  # the map's keys
        check(("text",), "~", "^na.ve caf.$"),  # code points, as @pattern reads it
        # An optional field the output leaves out is `None` to the client: `null` here.
        check(("absent",), "==", None),
        check(("absent",), "in", ["x", None]),
        check(("absent",), "!=", "x"),
        check(("items", 0, "absent"), "==", None),
        # `-` and `_` are one character in field names, as the checker matched them.
        check(("my_name",), "==", "dashed"),
        check(("my-name",), "==", "dashed"),
        check(("snake-case",), "==", 1),
    ],
)
def test_checks_that_hold(passing: ir.Check) -> None:
    assert reason((passing,), OUTPUT) is None


@pytest.mark.parametrize(
    ("failing", "said"),
    [
        (
            check(("sentiment",), "==", "negative"),
            'sentiment == "negative": sentiment is "positive"',
        ),
        (check(("flag",), "in", [1, 2]), "flag in [1, 2]: flag is true"),
        (check(("flag",), "==", 1), "flag == 1: flag is true"),
        (check(("sentiment",), ">", 1), 'sentiment > 1: sentiment is "positive"'),
        (check(("items", 5, "name"), "==", "x"), "items has 2 items, no [5]"),
        (check(("items", 0, "name", 0), "==", "x"), "items[0].name is not a list"),
        (check(("missing",), "==", 1), "missing == 1: missing is missing"),
        (check(("missing",), "!=", None), "missing != null: missing is missing"),
        (check(("missing",), "==", 0, length=True), "len(missing) == 0: missing is missing"),
        (check(("missing", "deeper"), "==", None), "missing.deeper == null: missing is missing"),
        (check(("score", "x"), "==", 1), "score is not a map"),
        (check(("total",), "==", 1, length=True), "total is 2, which has no length"),
        (
            check(("items", 1, "name"), "~", "^[A-Z]"),
            'items[1].name ~ "^[A-Z]": items[1].name is "beta"',
        ),
        (check(("items",), ">", 2, length=True), "len(items) > 2: len(items) is 2"),
    ],
)
def test_a_failed_check_says_why(failing: ir.Check, said: str) -> None:
    found = reason((failing,), OUTPUT)
    assert found is not None and said in found


def test_the_first_failed_check_is_the_reason() -> None:
    checks = (
        check(("sentiment",), "==", "positive"),
        check(("score",), ">", 0.9),
        check(("total",), "==", 5),
    )
    assert reason(checks, OUTPUT) == "score > 0.9: score is 0.75"


def test_a_pattern_python_cannot_run_fails_the_check() -> None:
    found = reason((check(("text",), "~", "\\p{L}"),), OUTPUT)
    assert found is not None and "cannot be run" in found


def test_valid_has_no_checks() -> None:
    assert reason((), OUTPUT) is None
    assert reason((), "any text") is None


def test_exact_values() -> None:
    assert reason(ir.Exact({"a": 1, "b": [True]}), {"b": [True], "a": 1.0}) is None
    found = reason(ir.Exact({"a": 1}), {"a": True})
    assert found == 'expected exactly {"a": 1}, got {"a": true}'
    # The model omitted the optional `note`, the test wrote `"note": null` (or the reverse).
    assert reason(ir.Exact({"a": 1, "note": None}), {"a": 1}) is None
    assert reason(ir.Exact({"a": 1}), {"a": 1, "note": None}) is None
    assert reason(ir.Exact({"a": 1}), {"a": 1, "note": "x"}) is not None


def test_long_values_are_shortened() -> None:
    found = reason(ir.Exact("x"), "y" * 500)
    assert found is not None and len(found) < 140 and found.endswith("…")


def test_paths_print_as_written() -> None:
    assert subject_text(()) == "$"
    assert subject_text((0,)) == "$[0]"
    assert subject_text(("items", 0, "name")) == "items[0].name"
    assert follow([{"a": 1}], (0, "a")) == 1


def test_counts_are_grammatical() -> None:
    found = reason((check(("a", 1), "==", 1),), {"a": [0]})
    assert found == "a[1] == 1: a has 1 item, no [1]"


def test_patterns_read_as_ecma_262() -> None:
    # `\d` is ASCII digits in ECMA-262, not Python's Unicode digits (ARABIC-INDIC THREE).
    assert reason((check(("d",), "~", "^\\d$"),), {"d": "\u0663"}) is not None
    assert reason((check(("d",), "~", "^\\d$"),), {"d": "3"}) is None
