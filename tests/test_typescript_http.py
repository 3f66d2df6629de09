"""The TypeScript target's `_providers.ts` (runtime/providers.ts), compiled by tsc and run in
Node: its payload builders and reply readers give what the Python runtime's give for one
table of requests and responses, and `openAICompatible` holds, against scripted servers on
127.0.0.1, what `OpenAICompatible` holds in Python (test_transport.py): retries with
Retry-After, a reset, the deadline, redirects, the size bound, the key kept out of errors and
of the callback's string forms, structured-output negotiation once per client, and the
server-sent events of `.stream` read at awkward boundaries. A generated client function runs
end to end with it."""

from __future__ import annotations

import itertools
import json
import shutil
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from sigspec.runtime import client, transport
from test_shared_cases import compile_typescript

NODE = ROOT / "tests" / "node"
DRIVER = NODE / "providers_driver.mjs"
KEY = "sk-test-0123456789abcdef"
GOOD = '{"sentiment": "positive", "score": 0.9}'

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (NODE / "node_modules" / ".bin" / "tsc").exists(),
    reason="Node and tests/node's packages are needed: npm ci --prefix tests/node",
)

# What the README shows: a generated client function with the HTTP callback.
USAGE = """\
import { classify } from "./sentiment.js";
import { LlmHttpError, openAICompatible } from "./_providers.js";

declare const console: { log(text: string): void };
declare const process: { argv: string[] };

const llm = openAICompatible({
  baseUrl: process.argv[2] ?? "",
  model: "m",
  apiKey: "sk-test-0123456789abcdef",
  retry: { attempts: 3, baseMs: 10 },
});
const step = await classify({ text: "Great blender" }, llm);
const out: Record<string, unknown> = {
  sentiment: step.return.sentiment,
  score: step.return.score,
  turns: step.turns.length,
  usage: step.usage,
};
try {
  await classify({ text: "x" }, llm);
} catch (e) {
  if (e instanceof LlmHttpError) out["error"] = [e.status, e.attempts];
}
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def js(tmp_path_factory: pytest.TempPathFactory, examples_output: Path) -> Path:
    """The examples' TypeScript and USAGE compiled by tsc (strict, as test_typescript's)."""
    folder = tmp_path_factory.mktemp("tshttp")
    shutil.copytree(examples_output / "typescript", folder / "typescript")
    (folder / "typescript" / "main.ts").write_text(USAGE, "utf-8")
    return compile_typescript(folder)


def drive(js: Path, command: dict[str, Any]) -> Any:
    run = subprocess.run(
        ["node", str(DRIVER), str(js)],
        input=json.dumps(command),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


# -- a scripted server ----------------------------------------------------------------------------


@dataclass
class Answer:
    """One scripted response: a status and body (bytes as they are, else JSON), extra headers,
        a delay before it, a reset instead of it, or a body written in `pieces` one by one (a
    Content-Length longer than they are cuts the body short)."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict[str, str])
    delay: float = 0.0
    reset: bool = False
    pieces: list[bytes] | None = None


class Server:
    """A Chat Completions endpoint on 127.0.0.1 answering from a script, recording each
    request's path, headers and JSON body."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.seen: list[tuple[str, dict[str, str], Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(size)
                outer.seen.append((self.path, dict(self.headers), json.loads(raw or "null")))
                self.answer(outer.answers.pop(0))

            def reset(self) -> None:
                linger = struct.pack("ii", 1, 0)  # an RST, not a clean close
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
                self.close_connection = True

            def answer(self, answer: Answer) -> None:
                time.sleep(answer.delay)
                if answer.reset:
                    return self.reset()
                body = answer.body
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(answer.status)
                if answer.pieces is None:
                    self.send_header("Content-Type", "application/json")
                    if "Content-Length" not in answer.headers:
                        self.send_header("Content-Length", str(len(data)))
                for name, value in answer.headers.items():
                    if value != "-":  # "-": no such header (the body ends at the close)
                        self.send_header(name, value)
                self.end_headers()
                if answer.pieces is None:
                    self.wfile.write(data)
                    return None
                for piece in answer.pieces:
                    self.wfile.write(piece)
                    self.wfile.flush()
                    time.sleep(0.002)
                return None

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *args: None  # type: ignore[method-assign]
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *args: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def formats(self) -> list[Any]:
        return [(body or {}).get("response_format") for _, _, body in self.seen]


def completion(content: str) -> dict[str, Any]:
    return {
        "choices": [{"message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 2, "completion_tokens": 3},
    }


def options(url: str, **more: Any) -> dict[str, Any]:
    return {
        "baseUrl": url,
        "model": "m",
        "apiKey": KEY,
        "timeoutMs": 5000,
        "retry": {"attempts": 4, "baseMs": 1000, "capMs": 30000},
        "deadlineMs": 60000,
        **more,
    }


def calls(js: Path, url: str, *requests: dict[str, Any], stream: bool = False, **more: Any) -> Any:
    """Each request through one `openAICompatible` callback, with waits recorded, not waited,
    and the jitter's draw 0.5."""
    given = more.pop("options", {})
    command = {
        "options": options(url, **given),
        "calls": [{"request": r, "stream": stream} for r in requests],
        "sleeps": more.pop("sleeps", "record"),
        "random": 0.5,
    }
    return drive(js, command)


SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
SCHEMA_FORM = {
    "type": "json_schema",
    "json_schema": {"name": "t", "strict": True, "schema": SCHEMA},
}
OBJECT_FORM = {"type": "json_object", "schema": SCHEMA}


def request(output: str = "json", **more: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "signature": "t",
        "system": "",
        "messages": [{"role": "user", "content": "hi"}],
        "output": output,
        "schema": SCHEMA if output == "json" else None,
        "tools": None,
        "tool_choice": None,
    }
    return {**base, **more}


JSON_REQUEST = request(fragments={"openai": {"request": {"response_format": SCHEMA_FORM}}})
TEXT_REQUEST = request("text")


# -- payloads and readers: one table, both runtimes -----------------------------------------------

TOOL = {"name": "respond", "description": "Answer", "parameters": SCHEMA}
FORCED = {"tools": [TOOL], "tool_choice": {"tool": "respond"}}
FRAGMENTS = {
    "openai": {
        "request": {"response_format": SCHEMA_FORM},
        "tool_request": {
            "tools": [{"type": "function", "function": {"name": "x", "parameters": SCHEMA}}],
            "tool_choice": {"type": "function", "function": {"name": "x"}},
        },
    },
    "anthropic": {
        "request": {"output_format": {"type": "json_schema", "schema": SCHEMA}},
        "tool_request": {
            "tools": [{"name": "x", "input_schema": SCHEMA}],
            "tool_choice": {"type": "tool", "name": "x"},
        },
    },
    "gemini": {
        "request": {
            "generationConfig": {
                "responseMimeType": "application/json",
                "responseJsonSchema": {"type": "array", "items": {"type": "string"}},
            }
        }
    },
    "ollama": {"request": {"format": SCHEMA}},
}
REQUESTS = [
    request(),
    request(fragments=FRAGMENTS),
    request("text", system="Be brief."),
    request(**FORCED),
    request(**FORCED, fragments=FRAGMENTS, system="S"),
    request(
        messages=[
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
        ]
    ),
]
OPENAI = [
    completion(GOOD),
    {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}}]},
    {"choices": [{"message": {"content": None, "refusal": "I can't"}}]},
    {"choices": [{"message": {"content": [{"type": "refusal", "refusal": "no"}]}}]},
    {"choices": [{"message": {"content": ""}, "finish_reason": "content_filter"}]},
    {"choices": [{"message": {"content": "x", "reasoning_content": "think"}}]},
    {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [
                        {"id": "c1", "function": {"name": "respond", "arguments": '{"a": 1}'}},
                        {"id": "c2", "function": {"name": "respond", "arguments": "{bad"}},
                    ],
                }
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1.5},
    },
    {},
    {"choices": []},
]
ANTHROPIC = [
    {
        "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "a"},
            {"type": "text", "text": "b"},
            {"type": "tool_use", "id": "t1", "name": "respond", "input": {"a": 1}},
        ],
        "usage": {
            "input_tokens": 3,
            "cache_read_input_tokens": 10,
            "cache_creation_input_tokens": 2,
            "output_tokens": 4,
        },
    },
    {"content": [{"type": "text", "text": " nope "}], "stop_reason": "refusal"},
    {"content": [], "stop_reason": "refusal"},
    {},
]
GEMINI = [
    {
        "candidates": [
            {
                "content": {
                    "parts": [{"text": "plan", "thought": True}, {"text": "x"}, {"text": "y"}]
                }
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 3,
            "candidatesTokenCount": 2,
            "thoughtsTokenCount": 7,
        },
    },
    {
        "candidates": [
            {"content": {"parts": [{"function_call": {"name": "respond", "args": {"a": 1}}}]}}
        ],
        "usage_metadata": {"prompt_token_count": 1},
    },
    {"promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": "unsafe"}},
    {"candidates": [{"finishReason": "SAFETY", "content": {"parts": []}}]},
    {"candidates": [{"finishReason": "SAFETY", "content": {"parts": [{"text": "ok"}]}}]},
]
OLLAMA = [
    {
        "message": {"content": GOOD, "thinking": "hm"},
        "prompt_eval_count": 4,
        "eval_count": 2,
    },
    {
        "message": {
            "content": "",
            "tool_calls": [{"function": {"name": "respond", "arguments": {"a": 1}}}],
        }
    },
    {"message": {"content": [{"text": "part"}]}},
]
PYTHON: dict[str, Callable[..., Any]] = {
    "openaiPayload": client.openai_payload,
    "anthropicPayload": client.anthropic_payload,
    "geminiPayload": client.gemini_payload,
    "ollamaPayload": client.ollama_payload,
    "readOpenAI": client.read_openai,
    "readAnthropic": client.read_anthropic,
    "readGemini": client.read_gemini,
    "readOllama": client.read_ollama,
}


def table() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for r in REQUESTS:
        rows += [
            {"fn": "openaiPayload", "args": [r, "m"]},
            {"fn": "anthropicPayload", "args": [r, "m", 99]},
            {"fn": "geminiPayload", "args": [r]},
            {"fn": "ollamaPayload", "args": [r, "m"]},
        ]
    for fn, responses in [
        ("readOpenAI", OPENAI),
        ("readAnthropic", ANTHROPIC),
        ("readGemini", GEMINI),
        ("readOllama", OLLAMA),
    ]:
        rows += [{"fn": fn, "args": [response]} for response in responses]
    return rows


def test_payloads_and_readers_give_what_pythons_give(js: Path) -> None:
    rows = table()
    results = drive(js, {"table": rows})
    assert len(results) == len(rows) == 45
    for row, result in zip(rows, results, strict=True):
        expected = PYTHON[row["fn"]](*row["args"])
        assert result == {"value": expected}, row


def test_gemini_forces_the_tool_in_mode_any(js: Path) -> None:
    [result] = drive(js, {"table": [{"fn": "geminiPayload", "args": [REQUESTS[4]]}]})
    payload = result["value"]
    assert payload["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["respond"]}
    }
    [declaration] = payload["tools"][0]["functionDeclarations"]
    # The compiled array schema, wrapped under `items` as every forced tool's is.
    assert declaration["parametersJsonSchema"]["required"] == ["items"]
    assert "generationConfig" not in payload


NOW = 1_700_000_000.0  # a Unix time, for Retry-After dates
DECISIONS: list[tuple[str, list[Any]]] = [
    *[
        ("retryAfter", [headers, NOW * 1000])
        for headers in [
            {"Retry-After": "2"},
            {"retry-after": " 1.5 "},
            {"Retry-After-Ms": "250", "Retry-After": "9"},
            {"Retry-After": "Tue, 14 Nov 2023 22:13:30 GMT"},  # NOW + 10 s
            {"Retry-After": "Tue, 14 Nov 2023 22:13:00 GMT"},  # in the past: 0
            {"Retry-After": "soon"},
            {"Retry-After": ""},
            {},
            # A negative, an infinite or a non-ASCII number reads as nothing (the next
            # header, or the backoff), in both runtimes.
            {"Retry-After": "-5"},
            {"retry-after-ms": "-250", "Retry-After": "9"},
            {"Retry-After": "1e400"},
            {"Retry-After": "1_0"},
            {"Retry-After": "\u0663"},
        ]
    ],
    *[
        ("rejectsForm", [form, status, body, answered])
        for form, status, body, answered in [
            ("json_schema", 400, "", False),
            ("json_schema", 422, "", False),
            ("json_object", 500, "unknown field response_format", False),
            ("json_schema", 500, "overloaded", False),
            ("json_schema", 400, "", True),
            ("prompt", 400, "", False),
            ("json_schema", None, "", False),
            ("json_schema", 429, "json_schema", False),
        ]
    ],
    *[
        ("payloadForms", [payload, pinned])
        for payload in [
            {"response_format": SCHEMA_FORM},
            {"response_format": {"type": "json_object"}},
            {"response_format": {"type": "text"}},
            {},
        ]
        for pinned in ["auto", "json_object"]
    ],
    *[
        ("inForm", [payload, form])
        for payload in [{"model": "m", "response_format": SCHEMA_FORM}, {"model": "m"}]
        for form in ["json_schema", "json_object", "prompt"]
    ],
]
DECIDE: dict[str, Callable[..., Any]] = {
    "retryAfter": lambda headers, now: _ms(transport.retry_after(headers, now / 1000)),
    "rejectsForm": transport.rejects_form,
    "payloadForms": lambda payload, pinned: list(transport.payload_forms(payload, pinned)),
    "inForm": transport.in_form,
}


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 6)


def test_the_transports_decisions_are_pythons(js: Path) -> None:
    rows = [{"fn": fn, "args": args} for fn, args in DECISIONS]
    results = drive(js, {"table": rows})
    for (fn, args), result in zip(DECISIONS, results, strict=True):
        try:
            expected: Any = {"value": DECIDE[fn](*args)}
        except ValueError:
            expected = {"error": "RangeError"}
        assert result == expected, (fn, args)
    wait = transport.Retry(attempts=4, base=1.0, cap=30.0).wait
    retry = {"attempts": 4, "baseMs": 1000, "capMs": 30000}
    waits = [(1, None, 0.5), (3, None, 0.25), (9, None, 1.0), (1, 2.0, 0.9), (1, 31.0, 0.0)]
    rows = [
        {"fn": "retryWait", "args": [retry, n, None if asked is None else asked * 1000, draw]}
        for n, asked, draw in waits
    ]
    expected = [{"value": _ms(wait(n, asked, draw))} for n, asked, draw in waits]
    assert drive(js, {"table": rows}) == expected
    assert expected[0] == {"value": 500} and expected[-1] == {"value": None}
    # Where Python's retry_after fails (KeyError) or drops a readable Retry-After: an
    # unreadable retry-after-ms is passed over for Retry-After.
    unreadable = [
        {"fn": "retryAfter", "args": [{"retry-after-ms": "x", "retry-after": "3"}, 0]},
        {"fn": "retryAfter", "args": [{"retry-after-ms": "x"}, 0]},
    ]
    assert drive(js, {"table": unreadable}) == [{"value": 3000}, {"value": None}]


def test_content_neither_text_nor_parts_is_a_callback_error(js: Path) -> None:
    rows = [{"fn": "readOpenAI", "args": [{"choices": [{"message": {"content": 5}}]}]}]
    assert drive(js, {"table": rows}) == [{"error": "CallbackError"}]
    with pytest.raises(client.CallbackError):  # Python refuses it when the loop reads it
        client.read_reply(client.read_openai(rows[0]["args"][0]))


# -- retries --------------------------------------------------------------------------------------


def test_429_waits_as_retry_after_says_then_succeeds(js: Path) -> None:
    with Server(
        Answer({"error": "slow down"}, 429, {"Retry-After": "2"}),
        Answer({"error": "slow down"}, 429, {"retry-after-ms": "250"}),
        Answer(completion(GOOD)),
    ) as server:
        out = calls(js, server.url, TEXT_REQUEST)
    [result] = out["results"]
    assert result["reply"]["content"] == GOOD
    assert result["reply"]["tokens"] == {"input": 2, "output": 3}
    assert out["waits"] == [2000, 250]
    assert len(server.seen) == 3
    notes = result["reply"]["notes"]
    assert len(notes) == 2 and "HTTP 429" in notes[0] and "sent again after 2.00 s" in notes[0]


def test_503_then_success_waits_with_full_jitter_and_501_is_not_retried(js: Path) -> None:
    with Server(
        Answer({"error": "busy"}, 503),
        Answer({"error": "busy"}, 502),
        Answer(completion("ok")),
        Answer({"error": "no"}, 501),
        Answer({"error": "bad"}, 400),
    ) as server:
        out = calls(js, server.url, TEXT_REQUEST, TEXT_REQUEST, TEXT_REQUEST)
    first, second, third = out["results"]
    assert first["reply"]["content"] == "ok"
    assert out["waits"] == [500, 1000]  # draw 0.5 of 1 s, then of 2 s
    assert second["error"]["status"] == 501 and second["error"]["attempts"] == 1
    assert third["error"]["status"] == 400 and third["error"]["name"] == "LlmHttpError"
    assert len(server.seen) == 5


def test_a_reset_connection_is_sent_again(js: Path) -> None:
    with Server(Answer(reset=True), Answer(completion("ok"))) as server:
        out = calls(js, server.url, TEXT_REQUEST)
    [result] = out["results"]
    assert result["reply"]["content"] == "ok" and len(server.seen) == 2
    assert "attempt 1 failed" in result["reply"]["notes"][0]


def test_retries_end_after_attempts_and_beyond_the_cap(js: Path) -> None:
    with Server(
        *[Answer({"error": "busy"}, 503) for _ in range(2)],
        Answer({"error": "later"}, 429, {"Retry-After": "3600"}),
    ) as server:
        out = calls(js, server.url, TEXT_REQUEST, TEXT_REQUEST, options={"retry": {"attempts": 2}})
    gave_up, too_long = out["results"]
    assert gave_up["error"]["attempts"] == 2
    assert "gave up after 2 attempts" in gave_up["error"]["message"]
    assert "more than retry.capMs" in too_long["error"]["message"]
    assert too_long["error"]["status"] == 429 and len(server.seen) == 3


def test_a_slow_response_past_the_deadline_ends_the_call_in_time(js: Path) -> None:
    with Server(Answer(completion("late"), delay=3.0)) as server:
        started = time.monotonic()
        out = calls(js, server.url, TEXT_REQUEST, options={"deadlineMs": 600}, sleeps="real")
        took = time.monotonic() - started
    [result] = out["results"]
    assert result["error"]["name"] == "LlmHttpError"
    assert "timed out" in result["error"]["message"]
    assert "past the deadline of 600 ms" in result["error"]["message"]
    assert result["ms"] < 1500 and took < 3.0


# -- redirects, size, secrets ---------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_to_another_host_is_not_followed(js: Path, status: int) -> None:
    with Server() as other:
        target = f"http://localhost:{other.port}/v1/chat/completions"
        with Server(Answer({}, status, {"Location": target})) as server:
            out = calls(js, server.url, TEXT_REQUEST)
    [result] = out["results"]
    assert result["error"]["status"] == status and "not followed" in result["error"]["message"]
    assert other.seen == [] and len(server.seen) == 1


def test_a_307_to_the_same_server_is_followed_with_the_body(js: Path) -> None:
    with Server(
        Answer({}, 307, {"Location": "/v2/chat/completions"}), Answer(completion("moved"))
    ) as server:
        out = calls(js, server.url, TEXT_REQUEST)
    assert out["results"][0]["reply"]["content"] == "moved"
    (first, _, body1), (second, headers, body2) = server.seen
    assert (first, second) == ("/v1/chat/completions", "/v2/chat/completions")
    assert body1 == body2 and headers["Authorization"] == f"Bearer {KEY}"


def test_a_response_past_max_response_bytes_is_refused(js: Path) -> None:
    big = completion("x" * 5000)
    with Server(
        Answer(big, headers={"Content-Length": "-"}),
        Answer(big, headers={"Content-Length": "999999999"}),
    ) as server:
        out = calls(js, server.url, TEXT_REQUEST, TEXT_REQUEST, options={"maxResponseBytes": 4096})
    chunked, declared = out["results"]
    assert chunked["error"]["message"].endswith("larger than maxResponseBytes (4096)")
    assert "Content-Length 999999999" in declared["error"]["message"]
    assert len(server.seen) == 2  # not sent again


def test_the_key_shows_in_no_error_string_inspection_or_json(js: Path) -> None:
    echo = {"error": f"bad key Bearer {KEY}; X-Token {KEY[::-1]}"}
    with Server(Answer(echo, 503), Answer(echo, 401)) as server:
        out = calls(
            js,
            server.url + "?key=" + KEY,
            TEXT_REQUEST,
            options={"headers": {"X-Token": KEY[::-1]}, "retry": {"attempts": 2, "baseMs": 1}},
        )
    assert server.seen[0][1]["Authorization"] == f"Bearer {KEY}"  # it was sent
    assert server.seen[0][1]["X-Token"] == KEY[::-1]
    [result] = out["results"]
    assert "[redacted]" in result["error"]["message"] and result["error"]["status"] == 401
    shown = [json.dumps(result), out["string"], out["inspected"], out["json"]]
    assert "openAICompatible" in out["string"] and "127.0.0.1" in out["string"]
    for text in shown:
        assert KEY not in text and KEY[::-1] not in text, text


def test_an_error_body_cut_inside_an_echoed_key_keeps_none_of_it(js: Path) -> None:
    """As Python's: the start of a key the 4096-byte read of an error body cut is redacted."""
    for keep in (4, 12, len(KEY) - 1):
        echo = "x" * (4096 - len("Bearer ") - keep) + f"Bearer {KEY} and more"
        with Server(Answer(echo.encode(), 401)) as server:
            out = calls(js, server.url, TEXT_REQUEST, options={"retry": {"attempts": 1}})
        [result] = out["results"]
        assert result["error"]["body"].endswith("Bearer [redacted]"), keep
        assert KEY[:keep] not in json.dumps(out)


def test_only_http_and_https_urls_and_sane_options(js: Path) -> None:
    refused = [
        {"baseUrl": "file:///etc", "model": "m"},
        {"baseUrl": "data:text/plain,x", "model": "m"},
        {"baseUrl": "http://h", "model": "m", "retry": {"attempts": 0}},
        {"baseUrl": "http://h", "model": "m", "responseFormat": "xml"},
        {"baseUrl": "http://h", "model": "m", "deadlineMs": 0},
        {"baseUrl": "http://h", "model": "m", "maxResponseBytes": 0},
    ]
    fine = {"baseUrl": "https://h/v1", "model": "m", "deadlineMs": None}
    results = drive(js, {"construct": [*refused, fine]})
    assert [r["error"] and r["error"]["name"] for r in results] == ["RangeError"] * 6 + [None]


# -- structured-output negotiation ----------------------------------------------------------------


def test_a_server_rejecting_json_schema_gets_json_object_once_per_client(js: Path) -> None:
    rejected = {"error": {"message": "response_format json_schema is not supported"}}
    with Server(
        Answer(rejected, 500),
        Answer(completion('{"a": 1}')),
        Answer(completion('{"a": 2}')),
    ) as server:
        out = calls(js, server.url, JSON_REQUEST, JSON_REQUEST)
    first, second = out["results"]
    assert server.formats() == [SCHEMA_FORM, OBJECT_FORM, OBJECT_FORM]
    assert first["reply"]["notes"] == [
        "the server rejected response_format json_schema (HTTP 500): sent again as json_object",
        "response_format json_object from now on for this client",
    ]
    assert "notes" not in second["reply"] and out["form"] == "json_object"
    assert out["waits"] == []  # a rejected form is not retried


def test_then_to_the_prompt_alone_and_a_pinned_form(js: Path) -> None:
    with Server(
        Answer({"error": "no"}, 400), Answer({"error": "no"}, 422), Answer(completion("{}"))
    ) as server:
        out = calls(js, server.url, JSON_REQUEST)
    assert server.formats() == [SCHEMA_FORM, OBJECT_FORM, None]
    assert out["form"] == "prompt"
    with Server(Answer({"error": "no"}, 400)) as server:
        out = calls(js, server.url, JSON_REQUEST, options={"responseFormat": "json_object"})
    assert server.formats() == [OBJECT_FORM] and out["results"][0]["error"]["status"] == 400


def test_a_form_once_answered_is_not_given_up(js: Path) -> None:
    with Server(Answer(completion("{}")), Answer({"error": "no"}, 400)) as server:
        out = calls(js, server.url, JSON_REQUEST, JSON_REQUEST)
    assert out["results"][1]["error"]["status"] == 400
    assert server.formats() == [SCHEMA_FORM, SCHEMA_FORM]
    assert out["form"] == "json_schema"


# -- streaming ------------------------------------------------------------------------------------


def sse(*events: Any, done: bool = True, eol: str = "\n") -> bytes:
    lines = [f"data: {json.dumps(e, ensure_ascii=False)}{eol}{eol}" for e in events]
    text = f": keep-alive{eol}" + "".join(lines) + (f"data: [DONE]{eol}{eol}" if done else "")
    return text.encode()


def delta(**fields: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": fields}]}


STREAM = [
    delta(role="assistant", content=""),
    delta(reasoning_content="Thinking… ✓"),
    delta(content='{"sentiment": "pos'),
    delta(content='itive", "note": "ünï🙂"}'),
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 5}},
]
TOOL_STREAM = [
    delta(tool_calls=[{"index": 0, "id": "c", "function": {"name": "respond", "arguments": ""}}]),
    delta(tool_calls=[{"index": 0, "function": {"arguments": '{"a": '}}]),
    delta(tool_calls=[{"index": 0, "function": {"arguments": "1}"}}]),
    {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 2}},
]


def joined(chunks: list[Any]) -> dict[str, Any]:
    """The chunks of one turn joined as the streaming contract's driver joins them."""
    out: dict[str, list[str]] = {}
    tokens: dict[str, int] = {}
    notes: list[str] = []
    tool = None
    for given in chunks:
        chunk = {"content": given} if isinstance(given, str) else given
        for key in ("content", "arguments", "refusal", "reasoning"):
            if key in chunk:
                out.setdefault(key, []).append(chunk[key])
        tool = chunk.get("tool", tool)
        tokens.update(chunk.get("tokens", {}))
        notes += chunk.get("notes", [])
    text = {k: "".join(v) for k, v in out.items()}
    return {**text, "tool": tool, "tokens": tokens, "notes": notes}


def splits(data: bytes) -> Iterator[list[bytes]]:
    """The same bytes written in awkward pieces: one byte at a time, between CR and LF, inside
    a multi-byte character and inside `data:`, and all at once."""
    yield [data[i : i + 1] for i in range(len(data))]
    cuts = sorted(
        {i + 1 for i in range(len(data)) if data[i : i + 1] in (b"\r", b"\xc3", b"\xf0", b"a")}
    )
    bounds = [0, *cuts, len(data)]
    yield [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]
    yield [data]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_a_stream_read_at_awkward_boundaries_gives_the_same_chunks(js: Path, eol: str) -> None:
    data = sse(*STREAM, eol=eol)
    pieces = list(splits(data))
    answers = [Answer(pieces=p, headers={"Content-Type": "text/event-stream"}) for p in pieces]
    with Server(*answers) as server:
        out = calls(js, server.url, *[request()] * len(pieces), stream=True)
    body = server.seen[0][2]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    for result in out["results"]:
        assert "error" not in result, result
        assert joined(result["chunks"]) == {
            "content": '{"sentiment": "positive", "note": "ünï🙂"}',
            "reasoning": "Thinking… ✓",
            "tool": None,
            "tokens": {"input": 7, "output": 5},
            "notes": [],
        }
    assert out["results"][0]["chunks"] == out["results"][2]["chunks"]


def test_a_streamed_tool_call_refusal_and_content_filter(js: Path) -> None:
    refusal = [delta(refusal="I can"), delta(refusal="not."), delta(content=None)]
    filtered = [{"choices": [{"index": 0, "delta": {}, "finish_reason": "content_filter"}]}]
    with Server(
        Answer(pieces=[sse(*TOOL_STREAM)]),
        Answer(pieces=[sse(*refusal)]),
        Answer(pieces=[sse(*filtered, done=False)]),  # ends at the close, no [DONE]
    ) as server:
        out = calls(js, server.url, request(**FORCED), request(), request(), stream=True)
    tool, refused, stopped = (joined(r["chunks"]) for r in out["results"])
    assert tool["arguments"] == '{"a": 1}' and tool["tool"] == "respond"
    assert tool["tokens"] == {"input": 1, "output": 2}
    assert refused["refusal"] == "I cannot." and "content" not in refused
    assert stopped["refusal"].startswith("the content filter stopped the reply")
    assert server.seen[0][2]["tool_choice"] == {"type": "function", "function": {"name": "respond"}}


def test_a_stream_is_retried_before_its_first_chunk_only(js: Path) -> None:
    first = sse(delta(content="par"), done=False)
    with Server(
        Answer({"error": "busy"}, 503, {"retry-after-ms": "10"}),
        Answer(pieces=[sse(delta(content="ok"))]),
        Answer(pieces=[first], headers={"Content-Length": "100000"}),
    ) as server:
        out = calls(js, server.url, request(), request(), stream=True)
    retried, cut = out["results"]
    assert retried["chunks"][0]["notes"][0].startswith("attempt 1 failed")
    assert joined(retried["chunks"])["content"] == "ok" and out["waits"] == [10]
    # Cut after its first chunk: that chunk went out, the error ends the stream, no retry.
    assert joined(cut["chunks"])["content"] == "par"
    assert cut["error"]["name"] == "LlmHttpError" and len(server.seen) == 3


def test_a_stream_follows_the_first_tool_call_and_reads_content_parts_as_python(js: Path) -> None:
    """Parallel tool calls and content as a list of parts: TypeScript joined every delta's
    first listed call (the second call's arguments into the first's) and dropped parts."""
    parallel = [
        delta(tool_calls=[{"index": 0, "function": {"name": "respond", "arguments": ""}}]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": '{"a": '}}]),
        delta(tool_calls=[{"index": 1, "function": {"name": "other", "arguments": "{}"}}]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": "1}"}}]),
    ]
    parts = [delta(content=[{"type": "text", "text": '{"b"'}, {"type": "text", "text": ": 2}"}])]
    data = [sse(*parallel), sse(*parts)]
    with Server(*(Answer(pieces=[d]) for d in data)) as server:
        out = calls(js, server.url, request(**FORCED), request(), stream=True)
    with Server(*(Answer(pieces=[d]) for d in data)) as server:
        llm = transport.OpenAICompatible(server.url, "m")
        python = [list(llm.stream(request(**FORCED))), list(llm.stream(request()))]
    tool, texts = (joined(r["chunks"]) for r in out["results"])
    assert tool["tool"] == "respond" and tool["arguments"] == '{"a": 1}'
    assert texts["content"] == '{"b": 2}'
    assert [tool, texts] == [joined(chunks) for chunks in python]


def test_a_stream_that_ends_without_done_or_a_finish_reason_is_an_error(js: Path) -> None:
    """As Python's: a stream closed with neither `[DONE]` nor a `finish_reason` may be cut
    short, and ends in `LlmHttpError` after its chunks (it ended quietly, and the cut reply
    went to the parser as if whole)."""
    finished = {"choices": [{"index": 0, "delta": {"content": "}"}, "finish_reason": "stop"}]}
    with Server(
        Answer(pieces=[sse(delta(content='{"a": 1'), done=False)]),
        Answer(pieces=[sse(delta(content='{"a": 1'), finished, done=False)]),
    ) as server:
        out = calls(js, server.url, request(), request(), stream=True)
    cut, whole = out["results"]
    assert joined(cut["chunks"])["content"] == '{"a": 1'
    assert cut["error"]["name"] == "LlmHttpError"
    assert "ended before its end (no [DONE], no finish_reason)" in cut["error"]["message"]
    assert "error" not in whole and joined(whole["chunks"])["content"] == '{"a": 1}'
    assert len(server.seen) == 2  # not sent again


def test_a_stream_negotiates_its_form_and_reports_errors_in_events(js: Path) -> None:
    with Server(
        Answer({"error": "no json_schema"}, 400),
        Answer(pieces=[sse(delta(content="{}"))]),
        Answer(pieces=[sse({"error": {"message": f"overloaded {KEY}"}})]),
        Answer(pieces=[b"data: {not json\n\n"]),
    ) as server:
        out = calls(js, server.url, JSON_REQUEST, JSON_REQUEST, TEXT_REQUEST, stream=True)
    negotiated, failed, broken = out["results"]
    assert negotiated["chunks"][0] == {
        "notes": [
            "the server rejected response_format json_schema (HTTP 400): sent again as json_object",
            "response_format json_object from now on for this client",
        ]
    }
    assert server.formats()[:3] == [SCHEMA_FORM, OBJECT_FORM, OBJECT_FORM]
    assert "overloaded [redacted]" in failed["error"]["message"] and KEY not in json.dumps(out)
    assert "not JSON" in broken["error"]["message"]


# -- a generated client function, end to end ------------------------------------------------------


def test_a_generated_function_runs_with_open_ai_compatible(js: Path, examples_output: Path) -> None:
    reply = f"Sure! ```json\n{GOOD}\n```"
    with Server(
        Answer({"error": "busy"}, 503),
        Answer(completion(reply)),
        Answer({"error": "bad"}, 401),
    ) as server:
        run = subprocess.run(
            ["node", str(js / "main.js"), server.url],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out == {
        "sentiment": "positive",
        "score": 0.9,
        "turns": 1,
        "usage": {"input": 2, "output": 3},
        "error": [401, 1],
    }
    body = server.seen[1][2]
    assert body["model"] == "m" and body["messages"][-1]["role"] == "user"
    # The generated request carries the compiled fragments: the schema form goes out as is.
    compiled = json.loads((examples_output / "providers" / "classify.json").read_text("utf-8"))
    openai = compiled["providers"]["openai"]["request"]
    assert body["response_format"] == openai["response_format"]
