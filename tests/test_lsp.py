"""`sigspec lsp`, driven over stdio by a minimal JSON-RPC client, as an editor would."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run_cli
from lsp_client import Client, server_process


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    with server_process(tmp_path) as lsp:
        yield lsp


def test_diagnostics_on_open_and_cleared_on_fix(client: Client, tmp_path: Path) -> None:
    # The emoji before the error is two UTF-16 units: the column must count them as LSP does.
    text = 'signature a(x :int "\U0001f600") -> {y Strin}\n'
    uri = client.open(tmp_path / "a.sig", text)
    [found] = client.diagnostics(uri)
    assert found["code"] == "unknown-type"
    assert found["severity"] == 1
    assert found["source"] == "sigspec"
    start = text.index("Strin") + 1  # one extra UTF-16 unit for the emoji
    assert found["range"] == {
        "start": {"line": 0, "character": start},
        "end": {"line": 0, "character": start + 5},
    }
    assert "unknown type `Strin`" in found["message"]

    client.change(uri, text.replace("Strin", ":string"), 2)
    assert client.diagnostics(uri) == []


def test_edit_to_an_imported_buffer_rechecks_its_importer(client: Client, tmp_path: Path) -> None:
    common = 'type Label = "a" | "b"\n'
    main = 'import "common.sig"\nsignature pick(x :string) -> {label Label}\n'
    (tmp_path / "common.sig").write_text(common)
    (tmp_path / "main.sig").write_text(main)
    main_uri = client.open(tmp_path / "main.sig", main)
    assert client.diagnostics(main_uri) == []
    common_uri = client.open(tmp_path / "common.sig", common)
    assert client.diagnostics(common_uri) == []
    assert client.diagnostics(main_uri) == []  # it reads the buffer now, not the disk

    # Unsaved: the disk still has `Label`, the buffer renames it.
    client.change(common_uri, common.replace("Label", "Tag"), 2)
    assert [d["code"] for d in client.diagnostics(main_uri)] == ["unknown-type"]


def test_syntax_error_is_a_diagnostic_not_a_crash(client: Client, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "bad.sig", "signature a(x :int -> {\n")
    [found] = client.diagnostics(uri)
    assert found["severity"] == 1
    assert found["range"]["start"]["line"] == 0


def test_formatting_gives_what_sigspec_fmt_prints(client: Client, tmp_path: Path) -> None:
    text = 'signature   a( x :int )->{y :string   "Why"}   # keep me\n'
    uri = client.open(tmp_path / "a.sig", text)
    client.diagnostics(uri)
    params = {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}
    [edit] = client.request("textDocument/formatting", params)
    assert edit["range"] == {
        "start": {"line": 0, "character": 0},
        "end": {"line": 1, "character": 0},
    }
    expected = run_cli("fmt", "-", stdin=text)
    assert expected.returncode == 0
    assert edit["newText"] == expected.stdout
    assert "# keep me" in edit["newText"]

    client.change(uri, expected.stdout, 2)
    assert client.request("textDocument/formatting", params) == []


def test_formatting_a_broken_document_changes_nothing(client: Client, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "bad.sig", "signature a(x :int -> {\n")
    client.diagnostics(uri)
    params = {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}
    assert client.request("textDocument/formatting", params) == []


def test_without_pygls_lsp_is_a_usage_error() -> None:
    code = "import sys; sys.modules['pygls'] = None; from sigspec.cli import main; main(['lsp'])"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 2
    assert "sigspec[lsp]" in result.stderr
    assert "Traceback" not in result.stderr
