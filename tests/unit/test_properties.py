"""Property-based tests: no input escapes as an exception, and valid signatures round-trip."""

from __future__ import annotations

import string
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sigspec import SignatureError, load, parse_signature
from sigspec.diagnostics.source import SourceFile
from sigspec.syntax.fmt.run import format_source, strip_spans
from sigspec.syntax.parser import parse_module

FAST = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

# Text made of the language's own pieces finds deeper paths than uniform noise.
TOKENS = st.sampled_from(
    [
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        "->",
        "?",
        "|",
        "|>",
        "=",
        "...",
        ":int",
        ":string",
        ":float",
        ":bool",
        ":any",
        ":map",
        "a",
        "b-c",
        "_x",
        "Name",
        '"s"',
        '"""t"""',
        "1",
        "-2.5",
        "true",
        "null",
        "@min(1)",
        "@fallback",
        "@output(json)",
        '@prompt("{{a}}")',
        "type",
        "signature",
        "tool",
        "pipeline",
        "import",
        " ",
        "\n",
        "# c\n",
        "## d\n",
        "\u00a0",
        "\\",
    ]
)
SOUP = st.lists(TOKENS, max_size=40).map("".join)


def _check_signature(text: str) -> None:
    try:
        sig = parse_signature(text)
    except SignatureError as exc:
        assert exc.diagnostics and all(d.code for d in exc.diagnostics)
        return
    assert parse_signature(sig.render()).render() == sig.render()


@FAST
@given(st.text())
def test_any_text_gives_a_signature_or_diagnostics(text: str) -> None:
    _check_signature(text)


@FAST
@given(SOUP)
def test_token_soup_gives_a_signature_or_diagnostics(text: str) -> None:
    _check_signature(text)


@FAST
@given(SOUP)
def test_fmt_is_idempotent_and_keeps_meaning(text: str) -> None:
    source = SourceFile("x.sig", text)
    result = format_source(source)
    if result.text is None:
        return
    again = format_source(SourceFile("x.sig", result.text))
    assert again.text == result.text
    before, _ = parse_module(source)
    after, _ = parse_module(SourceFile("x.sig", result.text))
    assert strip_spans(before) == strip_spans(after)


@FAST
@given(st.binary(max_size=300))
def test_any_bytes_load_without_exceptions(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.sig"
    path.write_bytes(data)
    result = load([path])
    assert all(d.code for d in result.diagnostics)


NAMES = st.text(string.ascii_letters + "_", min_size=1, max_size=6).filter(
    lambda n: n not in {"true", "false", "null"}
)


def types(depth: int = 3) -> st.SearchStrategy[str]:
    prim = st.sampled_from(
        [
            ":string",
            ":int",
            ":float",
            ":bool",
            ":keyword",
            ":datetime",
            ":map",
            ":any",
            ":int?",
            ":string?",
        ]
    )
    if depth == 0:
        return prim
    inner = types(depth - 1)
    lists = inner.map(lambda t: f"[{t}]")
    maps = st.lists(
        st.tuples(NAMES, inner), max_size=4, unique_by=lambda p: p[0].replace("-", "_")
    ).map(lambda fields: "{" + ", ".join(f"{n} {t}" for n, t in fields) + "}")
    return st.one_of(prim, lists, maps)


@FAST
@given(st.lists(st.tuples(NAMES, types()), max_size=4, unique_by=lambda p: p[0]), types())
def test_valid_signatures_round_trip(params: list[tuple[str, str]], output: str) -> None:
    text = "(" + ", ".join(f"{n} {t}" for n, t in params) + ") -> " + output
    sig = parse_signature(text)
    assert sig.render() == text
    assert parse_signature(sig.render()) == sig
