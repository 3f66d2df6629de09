"""The pytest-lsp editor (`lsp_editor.py`) against `sigspec lsp`: what every other
end-to-end language-server test stands on."""

from __future__ import annotations

import pytest

from lsp_editor import Editor


@pytest.mark.asyncio
async def test_the_server_says_what_it_can_do(editor: Editor) -> None:
    result = editor.client.server_capabilities
    assert result.document_formatting_provider


@pytest.mark.asyncio
async def test_diagnostics_of_the_latest_version(editor: Editor) -> None:
    uri = editor.open("a.sig", "signature a(x :int) -> {y Strin}\n")
    [found] = await editor.diagnostics(uri)
    assert found.code == "unknown-type"
    assert found.range.start == editor.at(uri, "Strin")
    editor.change(uri, "signature a(x :int) -> {y :string}\n")
    assert await editor.diagnostics(uri) == []
