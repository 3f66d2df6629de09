"""Unknown names: synonyms, close spellings, the names in scope, and the fixes they carry."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigspec import load
from sigspec.diagnostics import Diagnostic
from sigspec.diagnostics.render.json_format import as_dict
from sigspec.diagnostics.suggest import SHORT_SCOPE, close_matches, did_you_mean, suggest
from sigspec.syntax import ast


def check(tmp_path: Path, text: str) -> list[Diagnostic]:
    path = tmp_path / "t.sig"
    path.write_bytes(text.encode("utf-8"))
    return list(load([path]).diagnostics)


def applied(text: str, d: Diagnostic, which: int = 0) -> str:
    fix = d.fixes[which]
    return text[: fix.span.start] + fix.text + text[fix.span.end :]


# ---- the suggestion itself ----------------------------------------------------------------


def test_only_the_closest_are_suggested() -> None:
    assert close_matches("serch", ["search", "fetch"]) == ["search"]  # fetch is two edits
    assert close_matches("g", ["f", "h", "k"]) == ["f", "h", "k"]
    assert close_matches("Int", ["int", "any"]) == ["int"]  # a case slip beats two edits
    assert close_matches("ab", ["xyz"]) == []


def test_a_synonym_beats_a_close_spelling() -> None:
    found = suggest("list", ["int", "lost"], synonyms={"list": "items"})
    assert found.hints == ("did you mean `items`?",)
    assert found.replacements == ("items",)


def test_a_short_scope_is_listed_unless_the_suggestions_named_it_all() -> None:
    few = [f"T{i}" for i in range(SHORT_SCOPE)]
    assert suggest("Mood", few, scope="types in scope").hints == (
        "types in scope: " + ", ".join(f"`{t}`" for t in few),
    )
    many = [*few, "Extra"]
    assert suggest("Mood", many, scope="types in scope").hints == ()
    assert suggest("T", ["T1"], scope="types in scope").hints == ("did you mean `T1`?",)
    assert suggest("x", [], scope="tools in scope").hints == ("tools in scope: none",)
    assert suggest("x", [], scope=None).hints == ()


def test_did_you_mean_keeps_its_words() -> None:
    assert did_you_mean("strin", ["string", "int"], prefix=":") == ("did you mean `:string`?",)


# ---- primitives ---------------------------------------------------------------------------


@pytest.mark.parametrize("word", sorted(ast.PRIMITIVE_SYNONYMS))
def test_each_primitive_synonym_suggests_its_primitive_and_the_fix_is_clean(
    tmp_path: Path, word: str
) -> None:
    text = f"signature f() -> {{a :{word}}}\n"
    [d] = check(tmp_path, text)
    target = f":{ast.PRIMITIVE_SYNONYMS[word]}"
    assert d.code == "unknown-primitive"
    assert d.hints[0] == f"did you mean `{target}`?"
    assert [f.text for f in d.fixes] == [target]
    assert check(tmp_path, applied(text, d)) == []


@pytest.mark.parametrize("word", ["list", "array", "List"])
def test_a_list_word_says_how_a_list_is_written_and_suggests_no_primitive(
    tmp_path: Path, word: str
) -> None:
    [d] = check(tmp_path, f"signature f() -> {{a :{word}}}\n")
    assert d.hints[0] == ast.LIST_HINT
    assert not any("did you mean" in h for h in d.hints)
    assert d.fixes == ()


@pytest.mark.parametrize(
    ("written", "meant"), [("integer", ":int"), ("string", ":string"), ("Number", ":float")]
)
def test_a_bare_primitive_name_suggests_the_primitive(
    tmp_path: Path, written: str, meant: str
) -> None:
    text = f"signature f() -> {{a {written}}}\n"
    [d] = check(tmp_path, text)
    assert d.code == "unknown-type"
    assert d.hints[0] == f"did you mean `{meant}`?"
    assert check(tmp_path, applied(text, d)) == []


def test_a_declared_type_close_to_a_bare_primitive_wins(tmp_path: Path) -> None:
    [d] = check(tmp_path, "type Strings = [:string]\nsignature f() -> {a strings}\n")
    assert d.hints[0] == "did you mean `Strings`?"


# ---- every kind of unknown name carries its fix ---------------------------------------------

EVERY_KIND = """\
type Sentiment = "positive" | "negative"
type Item = {name :string}
signature classify(text :string) -> {s Sentimnt, n :strng}
signature summarize(s Sentiment, n :string) -> :string
pipeline p = classify |> summarise
@prompt("Classify {{txt}} and {{#items}}{{nme}}{{/items}}")
signature labelled(text :string, items [Item]) -> {a :int @minimum(0), d :string @format("emial")}
@output(ptc_lisp) @tools(serch)
signature agent(q :string) -> :string
tool search(q :string) -> [:string]
"""


def test_each_fix_removes_its_diagnostic_and_nothing_else(tmp_path: Path) -> None:
    before = check(tmp_path, EVERY_KIND)
    assert sorted(d.code for d in before) == [
        "section-field-missing",
        "unknown-attribute",
        "unknown-format",
        "unknown-primitive",
        "unknown-prompt-variable",
        "unknown-signature",
        "unknown-tool",
        "unknown-type",
    ]
    for d in before:
        assert len(d.fixes) == 1, d
        after = check(tmp_path, applied(EVERY_KIND, d))
        assert sorted(x.code for x in after) == sorted(x.code for x in before if x is not d)


def test_fixes_are_in_the_json_format(tmp_path: Path) -> None:
    [d] = check(tmp_path, "signature f() -> {a :integer}\n")
    assert as_dict(d)["fixes"] == [
        {"line": 1, "column": 21, "end_line": 1, "end_column": 29, "text": ":int"}
    ]


def test_a_prompt_fix_replaces_the_name_not_the_tag(tmp_path: Path) -> None:
    text = '@prompt("{{ txt }}")\nsignature f(text :string) -> :string\n'
    [d] = check(tmp_path, text)
    [fix] = d.fixes
    assert text[fix.span.start : fix.span.end] == "txt"
    assert "{{ text }}" in applied(text, d)


def test_the_names_in_scope_are_listed_when_few(tmp_path: Path) -> None:
    text = (
        "signature a() -> :int\nsignature b() -> :int\npipeline p = a |> zzz\n"
        '@prompt("{{q}}")\nsignature c(text :string, lang :string) -> :string\n'
    )
    hints = {d.code: d.hints for d in check(tmp_path, text)}
    assert hints["unknown-signature"] == ("signatures in scope: `a`, `b`, `c`",)
    assert hints["unknown-prompt-variable"] == ("parameters of `c`: `text`, `lang`",)


@pytest.mark.parametrize(
    ("written", "fixed"), [('"emial"', '"email"'), ("emial", "email"), ("datetime", "date-time")]
)
def test_a_format_fix_keeps_the_form_of_the_argument(
    tmp_path: Path, written: str, fixed: str
) -> None:
    text = f"signature f() -> {{d :string @format({written})}}\n"
    [d] = [d for d in check(tmp_path, text) if d.code == "unknown-format"]
    assert [f.text for f in d.fixes] == [fixed]
    assert [x.code for x in check(tmp_path, applied(text, d))] in ([], ["unchecked-format"])
