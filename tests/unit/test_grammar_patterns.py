"""Patterns rewritten for the grammar engines (vLLM's xgrammar and llguidance, Ollama's
llama.cpp), and the losses the vLLM and Ollama fragments report. The engines themselves run
in tests/engines/ (`.ci/run`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.unit.test_providers import compile_one, schema_of

from sigspec.lower.providers.grammar_patterns import (
    SAFE,
    Refused,
    render_class,
    rewrite,
    with_lengths,
)
from sigspec.runtime import ecma

ANY = f"{render_class(SAFE)}*"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("^\\d{4}$", "^[0-9]{4}$"),
        ("^\\w+$", "^[0-9A-Z\\x5F\\x61-z]+$"),
        ("^[\\d\\-]+$", "^[\\x2D\\x30-9]+$"),
        ("^a\\.bc$", "^a[\\x2E]bc$"),
        ("^[.b]c$", "^[\\x2E\\x62]c$"),  # xgrammar reads `\x2Eb` as one escape
        ("^(?<y>\\d{4})-\\d\\d$", "^([0-9]{4})[\\x2D][0-9][0-9]$"),
        ("^a+?$", "^a+$"),
        ("[0-9]{2}", f"^{ANY}[0-9]{{2}}{ANY}$"),
        ("^ab", f"^ab{ANY}$"),
        ("a$|^b", f"^({ANY}a|b{ANY})$"),
    ],
)
def test_rewrites(pattern: str, expected: str) -> None:
    assert rewrite(pattern).pattern == expected


@pytest.mark.parametrize(
    ("pattern", "what"),
    [
        ("(?=a)b", "lookaround"),
        ("(?<!a)b", "lookaround"),
        ("\\bword", "word boundary"),
        ("(a)\\1", "backreference"),
        ("\\p{L}", "Unicode property"),
        ("a(^b)", "anchor inside"),
        ('^"$', "cannot produce"),
        ("^(?:a*)+$", "can match nothing"),
        ("^(?:a|b?)*$", "can match nothing"),
    ],
)
def test_refuses_what_no_engine_reads(pattern: str, what: str) -> None:
    with pytest.raises(Refused, match=what):
        rewrite(pattern)


def test_spaces_are_ecma_spaces_and_dot_stops_at_line_ends() -> None:
    spaces = re.compile(rewrite("^\\s$").pattern)
    assert spaces.match(" ") and spaces.match("\u3000") and spaces.match("\u00a0")
    assert not spaces.match("x")
    dot = re.compile(rewrite("^.$").pattern)
    assert dot.match("x") and not dot.match("\u2028") and not dot.match('"')
    assert rewrite("^.$").narrowed and not rewrite("^\\d$").narrowed


@pytest.mark.parametrize(
    "pattern",
    ["^\\d{3}-\\w+$", "[A-Z]{2}", "^(a|bc)+$", "x$|^y", "^[^\\s]{2,}$", "^\\$\\d+(?:\\.\\d\\d)?$"],
)
def test_same_strings_as_ecma_on_plain_text(pattern: str) -> None:
    """On text without quotes, backslashes or controls the rewrite means what ECMA-262 means
    (Python's `fullmatch` of the rewrite against ECMA's search)."""
    rewritten = re.compile(rewrite(pattern).pattern)
    original = ecma.compiled(pattern)
    for text in ["", "12-ab", "x123-a_b y", "AB", "aB", "abcbc", "x", "y", "xy", "ab cd", "$1.50"]:
        assert bool(rewritten.fullmatch(text)) == bool(original.search(text)), (pattern, text)


def test_vllm_pattern_rewritten_and_length_folded(tmp_path: Path) -> None:
    text = (
        'signature f() -> {a :string @pattern("^\\\\d{4}$"), '
        'b :string @pattern("^[a-z]+$") @min_length(2) @max_length(4), '
        'c :string @pattern("^(a|b)+$") @max_length(3)}'
    )
    body, diags = compile_one(tmp_path, text, "f", "vllm")
    props = schema_of(body, "vllm")["properties"]
    assert props["a"]["pattern"] == "^[0-9]{4}$"
    assert props["b"]["pattern"] == "^[a-z]{2,4}$"
    assert props["c"]["pattern"] == "^(a|b)+$" and props["c"]["maxLength"] == 3
    assert any("f.c" in d and "maxLength: 3" in d and "beside a pattern" in d for d in diags)
    assert not any("f.a" in d or "f.b" in d for d in diags)


def test_vllm_refused_pattern_moves_to_description(tmp_path: Path) -> None:
    body, diags = compile_one(
        tmp_path, 'signature f() -> {a :string @pattern("\\\\bcat\\\\b")}', "f", "vllm"
    )
    prop = schema_of(body, "vllm")["properties"]["a"]
    assert "pattern" not in prop and "\\\\bcat" in prop["description"]
    assert any("f.a" in d and "word boundary" in d for d in diags)


def test_vllm_length_bound_warns_about_escapes(tmp_path: Path) -> None:
    body, diags = compile_one(tmp_path, "signature f() -> {a :string @max_length(5)}", "f", "vllm")
    assert schema_of(body, "vllm")["properties"]["a"]["maxLength"] == 5
    assert any("f.a" in d and "xgrammar produces no" in d for d in diags)


def test_ollama_any_is_every_type(tmp_path: Path) -> None:
    body, diags = compile_one(tmp_path, "signature f() -> {a :any}", "f", "ollama")
    assert schema_of(body, "ollama")["properties"]["a"] == {
        "type": ["object", "array", "string", "number", "boolean", "null"]
    }
    assert diags == []


def test_ollama_unanchored_pattern_is_anchored_and_reported(tmp_path: Path) -> None:
    body, diags = compile_one(
        tmp_path, 'signature f() -> {a :string @pattern("[A-Z]{2}")}', "f", "ollama"
    )
    pattern = schema_of(body, "ollama")["properties"]["a"]["pattern"]
    assert pattern.startswith("^") and pattern.endswith("$") and "[A-Z]{2}" in pattern
    assert any("f.a" in d and "narrowed" in d for d in diags)


ATOMS = st.sampled_from(
    [
        "a",
        "b",
        "-",
        "\\.",
        ".",
        "\\d",
        "\\w",
        "\\s",
        "\\D",
        "\\W",
        "\\S",
        "[a-c]",
        "[^a]",
        "[\\d_]",
        "[^\\s]",
        "é",
        "\\u3000",
    ]
)
QUANTIFIERS = st.sampled_from(["", "", "*", "+", "?", "{1,2}", "{2}", "*?"])


def _sequence(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    piece = st.tuples(inner, QUANTIFIERS).map("".join)
    return st.lists(piece, min_size=1, max_size=4).map("".join)


BODIES = st.recursive(
    _sequence(ATOMS),
    lambda inner: _sequence(
        st.lists(inner, min_size=1, max_size=2).map(lambda alts: f"(?:{'|'.join(alts)})")
    ),
    max_leaves=6,
)
PATTERNS = st.lists(
    st.tuples(st.sampled_from(["", "^"]), BODIES, st.sampled_from(["", "$"])).map("".join),
    min_size=1,
    max_size=2,
).map("|".join)
# Text a JSON string holds unescaped (what the rewrite keeps; the rest is the reported loss).
TEXTS = st.text(alphabet="ab-.c_9 \u00e9\u00a0\u3000\u2028xZ", max_size=6)


def rewritten_or_none(pattern: str) -> str | None:
    """The rewrite, or None where it is refused for the one reason random patterns meet."""
    try:
        return rewrite(pattern).pattern
    except Refused as exc:
        assert "repeated group that can match nothing" in str(exc), (pattern, exc)
        return None


@settings(max_examples=300, deadline=None)
@given(pattern=PATTERNS, texts=st.lists(TEXTS, min_size=1, max_size=8))
def test_rewrite_means_ecma_search(pattern: str, texts: list[str]) -> None:
    found = rewritten_or_none(pattern)
    if found is None:
        return
    rewritten = re.compile(found)
    original = ecma.compiled(pattern)
    for text in texts:
        assert bool(rewritten.fullmatch(text)) == bool(original.search(text)), (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "low", "high", "expected"),
    [
        ("^[a-z]+$", 2, None, "^[a-z]{2,}$"),
        ("^[a-z]{1,8}$", None, 4, "^[a-z]{1,4}$"),
        ("^\\d?$", 1, 1, "^[0-9]{1,1}$"),
        ("^[a-z]{3}$", None, 2, None),  # no string fits: left to the report
        ("^a[a-z]+$", 2, 4, None),  # not one repeated class
    ],
)
def test_lengths_fold_into_one_repeated_class(
    pattern: str, low: int | None, high: int | None, expected: str | None
) -> None:
    assert with_lengths(rewrite(pattern), low, high) == expected
