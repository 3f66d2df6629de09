"""Completion, code actions and range formatting of `sigspec lsp`, end to end over stdio with
pytest-lsp's client (`lsp_editor.py`): every position is in UTF-16 code units."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from lsprotocol import types as lsp

from lsp_editor import Editor
from sigspec.commands.lsp.edit import plain
from sigspec.diagnostics.source import SourceFile
from sigspec.runtime.formats import CHECKS
from sigspec.semantics.ir import MODES
from sigspec.syntax.ast import PRIMITIVES
from sigspec.syntax.fmt.run import format_source


def _offset(text: str, position: lsp.Position) -> int:
    """A UTF-16 position as an index into `text`."""
    start = 0
    for _ in range(position.line):
        start = text.index("\n", start) + 1
    units = 0
    index = start
    while units < position.character:
        units += len(text[index].encode("utf-16-le")) // 2
        index += 1
    return index


def apply(text: str, edits: Sequence[lsp.TextEdit], *, snippets: bool = False) -> str:
    """The text with the edits applied (snippet placeholders resolved to their defaults)."""
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + (plain(new) if snippets else new) + text[end:]
    return text


async def complete(editor: Editor, uri: str, needle: str, offset: int) -> list[lsp.CompletionItem]:
    params = lsp.CompletionParams(editor.document(uri), editor.at(uri, needle, offset))
    result = await editor.client.text_document_completion_async(params)
    assert isinstance(result, lsp.CompletionList)
    return list(result.items)


def labels(items: Sequence[lsp.CompletionItem]) -> list[str]:
    return [i.label for i in items]


def by_label(items: Sequence[lsp.CompletionItem], label: str) -> lsp.CompletionItem:
    [found] = [i for i in items if i.label == label]
    return found


async def actions(editor: Editor, uri: str, found: list[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    params = lsp.CodeActionParams(
        editor.document(uri),
        found[0].range,
        lsp.CodeActionContext(diagnostics=found),
    )
    result = await editor.client.text_document_code_action_async(params)
    return [a for a in result or [] if isinstance(a, lsp.CodeAction)]


def edits_of(action: lsp.CodeAction, uri: str) -> list[lsp.TextEdit]:
    assert action.edit is not None and action.edit.changes is not None
    return list(action.edit.changes[uri])


COMMON = """\
## How a review feels.
type Sentiment = "positive" | "negative"

type Other-Name = :int
"""


# ---- capabilities ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_server_advertises_what_it_answers(editor: Editor) -> None:
    capabilities = editor.client.server_capabilities
    assert capabilities.completion_provider is not None
    assert set(capabilities.completion_provider.trigger_characters or ()) >= {":", "@", "{", "("}
    assert isinstance(capabilities.code_action_provider, lsp.CodeActionOptions)
    kinds = capabilities.code_action_provider.code_action_kinds or ()
    assert [lsp.CodeActionKind(k) for k in kinds] == [lsp.CodeActionKind.QuickFix]
    assert capabilities.document_range_formatting_provider


# ---- completion ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_after_a_colon_the_primitives_only(editor: Editor) -> None:
    uri = editor.open("a.sig", "type Mine = :int\nsignature f(x :st) -> :int\n")
    items = await complete(editor, uri, ":st", 3)
    assert set(labels(items)) == set(PRIMITIVES)
    assert "Mine" not in labels(items) and "min" not in labels(items)
    item = by_label(items, "string")
    assert item.kind == lsp.CompletionItemKind.Keyword
    assert item.text_edit is not None
    assert apply(editor.texts[uri], [item.text_edit]) == (
        "type Mine = :int\nsignature f(x :string) -> :int\n"
    )


@pytest.mark.asyncio
async def test_in_a_type_position_the_types_in_scope(editor: Editor) -> None:
    editor.write("common.sig", COMMON)
    editor.write("elsewhere.sig", "type Hidden = :int\n")
    text = (
        'import "common.sig"\n\n'
        "type Own = :int\ntype Other_Name = :string\nsignature f(x ) -> :int\n"
    )
    uri = editor.open("a.sig", text)
    items = await complete(editor, uri, "(x ", 3)
    names = labels(items)
    assert {"Sentiment", "Other_Name", "Own", ":string", ":int"} <= set(names)
    # Declared in a file a.sig does not import: offered last, with the import.
    hidden = by_label(items, "Hidden")
    assert hidden.additional_text_edits
    assert (hidden.sort_text or "") > (by_label(items, ":any").sort_text or "")
    assert names.count("Other_Name") + names.count("Other-Name") == 1  # folded: shown once
    assert "min" not in names and "prompt" not in names
    sentiment = by_label(items, "Sentiment")
    assert sentiment.kind == lsp.CompletionItemKind.Struct
    assert sentiment.detail == 'type Sentiment = "positive" | "negative"'
    assert isinstance(sentiment.documentation, lsp.MarkupContent)
    assert sentiment.documentation.value == "How a review feels."
    # Declared types come before the primitives.
    assert sorted(names, key=lambda n: by_label(items, n).sort_text or "")[0] != ":any"
    assert by_label(items, "Own").sort_text < by_label(items, ":string").sort_text  # type: ignore[operator]


@pytest.mark.asyncio
async def test_a_name_from_a_file_not_imported_brings_its_import(editor: Editor) -> None:
    editor.write("sub/deep.sig", "## Deep down.\ntype Deep = {x :int}\n")
    editor.write("cyclic.sig", 'import "a.sig"\n\ntype Cyclic = :int\n')
    text = "# header\n\n## The doc.\nsignature f(x ) -> :string\n"
    uri = editor.open("a.sig", text)
    items = await complete(editor, uri, "(x ", 3)
    assert "Cyclic" not in labels(items)  # importing cyclic.sig would close a cycle
    deep = by_label(items, "Deep")
    assert deep.detail == 'type Deep = {x :int}  (adds import "sub/deep.sig")'
    assert deep.text_edit is not None and deep.additional_text_edits is not None
    applied = apply(text, [deep.text_edit, *deep.additional_text_edits])
    assert applied == (
        '# header\n\nimport "sub/deep.sig"\n\n## The doc.\nsignature f(x Deep) -> :string\n'
    )
    editor.change(uri, applied)
    assert await editor.diagnostics(uri) == []
    # A second one goes below the first import.
    editor.write("other.sig", "type Other = :int\n")
    editor.change(uri, applied.replace("(x Deep)", "(x Deep, y )"))
    other = by_label(await complete(editor, uri, "y )", 2), "Other")
    assert other.additional_text_edits is not None
    [line] = other.additional_text_edits
    assert line.new_text == 'import "other.sig"\n'
    assert line.range.start == lsp.Position(3, 0)


@pytest.mark.asyncio
async def test_types_while_the_document_does_not_parse(editor: Editor) -> None:
    uri = editor.open("a.sig", "type Mine = :int\nsignature f(x :int) -> {y :int}\n")
    assert await editor.diagnostics(uri) == []
    await complete(editor, uri, "-> ", 3)  # the view where it parses, kept
    editor.change(uri, "type Mine = :int\nsignature f(x :int) -> {y :int, z \n")
    items = await complete(editor, uri, ", z ", 4)
    assert "Mine" in labels(items)


@pytest.mark.asyncio
async def test_attributes_of_a_field(editor: Editor) -> None:
    uri = editor.open("a.sig", "signature f(x :string @) -> :int\n")
    items = await complete(editor, uri, "@)", 1)
    names = labels(items)
    assert {"min_length", "max_length", "pattern", "format", "min", "clamp"} <= set(names)
    assert "prompt" not in names and "output" not in names  # a signature's, not a field's
    assert "string" not in names and "Sentiment" not in names
    form = by_label(items, "format")
    assert form.insert_text_format == lsp.InsertTextFormat.Snippet
    assert form.text_edit is not None
    assert form.text_edit.new_text == f'format("${{1|{",".join(CHECKS)}|}}")'
    assert by_label(items, "min").text_edit.new_text == "min(${1:0})"  # type: ignore[union-attr]
    applied = apply(editor.texts[uri], [form.text_edit], snippets=True)
    assert applied == 'signature f(x :string @format("date-time")) -> :int\n'
    editor.change(uri, applied)
    assert await editor.diagnostics(uri) == []


@pytest.mark.asyncio
async def test_attributes_of_a_declaration(editor: Editor) -> None:
    uri = editor.open("a.sig", "@out\nsignature f(x :string) -> :int\n")
    items = await complete(editor, uri, "@out", 4)
    names = labels(items)
    assert {"output", "prompt", "system", "tools", "max_turns", "deprecated"} <= set(names)
    assert "min" not in names and "format" not in names
    output = by_label(items, "output")
    assert output.text_edit is not None
    assert output.text_edit.new_text == f"output(${{1|{','.join(MODES)}|}})"
    applied = apply(editor.texts[uri], [output.text_edit], snippets=True)
    assert applied.startswith("@output(json)\n")
    editor.change(uri, applied)
    assert await editor.diagnostics(uri) == []


@pytest.mark.asyncio
async def test_prompt_variables_and_sections(editor: Editor) -> None:
    text = (
        "type Ticket = {subject :string, body :string}\n"
        '@prompt("Answer {{")\n'
        "signature answer(ticket Ticket, items [{title :string}], tags [:string]) -> :string\n"
    )
    uri = editor.open("a.sig", text)
    items = await complete(editor, uri, "{{", 2)
    names = labels(items)
    assert {"ticket", "ticket.subject", "ticket.body", "items", "tags"} <= set(names)
    assert {"#items", "^items"} <= set(names)
    assert "title" not in names and "string" not in names and "min" not in names
    assert by_label(items, "ticket.subject").detail == ":string"
    subject = by_label(items, "ticket.subject").text_edit
    assert subject is not None
    applied = apply(text, [subject])
    assert '@prompt("Answer {{ticket.subject}}")' in applied
    editor.change(uri, applied.replace("{{ticket.subject}}", "{{ticket.subject}}{{#items}}{{"))
    items = await complete(editor, uri, "{{#items}}{{", 12)
    assert {"title", "/items"} <= set(labels(items))
    assert "ticket" not in labels(items)


@pytest.mark.asyncio
async def test_steps_and_tools_in_scope(editor: Editor) -> None:
    text = (
        "tool search(q :string) -> :string\n"
        "signature first(x :string) -> {y :string}\n"
        "signature second(y :string) -> :string\n"
        "@tools()\n"
        "signature agent(q :string) -> :string\n"
        "pipeline both = first |> second\n"
    )
    uri = editor.open("a.sig", text)
    tools = labels(await complete(editor, uri, "@tools(", 7))
    assert tools == ["search"]
    editor.change(uri, text.replace("|> second", "|> "))
    steps = await complete(editor, uri, "|> ", 3)
    assert {"first", "second", "agent"} <= set(labels(steps))
    assert "search" not in labels(steps)
    assert by_label(steps, "second").detail == "signature second(y :string) -> :string"


@pytest.mark.asyncio
async def test_completion_and_suppression_after_an_emoji(editor: Editor) -> None:
    text = 'signature f(x :string @format("iri") "😀 👍", y :st) -> :string\n'
    uri = editor.open("a.sig", text)
    items = await complete(editor, uri, ":st)", 3)
    edit = by_label(items, "string").text_edit
    assert isinstance(edit, lsp.TextEdit)
    assert edit.range == lsp.Range(editor.at(uri, ":st)", 1), editor.at(uri, ":st)", 3))
    text = apply(text, [edit])
    assert text == 'signature f(x :string @format("iri") "😀 👍", y :string) -> :string\n'
    editor.change(uri, text)
    [found] = await editor.diagnostics(uri)
    assert found.code == "unchecked-format"
    [action] = [a for a in await actions(editor, uri, [found]) if a.title.startswith("Suppress")]
    editor.change(uri, apply(text, edits_of(action, uri)))
    assert await editor.diagnostics(uri) == []


# ---- code actions ----------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("written", "code", "fixed", "title"),
    [
        (":integer", "unknown-primitive", ":int", "Replace with `:int`"),
        ("Sentimnt", "unknown-type", "Sentiment", "Replace with `Sentiment`"),
    ],
)
async def test_a_quick_fix_removes_its_diagnostic(
    editor: Editor, written: str, code: str, fixed: str, title: str
) -> None:
    text = f'type Sentiment = "a" | "b"\n## 😀 doc\nsignature f(x {written}) -> :string\n'
    uri = editor.open("a.sig", text)
    found = await editor.diagnostics(uri)
    assert [d.code for d in found] == [code]
    got = await actions(editor, uri, found)
    fix = got[0]
    assert fix.title == title
    assert fix.kind == lsp.CodeActionKind.QuickFix and fix.is_preferred
    assert "Suppress" not in fix.title
    editor.change(uri, apply(text, edits_of(fix, uri)))
    assert fixed in editor.texts[uri]
    assert await editor.diagnostics(uri) == []


@pytest.mark.asyncio
async def test_a_fix_after_an_emoji_on_its_line(editor: Editor) -> None:
    text = 'signature f(x :string "😀 two 👍") -> {y :string "🎉", z :integer}\n'
    uri = editor.open("a.sig", text)
    found = await editor.diagnostics(uri)
    assert found[0].range.start == editor.at(uri, ":integer")
    [fix] = [a for a in await actions(editor, uri, found) if a.title.startswith("Replace")]
    editor.change(uri, apply(text, edits_of(fix, uri)))
    assert editor.texts[uri] == text.replace(":integer", ":int")
    assert await editor.diagnostics(uri) == []


@pytest.mark.asyncio
async def test_data_the_server_did_not_write_is_ignored(editor: Editor) -> None:
    text = "signature f(x :integer) -> :string\n"
    uri = editor.open("a.sig", text)
    [found] = await editor.diagnostics(uri)
    for data in (None, "old", {"fixes": [1]}, {"sigspec": {"fixes": [{"range": 3}]}}):
        foreign = lsp.Diagnostic(
            found.range, found.message, found.severity, found.code, source="sigspec", data=data
        )
        titles = [a.title for a in await actions(editor, uri, [foreign])]
        assert titles == ["Suppress `unknown-primitive` on this line"]
    # A client asking for other kinds of actions gets none of these.
    for only, count in (([lsp.CodeActionKind.Refactor], 0), ([lsp.CodeActionKind.QuickFix], 2)):
        context = lsp.CodeActionContext(diagnostics=[found], only=only)
        params = lsp.CodeActionParams(editor.document(uri), found.range, context)
        assert len(await editor.client.text_document_code_action_async(params) or []) == count
    # A fix whose text changed since it was published is not offered.
    editor.change(uri, "signature f(x :integr) -> :string\n")
    titles = [a.title for a in await actions(editor, uri, [found])]
    assert not any(t.startswith("Replace") for t in titles)


WARNED = """\
signature f(
  x :string @format("iri"),
  y :string @format("idn-email")
) -> :string
"""


@pytest.mark.asyncio
async def test_a_suppression_silences_exactly_its_diagnostic(editor: Editor) -> None:
    uri = editor.open("a.sig", WARNED)
    found = await editor.diagnostics(uri)
    assert [d.code for d in found] == ["unchecked-format", "unchecked-format"]
    got = await actions(editor, uri, [found[0]])
    [suppress] = [a for a in got if a.title == "Suppress `unchecked-format` on this line"]
    assert suppress.kind == lsp.CodeActionKind.QuickFix
    editor.change(uri, apply(WARNED, edits_of(suppress, uri)))
    assert "  # sigspec: ignore[unchecked-format] reason: ...\n  x :string" in editor.texts[uri]
    [left] = await editor.diagnostics(uri)
    assert (
        left.code == "unchecked-format" and left.range.start.line == found[1].range.start.line + 1
    )


@pytest.mark.asyncio
async def test_a_suppression_on_an_attribute_line_and_merged(editor: Editor) -> None:
    text = '@prompt("{{x}} {{nope}}")\nsignature f(x :string @format("iri")) -> :string\n'
    uri = editor.open("a.sig", text)
    found = await editor.diagnostics(uri)
    assert {d.code for d in found} == {"unknown-prompt-variable", "unchecked-format"}
    prompt = next(d for d in found if d.code == "unknown-prompt-variable")
    [action] = [a for a in await actions(editor, uri, [prompt]) if a.title.startswith("Suppress")]
    text = apply(text, edits_of(action, uri))
    assert text.startswith('@prompt("{{x}} {{nope}}")  # sigspec: ignore[unknown-prompt-variable]')
    editor.change(uri, text)
    [format_] = await editor.diagnostics(uri)
    # A second code on a line a suppression already covers joins its brackets.
    signature = 'signature f(x :string @format("iri")) -> :string'
    editor.change(
        uri, text.replace(signature, signature + "  # sigspec: ignore[reserved-name] why")
    )
    [format_, unused] = sorted(await editor.diagnostics(uri), key=lambda d: d.code)
    assert unused.code == "unused-suppression"
    [action] = [a for a in await actions(editor, uri, [format_]) if a.title.startswith("Suppress")]
    merged = apply(editor.texts[uri], edits_of(action, uri))
    assert "# sigspec: ignore[reserved-name, unchecked-format] why" in merged
    editor.change(uri, merged.replace("reserved-name, ", ""))
    assert await editor.diagnostics(uri) == []


# ---- range formatting ------------------------------------------------------------------------


MESSY = """\
# header 😀


type   A = :int     # trailing


## doc of f
signature f(  x :int "😀"  ,y   :string) -> {a :int,b :string}
type B={x :int}
"""


@pytest.mark.asyncio
async def test_range_formatting_touches_only_its_declarations(editor: Editor) -> None:
    uri = editor.open("a.sig", MESSY)
    params = lsp.DocumentRangeFormattingParams(
        editor.document(uri),
        lsp.Range(editor.at(uri, ",y"), editor.at(uri, ",y", 1)),
        lsp.FormattingOptions(tab_size=2, insert_spaces=True),
    )
    edits = await editor.client.text_document_range_formatting_async(params)
    assert edits
    result = apply(MESSY, edits)
    # The blank lines above a declaration are its own: what `fmt` makes of them goes with it.
    head, tail = MESSY.index("# trailing\n") + len("# trailing\n"), MESSY.index("type B")
    new_tail = result.index("type B")
    assert result[:head] == MESSY[:head]  # above: byte-identical
    assert result[new_tail:] == MESSY[tail:]  # below: byte-identical
    assert 'signature f(x :int "😀", y :string) -> {a :int, b :string}\n' in result
    # Each declaration formatted in turn gives the whole file's format.
    whole = format_source(SourceFile("a.sig", MESSY)).text
    for needle in ("type   A", "## doc", "type B"):
        text = editor.texts[uri]
        editor.change(uri, text)
        start = editor.at(uri, needle if needle in text else needle.replace("   ", " "))
        params = lsp.DocumentRangeFormattingParams(
            editor.document(uri), lsp.Range(start, start), lsp.FormattingOptions(2, True)
        )
        edits = await editor.client.text_document_range_formatting_async(params) or []
        editor.change(uri, apply(text, edits))
    assert editor.texts[uri] == whole


@pytest.mark.asyncio
async def test_range_formatting_of_a_text_that_does_not_parse(editor: Editor) -> None:
    uri = editor.open("a.sig", "type   A = :int\nsignature f(x :int -> :int\n")
    params = lsp.DocumentRangeFormattingParams(
        editor.document(uri),
        lsp.Range(lsp.Position(0, 0), lsp.Position(0, 3)),
        lsp.FormattingOptions(2, True),
    )
    assert not await editor.client.text_document_range_formatting_async(params)


@pytest.mark.asyncio
async def test_requests_on_a_document_not_open_answer_nothing(editor: Editor) -> None:
    # Neither open nor on disk: an empty answer, not an internal error.
    uri = (editor.root / "nope.sig").as_uri()
    document = lsp.TextDocumentIdentifier(uri=uri)
    at = lsp.Position(line=0, character=0)
    whole = lsp.Range(start=at, end=at)
    options = lsp.FormattingOptions(tab_size=2, insert_spaces=True)
    completion = await editor.client.text_document_completion_async(
        lsp.CompletionParams(text_document=document, position=at)
    )
    assert isinstance(completion, lsp.CompletionList) and not completion.items
    ranged = await editor.client.text_document_range_formatting_async(
        lsp.DocumentRangeFormattingParams(text_document=document, range=whole, options=options)
    )
    assert not ranged
    formatted = await editor.client.text_document_formatting_async(
        lsp.DocumentFormattingParams(text_document=document, options=options)
    )
    assert not formatted
    context = lsp.CodeActionContext(diagnostics=[])
    actions = await editor.client.text_document_code_action_async(
        lsp.CodeActionParams(text_document=document, range=whole, context=context)
    )
    assert not actions
