"""`sigspec lsp`, driven over stdio by a minimal JSON-RPC client, as an editor would."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from conftest import run_cli

TIMEOUT = 30


class Client:
    """Speaks LSP's Content-Length framing to a server process; notifications are queued."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stream: BinaryIO) -> None:
        while True:
            headers: dict[str, str] = {}
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            if not headers:
                return
            self.messages.put(json.loads(stream.read(int(headers["content-length"]))))

    def send(self, method: str, params: Any, *, request: bool = False) -> int | None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        ident = None
        if request:
            self.next_id += 1
            ident = message["id"] = self.next_id
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return ident

    def wait(self, predicate: Any) -> dict[str, Any]:
        while True:
            message = self.messages.get(timeout=TIMEOUT)
            if predicate(message):
                return message

    def request(self, method: str, params: Any) -> Any:
        ident = self.send(method, params, request=True)
        reply = self.wait(lambda m: m.get("id") == ident and "method" not in m)
        assert "error" not in reply, reply
        return reply["result"]

    def diagnostics(self, uri: str) -> list[dict[str, Any]]:
        message = self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            )
        )
        return list(message["params"]["diagnostics"])

    def open(self, path: Path, text: str) -> str:
        uri = path.as_uri()
        document = {"uri": uri, "languageId": "sigspec", "version": 1, "text": text}
        self.send("textDocument/didOpen", {"textDocument": document})
        return uri

    def change(self, uri: str, text: str, version: int) -> None:
        self.send(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            },
        )


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    process = subprocess.Popen(
        [sys.executable, "-m", "sigspec", "lsp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    lsp = Client(process)
    result = lsp.request(
        "initialize",
        {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}},
    )
    assert result["capabilities"]["documentFormattingProvider"]
    lsp.send("initialized", {})
    yield lsp
    lsp.request("shutdown", None)
    lsp.send("exit", None)
    assert process.wait(timeout=TIMEOUT) == 0
    for stream in (process.stdin, process.stdout, process.stderr):
        assert stream is not None
        stream.close()


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
