"""Test declarations in the editor, end to end over stdio (pytest-lsp's client against
`sigspec lsp`): symbols, definition, references, rename, hover, completion and quick fixes
on `test NAME = signature(args) -> expectation`. Every position is in UTF-16 code units."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from conftest import run_cli
from lsp_editor import Editor, lsp_path
from test_lsp_edit import actions, apply, by_label, complete, edits_of, labels
from test_lsp_navigate import (
    _apply,
    _definition,
    _edits_by_uri,
    _hover,
    _range,
    _references,
    _rename,
    _text,
    _workspace_symbols,
)

COMMON = """\
## One line of an order.
type Item = {name :string "What was bought 😀", qty :int}

## An order read from a document.
type Order = {items [Item], total :int?, note :string?}
"""

SPEC = """\
import "common.sig"

## Say how a review feels.
signature classify(text :string "The review", lang :string = "en") -> {
  sentiment "positive" | "negative",
  score :float
}

signature extract(doc :string) -> Order

signature lines(doc :string) -> [Item]

tool search(q :string) -> :string

## A clearly positive review.
@repeat(3)
@min_pass_rate(0.6)
test positive = classify(text = "I love it 😀") -> {sentiment == "positive", score >= 0.5}

test anything = classify(text = "meh") -> valid

test order = extract(doc = "two apples") -> {
  len(items) >= 1,
  items[0].name ~ "^[a-z]",
  $.total in [1, 2]
}

test first = lines(doc = "x") -> {$[0].qty > 0}

test exact = classify(text = "x") -> {"sentiment": "negative", "score": 0.25}
"""


def _setup(editor: Editor) -> tuple[str, str]:
    common = editor.open("common.sig", COMMON)
    spec = editor.open("spec.sig", SPEC)
    return common, spec


def _lint_clean(root: Path) -> None:
    result = run_cli("lint", ".", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr


def _write_edits(editor: Editor, edit: lsp.WorkspaceEdit | None) -> dict[str, str]:
    """The edit applied to the files on disk; each edited file's new text by URI."""
    assert edit is not None
    out = {}
    for uri, edits in _edits_by_uri(edit).items():
        out[uri] = _apply(_text(editor, uri), edits)
        Path(lsp_path(uri)).write_text(out[uri], encoding="utf-8")
    return out


@pytest.mark.asyncio
async def test_the_project_lints_clean(editor: Editor, tmp_path: Path) -> None:
    _, spec = _setup(editor)
    assert await editor.diagnostics(spec) == []
    _lint_clean(tmp_path)


# ---- symbols ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_tests_are_document_symbols(editor: Editor) -> None:
    _, spec = _setup(editor)
    found = await editor.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(spec))
    )
    symbols = [s for s in found or [] if isinstance(s, lsp.DocumentSymbol)]
    assert [(s.name, s.kind) for s in symbols] == [
        ("classify", lsp.SymbolKind.Function),
        ("extract", lsp.SymbolKind.Function),
        ("lines", lsp.SymbolKind.Function),
        ("search", lsp.SymbolKind.Method),
        ("positive", lsp.SymbolKind.Event),
        ("anything", lsp.SymbolKind.Event),
        ("order", lsp.SymbolKind.Event),
        ("first", lsp.SymbolKind.Event),
        ("exact", lsp.SymbolKind.Event),
    ]
    positive = symbols[4]
    assert positive.detail == "test of classify"
    assert positive.selection_range == _range(editor, spec, "positive", nth=2)
    # Its doc comment and attributes are part of it.
    assert positive.range.start == editor.at(spec, "## A clearly")
    assert positive.range.end == editor.at(spec, "0.5}", offset=4)
    assert not positive.children


@pytest.mark.asyncio
async def test_tests_are_workspace_symbols(editor: Editor) -> None:
    editor.write("common.sig", COMMON)
    editor.write("spec.sig", SPEC)
    editor.write("more.sig", 'import "common.sig"\nsignature f(x :int) -> Item\n')
    assert await _workspace_symbols(editor, "positive") == [("positive", "spec.sig")]
    found = await editor.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="first"))
    [symbol] = found or []
    assert (symbol.kind, symbol.container_name) == (lsp.SymbolKind.Event, "test")


# ---- definition and references ---------------------------------------------------------------


@pytest.mark.asyncio
async def test_definition_of_a_target_an_argument_and_subject_steps(editor: Editor) -> None:
    common, spec = _setup(editor)
    [sig] = await _definition(editor, spec, editor.at(spec, "classify(text = ", offset=2))
    assert (sig.uri, sig.range) == (spec, _range(editor, spec, "classify"))
    [param] = await _definition(editor, spec, editor.at(spec, 'text = "I love'))
    assert param.range == _range(editor, spec, "text")
    # A subject's steps, through the named types of another file.
    [items] = await _definition(editor, spec, editor.at(spec, "len(items)", offset=5))
    assert (items.uri, items.range) == (common, _range(editor, common, "items"))
    [name] = await _definition(editor, spec, editor.at(spec, "items[0].name", offset=10))
    assert (name.uri, name.range) == (common, _range(editor, common, "name"))
    [total] = await _definition(editor, spec, editor.at(spec, "$.total", offset=3))
    assert total.range == _range(editor, common, "total")
    [field] = await _definition(editor, spec, editor.at(spec, "score >= 0.5"))
    assert field.range == _range(editor, spec, "score")
    # Through a list output: `$[0].qty`.
    [qty] = await _definition(editor, spec, editor.at(spec, "$[0].qty", offset=6))
    assert (qty.uri, qty.range) == (common, _range(editor, common, "qty"))
    # The test's own name is its declaration.
    [itself] = await _definition(editor, spec, editor.at(spec, "anything"))
    assert itself.range == _range(editor, spec, "anything")


@pytest.mark.asyncio
async def test_an_unknown_name_in_a_test_goes_nowhere(editor: Editor) -> None:
    editor.open("common.sig", COMMON)
    uri = editor.open(
        "a.sig",
        'import "common.sig"\nsignature f(x :int) -> Order\n'
        "test t = f(y = 1) -> {nope.name == 1, items[0].nope == 2}\n",
    )
    for needle in ("y = 1", "nope.name", "name ==", "nope == 2"):
        assert await _definition(editor, uri, editor.at(uri, needle)) == [], needle
    [items] = await _definition(editor, uri, editor.at(uri, "items[0]"))
    assert items.uri.endswith("common.sig")


@pytest.mark.asyncio
async def test_references_of_a_signature_a_param_and_a_field(editor: Editor) -> None:
    common, spec = _setup(editor)
    found = await _references(editor, spec, editor.at(spec, "classify"), declaration=False)
    assert found == [(spec, _range(editor, spec, "classify", nth=n)) for n in (1, 2, 3)]
    found = await _references(editor, spec, editor.at(spec, "text :string"), declaration=False)
    assert found == [(spec, _range(editor, spec, "text", nth=n)) for n in (1, 2, 3)]
    # An exact output's keys are uses of the fields they name.
    found = await _references(editor, spec, editor.at(spec, "score :float"), declaration=False)
    assert found == [
        (spec, _range(editor, spec, "score", nth=1)),
        (spec, _range(editor, spec, "score", nth=2)),
    ]
    found = await _references(editor, common, editor.at(common, "items"), declaration=False)
    assert found == [
        (spec, _range(editor, spec, "items", nth=0)),
        (spec, _range(editor, spec, "items", nth=1)),
    ]


# ---- rename ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_renaming_a_signature_renames_its_tests(editor: Editor, tmp_path: Path) -> None:
    _, spec = _setup(editor)
    renamed = _write_edits(editor, await _rename(editor, spec, editor.at(spec, "classify"), "rate"))
    text = renamed[spec]
    assert "signature rate(" in text and "classify" not in text
    assert "test positive = rate(" in text and "test anything = rate(" in text
    assert "test exact = rate(" in text
    _lint_clean(tmp_path)


@pytest.mark.asyncio
async def test_renaming_a_field_renames_the_exact_outputs_keys(
    editor: Editor, tmp_path: Path
) -> None:
    _, spec = _setup(editor)
    at = editor.at(spec, '"score": 0.25', offset=1)  # from the key itself
    text = _write_edits(editor, await _rename(editor, spec, at, "confidence"))[spec]
    assert "  confidence :float\n" in text
    assert "confidence >= 0.5}" in text
    assert '{"sentiment": "negative", "confidence": 0.25}' in text
    _lint_clean(tmp_path)


@pytest.mark.asyncio
async def test_renaming_a_param_renames_the_arguments(editor: Editor, tmp_path: Path) -> None:
    _, spec = _setup(editor)
    at = editor.at(spec, 'text = "meh"')  # from an argument
    text = _write_edits(editor, await _rename(editor, spec, at, "review"))[spec]
    assert 'classify(review :string "The review"' in text
    assert 'classify(review = "I love it 😀")' in text
    assert 'classify(review = "meh")' in text
    _lint_clean(tmp_path)


@pytest.mark.asyncio
async def test_renaming_an_output_field_renames_the_subjects(
    editor: Editor, tmp_path: Path
) -> None:
    common, spec = _setup(editor)
    at = editor.at(spec, "items[0].name", offset=9)  # from a subject step, in another file
    renamed = _write_edits(editor, await _rename(editor, spec, at, "title"))
    assert 'type Item = {title :string "What' in renamed[common]
    assert 'items[0].title ~ "^[a-z]"' in renamed[spec]
    qty = editor.at(common, "qty")
    renamed = _write_edits(editor, await _rename(editor, common, qty, "count"))
    assert "{$[0].count > 0}" in renamed[spec]
    _lint_clean(tmp_path)


@pytest.mark.asyncio
async def test_renaming_a_test_stays_in_its_file(editor: Editor, tmp_path: Path) -> None:
    _, spec = _setup(editor)
    # Another file may hold a test of the same name: tests are named per file.
    editor.write("other.sig", 'import "spec.sig"\ntest happy = classify(text = "x") -> valid\n')
    edit = await _rename(editor, spec, editor.at(spec, "anything"), "happy")
    renamed = _write_edits(editor, edit)
    assert list(renamed) == [spec]
    assert "test happy = classify(" in renamed[spec]
    _lint_clean(tmp_path)


@pytest.mark.asyncio
async def test_renaming_a_test_is_refused_on_a_clash_or_a_bad_name(editor: Editor) -> None:
    _, spec = _setup(editor)
    at = editor.at(spec, "anything")
    with pytest.raises(JsonRpcException, match="the test `positive` has that name"):
        await _rename(editor, spec, at, "positive")
    with pytest.raises(JsonRpcException, match="the test `first` has that name"):
        await _rename(editor, spec, at, "FIRST".lower())
    for bad in ("1x", "a b", "null"):
        with pytest.raises(JsonRpcException, match=r"not a valid name|keyword"):
            await _rename(editor, spec, at, bad)
    # A test may share a signature's name: they are apart.
    assert await _rename(editor, spec, at, "classify") is not None


# ---- hover -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_hover_on_a_test_says_what_it_checks(editor: Editor) -> None:
    _, spec = _setup(editor)
    shown = await _hover(editor, spec, editor.at(spec, "test positive", offset=5))
    assert shown is not None
    assert shown.startswith("**test** `positive` — spec.sig")
    assert "```sigspec\n@repeat(3)\n@min_pass_rate(0.6)\ntest positive = classify(" in shown
    assert "A clearly positive review." in shown
    assert "## A clearly" not in shown
    assert "Calls `classify` with `text`" in shown
    assert '- `sentiment` is `"positive"`' in shown
    assert "- `score` is at least `0.5`" in shown
    assert "Runs 3 times; at least 60% of the runs must pass." in shown
    order = await _hover(editor, spec, editor.at(spec, "test order", offset=5))
    assert order is not None
    assert "- the length of `items` is at least `1`" in order
    assert '- `items[0].name` matches the pattern `"^[a-z]"`' in order
    assert "- `total` is one of `[1, 2]`" in order
    anything = await _hover(editor, spec, editor.at(spec, "anything"))
    assert anything is not None and "passes when the output is valid" in anything
    assert "Runs" not in anything


@pytest.mark.asyncio
async def test_hover_on_a_target_an_argument_and_a_step(editor: Editor) -> None:
    _, spec = _setup(editor)
    target = await _hover(editor, spec, editor.at(spec, "classify(text = ", offset=1))
    assert target is not None and target.startswith("**signature** `classify`")
    assert "Output (JSON Schema)" in target
    argument = await _hover(editor, spec, editor.at(spec, 'text = "meh"'))
    assert argument is not None and argument.startswith("**param** `text` of signature")
    assert "The review" in argument
    step = await _hover(editor, spec, editor.at(spec, "items[0].name", offset=9))
    assert step is not None and step.startswith("**field** `name` of type `Item`")
    assert "What was bought 😀" in step


# ---- completion ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_after_the_equals_sign_the_signatures(editor: Editor) -> None:
    editor.write("common.sig", COMMON)
    text = SPEC + "\ntest more = \n"
    uri = editor.open("spec.sig", text)
    items = await complete(editor, uri, "test more = ", len("test more = "))
    names = set(labels(items))
    assert {"classify", "extract", "lines"} <= names
    assert "search" not in names and "Item" not in names  # a tool, a type: not testable
    assert by_label(items, "classify").kind == lsp.CompletionItemKind.Function


@pytest.mark.asyncio
async def test_after_the_arrow_valid_not_a_type(editor: Editor) -> None:
    text = "signature f(x :int) -> :int\ntest t = f(x = 1) -> \n"
    uri = editor.open("a.sig", text)
    [item] = await complete(editor, uri, "-> \n", 3)
    assert (item.label, item.kind) == ("valid", lsp.CompletionItemKind.Keyword)
    assert item.text_edit is not None
    editor.change(uri, apply(text, [item.text_edit]))
    assert await editor.diagnostics(uri) == []


@pytest.mark.asyncio
async def test_in_the_call_the_params_not_given(editor: Editor, tmp_path: Path) -> None:
    editor.write("common.sig", COMMON)
    text = SPEC + '\ntest more = classify(, lang = "fr") -> valid\n'
    uri = editor.open("spec.sig", text)
    items = await complete(editor, uri, "classify(, lang", len("classify("))
    assert labels(items) == ["text"]  # `lang` is given after the cursor
    [item] = items
    assert item.insert_text_format == lsp.InsertTextFormat.Snippet
    assert item.text_edit is not None and item.text_edit.new_text == "text = $1"
    assert item.detail == ":string"
    written = apply(text, [item.text_edit], snippets=True).replace("text = ,", 'text = "x",')
    assert 'classify(text = "x", lang = "fr")' in written
    editor.change(uri, written)
    assert await editor.diagnostics(uri) == []
    # Both, when none is given; the required one first.
    editor.change(uri, SPEC + "\ntest more = classify() -> valid\n")
    items = await complete(editor, uri, "classify()", len("classify("))
    assert sorted(labels(items), key=lambda n: by_label(items, n).sort_text or "") == [
        "text",
        "lang",
    ]


@pytest.mark.asyncio
async def test_in_the_checks_the_output_fields(editor: Editor) -> None:
    editor.write("common.sig", COMMON)
    text = SPEC + '\ntest more = extract(doc = "x") -> {}\n'
    uri = editor.open("spec.sig", text)
    items = await complete(editor, uri, "-> {}", len("-> {"))
    assert set(labels(items)) == {"items", "total", "note", "$", "len("}
    assert by_label(items, "items").kind == lsp.CompletionItemKind.Field
    assert by_label(items, "items").detail == "[Item]"
    length = by_label(items, "len(")
    assert length.text_edit is not None and length.text_edit.new_text == "len($1)"
    # Through a prefix: `items[0].` is an Item.
    editor.change(uri, SPEC + '\ntest more = extract(doc = "x") -> {len(items) > 0, items[0].}\n')
    items = await complete(editor, uri, "items[0].}", len("items[0]."))
    assert set(labels(items)) == {"name", "qty"}
    assert by_label(items, "name").documentation is not None
    # Inside `len(`: the fields and `$`, no second `len(`.
    editor.change(uri, SPEC + '\ntest more = extract(doc = "x") -> {len()}\n')
    items = await complete(editor, uri, "len()", len("len("))
    assert set(labels(items)) == {"items", "total", "note", "$"}
    # A list output: `$[0].`; a value is no subject.
    editor.change(uri, SPEC + '\ntest more = lines(doc = "x") -> {$[0].}\n')
    items = await complete(editor, uri, "$[0].}", len("$[0]."))
    assert set(labels(items)) == {"name", "qty"}
    editor.change(uri, SPEC + '\ntest more = extract(doc = "x") -> {total in [}\n')
    assert await complete(editor, uri, "in [}", len("in [")) == []


@pytest.mark.asyncio
async def test_a_chosen_subject_lints_clean(editor: Editor) -> None:
    editor.write("common.sig", COMMON)
    text = SPEC + '\ntest more = extract(doc = "x") -> {items[0]. == "a"}\n'
    uri = editor.open("spec.sig", text)
    name = by_label(await complete(editor, uri, '. == "a"', 1), "name")
    assert name.text_edit is not None
    editor.change(uri, apply(text, [name.text_edit]))
    assert 'items[0].name == "a"' in editor.texts[uri]
    assert await editor.diagnostics(uri) == []


@pytest.mark.asyncio
async def test_attributes_of_a_test(editor: Editor) -> None:
    text = "signature f(x :int) -> :int\n\n@\ntest t = f(x = 1) -> valid\n"
    uri = editor.open("a.sig", text)
    items = await complete(editor, uri, "@\n", 1)
    names = set(labels(items))
    assert {"repeat", "min_pass_rate"} <= names
    assert "prompt" not in names and "min" not in names and "output" not in names
    repeat = by_label(items, "repeat")
    assert repeat.text_edit is not None
    editor.change(uri, apply(text, [repeat.text_edit], snippets=True))
    assert "@repeat(5)\ntest t" in editor.texts[uri]
    assert await editor.diagnostics(uri) == []


@pytest.mark.asyncio
async def test_keywords_at_the_start_of_a_declaration(editor: Editor) -> None:
    every = ["import", "type", "signature", "tool", "pipeline", "test"]
    uri = editor.open("a.sig", "")
    items = await complete(editor, uri, "", 0)
    assert labels(items) == every  # an empty file
    assert {i.kind for i in items} == {lsp.CompletionItemKind.Keyword}
    text = "signature f(x :int) -> :int\n\nte\n"
    editor.change(uri, text)
    items = await complete(editor, uri, "te\n", 2)
    assert labels(items) == every  # a word on its own line
    test = by_label(items, "test").text_edit
    assert test is not None and apply(text, [test]).endswith("\ntest\n")
    editor.change(uri, "signature f(x :int) -> :int\n\n\n")
    assert labels(await complete(editor, uri, "\n\n\n", 2)) == every  # an empty line
    # Not inside a declaration, nor after a word on the line.
    editor.change(uri, "signature f(x :int) -> {\n  \n}\n")
    assert labels(await complete(editor, uri, "{\n  ", 4)) == []
    editor.change(uri, "signature f(x :int) -> :int te\n")
    assert labels(await complete(editor, uri, " te", 3)) == []


# ---- quick fixes -----------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("written", "fixed"),
    [
        ('classify(txt = "😀 ok") -> valid', 'classify(text = "😀 ok") -> valid'),
        ('classify(text = "😀 ok") -> {scor > 0.5}', 'classify(text = "😀 ok") -> {score > 0.5}'),
        (
            'extract(doc = "😀") -> {items[0].nam == "a"}',
            'extract(doc = "😀") -> {items[0].name == "a"}',
        ),
        (
            'extract(doc = "😀") -> {$ . itms [0] . name == "a"}',
            'extract(doc = "😀") -> {$ . items [0] . name == "a"}',
        ),
    ],
)
async def test_a_misspelt_name_in_a_test_has_a_quick_fix(
    editor: Editor, written: str, fixed: str
) -> None:
    editor.write("common.sig", COMMON)
    text = SPEC + f"\ntest more = {written}\n"
    uri = editor.open("spec.sig", text)
    found = await editor.diagnostics(uri)
    assert {d.code for d in found} <= {"test-argument", "test-expectation"}
    # (A misspelt argument leaves the param it meant missing: a second diagnostic.)
    [misspelt] = [d for d in found if "has no" in d.message]
    fix = (await actions(editor, uri, [misspelt]))[0]
    assert fix.title.startswith("Replace with `") and fix.is_preferred
    editor.change(uri, apply(text, edits_of(fix, uri)))
    assert editor.texts[uri] == SPEC + f"\ntest more = {fixed}\n"
    assert await editor.diagnostics(uri) == []
