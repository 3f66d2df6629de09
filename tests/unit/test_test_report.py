"""What `sigspec test` prints (`commands/test/report.py`): the summary line for standard
error."""

from __future__ import annotations

import pytest

from sigspec.commands.test.report import summary
from sigspec.commands.test.run import TestResult
from sigspec.semantics import ir


def result(outcome: str) -> TestResult:
    return TestResult(f"a.sig::{outcome}", ir.Test(outcome, "s", (), ()), outcome, ())


@pytest.mark.parametrize(
    ("outcomes", "said"),
    [
        (["pass"], "1 test (live): 1 passed, 0 failed, 0 stale, 0 errors"),
        (["error"], "1 test (live): 0 passed, 0 failed, 0 stale, 1 error"),
        (["error", "fail"], "2 tests (live): 0 passed, 1 failed, 0 stale, 1 error"),
        (["error", "error"], "2 tests (live): 0 passed, 0 failed, 0 stale, 2 errors"),
    ],
)
def test_the_summary_counts_in_words(outcomes: list[str], said: str) -> None:
    assert summary([result(o) for o in outcomes], "live") == said
