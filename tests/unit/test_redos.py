"""The ReDoS check: a table of patterns both ways, the diagnostics, and their suppression."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sigspec import load
from sigspec.semantics.redos import analyse
from sigspec.semantics.regex import Alt, Chars, Repeat, Seq, parse

EXPONENTIAL = [
    r"^(a+)+$",
    r"(a|a)*",
    r"(a*)*",
    r"^(\w|\d)+$",
    r"(.*a){20}",
    r"^(x+x+)+y$",
    r"^([a-z]+)*$",
    r"^(?:[a-z]+\s?)+$",
    r"(\w+\s*)+$",
    r"^(a|aa)+$",
    r"^(?P<w>a+)+$",
    r"^(a+?)+$",
    r"^(\d|[0-5])*x$",
    r"^(.*,)*$",
    r"^(\s*\S*)+$",
]
POLYNOMIAL = [
    r"^[^@]+@[^@]+\.[^@]+$",
    r"\s*.*\s*",
    r"^\S+@\S+\.\S+$",
    r"^a*a*$",
    r"^.*=.*$",
    r"^\d+\d+$",
    r"^[a-z]*\w*$",
]
SAFE = [
    r"^[0-9]{5}$",
    r"^[A-Z]{3}-\d+$",
    r"^[^@\s]+@[^@\s]+$",  # `@` keeps the two repetitions apart: linear
    r"^[A-Z0-9-]+$",
    r"^[A-Z]{2}-[0-9]+$",
    r'^"[a-z]+\d"$',
    r"^[a-z0-9]+(-[a-z0-9]+)*$",
    r"^(\d{1,3}\.){3}\d{1,3}$",
    r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$",
    r"^(a|ab)*c$",
    r"^\d+(\.\d+)?$",
    r"^https?://\S+$",
    r"^[a-z]+(?:_[a-z]+)*$",
    r"^\w+\s\w+$",
    r"^(\d+)-(\d+)$",
    r"^.*$",
    r"^(a|b|c)*$",
    r"\bfoo\b",
    r"^(?=.*\d).{8,}$",
    r"^([^,]*,)*$",
    r"^[\w.-]+$",
    r"^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$",
    r"^\s*\w+\s*=\s*\w+\s*$",
    r"^\d{4}-\d{2}-\d{2}$",
    r"^[A-Z][a-z]*( [A-Z][a-z]*)*$",
    r"^#[0-9a-fA-F]{6}$",
    r"^\+?[0-9 ()-]{7,20}$",
    r"(?i)^abc+$",  # inline flags: not analysed
    "x",
]


@pytest.mark.parametrize("pattern", EXPONENTIAL)
def test_exponential_patterns_are_errors(pattern: str) -> None:
    found = analyse(pattern)
    assert found is not None and found.exponential, found


@pytest.mark.parametrize("pattern", POLYNOMIAL)
def test_polynomial_patterns_are_warnings(pattern: str) -> None:
    found = analyse(pattern)
    assert found is not None and not found.exponential, found


@pytest.mark.parametrize("pattern", SAFE)
def test_safe_patterns_are_not_reported(pattern: str) -> None:
    re.compile(pattern)
    assert analyse(pattern) is None


def test_the_reason_names_the_repetition() -> None:
    found = analyse(r"^x(a+)+$")
    assert found is not None and found.reason == "`(a+)+` can match the same text in many ways"
    poly = analyse(r"^[^@]+@[^@]+\.[^@]+$")
    assert poly is not None and "2 repetitions in `[^@]+\\.[^@]+`" in poly.reason


def test_huge_or_deep_patterns_give_up_quietly() -> None:
    assert analyse("(" * 500 + "a" + ")" * 500) is None
    assert analyse("(?:a|b)" * 200) is None
    assert analyse("[a-z]{3}" * 100) is None


def test_the_parser_reads_the_shared_syntax() -> None:
    node = parse(r"(?:a|[^b-d\d])+x{2,}\u0041")
    assert isinstance(node, Seq)
    rep, x, u = node.items
    assert isinstance(rep, Repeat) and (rep.low, rep.high) == (1, None)
    assert isinstance(rep.body, Alt)
    assert isinstance(x, Repeat) and (x.low, x.high) == (2, None)
    assert isinstance(u, Chars) and u.ranges == ((0x41, 0x41),)
    assert parse("a{,3}") is not None  # not a count: literal text in both engines
    assert parse("(?<=a)b") is not None and parse("(?i)a") is None


def check(tmp_path: Path, text: str) -> list[tuple[int, str]]:
    (tmp_path / "main.sig").write_text(text, encoding="utf-8")
    out = []
    for d in load([tmp_path / "main.sig"]).diagnostics:
        assert d.source is not None and d.span is not None
        out.append((d.source.position(d.span.start).line, d.code))
    return out


def test_lint_reports_and_suppressions_silence(tmp_path: Path) -> None:
    text = (
        "signature f() -> {\n"
        '  a :string @pattern("^(a+)+$"),\n'
        "  # sigspec: ignore[slow-pattern] only trusted, short input reaches this field\n"
        '  b :string @pattern("^(a+)+$"),\n'
        '  c :string @pattern("^[^@]+@[^@]+\\\\.[^@]+$"),\n'
        '  d :string? @pattern("\\\\s*.*\\\\s*") # sigspec: ignore[polynomial-pattern] short\n'
        "}\n"
        'signature g(p :string @pattern("(a|a)*")) -> :int\n'
    )
    assert check(tmp_path, text) == [
        (2, "slow-pattern"),
        (5, "polynomial-pattern"),
        (8, "slow-pattern"),
    ]
