"""Prompt diagnostics point at the tag inside the `@prompt` string, escapes and all."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lsprotocol import types as lsp
from pygls.workspace import PositionCodec

from sigspec import load
from sigspec.commands.lsp.server import to_lsp
from sigspec.diagnostics import Diagnostic
from sigspec.syntax.fmt.literals import encode, encode_triple
from sigspec.syntax.strings import decode, decode_offsets


def check(tmp_path: Path, text: str) -> list[Diagnostic]:
    path = tmp_path / "t.sig"
    path.write_bytes(text.encode("utf-8"))
    return list(load([path]).diagnostics)


def pointed(d: Diagnostic) -> str:
    assert d.source is not None and d.span is not None
    return d.source.text[d.span.start : d.span.end]


# ---- the offsets of a decoded string ------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    [
        r'"plain"',
        r'"a\"b\\c\/d\n\t\b\f\r"',
        r'"caf\u00e9 \ud83d\ude00 😀 x"',
        '"""\nline one\n  \\"two\\"\n"""',
        '"""\r\nwindows\r\nlines"""',
        '"""no newline first"""',
        '""',
    ],
)
def test_offsets_map_each_character_to_where_it_is_written(token: str) -> None:
    value, offsets = decode_offsets(token)
    assert value == decode(token)
    assert len(offsets) == len(value) + 1
    assert list(offsets) == sorted(set(offsets))
    for i, char in enumerate(value):
        written = token[offsets[i] : offsets[i + 1]]
        assert written == char or written.startswith("\\"), (i, written)
    assert token[offsets[-1] :] in ('"', '"""')


@given(st.text(max_size=40), st.booleans())
def test_offsets_agree_with_decode_on_what_the_formatter_writes(value: str, triple: bool) -> None:
    token = encode_triple(value) if triple else encode(value)
    decoded, offsets = decode_offsets(token)
    assert decoded == decode(token) == value
    for i, char in enumerate(value):
        written = token[offsets[i] : offsets[i + 1]]
        assert written == char or (written.startswith("\\") and decode(f'"{written}"') == char)


# ---- where prompt diagnostics point -------------------------------------------------------

SIG = "signature f(text :string, items [{name :string}], tags [:string]) -> :string\n"


@pytest.mark.parametrize(
    ("prompt", "code", "tag"),
    [
        ('"Classify {{subjet}}"', "unknown-prompt-variable", "{{subjet}}"),
        (
            r'"Say \"hi\" \\ \n caf\u00e9 \ud83d\ude00 {{subjet}}"',
            "unknown-prompt-variable",
            "{{subjet}}",
        ),
        ('"😀 ✨ {{ subjet }} {{text}}"', "unknown-prompt-variable", "{{ subjet }}"),
        (
            '"""\nClassify:\n  {{text}}\n  \\"{{subjet}}\\"\n"""',
            "unknown-prompt-variable",
            "{{subjet}}",
        ),
        ('"{{#items}}{{title}}{{/items}}"', "section-field-missing", "{{title}}"),
        ('"{{#items}}{{.}}{{/items}}"', "dot-over-non-scalar", "{{.}}"),
        ('"{{text}} {{#items}}{{name}}"', "invalid-prompt-template", "{{#items}}"),
        ('"{{text}} {{#tags}}{{.}}{{/items}}"', "invalid-prompt-template", "{{/items}}"),
        ('"{{text}} {{> part}}"', "invalid-prompt-template", "{{> part}}"),
        ('"{{text}} {{name"', "invalid-prompt-template", "{{name"),
    ],
)
def test_a_prompt_diagnostic_points_at_its_tag(
    tmp_path: Path, prompt: str, code: str, tag: str
) -> None:
    found = [d for d in check(tmp_path, f"@prompt({prompt})\n{SIG}") if d.code != "unused-param"]
    [d] = found
    assert d.code == code
    assert pointed(d) == tag


def test_a_system_template_is_pointed_into_as_well(tmp_path: Path) -> None:
    text = '@system("Answer in {{lang}}.")\n@prompt("{{text}} {{#items}}{{name}}{{/items}}")\n'
    [d] = [d for d in check(tmp_path, text + SIG) if d.code == "unknown-prompt-variable"]
    assert pointed(d) == "{{lang}}"


def test_a_tag_on_a_later_line_of_a_crlf_file_is_reported_on_its_line(tmp_path: Path) -> None:
    text = '@prompt("""\r\nFirst {{text}}\r\n{{#items}}{{name}}{{/items}}\r\n{{subjet}}\r\n""")\r\n'
    [d] = check(tmp_path, text + SIG.replace("\n", "\r\n"))
    assert d.source is not None and d.span is not None
    start = d.source.position(d.span.start)
    assert (start.line, start.column) == (4, 1)
    assert pointed(d) == "{{subjet}}"


def test_the_editor_gets_utf16_columns_of_the_tag(tmp_path: Path) -> None:
    text = f'@prompt("😀 {{{{text}}}} \\u00e9 {{{{subjet}}}}")\n{SIG}'
    [d] = [d for d in check(tmp_path, text) if d.code == "unknown-prompt-variable"]
    codec = PositionCodec(lsp.PositionEncodingKind.Utf16)
    [out] = to_lsp([d], tmp_path, "file:///t.sig", text, codec)
    before = text[: text.index("{{subjet}}")]
    column = len(before.encode("utf-16-le")) // 2  # the emoji is two UTF-16 units
    assert out.range == lsp.Range(lsp.Position(0, column), lsp.Position(0, column + 10))
