"""The server's one cache of loaded projects, end to end over stdio: navigation, hover and
completion read the same loads, and `workspace/didChangeWatchedFiles` makes them all stale
(even for a change the files' sizes and times do not show)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from lsp_editor import Editor, lsp_path

OLD = '## Old words.\ntype Mood = "good" | "bad"\ntype Aaaa = :int\n'
NEW = '## New words.\ntype Mood = "good" | "bad"\ntype Bbbb = :int\n'
REVIEW = 'import "common.sig"\n\nsignature judge(text :string) -> Mood\n'


async def _hover(editor: Editor, uri: str) -> str:
    params = lsp.HoverParams(editor.document(uri), editor.at(uri, "Mood"))
    found = await editor.client.text_document_hover_async(params)
    assert found is not None and isinstance(found.contents, lsp.MarkupContent)
    return found.contents.value


async def _types(editor: Editor, uri: str) -> list[str]:
    params = lsp.CompletionParams(editor.document(uri), editor.at(uri, "-> ", 3))
    found = await editor.client.text_document_completion_async(params)
    assert isinstance(found, lsp.CompletionList)
    return [item.label for item in found.items]


@pytest.mark.asyncio
async def test_files_changed_on_disk_make_every_kept_project_stale(editor: Editor) -> None:
    assert len(OLD) == len(NEW)
    common = Path(lsp_path(editor.write("common.sig", OLD)))
    uri = editor.open("review.sig", REVIEW)
    assert "Old words." in await _hover(editor, uri)
    assert "Aaaa" in await _types(editor, uri)
    # Rewritten with the same size and modification time: only the client's word says so.
    before = common.stat()
    common.write_text(NEW, encoding="utf-8")
    os.utime(common, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert common.stat().st_mtime_ns == before.st_mtime_ns
    assert "Old words." in await _hover(editor, uri)  # kept: nothing it can see changed
    event = lsp.FileEvent(uri=common.as_uri(), type=lsp.FileChangeType.Changed)
    editor.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams([event]))
    assert "New words." in await _hover(editor, uri)
    labels = await _types(editor, uri)
    assert "Bbbb" in labels and "Aaaa" not in labels


@pytest.mark.asyncio
async def test_an_edit_is_seen_by_hover_and_completion(editor: Editor) -> None:
    editor.write("common.sig", OLD)
    uri = editor.open("review.sig", REVIEW)
    assert "Aaaa" in await _types(editor, uri)
    common = editor.open("common.sig")
    editor.change(common, NEW)
    assert "New words." in await _hover(editor, uri)
    labels = await _types(editor, uri)
    assert "Bbbb" in labels and "Aaaa" not in labels
