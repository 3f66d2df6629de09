"""The sample reply corpus (bench/corpus/): every reply gives its labelled answer, or is
rejected where none may be taken. bench/accuracy.py scores the same corpus for sigspec and
its peers; this holds sigspec to zero false accepts and zero misses on it, through that
script's own scoring, so the figures it prints and the tests cannot disagree."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from conftest import ROOT

# bench/ is no package, and its folder stays off sys.path (its modules' names are generic).
_SPEC = importlib.util.spec_from_file_location("bench_accuracy", ROOT / "bench" / "accuracy.py")
assert _SPEC is not None and _SPEC.loader is not None
accuracy = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(accuracy)

CORPUS = ROOT / "bench" / "corpus"
CASES = [json.loads(line) for line in (CORPUS / "replies.jsonl").read_text("utf-8").splitlines()]
SIGNATURES = accuracy.signatures(CORPUS / "corpus.sig")


@pytest.mark.parametrize("case", CASES, ids=[f"{c['id']}-{c['why']}" for c in CASES])
def test_each_reply_gives_its_labelled_outcome(case: dict[str, Any]) -> None:
    descriptor, types = SIGNATURES[case["signature"]]
    assert (
        accuracy.outcome(case, accuracy.ours(case["signature"], case["text"], descriptor, types))
        == "correct"
    )


def test_the_scoring_tells_outcomes_apart() -> None:
    """A wrong value, a value where none may be taken, one taken where only the policy's
    strictness forbids it, and a rejection of an answer are four different outcomes; 7 and
    7.0 are one number, and NaN equals nothing."""
    answer = {"accept": True, "expected": {"n": 7, "tags": ["a"]}}
    none = {"accept": False, "expected": None}
    assert accuracy.outcome(answer, {"n": 7.0, "tags": ["a"]}) == "correct"
    assert accuracy.outcome(answer, {"n": 7, "tags": ["a", "b"]}) == "false accept"
    assert accuracy.outcome(answer, {"n": True, "tags": ["a"]}) == "false accept"
    assert accuracy.outcome(answer, accuracy.REJECTED) == "missed"
    assert accuracy.outcome(none, accuracy.REJECTED) == "correct"
    assert accuracy.outcome(none, None) == "false accept"
    assert accuracy.outcome({**none, "strict": True}, {"n": 7}) == "lenient"  # policy's choice
    assert accuracy.outcome({**answer, "strict": True}, {"n": 8}) == "false accept"
    # A parser that cannot tell null from absent (BAML) is compared without nulls.
    optional = {"accept": True, "expected": {"n": 7, "note": None}}
    assert accuracy.outcome(optional, {"n": 7}) == "false accept"
    assert accuracy.outcome(optional, {"n": 7}, nulls=False) == "correct"
    assert not accuracy.same(float("nan"), float("nan"))
    # The corpus is worth measuring with: it holds answers and replies without one.
    assert {c["accept"] for c in CASES} == {True, False}
    assert all(c["signature"] in SIGNATURES for c in CASES)
