"""Navigation and hover end to end: pytest-lsp's client against `sigspec lsp` over stdio
(definition, references, prepareRename and rename, document and workspace symbols, hover).
Every position is in UTF-16 code units, as the client negotiated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from conftest import run_cli
from lsp_editor import Editor, lsp_path

COMMON = """\
## How a review feels.
type Mood = "good" | "bad"

## A user's id.
type user-id = :string

## Look something up.
tool search(query :string "What to look for") -> [:string]
"""

REVIEW = """\
import "common.sig"

## Rate a review.
@prompt("Rate {{text}} by {{author_id}}")
signature rate(text :string @min_length(1) "The review", author_id user_id) -> {
  mood Mood "😀 the mood",
  score :float = 0.5 @min(0) @max(1) "How sure"
}

@prompt("Again: {{mood}}")
signature again(mood Mood) -> Mood

pipeline both = rate |> again

@output(ptc_lisp)
@tools(search)
@prompt("Find {{text}}")
signature find(text :string) -> [:string]
"""

# On disk only, never opened: it imports common.sig too.
OTHER = """\
import "common.sig"

@prompt("{{mood}}")
signature judge(mood Mood) -> {verdict user-id}
"""


def _setup(editor: Editor) -> tuple[str, str, str]:
    other = editor.write("other.sig", OTHER)
    common = editor.open("common.sig", COMMON)
    review = editor.open("review.sig", REVIEW)
    return common, review, other


def _text(editor: Editor, uri: str) -> str:
    return editor.texts.get(uri) or Path(lsp_path(uri)).read_text("utf-8")


def _range(editor: Editor, uri: str, needle: str, nth: int = 0) -> lsp.Range:
    start = editor.at(uri, needle, nth=nth)
    end = editor.at(uri, needle, offset=len(needle), nth=nth)
    return lsp.Range(start, end)


def _where(uri: str, position: lsp.Position) -> lsp.TextDocumentPositionParams:
    return lsp.TextDocumentPositionParams(lsp.TextDocumentIdentifier(uri), position)


async def _definition(editor: Editor, uri: str, position: lsp.Position) -> list[lsp.Location]:
    params = lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), position)
    found = await editor.client.text_document_definition_async(params)
    assert found is None or isinstance(found, list)
    return [f for f in found or [] if isinstance(f, lsp.Location)]


async def _references(
    editor: Editor, uri: str, position: lsp.Position, *, declaration: bool = True
) -> list[tuple[str, lsp.Range]]:
    params = lsp.ReferenceParams(
        context=lsp.ReferenceContext(include_declaration=declaration),
        text_document=lsp.TextDocumentIdentifier(uri),
        position=position,
    )
    found = await editor.client.text_document_references_async(params)
    return [(f.uri, f.range) for f in found or []]


async def _hover(editor: Editor, uri: str, position: lsp.Position) -> str | None:
    found = await editor.client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), position)
    )
    if found is None:
        return None
    assert isinstance(found.contents, lsp.MarkupContent)
    assert found.contents.kind == lsp.MarkupKind.Markdown
    return found.contents.value


async def _rename(
    editor: Editor, uri: str, position: lsp.Position, new: str
) -> lsp.WorkspaceEdit | None:
    params = lsp.RenameParams(lsp.TextDocumentIdentifier(uri), position, new)
    return await editor.client.text_document_rename_async(params)


def _offset(text: str, position: lsp.Position) -> int:
    """A UTF-16 position as an offset in code points."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: position.line])
    units = 0
    column = 0
    for char in lines[position.line]:
        if units >= position.character:
            break
        units += 2 if ord(char) > 0xFFFF else 1
        column += 1
    return start + column


def _apply(text: str, edits: list[lsp.TextEdit]) -> str:
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def _edits_by_uri(edit: lsp.WorkspaceEdit) -> dict[str, list[lsp.TextEdit]]:
    if edit.document_changes is not None:
        out: dict[str, list[lsp.TextEdit]] = {}
        for change in edit.document_changes:
            assert isinstance(change, lsp.TextDocumentEdit)
            out[change.text_document.uri] = [e for e in change.edits if isinstance(e, lsp.TextEdit)]
        return out
    return {uri: list(edits) for uri, edits in (edit.changes or {}).items()}


# ---- capabilities ----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_server_advertises_navigation_and_hover(editor: Editor) -> None:
    found = editor.client.server_capabilities
    assert found.definition_provider
    assert found.references_provider
    assert found.hover_provider
    assert found.document_symbol_provider
    assert found.workspace_symbol_provider
    assert isinstance(found.rename_provider, lsp.RenameOptions)
    assert found.rename_provider.prepare_provider
    # Not implemented, so not advertised.
    assert not found.declaration_provider
    assert not found.type_definition_provider
    assert not found.implementation_provider


# ---- definition ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_definition_across_files_and_after_an_emoji(editor: Editor) -> None:
    common, review, _ = _setup(editor)
    # `Mood` on a line whose description holds an emoji (two UTF-16 units) after it, and
    # `again`'s output `Mood` on its own line.
    [found] = await _definition(editor, review, editor.at(review, "Mood", offset=2))
    assert found.uri == common
    assert found.range == _range(editor, common, "Mood")
    [found] = await _definition(editor, review, editor.at(review, "-> Mood", offset=3))
    assert found.uri == common


@pytest.mark.asyncio
async def test_definition_after_an_emoji_on_the_same_line(editor: Editor) -> None:
    uri = editor.open("a.sig", 'type T = {a :string "😀😀", b U}\ntype U = {c :int}\n')
    [found] = await _definition(editor, uri, editor.at(uri, "U}", offset=1))
    assert found.range == _range(editor, uri, "U", nth=1)  # `type U`, not the reference
    [found] = await _definition(editor, uri, editor.at(uri, "U =", offset=0))
    assert found.range == _range(editor, uri, "U", nth=1)


@pytest.mark.asyncio
async def test_definition_folds_dashes_and_underscores(editor: Editor) -> None:
    common, review, _ = _setup(editor)
    [found] = await _definition(editor, review, editor.at(review, "user_id"))
    assert found.uri == common
    assert found.range == _range(editor, common, "user-id")


@pytest.mark.asyncio
async def test_definition_of_an_import_is_the_file(editor: Editor) -> None:
    common, review, _ = _setup(editor)
    [found] = await _definition(editor, review, editor.at(review, "common.sig", offset=3))
    assert found.uri == common
    assert found.range == lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))


@pytest.mark.asyncio
async def test_definition_of_tools_steps_and_template_tags(editor: Editor) -> None:
    common, review, _ = _setup(editor)
    [tool] = await _definition(editor, review, editor.at(review, "search"))
    assert (tool.uri, tool.range) == (common, _range(editor, common, "search"))
    [step] = await _definition(editor, review, editor.at(review, "again", nth=1))
    assert step.range == _range(editor, review, "again", nth=0)
    [param] = await _definition(editor, review, editor.at(review, "{{text}}", offset=2))
    assert param.range.start == editor.at(review, "text :string")
    [author] = await _definition(editor, review, editor.at(review, "{{author_id}}", offset=4))
    assert author.range.start == editor.at(review, "author_id user_id")


@pytest.mark.asyncio
async def test_definition_on_nothing_is_empty(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    for needle in ("## Rate", ":string @min", "@prompt", "signature rate", "\n\n@prompt"):
        assert await _definition(editor, review, editor.at(review, needle, offset=1)) == []
    unknown = editor.open("u.sig", "type A = Missing\n")
    assert await _definition(editor, unknown, editor.at(unknown, "Missing")) == []


@pytest.mark.asyncio
async def test_definition_into_an_import_root_outside_the_project(editor: Editor) -> None:
    editor.write("project/sigspec.toml", 'import_roots = ["../shared"]\n')
    shared = editor.write("shared/base.sig", "## Shared.\ntype Base = {id :int}\n")
    uri = editor.open(
        "project/a.sig", 'import "../shared/base.sig"\nsignature f(x :string) -> Base\n'
    )
    [found] = await _definition(editor, uri, editor.at(uri, "Base"))
    assert found.uri == shared
    assert found.range == _range(editor, shared, "Base")
    [file] = await _definition(editor, uri, editor.at(uri, "base.sig"))
    assert file.uri == shared
    hover = await _hover(editor, uri, editor.at(uri, "Base"))
    assert hover is not None and "type Base = {id :int}" in hover


@pytest.mark.asyncio
async def test_rename_refuses_a_name_written_in_an_import_root(editor: Editor) -> None:
    # Another project may import the shared folder too: the edit would break it unseen.
    editor.write("project/sigspec.toml", 'import_roots = ["../shared"]\n')
    editor.write("shared/base.sig", "type Base = {id :int}\n")
    uri = editor.open(
        "project/a.sig", 'import "../shared/base.sig"\nsignature f(x :string) -> Base\n'
    )
    with pytest.raises(JsonRpcException, match=r"Base`: it is written in \.\./shared/base\.sig"):
        await _rename(editor, uri, editor.at(uri, "Base"), "Root")
    assert await _rename(editor, uri, editor.at(uri, "x :string"), "text") is not None


@pytest.mark.asyncio
async def test_a_project_inside_the_workspace_is_not_this_one(editor: Editor) -> None:
    # `inner/` has a configuration of its own: its names are not the workspace's.
    editor.write("inner/sigspec.toml", "")
    editor.write("inner/common.sig", 'type Sentiment = "pos" | "neg"\n')
    uri = editor.open("a.sig", "type Mood = :string\nsignature f(x :string) -> Mood\n")
    assert await editor.diagnostics(uri) == []
    found = await _rename(editor, uri, editor.at(uri, "Mood"), "Sentiment")
    assert found is not None
    symbols = await editor.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="Sent"))
    assert not symbols


@pytest.mark.asyncio
async def test_definition_follows_unsaved_buffers(editor: Editor) -> None:
    common, review, _ = _setup(editor)
    editor.change(common, "\n\n" + COMMON)  # unsaved: the declaration moved down two lines
    [found] = await _definition(editor, review, editor.at(review, "Mood", offset=1))
    assert found.range == _range(editor, common, "Mood")
    assert found.range.start.line == 3


# ---- references ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_references_across_files_with_an_unopened_importer(editor: Editor) -> None:
    common, review, other = _setup(editor)
    found = await _references(editor, common, editor.at(common, "Mood"))
    assert found == [
        (common, _range(editor, common, "Mood")),
        (other, _range(editor, other, "Mood")),
        (review, _range(editor, review, "Mood", nth=0)),
        (review, _range(editor, review, "Mood", nth=1)),
        (review, _range(editor, review, "Mood", nth=2)),
    ]
    without = await _references(editor, common, editor.at(common, "Mood"), declaration=False)
    assert without == found[1:]


@pytest.mark.asyncio
async def test_references_fold_dashes_and_underscores(editor: Editor) -> None:
    common, review, other = _setup(editor)
    found = await _references(editor, review, editor.at(review, "user_id"))
    assert found == [
        (common, _range(editor, common, "user-id")),
        (other, _range(editor, other, "user-id")),
        (review, _range(editor, review, "user_id")),
    ]


@pytest.mark.asyncio
async def test_references_of_a_param_are_its_template_tags(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    rate_tag = editor.at(review, "{{text}}", offset=2)
    rate_param = editor.at(review, "text :string @min")
    found = await _references(editor, review, rate_param, declaration=False)
    assert [r.start for _, r in found] == [rate_tag]  # not `find`'s `{{text}}`
    find_tag = editor.at(review, "Find {{text}}", offset=7)
    found = await _references(editor, review, find_tag)
    assert [r.start for _, r in found] == [editor.at(review, "text :string)"), find_tag]
    # `again`'s param `mood`, not `rate`'s output field of the same name.
    again_tag = editor.at(review, "{{mood}}", offset=2)
    found = await _references(editor, review, editor.at(review, "mood Mood)"))
    assert [r.start for _, r in found] == [editor.at(review, "mood Mood)"), again_tag]


@pytest.mark.asyncio
async def test_references_on_nothing_are_empty(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    assert await _references(editor, review, editor.at(review, ":float")) == []
    assert await _references(editor, review, editor.at(review, "@tools")) == []


# ---- rename ----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_prepare_rename_answers_the_name_or_nothing(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    params = lsp.PrepareRenameParams(
        lsp.TextDocumentIdentifier(review), editor.at(review, "user_id", offset=3)
    )
    found = await editor.client.text_document_prepare_rename_async(params)
    assert isinstance(found, lsp.PrepareRenamePlaceholder)
    assert found.range == _range(editor, review, "user_id")
    assert found.placeholder == "user_id"
    for needle in (":float", "@prompt", "signature", "pipeline", "## Rate", '"common.sig"'):
        params = lsp.PrepareRenameParams(
            lsp.TextDocumentIdentifier(review), editor.at(review, needle, offset=1)
        )
        assert await editor.client.text_document_prepare_rename_async(params) is None, needle


@pytest.mark.asyncio
async def test_rename_refuses_an_invalid_name(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    for bad in ("1mood", "a b", "", "type", "mood!"):
        with pytest.raises(JsonRpcException, match=r"not a valid name|keyword"):
            await _rename(editor, review, editor.at(review, "Mood"), bad)


@pytest.mark.asyncio
async def test_rename_refuses_a_clash_after_folding(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    with pytest.raises(
        JsonRpcException, match=r"the type `user-id` has that name \(`-` and `_` are the same"
    ):
        await _rename(editor, review, editor.at(review, "Mood"), "user_id")
    with pytest.raises(JsonRpcException, match="the signature `again`"):
        await _rename(editor, review, editor.at(review, "Mood"), "again")
    # A param beside it; a field of another map is no clash.
    with pytest.raises(JsonRpcException, match="the param `author_id` has that name"):
        await _rename(editor, review, editor.at(review, "text :string"), "author-id")
    assert await _rename(editor, review, editor.at(review, "score"), "verdict") is not None


@pytest.mark.asyncio
async def test_rename_on_nothing_is_refused(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    with pytest.raises(JsonRpcException, match="nothing to rename here"):
        await _rename(editor, review, editor.at(review, ":float"), "x")


@pytest.mark.asyncio
async def test_rename_applied_across_files_lints_clean(editor: Editor, tmp_path: Path) -> None:
    common, review, other = _setup(editor)
    assert run_cli("lint", ".", cwd=tmp_path).returncode == 0
    edit = await _rename(editor, review, editor.at(review, "user_id"), "owner_id")
    assert edit is not None and edit.document_changes is not None  # the client takes them
    versions = {
        c.text_document.uri: c.text_document.version
        for c in edit.document_changes
        if isinstance(c, lsp.TextDocumentEdit)
    }
    assert versions == {common: 1, review: 1, other: None}  # the unopened file: no version
    for uri, edits in _edits_by_uri(edit).items():
        Path(lsp_path(uri)).write_text(_apply(_text(editor, uri), edits), encoding="utf-8")
    assert "type owner_id = :string" in Path(lsp_path(common)).read_text("utf-8")
    assert "author_id owner_id" in Path(lsp_path(review)).read_text("utf-8")
    assert "{verdict owner_id}" in Path(lsp_path(other)).read_text("utf-8")
    result = run_cli("lint", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.asyncio
async def test_renaming_a_param_renames_its_tags(editor: Editor, tmp_path: Path) -> None:
    _, review, _ = _setup(editor)
    edit = await _rename(editor, review, editor.at(review, "{{author_id}}", offset=3), "by")
    assert edit is not None
    [(uri, edits)] = _edits_by_uri(edit).items()
    renamed = _apply(_text(editor, uri), edits)
    assert '@prompt("Rate {{text}} by {{by}}")' in renamed
    assert "by user_id) ->" in renamed
    Path(lsp_path(uri)).write_text(renamed, encoding="utf-8")
    result = run_cli("lint", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.asyncio
async def test_rename_after_an_emoji(editor: Editor) -> None:
    text = 'type T = {a :string "😀😀", b U}\ntype U = {c :int}\n'
    uri = editor.open("a.sig", text)
    edit = await _rename(editor, uri, editor.at(uri, "U}"), "Inner")
    assert edit is not None
    [(_, edits)] = _edits_by_uri(edit).items()
    assert _apply(text, edits) == 'type T = {a :string "😀😀", b Inner}\ntype Inner = {c :int}\n'


# ---- symbols ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_document_symbols_are_a_tree(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    found = await editor.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(review))
    )
    assert found is not None
    symbols = [s for s in found if isinstance(s, lsp.DocumentSymbol)]
    assert [(s.name, s.kind) for s in symbols] == [
        ("rate", lsp.SymbolKind.Function),
        ("again", lsp.SymbolKind.Function),
        ("both", lsp.SymbolKind.Operator),
        ("find", lsp.SymbolKind.Function),
    ]
    rate = symbols[0]
    assert [(c.name, c.kind) for c in rate.children or []] == [
        ("text", lsp.SymbolKind.Variable),
        ("author_id", lsp.SymbolKind.Variable),
        ("mood", lsp.SymbolKind.Field),
        ("score", lsp.SymbolKind.Field),
    ]
    assert rate.selection_range == _range(editor, review, "rate")
    assert rate.range.start == editor.at(review, "## Rate")  # the doc belongs to it
    mood = (rate.children or [])[2]  # its description holds an emoji: two UTF-16 units
    assert mood.range.end == editor.at(review, '😀 the mood"', offset=len('😀 the mood"'))
    assert (
        mood.range.end.character == mood.range.start.character + len('mood Mood "😀 the mood"') + 1
    )
    score = (rate.children or [])[3]
    assert score.selection_range == _range(editor, review, "score")
    assert score.detail == ":float"


@pytest.mark.asyncio
async def test_document_symbols_of_types_and_tools(editor: Editor) -> None:
    common, _, _ = _setup(editor)
    found = await editor.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(common))
    )
    symbols = [s for s in found or [] if isinstance(s, lsp.DocumentSymbol)]
    assert [(s.name, s.kind) for s in symbols] == [
        ("Mood", lsp.SymbolKind.Struct),
        ("user-id", lsp.SymbolKind.Struct),
        ("search", lsp.SymbolKind.Method),
    ]
    assert [c.name for c in symbols[2].children or []] == ["query"]
    empty = editor.open("empty.sig", "# nothing here\n")
    assert (
        await editor.client.text_document_document_symbol_async(
            lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(empty))
        )
        == []
    )


async def _workspace_symbols(editor: Editor, query: str) -> list[tuple[str, str]]:
    found = await editor.client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=query))
    out = []
    for symbol in found or []:
        assert isinstance(symbol.location, lsp.Location)
        out.append((symbol.name, Path(lsp_path(symbol.location.uri)).name))
    return out


@pytest.mark.asyncio
async def test_workspace_symbols_cover_unopened_files(editor: Editor) -> None:
    editor.write("common.sig", COMMON)
    editor.write("other.sig", OTHER)
    editor.open("review.sig", REVIEW)
    assert await _workspace_symbols(editor, "JUDGE") == [("judge", "other.sig")]
    assert await _workspace_symbols(editor, "ag") == [("again", "review.sig")]
    # Fuzzy: the query's characters in order; better matches first.
    assert await _workspace_symbols(editor, "usid") == [("user-id", "common.sig")]
    assert await _workspace_symbols(editor, "zzz") == []
    everything = await _workspace_symbols(editor, "")
    assert sorted(everything) == sorted(
        [
            ("Mood", "common.sig"),
            ("user-id", "common.sig"),
            ("search", "common.sig"),
            ("judge", "other.sig"),
            ("rate", "review.sig"),
            ("again", "review.sig"),
            ("both", "review.sig"),
            ("find", "review.sig"),
        ]
    )


@pytest.mark.asyncio
async def test_workspace_symbols_with_nothing_open(editor: Editor) -> None:
    editor.write("common.sig", COMMON)
    assert await _workspace_symbols(editor, "mood") == [("Mood", "common.sig")]
    editor.write("later.sig", "type MoodSwing = :string\n")  # created outside the editor
    assert await _workspace_symbols(editor, "mood") == [
        ("Mood", "common.sig"),
        ("MoodSwing", "later.sig"),
    ]


# ---- hover -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_hover_on_a_signature_shows_it_its_doc_and_its_schema(
    editor: Editor, tmp_path: Path
) -> None:
    _, review, _ = _setup(editor)
    shown = await _hover(editor, review, editor.at(review, "rate", nth=1))
    assert shown is not None
    assert shown.startswith("**signature** `rate`")
    assert "```sigspec\n@prompt(" in shown
    assert 'signature rate(text :string @min_length(1) "The review", author_id user_id)' in shown
    assert "Rate a review." in shown
    assert "## Rate" not in shown  # the doc is shown as text, not in the code
    schema = shown.split("```json\n", 1)[1].split("\n```", 1)[0]
    printed = run_cli("schema", "review.sig:rate", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(schema) == json.loads(printed.stdout)
    # The same from a reference in a pipeline.
    again = await _hover(editor, review, editor.at(review, "again", nth=1))
    assert again is not None and again.startswith("**signature** `again`")


@pytest.mark.asyncio
async def test_hover_on_a_tool_shows_its_arguments_schema(editor: Editor, tmp_path: Path) -> None:
    _, review, _ = _setup(editor)
    shown = await _hover(editor, review, editor.at(review, "search"))
    assert shown is not None and shown.startswith("**tool** `search`")
    assert "Look something up." in shown
    schema = shown.split("```json\n", 1)[1].split("\n```", 1)[0]
    printed = run_cli("schema", "common.sig:search", cwd=tmp_path)
    assert json.loads(schema) == json.loads(printed.stdout)
    # A signature in another mode than json: its value's schema, as `sigspec schema` prints.
    shown = await _hover(editor, review, editor.at(review, "find("))
    assert shown is not None and "Output (ptc_lisp mode; its value's JSON Schema)" in shown
    schema = shown.split("```json\n", 1)[1].split("\n```", 1)[0]
    printed = run_cli("schema", "review.sig:find", cwd=tmp_path)
    assert json.loads(schema) == json.loads(printed.stdout)


@pytest.mark.asyncio
async def test_hover_on_a_field_and_a_param(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    shown = await _hover(editor, review, editor.at(review, "score"))
    assert shown is not None
    assert shown.startswith("**field** `score` of signature `rate`")
    assert "```sigspec\nscore :float\n```" in shown
    assert "How sure" in shown
    assert "- default: `0.5`" in shown
    assert "- `@min(0)`" in shown and "- `@max(1)`" in shown
    tag = await _hover(editor, review, editor.at(review, "{{text}}", offset=3))
    assert tag is not None and tag.startswith("**param** `text` of signature `rate`")
    assert "- `@min_length(1)`" in tag


@pytest.mark.asyncio
async def test_hover_on_a_type_across_files_and_after_an_emoji(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    found = await editor.client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(review), editor.at(review, "Mood", offset=4))
    )
    assert found is not None and isinstance(found.contents, lsp.MarkupContent)
    assert found.range == _range(editor, review, "Mood")
    assert found.contents.value.startswith("**type** `Mood` — common.sig")
    assert 'type Mood = "good" | "bad"' in found.contents.value
    assert "How a review feels." in found.contents.value


@pytest.mark.asyncio
async def test_hover_on_a_primitive_and_on_nothing(editor: Editor) -> None:
    _, review, _ = _setup(editor)
    shown = await _hover(editor, review, editor.at(review, ":float", offset=2))
    assert shown is not None and shown.startswith("`:float`: any number")
    for needle in ("@prompt", "## Rate", "signature rate", "|>"):
        assert await _hover(editor, review, editor.at(review, needle, offset=1)) is None, needle


@pytest.mark.asyncio
async def test_hover_shortens_a_long_declaration(editor: Editor) -> None:
    fields = ",\n".join(f"  f{i} :string" for i in range(60))
    uri = editor.open("long.sig", f"signature big(x :string) -> {{\n{fields}\n}}\n")
    shown = await _hover(editor, uri, editor.at(uri, "big"))
    assert shown is not None
    code = shown.split("```sigspec\n", 1)[1].split("\n```", 1)[0]
    assert code.count("\n") < 30
    assert "  …" in code and code.endswith("}")
    schema = shown.split("```json\n", 1)[1].split("\n```", 1)[0]
    assert schema.count("\n") == 80 and schema.endswith("…")
    assert "more lines: `sigspec schema FILE:big`" in shown


@pytest.mark.asyncio
async def test_a_document_that_does_not_parse_answers_nothing(editor: Editor) -> None:
    common, _, _ = _setup(editor)
    broken = editor.open("broken.sig", 'import "common.sig"\ntype A = Mood |\n')
    at = editor.at(broken, "Mood")
    assert await _definition(editor, broken, at) == []
    assert await _hover(editor, broken, at) is None
    assert await _references(editor, broken, at) == []
    # The others are navigated as before.
    found = await _references(editor, common, editor.at(common, "Mood"), declaration=False)
    assert len(found) == 4
