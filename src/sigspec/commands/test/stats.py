"""Pass rates: the share of runs that passed, its 95% Wilson score interval, and whether it
meets a test's minimum. Pure."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

Z95 = 1.959963984540054  # the standard normal's 97.5th percentile


@dataclass(frozen=True, slots=True)
class Rate:
    passed: int
    total: int

    @property
    def value(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """The Wilson score interval (`(0, 1)` with no runs)."""
        return wilson(self.passed, self.total, z)

    def meets(self, minimum: float) -> bool:
        """Whether passed/total >= `minimum`, exactly (0.7 of 10 runs is 7, not 7.000001)."""
        if not self.total:
            return False
        return Fraction(self.passed, self.total) >= Fraction(repr(minimum))


def wilson(passed: int, total: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of `passed` successes in `total` trials: unlike the normal
    approximation, it stays inside [0, 1] and is not empty at 0 or `total` successes."""
    if total <= 0:
        return 0.0, 1.0
    p = passed / total
    z2 = z * z
    centre = (p + z2 / (2 * total)) / (1 + z2 / total)
    half = z * math.sqrt(p * (1 - p) / total + z2 / (4 * total * total)) / (1 + z2 / total)
    # At 0 or `total` successes a bound is 0 or 1 exactly; rounding would print 99.99...%.
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == total else min(1.0, centre + half)
    return low, high
