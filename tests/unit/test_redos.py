"""The ReDoS check: a table of patterns both ways, the diagnostics, and their suppression."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from sigspec import load
from sigspec.semantics.redos import MAX_POSITIONS, analyse
from sigspec.semantics.regex import Alt, Chars, Empty, Repeat, Seq, parse

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
    # Issue 22: inline flags, comments, literal brackets and named back-references used to
    # make the analyser give up; long patterns were skipped; counted repeats lost the
    # blow-up of a nullable body.
    r"(?i)^(a+)+$",
    r"(?i)^(a|A)+$",  # a letter matches both cases
    r"^(?i:a|A)+$",
    r"(?i)^(k|\u212a)+$",  # and the Kelvin sign
    r"(?s)^(.|\n)+$",  # `.` matches a newline
    r"^(?s:.|\n)+$",
    r"(?#a comment)^(a+)+$",
    r"^(a+)(?#c)+$",  # the quantifier applies to the group before the comment
    r"^[[](a+)+$",
    r"^(?P<x>a)(?P=x)(a+)+$",
    "b?" * 61 + "(a+)+$",  # too large as a whole: analysed piece by piece
    r"^(a?){25}a{25}$",
    r"^(a?){25}$",
    r"^(\s*|x){0,30}$",
    r"^((?>a+)|a|aa)+$",  # an atomic part does not hide its neighbours' overlap
    "(?:x[a-z]+)" * 15,  # n**15: past the old budget, so it used to pass
]
POLYNOMIAL = [
    r"^[^@]+@[^@]+\.[^@]+$",
    r"\s*.*\s*",
    r"^\S+@\S+\.\S+$",
    r"^a*a*$",
    r"^.*=.*$",
    r"^\d+\d+$",
    r"^[a-z]*\w*$",
    r"(?i)^a*A*$",
    r"^a+(?>a+)$",  # the first gives back one character at a time: n**2
    "b?" * 61 + "a*a*$",
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
    r"(?i)^abc+$",
    r"^(a|A)+$",
    r"^(.|\n)+$",
    r"^(?i:[a-z]+)-\d+$",
    r"(?m)^\w+$",
    r"(?#a comment)^\d+$",
    r"^[[]\w+]$",
    r"^(?P<q>x)-(?P=q)$",
    r"(a+)++",  # possessive and atomic parts cannot backtrack
    r"(?>a+)+",
    r"^(a+)++$",
    r"^(?>a+)+$",
    r"^a++a++$",
    r"^(?>\w+)\w+$",
    r"^(?>a?){25}$",
    r"^(?>ab)[a-z]+$",
    r"^(a?){10}a{10}$",  # 2**10 paths at most
    r"^(ab?){25}$",
    "x",
]
NOT_ANALYSED = [
    r"(?x) ^ [a-z]+ $",  # verbose: every character means something else
    r"^(a)?(?(1)b|c)$",  # conditional groups
    "(" * 500 + "a" + ")" * 500,
    "(a|b?)" * 70 + "$",
    "b?" * 55 + "a",  # every choice of the b's: slow, and too many pairs to prove it
    "(?:x[a-z]+)" * 60,
    "(?:x[a-z]+)" * 600,  # the budget is for the whole pattern, not for each piece
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # `[[]`: a possible nested set one day
        re.compile(pattern)
    assert analyse(pattern) is None


@pytest.mark.parametrize("pattern", NOT_ANALYSED)
def test_patterns_it_cannot_analyse_are_reported_not_passed(pattern: str) -> None:
    found = analyse(pattern)
    assert found is not None and not found.analysed and not found.exponential, found


def test_the_reason_names_the_repetition() -> None:
    found = analyse(r"^x(a+)+$")
    assert found is not None and found.reason == "`(a+)+` can match the same text in many ways"
    poly = analyse(r"^[^@]+@[^@]+\.[^@]+$")
    assert poly is not None and "2 repetitions in `[^@]+\\.[^@]+`" in poly.reason


def test_not_analysed_says_why() -> None:
    deep = analyse("(" * 500 + "a" + ")" * 500)
    assert deep is not None and deep.reason == "groups are nested more than 100 deep"
    verbose = analyse("(?x)a")
    assert verbose is not None and verbose.reason == "the inline flag `x` is not analysed"
    large = analyse("(a|b?)" * 70)
    assert large is not None and f"more than {MAX_POSITIONS} character positions" in large.reason
    assert large.reason.startswith("it is too large to analyse")
    assert "(a|b?)(a|b?)" in large.reason and "...`" in large.reason


def test_counted_blowup_names_the_repetition() -> None:
    found = analyse(r"^(a?){25}a{25}$")
    assert found is not None and found.reason.startswith("`(a?){25}` repeats a part")


def test_the_parser_reads_the_shared_syntax() -> None:
    node = parse(r"(?:a|[^b-d\d])+x{2,}\u0041")
    assert isinstance(node, Seq)
    rep, x, u = node.items
    assert isinstance(rep, Repeat) and (rep.low, rep.high) == (1, None)
    assert isinstance(rep.body, Alt)
    assert isinstance(x, Repeat) and (x.low, x.high) == (2, None)
    assert isinstance(u, Chars) and u.ranges == ((0x41, 0x41),)
    assert parse("a{,3}") is not None  # not a count: literal text in both engines
    assert parse("(?<=a)b") is not None and parse("(?x)a") is None


def test_the_parser_reads_flags_comments_and_atomic_groups() -> None:
    kelvin = Chars(((0x4B, 0x4B), (0x6B, 0x6B), (0x212A, 0x212A)), 4, 5)
    assert parse("(?i)k") == Seq((Empty(), kelvin))
    assert parse("(?i:a)b") == Seq(
        (Chars(((0x41, 0x41), (0x61, 0x61)), 4, 5), Chars(((0x62, 0x62),), 6, 7))
    )
    assert parse("(?s).") == Seq((Empty(), Chars(((0, 0x10FFFF),), 4, 5)))
    assert parse(".") == Chars(((0, 9), (11, 0x10FFFF)), 0, 1)
    assert parse("a(?#x)b") == Seq((Chars(((0x61, 0x61),), 0, 1), Chars(((0x62, 0x62),), 6, 7)))
    assert parse("[[]") == Chars(((0x5B, 0x5B),), 0, 3)
    possessive = parse("a++")
    assert isinstance(possessive, Repeat) and possessive.atomic
    atomic = parse("(?>a)")
    assert isinstance(atomic, Repeat) and atomic.atomic and (atomic.low, atomic.high) == (1, 1)


def check(tmp_path: Path, text: str) -> list[tuple[int, str]]:
    (tmp_path / "main.sig").write_text(text, encoding="utf-8")
    out = []
    for d in load([tmp_path / "main.sig"]).diagnostics:
        assert d.source is not None and d.span is not None
        out.append((d.source.position(d.span.start).line, d.code))
    return out


BIG = "^(?:[a-z]{1,9}[0-9]{1,9}){1,9}$"  # beyond the analysis' budget


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
        f'signature h(p :string @pattern("^([Aa]+)+$"), q :string @pattern("{BIG}")) -> :int\n'
        "# sigspec: ignore[pattern-not-analysed] checked by hand: no nested choice\n"
        f'signature k(p :string @pattern("{BIG}")) -> :int\n'
    )
    assert check(tmp_path, text) == [
        (2, "slow-pattern"),
        (5, "polynomial-pattern"),
        (8, "slow-pattern"),
        (9, "slow-pattern"),
        (9, "pattern-not-analysed"),
    ]


@pytest.mark.parametrize(
    ("pattern", "part"),
    [(r"^[a-z]++$", "[a-z]++"), (r"a{2,}+", "a{2,}+"), (r"x(?>ab|a)c", "(?>")],
)
def test_possessive_and_atomic_parts_are_unportable(pattern: str, part: str) -> None:
    """Not in ECMA-262 nor in Python 3.10's `re`: the generated validators could not run."""
    from sigspec.runtime.ecma import Unportable, to_python

    with pytest.raises(Unportable) as found:
        to_python(pattern)
    assert found.value.part == part
    to_python(r"^[a-z]+(?:ab|a)c$")
