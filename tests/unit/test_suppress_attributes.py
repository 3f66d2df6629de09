"""A suppression on its own line covers the declaration after it and every line of the
attributes before that declaration: a diagnostic inside a multi-line `@prompt` string (a tag
there), where no comment can go, is suppressed from above the attribute."""

from __future__ import annotations

from pathlib import Path

from sigspec.compiler.project import load

ABOVE = '''\
# sigspec: ignore[unknown-prompt-variable, unknown-type] the prompt is filled in later
@prompt("""
# Task (a heading, not a comment)
Read the text.
@mention {{subjet}}, "quoted" (and a stray paren.
""")
@system("a ) in a string")
signature f(subject :string) -> {x Missing}

@prompt("""
Read the text.
Classify {{subjet}}.
""")
signature g(subject :string) -> :int
'''


def codes_at(tmp_path: Path, text: str) -> list[tuple[str, int]]:
    (tmp_path / "a.sig").write_text(text, encoding="utf-8")
    result = load([tmp_path / "a.sig"])
    found = []
    for d in result.diagnostics:
        assert d.source is not None and d.span is not None
        found.append((d.code, d.source.position(d.span.start).line))
    return found


def test_a_suppression_above_the_attributes_covers_every_line_of_them(tmp_path: Path) -> None:
    unsuppressed = codes_at(tmp_path, ABOVE.split("\n", 1)[1])
    assert unsuppressed == [
        ("unknown-prompt-variable", 4),
        ("unknown-type", 7),
        ("unknown-prompt-variable", 11),
    ]
    # The tag on the prompt's fourth line and the type on the declaration's line are
    # covered; `g`'s prompt, after the declaration, is not.
    assert codes_at(tmp_path, ABOVE) == [("unknown-prompt-variable", 12)]


def test_it_covers_nothing_after_the_declaration_line(tmp_path: Path) -> None:
    text = (
        "# sigspec: ignore[unknown-type] a later field is not covered\n"
        '@system("d")\n'
        "signature f() -> {\n"
        "  x Missing\n"
        "}\n"
    )
    assert codes_at(tmp_path, text) == [("unused-suppression", 1), ("unknown-type", 4)]


def test_after_code_it_covers_its_own_line_only(tmp_path: Path) -> None:
    text = (
        '@prompt("""\n'
        "Classify {{subjet}}.\n"
        '""") # sigspec: ignore[unknown-prompt-variable] covers this line only\n'
        "signature f(subject :string) -> :int\n"
    )
    assert codes_at(tmp_path, text) == [
        ("unknown-prompt-variable", 2),
        ("unused-suppression", 3),
    ]
