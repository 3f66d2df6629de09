"""A minimal LSP client for the language server's tests: Content-Length framing over a pair
of byte streams (a server process's pipes, or pipes to a server running in a thread)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

TIMEOUT = 30  # seconds to wait for any one message: generous, only a hang reaches it

Message = dict[str, Any]
PUBLISH = "textDocument/publishDiagnostics"


def frame(message: Message) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Client:
    """Speaks LSP to a server; everything the server sends is queued in arrival order."""

    def __init__(self, writer: BinaryIO, reader: BinaryIO) -> None:
        self.writer = writer
        self.messages: queue.Queue[Message] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, args=(reader,), daemon=True).start()

    def _read(self, stream: BinaryIO) -> None:
        while True:
            headers: dict[str, str] = {}
            while (line := stream.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            if not headers:
                return
            self.messages.put(json.loads(stream.read(int(headers["content-length"]))))

    def write(self, messages: Iterable[Message]) -> None:
        """Send messages in one write, so that the server finds them all waiting at once."""
        self.writer.write(b"".join(frame(m) for m in messages))
        self.writer.flush()

    def notification(self, method: str, params: Any) -> Message:
        return {"jsonrpc": "2.0", "method": method, "params": params}

    def send(self, method: str, params: Any, *, request: bool = False) -> int | None:
        message = self.notification(method, params)
        ident = None
        if request:
            self.next_id += 1
            ident = message["id"] = self.next_id
        self.write([message])
        return ident

    def wait(self, predicate: Callable[[Message], bool]) -> Message:
        """The next message that matches; those before it are dropped."""
        while True:
            message = self.messages.get(timeout=TIMEOUT)
            if predicate(message):
                return message

    def collect(self, predicate: Callable[[Message], bool]) -> list[Message]:
        """Every message up to and including the next one that matches."""
        found = []
        while True:
            found.append(self.messages.get(timeout=TIMEOUT))
            if predicate(found[-1]):
                return found

    def reply(self, ident: int | None) -> Any:
        reply = self.wait(lambda m: m.get("id") == ident and "method" not in m)
        assert "error" not in reply, reply
        return reply["result"]

    def request(self, method: str, params: Any) -> Any:
        return self.reply(self.send(method, params, request=True))

    def diagnostics(self, uri: str, version: int | None = None) -> list[dict[str, Any]]:
        """The diagnostics of the next publication for `uri` (of that version, if given)."""
        message = self.wait(lambda m: is_publish(m, uri, version))
        return list(message["params"]["diagnostics"])

    def did_open(self, path: Path, text: str) -> Message:
        document = {"uri": path.as_uri(), "languageId": "sigspec", "version": 1, "text": text}
        return self.notification("textDocument/didOpen", {"textDocument": document})

    def did_change(self, uri: str, text: str, version: int) -> Message:
        return self.notification(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}],
            },
        )

    def open(self, path: Path, text: str) -> str:
        self.write([self.did_open(path, text)])
        return path.as_uri()

    def change(self, uri: str, text: str, version: int) -> None:
        self.write([self.did_change(uri, text, version)])

    def initialize(self, root: Path) -> None:
        result = self.request(
            "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        )
        assert result["capabilities"]["documentFormattingProvider"]
        self.send("initialized", {})

    def stop(self) -> None:
        self.request("shutdown", None)
        self.send("exit", None)


def is_publish(message: Message, uri: str | None = None, version: int | None = None) -> bool:
    """A diagnostics publication (for `uri`, of `version`, when given)."""
    if message.get("method") != PUBLISH:
        return False
    params = message["params"]
    return (uri is None or params["uri"] == uri) and (
        version is None or params.get("version") == version
    )


def published(messages: Iterable[Message]) -> list[tuple[str, int | None]]:
    """(URI, version) of each publication among `messages`, in order."""
    return [(m["params"]["uri"], m["params"].get("version")) for m in messages if is_publish(m)]


@contextlib.contextmanager
def server_process(root: Path) -> Iterator[Client]:
    """`sigspec lsp` in a process of its own, initialized on the workspace `root`."""
    with (root / "server.log").open("wb") as log:  # a pipe nobody reads could fill and block
        process = subprocess.Popen(
            [sys.executable, "-m", "sigspec", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=root,
        )
        assert process.stdin is not None and process.stdout is not None
        with process.stdin, process.stdout:
            client = Client(process.stdin, process.stdout)
            client.initialize(root)
            yield client
            client.stop()
            assert process.wait(timeout=TIMEOUT) == 0


@contextlib.contextmanager
def server_thread(root: Path, server: Any) -> Iterator[Client]:
    """A server object built by the test (`build_server(...)`) on pipes, in a thread."""
    to_server, from_client = os.pipe()
    to_client, from_server = os.pipe()
    server_in, server_out = os.fdopen(to_server, "rb"), os.fdopen(from_server, "wb")
    client_in, client_out = os.fdopen(to_client, "rb"), os.fdopen(from_client, "wb")
    thread = threading.Thread(target=server.start_io, args=(server_in, server_out))
    thread.start()
    try:
        client = Client(client_out, client_in)
        client.initialize(root)
        yield client
        client.stop()
    finally:
        # In this order, so that no stream is closed while a thread still reads it: the
        # server reads the end of its input (if a failed test did not stop it), ends, and the
        # client's reader reads the end of the server's output.
        client_out.close()
        thread.join(timeout=TIMEOUT)
        assert not thread.is_alive()
        server_out.close()
        client_in.close()
        server_in.close()
