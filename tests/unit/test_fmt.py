"""`sigspec fmt`: expected layouts, idempotence, and meaning kept (black's discipline)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from sigspec.diagnostics.source import SourceFile
from sigspec.syntax.fmt.run import format_source, strip_spans
from sigspec.syntax.parser import parse_module

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((ROOT / "tests" / "cases" / "fmt").glob("*.sig"))
EXAMPLES = sorted((ROOT / "examples").glob("*.sig"))


def fmt(text: str) -> str:
    result = format_source(SourceFile("case.sig", text))
    assert result.text is not None, result.diagnostics
    return result.text


def comments(text: str) -> list[str]:
    module, _ = parse_module(SourceFile("x.sig", text))
    assert module is not None
    docs = [d.doc for d in module.decls if d.doc]
    return sorted([c.text for c in module.comments] + docs)


def assert_preserved(before: str, after: str) -> None:
    m1, _ = parse_module(SourceFile("x.sig", before))
    m2, _ = parse_module(SourceFile("x.sig", after))
    assert strip_spans(m1) == strip_spans(m2)
    assert comments(before) == comments(after)
    assert fmt(after) == after


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_case(path: Path) -> None:
    source, _, expected = path.read_text(encoding="utf-8").partition("# output\n")
    assert fmt(source) == expected
    assert_preserved(source, expected)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_are_formatted_and_stable(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert fmt(text) == text
    assert_preserved(text, fmt(text))


def test_syntax_error_is_not_formatted() -> None:
    result = format_source(SourceFile("bad.sig", "signature f( -> :int"))
    assert result.text is None
    assert [d.code for d in result.diagnostics] == ["syntax-error"]


def test_empty_and_comment_only_files() -> None:
    assert fmt("") == ""
    assert fmt("\n\n") == ""
    assert fmt("# only a comment\n") == "# only a comment\n"


def test_a_suppression_stays_on_the_line_it_silences(tmp_path: Path) -> None:
    """A field whose lines carry two trailing comments keeps one on its line: the
    suppression, which on a line of its own would silence the next line instead."""
    path = tmp_path / "s.sig"
    path.write_text(
        "signature f() -> {\n"
        '  t :string? ## doc\n@format("uri-template") # sigspec: ignore[unchecked-format] ok\n'
        "}\n",
        encoding="utf-8",
    )
    assert run_cli("lint", str(path)).returncode == 0
    assert run_cli("fmt", str(path)).returncode == 0
    assert '@format("uri-template") # sigspec: ignore' in path.read_text(encoding="utf-8")
    linted = run_cli("lint", str(path))
    assert (linted.returncode, "unchecked-format" in linted.stderr) == (0, False)
