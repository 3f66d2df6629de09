"""Engine tests (not collected by the default run: `.ci/run` runs `pytest tests/engines` in a
venv holding the `engines` extra and the llama.cpp converter it builds). Each provider's
schema compiles in the real engines, and the engines agree with sigspec's validator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.engines.agreement import FORMATS, random_signatures, run
from tests.engines.grammar_engines import (
    ENGINES,
    Refused,
    llama_cpp_accepts,
    llama_cpp_gbnf,
    llguidance_accepts,
    xgrammar_accepts,
)
from tests.unit.test_grammar_patterns import PATTERNS, TEXTS, rewritten_or_none
from tests.unit.test_providers import compile_one, schema_of

from sigspec.runtime import ecma

pytestmark = pytest.mark.engines
EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.sig"))
VLLM = (xgrammar_accepts, llguidance_accepts)


def field(tmp_path: Path, provider: str, spec: str) -> Any:
    body, _ = compile_one(tmp_path, f"signature f() -> {{a {spec}}}", "f", provider)
    return schema_of(body, provider)


def wrap(text: str) -> str:
    return f'{{"a": {text}}}'


def test_digits_are_ascii_for_every_engine(tmp_path: Path) -> None:
    vllm = field(tmp_path, "vllm", ':string @pattern("^\\\\d{4}$")')
    ollama = field(tmp_path, "ollama", ':string @pattern("^\\\\d{4}$")')
    for accepts, schema in [*((a, vllm) for a in VLLM), (llama_cpp_accepts, ollama)]:
        assert accepts(schema, wrap('"1234"'))
        assert not accepts(schema, wrap('"12345"'))
        assert not accepts(schema, wrap('"\u0661\u0662\u0663\u0664"'))
    assert "not supported" not in llama_cpp_gbnf(ollama)[1]


def test_unanchored_pattern_is_a_search_for_every_engine(tmp_path: Path) -> None:
    vllm = field(tmp_path, "vllm", ':string @pattern("[0-9]{2}")')
    ollama = field(tmp_path, "ollama", ':string @pattern("[0-9]{2}")')
    for accepts, schema in [*((a, vllm) for a in VLLM), (llama_cpp_accepts, ollama)]:
        assert accepts(schema, wrap('"a12b"')) and accepts(schema, wrap('"12"'))
        assert not accepts(schema, wrap('"a1b"'))
    assert llama_cpp_gbnf(ollama)[1] == ""  # no "accepting any string" fallback


def test_folded_length_holds_for_every_engine(tmp_path: Path) -> None:
    spec = ':string @pattern("^[a-z]+$") @min_length(2) @max_length(3)'
    schemas = [(a, field(tmp_path, "vllm", spec)) for a in VLLM]
    schemas.append((llama_cpp_accepts, field(tmp_path, "ollama", spec)))
    for accepts, schema in schemas:
        assert accepts(schema, wrap('"ab"')) and accepts(schema, wrap('"abc"'))
        assert not accepts(schema, wrap('"a"')) and not accepts(schema, wrap('"abcd"'))


def test_xgrammar_length_bound_forbids_escapes_as_warned(tmp_path: Path) -> None:
    schema = field(tmp_path, "vllm", ":string @max_length(5)")
    assert not xgrammar_accepts(schema, wrap('"a\\"b"'))  # the loss the warning names
    assert llguidance_accepts(schema, wrap('"a\\"b"'))


def test_ollama_any_admits_every_json_value(tmp_path: Path) -> None:
    schema = field(tmp_path, "ollama", ":any")
    for text in ["1", "null", '"x"', "true", "[1, {}]", '{"k": [null]}']:
        assert llama_cpp_accepts(schema, wrap(text)), text


def test_llama_cpp_applies_bounds_to_integers_only(tmp_path: Path) -> None:
    integer = field(tmp_path, "ollama", ":int @min(3) @max(20)")
    assert llama_cpp_accepts(integer, wrap("3")) and not llama_cpp_accepts(integer, wrap("21"))
    number = {"type": "number", "minimum": 3, "maximum": 20}
    assert llama_cpp_accepts(number, "21")  # why `integer_bounds_only` moves them out


@pytest.mark.parametrize("pattern", ["^(?=a)ab$", "(?<=a)b", "\\bcat\\b", "^[a-z]+$(?!x)"])
def test_what_the_engines_reject_is_not_sent(tmp_path: Path, pattern: str) -> None:
    """Lookaround and word boundaries (backreferences and Unicode properties: the checker
    rejects them): sent as they are, xgrammar or llguidance
    refuses the whole schema and llama.cpp drops the pattern for "any string"; sigspec drops
    the pattern (reported) and every engine compiles what it sends."""
    raw = {"type": "string", "pattern": pattern}
    refusals = 0
    for accepts in VLLM:
        try:
            accepts(raw, '"ab"')
        except Refused:
            refusals += 1
    assert refusals >= 1
    assert "not supported" in llama_cpp_gbnf(raw)[1]
    spec = ":string @pattern(" + json.dumps(pattern) + ")"
    for provider, engines in [("vllm", VLLM), ("ollama", (llama_cpp_accepts,))]:
        schema = field(tmp_path, provider, spec)
        assert "pattern" not in schema["properties"]["a"]
        for accepts in engines:
            assert accepts(schema, wrap('"ab"'))


@pytest.mark.parametrize("provider", ["vllm", "ollama"])
def test_format_gaps_are_the_measured_ones(tmp_path: Path, provider: str) -> None:
    """Each format a provider keeps: the engines agree with the validator on the hard cases,
    or the dialect names the gap (and then the gap is real)."""
    from sigspec.lower.providers import provider as lookup
    from sigspec.runtime.formats import CHECKS

    dialect = lookup(provider).dialect
    gaps = dict(dialect.format_gaps)
    engines = {"vllm": ("xgrammar", "llguidance"), "ollama": ("llama.cpp",)}[provider]
    for fmt in sorted(dialect.formats):
        good, bad = FORMATS[fmt]
        schema = {"type": "string", "format": fmt}
        differ = [
            (engine, value)
            for engine in engines
            for value in good + bad
            if ENGINES[engine](schema, json.dumps(value)) != CHECKS[fmt][0](value)
        ]
        assert bool(differ) == (fmt in gaps), (fmt, differ)


@pytest.mark.parametrize("source", ["examples", "random", "bench-generated"])
def test_engines_agree_with_the_validator(tmp_path: Path, source: str) -> None:
    paths = EXAMPLES
    if source == "random":
        (tmp_path / "random.sig").write_text(random_signatures(40), encoding="utf-8")
        paths = [tmp_path / "random.sig"]
    elif source == "bench-generated":  # bench/generate.py's project: imports, shared types
        from bench.generate import generate

        paths = generate(tmp_path / "gen", files=2, per_file=4)
    counts = run(paths, ("vllm", "ollama", "openai"))
    for key, tally in counts.items():
        assert not tally.refused, (key, tally.refused[:3])
        if key.startswith("openai/"):
            continue  # strict mode's shape (every key, nulls) differs: compiled only
        assert tally.agree > 100, key
        assert not tally.disagree, (key, tally.disagree[:5])
        assert not tally.narrower, (key, tally.narrower[:5])


@settings(max_examples=60, deadline=None)
@given(pattern=PATTERNS, texts=st.lists(TEXTS, min_size=1, max_size=6))
def test_every_engine_reads_a_rewritten_pattern_as_ecma(pattern: str, texts: list[str]) -> None:
    """Random patterns, rewritten: each engine compiles them and matches what ECMA-262's
    search matches (on text a JSON string holds unescaped)."""
    found = rewritten_or_none(pattern)
    if found is None:
        return
    schema = {"type": "string", "pattern": found}
    assert "not supported" not in llama_cpp_gbnf(schema)[1], schema
    original = ecma.compiled(pattern)
    for text in texts:
        expected = bool(original.search(text))
        for name, accepts in ENGINES.items():
            assert accepts(schema, json.dumps(text, ensure_ascii=False)) == expected, (
                name,
                pattern,
                schema["pattern"],
                text,
            )
