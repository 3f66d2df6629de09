"""The editing features over LSP: completion, code actions, range formatting.

Thin: positions are converted between the client's units and code points here, and the
answers built from `complete.py`, `actions.py` and `ranges.py`, which hold the logic.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import PositionCodec, TextDocument

from sigspec.commands.lsp.actions import (
    Edit,
    Placing,
    QuickFix,
    fix_data,
    placing,
    read_fixes,
    suppressible,
    suppression,
)
from sigspec.commands.lsp.complete import complete, import_insertion
from sigspec.commands.lsp.context import context_at
from sigspec.commands.lsp.items import Item
from sigspec.commands.lsp.ranges import format_range
from sigspec.commands.lsp.views import Views
from sigspec.diagnostics import Diagnostic

TRIGGERS = [":", "@", "{", "(", ",", " ", "|", "."]
QUICK_FIX = lsp.CodeActionKind.QuickFix

_KINDS = {
    "primitive": lsp.CompletionItemKind.Keyword,
    "type": lsp.CompletionItemKind.Struct,
    "signature": lsp.CompletionItemKind.Function,
    "tool": lsp.CompletionItemKind.Method,
    "pipeline": lsp.CompletionItemKind.Function,
    "attribute": lsp.CompletionItemKind.Property,
    "mode": lsp.CompletionItemKind.EnumMember,
    "variable": lsp.CompletionItemKind.Variable,
    "section": lsp.CompletionItemKind.Snippet,
    "keyword": lsp.CompletionItemKind.Keyword,
    "field": lsp.CompletionItemKind.Field,
}
_PLACEHOLDER = re.compile(r"\$\{\d+\|([^,|]*)[^}]*\}|\$\{\d+:([^}]*)\}|\$\{\d+\}|\$\d+")


# ---- positions -------------------------------------------------------------------------------


def offset_at(document: TextDocument, position: lsp.Position) -> int:
    """A client position as a code-point offset into the document's text."""
    lines = document.lines
    at = document.position_codec.position_from_client_units(lines, position)
    line = min(at.line, len(lines))
    return sum(len(text) for text in lines[:line]) + at.character


def range_of(lines: Sequence[str], codec: PositionCodec, start: int, end: int) -> lsp.Range:
    """Code-point offsets `[start, end)` as a range in the client's units."""
    return codec.range_to_client_units(
        lines, lsp.Range(_position(lines, start), _position(lines, end))
    )


def _position(lines: Sequence[str], offset: int) -> lsp.Position:
    line = 0
    for text in lines:
        if offset < len(text) or (offset == len(text) and not text.endswith(("\n", "\r"))):
            break
        offset -= len(text)
        line += 1
    return lsp.Position(line, offset)


def fixes_for(diagnostic: Diagnostic, lines: Sequence[str], codec: PositionCodec) -> Any:
    """`lsp.Diagnostic.data` for a sigspec diagnostic: its fixes, in the client's units."""
    source = diagnostic.source
    if source is None or not diagnostic.fixes or "".join(lines) != source.text:
        return None
    found = []
    for fix in diagnostic.fixes:
        where = range_of(lines, codec, fix.span.start, fix.span.end)
        as_dict = {
            "start": {"line": where.start.line, "character": where.start.character},
            "end": {"line": where.end.line, "character": where.end.character},
        }
        found.append(QuickFix(as_dict, source.text[fix.span.start : fix.span.end], fix.text))
    return fix_data(found)


# ---- the features ----------------------------------------------------------------------------


def register(server: LanguageServer, views: Views) -> None:
    """Add completion, code actions and range formatting to the server; `views` is the
    session's cache of loaded projects (shared with navigation)."""

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=TRIGGERS)
    )
    async def completion(ls: LanguageServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        if params.text_document.uri not in ls.workspace.text_documents:
            return lsp.CompletionList(is_incomplete=False, items=[])  # asked of no open file
        document = ls.workspace.get_text_document(params.text_document.uri)
        path = _sig_path(document.uri)
        text = document.source
        offset = offset_at(document, params.position)
        context = context_at(text, offset)
        if path is None or context.kind == "none":
            return lsp.CompletionList(is_incomplete=False, items=[])
        overlay = _overlay(ls)
        root = ls.workspace.root_path
        workspace = Path(root).resolve() if root else None
        view = await asyncio.to_thread(views.for_completion, path, overlay, workspace, offset)
        items = complete(context, view, path, text)
        lines, codec = document.lines, document.position_codec
        where = range_of(lines, codec, context.start, context.end)
        snippets, markdown = _snippets(ls)
        out = []
        for item in items:
            converted = _item(item, where, snippets, markdown)
            if item.imports is not None:
                at, line = import_insertion(text, item.imports)
                converted.additional_text_edits = [
                    lsp.TextEdit(range_of(lines, codec, at, at), line)
                ]
            out.append(converted)
        return lsp.CompletionList(is_incomplete=False, items=out)

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[QUICK_FIX])
    )
    async def code_action(ls: LanguageServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        only = params.context.only
        if only is not None and not any(QUICK_FIX.value.startswith(_kind(k)) for k in only):
            return []
        if params.text_document.uri not in ls.workspace.text_documents:
            return []
        found = ls.workspace.get_text_document(params.text_document.uri)
        # A copy: the buffer changes on the event loop while the actions are made off it
        # (placing a suppression parses the file and proves the edit, a tenth of a second
        # in a large file, and editors ask at every cursor move).
        document = TextDocument(
            found.uri, found.source, found.version, position_codec=found.position_codec
        )
        return await asyncio.to_thread(_actions, document, params.context.diagnostics)

    @server.feature(lsp.TEXT_DOCUMENT_RANGE_FORMATTING)
    async def range_formatting(
        ls: LanguageServer, params: lsp.DocumentRangeFormattingParams
    ) -> list[lsp.TextEdit]:
        if params.text_document.uri not in ls.workspace.text_documents:
            return []
        document = ls.workspace.get_text_document(params.text_document.uri)
        text, lines, codec = document.source, document.lines, document.position_codec
        start = offset_at(document, params.range.start)
        end = offset_at(document, params.range.end)
        # Off the event loop: a large file takes a second (see the report's measurements).
        found = await asyncio.to_thread(format_range, document.uri, text, start, end)
        if found is None:
            return []
        return [lsp.TextEdit(range_of(lines, codec, found.start, found.end), found.text)]


def _kind(kind: lsp.CodeActionKind | str) -> str:
    return kind.value if isinstance(kind, lsp.CodeActionKind) else kind


def _sig_path(uri: str) -> Path | None:
    path = to_fs_path(uri)
    return Path(path).resolve() if path is not None and path.endswith(".sig") else None


def _overlay(ls: LanguageServer) -> dict[Path, str]:
    found = {}
    for uri, document in ls.workspace.text_documents.items():
        path = _sig_path(uri)
        if path is not None:
            found[path] = document.source
    return found


def _snippets(ls: LanguageServer) -> tuple[bool, bool]:
    """Does the client take snippets, and Markdown documentation?"""
    capabilities = ls.client_capabilities.text_document
    completion = capabilities.completion if capabilities is not None else None
    item = completion.completion_item if completion is not None else None
    if item is None:
        return False, False
    formats = item.documentation_format or ()
    return bool(item.snippet_support), lsp.MarkupKind.Markdown in formats


def _item(item: Item, where: lsp.Range, snippets: bool, markdown: bool) -> lsp.CompletionItem:
    text = item.text if snippets or not item.snippet else plain(item.text)
    kind = lsp.MarkupKind.Markdown if markdown else lsp.MarkupKind.PlainText
    return lsp.CompletionItem(
        label=item.label,
        kind=_KINDS[item.kind],
        detail=item.detail,
        documentation=(lsp.MarkupContent(kind, item.documentation) if item.documentation else None),
        sort_text=item.sort,
        filter_text=item.label,
        text_edit=lsp.TextEdit(where, text),
        insert_text_format=(
            lsp.InsertTextFormat.Snippet
            if item.snippet and snippets
            else lsp.InsertTextFormat.PlainText
        ),
    )


def plain(snippet: str) -> str:
    """A snippet as plain text for a client without snippets: each placeholder its default
    (a choice its first option), escapes undone."""

    def default(match: re.Match[str]) -> str:
        return match.group(1) or match.group(2) or ""

    return _PLACEHOLDER.sub(default, snippet).replace("\\}", "}").replace("\\$", "$")


# ---- code actions ----------------------------------------------------------------------------


def _actions(document: TextDocument, diagnostics: Sequence[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    out: list[lsp.CodeAction] = []
    suppressed: set[tuple[str, int]] = set()
    text = document.source
    read: Placing | None = None
    for diagnostic in diagnostics:
        if diagnostic.source != "sigspec" or not isinstance(diagnostic.code, str):
            continue
        out += _quick_fixes(document, diagnostic)
        key = (diagnostic.code, diagnostic.range.start.line)
        if key in suppressed or not suppressible(diagnostic.code):
            continue
        suppressed.add(key)
        read = read if read is not None else placing(text)
        edit = suppression(text, diagnostic.range.start.line + 1, diagnostic.code, read)
        if edit is not None:
            out.append(
                lsp.CodeAction(
                    title=f"Suppress `{diagnostic.code}` on this line",
                    kind=QUICK_FIX,
                    diagnostics=[diagnostic],
                    edit=_workspace_edit(document, [_text_edit(document, edit)]),
                )
            )
    return out


def _quick_fixes(document: TextDocument, diagnostic: lsp.Diagnostic) -> list[lsp.CodeAction]:
    """The diagnostic's fixes that still apply: the text they replace is still there."""
    out: list[lsp.CodeAction] = []
    for fix in read_fixes(diagnostic.data):
        where = lsp.Range(
            lsp.Position(fix.range["start"]["line"], fix.range["start"]["character"]),
            lsp.Position(fix.range["end"]["line"], fix.range["end"]["character"]),
        )
        start, end = offset_at(document, where.start), offset_at(document, where.end)
        if document.source[start:end] != fix.old:
            continue  # the text changed since the diagnostic was published
        out.append(
            lsp.CodeAction(
                title=fix.title,
                kind=QUICK_FIX,
                diagnostics=[diagnostic],
                is_preferred=not out or None,
                edit=_workspace_edit(document, [lsp.TextEdit(where, fix.new)]),
            )
        )
    return out


def _text_edit(document: TextDocument, edit: Edit) -> lsp.TextEdit:
    where = range_of(document.lines, document.position_codec, edit.start, edit.end)
    return lsp.TextEdit(where, edit.text)


def _workspace_edit(document: TextDocument, edits: list[lsp.TextEdit]) -> lsp.WorkspaceEdit:
    return lsp.WorkspaceEdit(changes={document.uri: edits})
