"""Did-you-mean suggestions with a tight cut-off: nothing is better than noise.

Following Elm: names shorter than 3 characters may differ by one edit, longer ones by two;
at most three candidates. A known synonym (`integer` for `int`) beats edit distance: it is
what the writer meant, where a close spelling is only a guess. When the names in scope are
few (`SHORT_SCOPE`), a hint lists them all, unless the suggestions already named them.
Each name a hint proposes is also on the diagnostic as a `Fix` (an editor's quick fix).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sigspec.diagnostics.model import Fix
from sigspec.diagnostics.source import Span

SHORT_SCOPE = 8  # scopes this small are listed in full


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
    """The closest candidates (case-insensitively), at most three; only those at the best
    distance, so that a one-letter typo is not shown beside a two-letter guess."""
    limit = 1 if len(name) < 3 else 2
    scored = sorted(
        (d, c)
        for c in set(candidates)
        if c != name and (d := _distance(name.lower(), c.lower(), limit)) <= limit
    )
    return [c for d, c in scored[:3] if d == scored[0][0]]


def did_you_mean(name: str, candidates: Iterable[str], prefix: str = "") -> tuple[str, ...]:
    return suggest(name, candidates, prefix=prefix).hints


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The hints for an unknown name, and the replacements they name (best first)."""

    hints: tuple[str, ...] = ()
    replacements: tuple[str, ...] = ()

    def fixes(self, span: Span) -> tuple[Fix, ...]:
        """Each replacement as an edit of `span`, the unknown name's extent in the source."""
        return tuple(Fix(span, text) for text in self.replacements)


def suggest(
    name: str,
    candidates: Iterable[str],
    *,
    prefix: str = "",
    synonyms: Mapping[str, str] | None = None,
    scope: str | None = None,
) -> Suggestion:
    """Names close to `name` among `candidates` (a synonym's target alone when `name` is a
    known synonym, compared case-insensitively), and when `scope` says what the candidates
    are ("types in scope") and they are few, a hint listing them. Replacements carry
    `prefix` (`:int`), as the hint writes them."""
    names = list(dict.fromkeys(candidates))
    synonym = (synonyms or {}).get(name.lower())
    found = [synonym] if synonym is not None else close_matches(name, names)
    hints = []
    if found:
        hints.append("did you mean " + " or ".join(f"`{prefix}{c}`" for c in found) + "?")
    if scope is not None and len(names) <= SHORT_SCOPE and not (names and set(names) <= set(found)):
        listed = ", ".join(f"`{prefix}{c}`" for c in names) if names else "none"
        hints.append(f"{scope}: {listed}")
    return Suggestion(tuple(hints), tuple(prefix + c for c in found))
