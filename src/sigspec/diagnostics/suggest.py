"""Did-you-mean suggestions with a tight cut-off: nothing is better than noise.

Following Elm: names shorter than 3 characters may differ by one edit, longer ones by two;
at most three candidates.
"""

from __future__ import annotations

from collections.abc import Iterable


def _distance(a: str, b: str, limit: int) -> int:
    """Damerau-Levenshtein (optimal string alignment) distance, stopping early past `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def close_matches(name: str, candidates: Iterable[str]) -> list[str]:
    limit = 1 if len(name) < 3 else 2
    scored = sorted(
        (d, c)
        for c in set(candidates)
        if c != name and (d := _distance(name.lower(), c.lower(), limit)) <= limit
    )
    return [c for _, c in scored[:3]]


def did_you_mean(name: str, candidates: Iterable[str], prefix: str = "") -> tuple[str, ...]:
    found = close_matches(name, candidates)
    if not found:
        return ()
    return ("did you mean " + " or ".join(f"`{prefix}{c}`" for c in found) + "?",)
