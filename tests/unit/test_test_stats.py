"""Pass rates and their 95% Wilson score intervals (`commands/test/stats.py`), against
published values: Newcombe (1998), "Two-sided confidence intervals for the single
proportion", Statistics in Medicine 17, table I (method 3, the score interval)."""

from __future__ import annotations

import pytest

from sigspec.commands.test.stats import Rate, wilson


@pytest.mark.parametrize(
    ("passed", "total", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),  # Newcombe's table I
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (5, 10, 0.2366, 0.7634),
        (3, 5, 0.2307, 0.8824),
    ],
)
def test_wilson_matches_published_intervals(
    passed: int, total: int, low: float, high: float
) -> None:
    found = wilson(passed, total)
    assert found == pytest.approx((low, high), abs=5e-5)


def test_wilson_bounds_are_exact_at_the_ends() -> None:
    assert wilson(10, 10)[1] == 1.0
    assert wilson(0, 10)[0] == 0.0
    assert wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("passed", "total", "minimum", "meets"),
    [
        (7, 10, 0.7, True),  # 0.7 * 10 is 7.000000000000001 in floats: exact here
        (6, 10, 0.7, False),
        (3, 5, 0.6, True),
        (2, 5, 0.6, False),
        (1, 1, 1.0, True),
        (2, 3, 1.0, False),
        (0, 0, 0.1, False),
    ],
)
def test_meets_compares_exactly(passed: int, total: int, minimum: float, meets: bool) -> None:
    assert Rate(passed, total).meets(minimum) is meets
