"""Inline-expectation cases: `# expect: code[, code]` marks the line a diagnostic starts on.

Each file under tests/cases/check must produce exactly the marked (line, code) pairs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sigspec import load

CASES = Path(__file__).resolve().parents[1] / "cases" / "check"
EXPECT = re.compile(r"#\s*expect:\s*(.+)$")


def expected(path: Path) -> set[tuple[int, str]]:
    out = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            out |= {(number, code.strip()) for code in match.group(1).split(",")}
    return out


@pytest.mark.parametrize("path", sorted(CASES.glob("*.sig")), ids=lambda p: p.name)
def test_case(path: Path) -> None:
    result = load([path])
    found = set()
    for d in result.diagnostics:
        assert d.source is not None and d.span is not None, d
        found.add((d.source.position(d.span.start).line, d.code))
    assert found == expected(path)
