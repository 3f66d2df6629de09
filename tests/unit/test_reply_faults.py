"""The labelled broken replies (tests/cases/broken_replies.json): every one is rejected, and
the error names its fault (the kind, in plain words) and where it is (line and column), in the
Python and the TypeScript output alike. These errors are the retry feedback a model gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from test_shared_cases import build, compiled, python_modules, python_result, run_node

# The fixtures the shared table builds: the Python package and the TypeScript compiled by tsc.
__all__ = ["build", "compiled", "python_modules"]

CASES: list[dict[str, Any]] = json.loads(
    (ROOT / "tests" / "cases" / "broken_replies.json").read_text("utf-8")
)["cases"]

# How a message names each kind of fault.
NAMES = {
    "unescaped-quote": "unescaped quote inside a string",
    "cut-off": "cut off",
    "duplicate-key": "is given twice with different values",
    "nan": "is not a JSON number",
    "bare-word": "bare word",
    "elided": "elided content",
    "missing-comma": "missing comma",
    "missing-colon": "missing colon",
    "missing-value": "missing value",
    "bad-key": "a key must be a string",
    "unexpected-character": "unexpected character",
    "unexpected-comma": "unexpected comma",
    "unexpected-colon": "unexpected colon",
    "mismatched-bracket": "mismatched bracket",
    "string-never-closed": "string never closed",
    "comment-never-closed": "comment never closed",
    "invalid-number": "invalid number",
    "number-too-large": "is too large",
    "invalid-escape": "invalid escape",
}
SHARE = 0.95  # of the rejections that must name their fault


def _parse_cases() -> list[dict[str, Any]]:
    return [
        {"kind": "parse", "signature": c["signature"], "input": c["reply"], "note": c["note"]}
        for c in CASES
    ]


def _message(result: dict[str, Any]) -> str:
    """The error as its message reads (`str(ReplyError)`): the reason, then the errors."""
    detail = "; ".join(f"{p}: {m}" for p, m in result.get("errors", [])[:5])
    return f"{result['reason']}: {detail}" if detail else result["reason"]


def _unnamed(results: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(kind, reply, message) of each rejection that does not name its fault and place."""
    missed = []
    for case, result in zip(CASES, results, strict=True):
        assert result.get("error") == "ReplyError", (case, result)  # never accepted
        message = _message(result)
        where = f"line {case['line']}, column {case['column']}"
        if NAMES[case["kind"]] not in message or where not in message:
            missed.append((case["kind"], case["reply"], message))
    return missed


def test_the_set_covers_every_kind() -> None:
    assert len(CASES) >= 60
    assert {c["kind"] for c in CASES} == set(NAMES)


def test_python_names_the_fault(python_modules: tuple[Any, Any]) -> None:
    results = [python_result(case, *python_modules) for case in _parse_cases()]
    missed = _unnamed(results)
    assert len(missed) <= (1 - SHARE) * len(CASES), missed


def test_typescript_names_the_fault_as_python_does(
    compiled: Path, python_modules: tuple[Any, Any]
) -> None:
    cases = _parse_cases()
    results = run_node(compiled, cases)
    missed = _unnamed(results)
    assert len(missed) <= (1 - SHARE) * len(CASES), missed
    assert results == [python_result(case, *python_modules) for case in cases]


APOSTROPHE = "read \\' in a double-quoted string as an apostrophe"


@pytest.mark.parametrize(
    ("text", "value", "repairs"),
    [
        ('{"s": "it\\\'s"}', "it's", [APOSTROPHE]),
        ('{"s": "\\\'a\\\' \\u0041"}', "'a' A", [APOSTROPHE]),
        # An escaped backslash, then a plain quote: nothing to repair.
        ('{"s": "a\\\\\'b"}', "a\\'b", []),
    ],
)
def test_an_escaped_apostrophe_in_a_double_quoted_string_is_an_apostrophe(
    text: str, value: str, repairs: list[str]
) -> None:
    from sigspec import parse_signature
    from sigspec.runtime import parse
    from sigspec.semantics.descriptors import output_descriptor

    result = parse(text, output_descriptor(parse_signature("{s :string}")), {})
    assert result.value == {"s": value}
    assert [m for _, m in result.repairs] == repairs


def test_text_after_a_value_is_named_by_the_reader_but_the_value_is_judged() -> None:
    """The reader names text after a whole value, but prose around JSON is no fault of the
    answer's (the value is a candidate of its own): the reply's error is the value's."""
    from sigspec import parse_signature
    from sigspec.runtime import parse
    from sigspec.runtime.common import ReplyError
    from sigspec.runtime.reply import _Broken, read_json
    from sigspec.semantics.descriptors import output_descriptor

    with pytest.raises(_Broken) as broken:
        read_json('{"a": 1} and more')
    assert (broken.value.what, broken.value.at) == ("text after the JSON value", 9)
    sig = output_descriptor(parse_signature("{a :string}"))
    with pytest.raises(ReplyError) as info:
        parse('```json\n{"a": 1} and more\n```', sig, {})
    assert info.value.errors == [("a", "expected string, got int")]
