"""A recording HTTP server on 127.0.0.1 for the SDK tests: it keeps every request (method, path,
JSON body) and answers each with a canned valid response of the API the path belongs to, so an
official SDK sends exactly what it would send to the provider and reads a reply it accepts.

A scripted reply may be `Streamed`: the events of a streamed response in the API's wire format
(OpenAI's and Gemini's SSE, Anthropic's named SSE events, Ollama's NDJSON: `sse`, `ndjson`),
each written and flushed in turn; with `hold`, the server then keeps the connection open until
the client closes it, and reports in `Recorder.disconnects` whether it did (a stream left open
is a leaked connection).

Nothing leaves the machine: the server binds the loopback address on a free port, serves from
a daemon thread and stops when its `with` block ends.
"""

from __future__ import annotations

import json
import queue
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = '{"ok": true}'


def _openai() -> dict[str, Any]:
    message = {"role": "assistant", "content": REPLY, "refusal": None}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _anthropic() -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": REPLY}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _gemini() -> dict[str, Any]:
    content = {"role": "model", "parts": [{"text": REPLY}]}
    return {
        "candidates": [{"content": content, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "m",
    }


def _ollama() -> dict[str, Any]:
    return {
        "model": "m",
        "created_at": "2026-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": REPLY},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 1,
        "eval_count": 1,
    }


def canned(path: str) -> dict[str, Any] | None:
    """The response for a request path, by the API it belongs to."""
    if path.endswith("/chat/completions"):
        return _openai()
    if path.endswith("/messages"):
        return _anthropic()
    if ":generateContent" in path:
        return _gemini()
    if path.endswith("/api/chat"):
        return _ollama()
    return None


@dataclass(frozen=True)
class Streamed:
    """A streamed response: its events, already in the wire format, sent one by one."""

    content_type: str
    events: tuple[str, ...]
    hold: bool = False  # then wait for the client to close the connection


def sse(events: list[Any], named: bool = False, done: bool = False) -> Streamed:
    """Server-sent events of JSON data (`event: <type>` lines too when `named`, as
    Anthropic's; a final `data: [DONE]` when `done`, as OpenAI's)."""
    lines = [
        (f"event: {event['type']}\n" if named else "") + f"data: {json.dumps(event)}\n\n"
        for event in events
    ]
    return Streamed("text/event-stream", (*lines, *(["data: [DONE]\n\n"] if done else [])))


def ndjson(events: list[Any]) -> Streamed:
    """Newline-delimited JSON, as Ollama streams."""
    return Streamed("application/x-ndjson", tuple(json.dumps(e) + "\n" for e in events))


HOLD_SECONDS = 10  # how long a held stream waits for the client to close it


@dataclass
class Recorded:
    method: str
    path: str
    body: Any


@dataclass
class Recorder:
    url: str
    requests: list[Recorded] = field(default_factory=list)
    # Scripted response bodies, sent in turn (then the canned ones): a test's model replies.
    script: list[Any] = field(default_factory=list)
    # For each held stream: True when the client closed the connection, False when it did not.
    disconnects: queue.Queue[bool] = field(default_factory=queue.Queue)

    def take(self) -> Recorded:
        """The one request sent since the last take."""
        assert len(self.requests) == 1, [r.path for r in self.requests]
        return self.requests.pop()


def _stream(handler: BaseHTTPRequestHandler, streamed: Streamed, recorder: Recorder) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", streamed.content_type)
    handler.send_header("Cache-Control", "no-cache")
    handler.end_headers()  # no length: the body ends when the connection closes
    try:
        for event in streamed.events:
            handler.wfile.write(event.encode())
            handler.wfile.flush()
    except OSError:  # the client closed the connection (a reset, a broken pipe)
        closed = True
    else:
        closed = streamed.hold and _closed_by_client(handler.connection)
    if streamed.hold:
        recorder.disconnects.put(closed)


def _closed_by_client(connection: socket.socket) -> bool:
    """Whether the client closes the connection (an end of file to read) before
    HOLD_SECONDS pass."""
    deadline = time.monotonic() + HOLD_SECONDS
    while time.monotonic() < deadline:
        readable, _, _ = select.select([connection], [], [], 0.05)
        if readable:
            try:
                if not connection.recv(4096):
                    return True
            except OSError:
                return True
    return False


def _handler(recorder: Recorder) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(size)
            body = json.loads(raw) if raw else None
            recorder.requests.append(Recorded("POST", self.path, body))
            scripted = recorder.script.pop(0) if recorder.script else None
            if isinstance(scripted, Streamed):
                _stream(self, scripted, recorder)
                return
            answer = scripted if scripted is not None else canned(self.path.split("?")[0])
            data = json.dumps(answer if answer is not None else {"error": "unknown"}).encode()
            self.send_response(200 if answer is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the test reads the recorder

    return Handler


@contextmanager
def listening(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A threading HTTP server with `handler` on a free port of 127.0.0.1, its base URL
    (`http://127.0.0.1:PORT`) while it runs; shut down and joined on exit."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@contextmanager
def recording_server() -> Iterator[Recorder]:
    recorder = Recorder("")
    with listening(_handler(recorder)) as url:
        recorder.url = url
        yield recorder
