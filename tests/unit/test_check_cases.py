"""Inline-expectation cases: `# expect: code[, code]` marks the line a diagnostic starts on.

Each file under tests/cases/check must produce exactly the marked (line, code) pairs; each
`# help: text` on a line must be a hint of a diagnostic starting on it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sigspec import load

CASES = Path(__file__).resolve().parents[1] / "cases" / "check"
EXPECT = re.compile(r"#\s*expect:\s*([^#]+)")
HELP = re.compile(r"#\s*help:\s*([^#]+)")


def expected(path: Path) -> set[tuple[int, str]]:
    out = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            out |= {(number, code.strip()) for code in match.group(1).split(",")}
    return out


def expected_hints(path: Path) -> set[tuple[int, str]]:
    lines = enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
    return {(n, hint.strip()) for n, line in lines for hint in HELP.findall(line)}


@pytest.mark.parametrize("path", sorted(CASES.glob("*.sig")), ids=lambda p: p.name)
def test_case(path: Path) -> None:
    result = load([path])
    found = set()
    hints = set()
    for d in result.diagnostics:
        assert d.source is not None and d.span is not None, d
        line = d.source.position(d.span.start).line
        found.add((line, d.code))
        hints |= {(line, hint) for hint in d.hints}
    assert found == expected(path)
    assert expected_hints(path) <= hints
