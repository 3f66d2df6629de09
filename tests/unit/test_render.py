"""Renderers: positions, carets under wide and tabbed text, escaping."""

from __future__ import annotations

from sigspec.diagnostics import Diagnostic, Severity, codes
from sigspec.diagnostics.model import Label
from sigspec.diagnostics.render import github, human
from sigspec.diagnostics.source import SourceFile, Span


def test_carets_follow_tabs_and_span_width() -> None:
    source = SourceFile("t.sig", "type A =\n\t{x Foo}\n")
    diag = codes.UNKNOWN_TYPE.at(source, Span(13, 16), name="Foo")
    text = human.render([diag], False).splitlines()
    assert text[0] == "t.sig:2:5: error[unknown-type]: unknown type `Foo`"
    assert text[2] == "2 |     {x Foo}"
    assert text[3] == "  |        ^^^"


def test_colour_only_when_asked() -> None:
    source = SourceFile("t.sig", "x")
    diag = codes.SYNTAX_ERROR.at(source, Span(0, 1), detail="bad")
    assert "\x1b[" in human.render([diag], True)
    assert "\x1b[" not in human.render([diag], False)


def test_control_characters_are_not_echoed_raw() -> None:
    source = SourceFile("t.sig", "\x1b[2Jx")
    diag = codes.SYNTAX_ERROR.at(source, Span(0, 1), detail="bad")
    assert "\x1b[2J" not in human.render([diag], False)


def test_github_escapes_properties_and_data() -> None:
    source = SourceFile("a:b,c%.sig", "x")
    diag = codes.SYNTAX_ERROR.at(source, Span(0, 1), detail="50%\nnext")
    line = github.render([diag], False)
    assert "file=a%3Ab%2Cc%25.sig" in line
    assert line.endswith("::50%25%0Anext\n")


def test_the_command_line_offers_every_renderer() -> None:
    from sigspec.cli import FORMATS
    from sigspec.diagnostics.render import RENDERERS, renderer

    assert tuple(RENDERERS) == FORMATS
    assert all(callable(renderer(name)) for name in FORMATS)


def test_text_escapes_control_characters_of_paths_messages_and_hints() -> None:
    """A folder, a file or a string of a `.sig` file can hold terminal escape sequences: the
    text report (a terminal, a CI log) shows them escaped, never as commands."""
    source = SourceFile("evil\x1b]0;owned\x07/a\x1b[2J.sig", "type A = :int\n")
    diagnostic = Diagnostic(
        "unknown-type",
        Severity.ERROR,
        "bad pattern `\x1b[31m(`",
        source,
        Span(5, 6),
        labels=(Label(source, Span(0, 4), "see \x1b[1mhere"),),
        hints=("try \x1b[0m`x`",),
    )
    text = human.render([diagnostic], color=False)
    assert "\x1b" not in text and "\x07" not in text
    assert "evil\\x1b]0;owned\\x07/a\\x1b[2J.sig:1:6:" in text
    assert "bad pattern `\\x1b[31m(`" in text and "try \\x1b[0m`x`" in text


def test_a_long_line_is_shown_as_a_window_around_the_span() -> None:
    """A one-line file of a megabyte with many findings: each excerpt stays short, and its
    carets stay under the span."""
    line = "a" * 100_000 + "Foo" + "b" * 100_000
    source = SourceFile("t.sig", line + "\n")
    diag = codes.UNKNOWN_TYPE.at(source, Span(100_000, 100_003), name="Foo")
    _, _, shown, carets = human.render([diag], False).splitlines()[:4]
    assert len(shown) < 200 and shown.startswith("1 | ...") and shown.endswith("...")
    assert shown[carets.index("^") : carets.index("^") + 3] == "Foo"
    assert carets.count("^") == 3
