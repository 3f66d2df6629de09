"""Source limits, and pathological text that must parse or give a diagnostic, never hang."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigspec import load
from sigspec.diagnostics.source import SourceFile
from sigspec.syntax.limits import DEFAULT_LIMITS, MAX_DECLARATIONS, MAX_FILE_BYTES, SourceLimits
from sigspec.syntax.parser import parse_module


def codes_of(text: str, limits: SourceLimits = DEFAULT_LIMITS) -> list[str]:
    module, diags = parse_module(SourceFile("m.sig", text), limits)
    assert (module is None) == any(d.is_error for d in diags)
    return [d.code for d in diags]


def test_defaults() -> None:
    assert SourceLimits() == SourceLimits(MAX_FILE_BYTES, MAX_DECLARATIONS)
    assert (MAX_FILE_BYTES, MAX_DECLARATIONS) == (4 * 1024 * 1024, 10_000)


@pytest.mark.parametrize("field", ["max_file_bytes", "max_declarations"])
def test_limits_are_positive(field: str) -> None:
    with pytest.raises(ValueError, match="positive"):
        SourceLimits(**{field: 0})


def test_file_size_is_counted_in_utf8_bytes() -> None:
    limits = SourceLimits(max_file_bytes=30)
    assert codes_of("type T = :int # " + "x" * 14, limits) == []  # 30 bytes
    assert codes_of("type T = :int # " + "x" * 15, limits) == ["file-too-large"]
    assert codes_of("type T = :int # " + "é" * 8, limits) == ["file-too-large"]  # 32 bytes
    _, (diag,) = parse_module(SourceFile("m.sig", "#" * 40), limits)
    assert diag.message == "file is 40 bytes; the limit for a .sig file is 30 bytes"


def test_declarations_over_the_limit_are_refused_at_the_first_extra_one() -> None:
    limits = SourceLimits(max_declarations=3)
    three = "type A = :int\ntype B = :int\nsignature f() -> A\n"
    assert codes_of(three, limits) == []
    module, (diag,) = parse_module(SourceFile("m.sig", three + "type C = B\n"), limits)
    assert module is None and diag.code == "too-many-declarations"
    assert diag.span is not None and diag.source is not None
    assert diag.source.position(diag.span.start).line == 4
    assert diag.message == "file has 4 declarations; the limit for a .sig file is 3"


def test_the_default_declaration_limit(tmp_path: Path) -> None:
    text = "".join(f"type T{i} = :int\n" for i in range(MAX_DECLARATIONS))
    assert codes_of(text) == []
    assert codes_of(text + "type Extra = :int\n") == ["too-many-declarations"]


# Each parses, or gives diagnostics; none raises, none hangs (the run is bounded by the
# size limit and by linear stages; each takes well under two seconds here).
PATHOLOGICAL: list[tuple[str, str | bytes, set[str]]] = [
    (
        "10,000 parentheses",
        "signature f() -> " + "(" * 10_000 + ":int" + ")" * 10_000,
        {"nesting-too-deep"},
    ),
    ("10,000 brackets", "type T = " + "[" * 10_000 + ":int" + "]" * 10_000, {"nesting-too-deep"}),
    (
        "10,000 brackets in a default",
        "signature f(a :any = " + "[" * 10_000 + "]" * 10_000 + ") -> :int",
        {"nesting-too-deep"},
    ),
    ("1 MB string", 'type T = "' + "x" * 1_000_000 + '"\n', set()),
    ("1 MB string of #", 'type T = "' + "#" * 1_000_000 + '"\n', set()),
    ("1 MB comment line", "#" + "x" * 1_000_000 + "\ntype T = :int\n", set()),
    ("100,000 comment lines", "# c\n" * 100_000 + "type T = :int\n", set()),
    ("100,000 doc lines", "## c\n" * 100_000 + "type T = :int\n", set()),
    ("unterminated triple string", '@prompt("""' + 'a"b\\"' * 100_000, {"syntax-error"}),
    ("unterminated triple quotes", '"""' + '""' * 100_000, {"syntax-error"}),
    ("unterminated string", '"' + "\\" * 500_000 + "\nx", {"syntax-error"}),
    ("a million quotes", '"' * 1_000_000, {"syntax-error"}),
    ("NUL bytes", "type T = :int\0\0\n" + "\0" * 100_000, {"syntax-error"}),
    ("a million-digit integer", "type T = " + "1" * 1_000_000 + "\n", {"syntax-error"}),
    ("a huge exponent", "type T = 1e999999\n", {"syntax-error"}),
    ("a million-character name", "type " + "a" * 1_000_000 + " = :int\n", set()),
    ("10,000 union members", "type T = " + " | ".join(f'"a{i}"' for i in range(10_000)), set()),
    ("BOM", "\ufefftype T = :int\n", set()),
    ("CRLF", "## doc\r\ntype T = :int\r\nsignature f(a T) -> {b :int}\r\n", set()),
    ("invalid UTF-8", b"type T = :int\n\xff\xfe\x80" * 1000, {"invalid-encoding"}),
    ("lone surrogate escape", 'type T = "\\ud800"\n', {"invalid-string"}),
]


@pytest.mark.parametrize(
    ("text", "expected"), [(t, e) for _, t, e in PATHOLOGICAL], ids=[n for n, _, _ in PATHOLOGICAL]
)
def test_pathological_text_parses_or_gives_a_diagnostic(
    tmp_path: Path, text: str | bytes, expected: set[str]
) -> None:
    path = tmp_path / "p.sig"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    result = load([path])
    assert {d.code for d in result.diagnostics if d.is_error} == expected
