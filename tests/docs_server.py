"""A scripted OpenAI-compatible server on 127.0.0.1 for the documentation's Python snippets:
each chat completion is answered with a valid value of the schema the request asks for (the
`response_format`'s JSON Schema, or the forced tool's parameters), a short text when it asks
for none; streamed (`"stream": true`) as OpenAI's server-sent events. So a snippet that calls
a model with the official SDK, or with sigspec's `OpenAICompatible`, gets the answer a
well-behaved model would give, without a key or the network.

Nothing leaves the machine: the server binds the loopback address on a free port and serves
from a daemon thread while its `with` block runs.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TEXT = "A short, faithful answer written for the reader, as the request asked."

# Strings tried, in turn, against a `pattern` (the first that matches is the answer).
CANDIDATES = ("ABC-123", "abc", "a", "A", "1", "abc-123", "a_b", "x1", "2026-01-02", "example")
FORMATS = {
    "date": "2026-01-02",
    "date-time": "2026-01-02T03:04:05Z",
    "time": "03:04:05Z",
    "email": "ada@example.com",
    "uri": "https://example.com/page",
    "url": "https://example.com/page",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "duration": "P1D",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "hostname": "example.com",
}


class Unanswerable(ValueError):
    """A schema the server cannot make a value of."""


def instance(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """A small value valid against the JSON Schema `schema` (`$ref`s read from `root`)."""
    if depth > 40:
        raise Unanswerable("the schema nests too deeply")
    if schema is True or schema == {}:
        return "example"
    if not isinstance(schema, dict):
        raise Unanswerable(f"not a schema: {schema!r}")
    if "$ref" in schema:
        return instance(_resolve(schema["$ref"], root), root, depth + 1)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = schema[key]
            chosen = [o for o in options if o != {"type": "null"}] or options
            return instance({**_rest(schema, key), **chosen[0]}, root, depth + 1)
    if "allOf" in schema:
        merged = _rest(schema, "allOf")
        for part in schema["allOf"]:
            merged.update(part)
        return instance(merged, root, depth + 1)
    return _typed(schema, root, depth)


def _typed(schema: dict[str, Any], root: dict[str, Any], depth: int) -> Any:
    """`instance` of a schema that names (or implies) its type."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
    if kind == "object":
        properties = schema.get("properties", {})
        required = schema.get("required", list(properties))
        return {name: instance(properties.get(name, {}), root, depth + 1) for name in required}
    if kind == "array":
        items = [instance(s, root, depth + 1) for s in schema.get("prefixItems", [])]
        count = max(schema.get("minItems", 1), len(items))
        count = min(count, schema.get("maxItems", count))
        while len(items) < count:
            items.append(instance(schema.get("items", {}), root, depth + 1))
        return items[:count]
    scalars = {
        "string": lambda: _string(schema),
        "number": lambda: _number(schema, False),
        "integer": lambda: _number(schema, True),
        "boolean": lambda: True,
        "null": lambda: None,
    }
    if kind not in scalars:
        raise Unanswerable(f"unknown type {kind!r}")
    return scalars[kind]()


def _rest(schema: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != key}


def _resolve(ref: str, root: dict[str, Any]) -> Any:
    if not ref.startswith("#"):
        raise Unanswerable(f"a reference outside the schema: {ref}")
    node: Any = root
    for part in ref[1:].split("/")[1:]:
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _string(schema: dict[str, Any]) -> str:
    if "pattern" in schema:
        pattern = re.compile(schema["pattern"])
        for candidate in CANDIDATES:
            if pattern.search(candidate):
                return candidate
        raise Unanswerable(f"no string of mine matches {schema['pattern']!r}")
    value = FORMATS.get(schema.get("format", ""), "example")
    least, most = schema.get("minLength", 0), schema.get("maxLength")
    if len(value) < least:
        value += "x" * (least - len(value))
    if most is not None:
        value = value[:most]
    return value


def _number(schema: dict[str, Any], integer: bool) -> float | int:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 0.5 if not integer else 1
    if low is not None and high is not None:
        value = (low + high) / 2
    elif low is not None:
        value = low + 1
    elif high is not None:
        value = high - 1
    if integer:
        value = int(value)
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            value += 1
    return value


def answer(body: dict[str, Any]) -> dict[str, Any]:
    """The assistant message for a chat completion request: content or a tool call."""
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        schema = response_format["json_schema"]["schema"]
        return {"role": "assistant", "content": json.dumps(instance(schema, schema))}
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and body.get("tools"):
        name = choice.get("function", {}).get("name")
        tool = next(t for t in body["tools"] if t.get("function", {}).get("name") == name)
        parameters = tool["function"].get("parameters", {})
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(instance(parameters, parameters))},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    if response_format.get("type") == "json_object":
        raise Unanswerable("JSON mode without a schema: the server cannot tell what to answer")
    return {"role": "assistant", "content": TEXT}


USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def completion(body: dict[str, Any], message: dict[str, Any]) -> dict[str, Any]:
    reason = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-docs",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "m"),
        "choices": [{"index": 0, "message": message, "finish_reason": reason, "logprobs": None}],
        "usage": USAGE,
    }


def chunks(body: dict[str, Any], message: dict[str, Any]) -> list[dict[str, Any]]:
    """The chunks of a streamed completion: the answer in two pieces, then the finish (and the
    usage, when `stream_options` asks for it)."""

    def chunk(delta: dict[str, Any], reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-docs",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": body.get("model", "m"),
            "choices": [{"index": 0, "delta": delta, "finish_reason": reason, "logprobs": None}],
        }

    out = []
    if message.get("tool_calls"):
        call = message["tool_calls"][0]
        out.append(chunk({"role": "assistant", "tool_calls": [{"index": 0, **call}]}))
        reason = "tool_calls"
    else:
        text = message["content"]
        half = len(text) // 2
        out.append(chunk({"role": "assistant", "content": text[:half]}))
        out.append(chunk({"content": text[half:]}))
        reason = "stop"
    out.append(chunk({}, reason))
    if (body.get("stream_options") or {}).get("include_usage"):
        out.append({**chunk({}), "choices": [], "usage": USAGE})
    return out


@dataclass
class Scripted:
    url: str = ""  # the base URL, ending in /v1
    bodies: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@contextmanager
def scripted_server() -> Iterator[Scripted]:
    state = Scripted()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
                state.bodies.append(body)
                if not self.path.endswith("/chat/completions"):
                    raise Unanswerable(f"only chat completions are scripted, not {self.path}")
                message = answer(body)
            except (Unanswerable, ValueError, KeyError, StopIteration) as exc:
                state.errors.append(f"{self.path}: {exc}")
                self._send(400, "application/json", json.dumps({"error": {"message": str(exc)}}))
                return
            if body.get("stream"):
                events = (
                    "".join(f"data: {json.dumps(c)}\n\n" for c in chunks(body, message))
                    + "data: [DONE]\n\n"
                )
                self._send(200, "text/event-stream", events)
            else:
                self._send(200, "application/json", json.dumps(completion(body, message)))

        def do_GET(self) -> None:
            self._send(404, "application/json", json.dumps({"error": {"message": "not found"}}))

        def _send(self, status: int, kind: str, text: str) -> None:
            data = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    http.daemon_threads = True
    state.url = f"http://127.0.0.1:{http.server_address[1]}/v1"
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        http.shutdown()
        http.server_close()
