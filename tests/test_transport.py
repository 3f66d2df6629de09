"""`OpenAICompatible` against a scripted Chat Completions server on 127.0.0.1: transport
retries (429 with Retry-After, 5xx, a reset, a refused connection, a deadline), redirects,
response size, the API key kept out of errors, reprs and logs, structured-output
negotiation, and replies handed to the parser first."""

from __future__ import annotations

import importlib
import json
import logging
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sigspec.runtime import client, transport
from sigspec.runtime.transport import LlmHttpError, OpenAICompatible, Retry

KEY = "sk-test-0123456789abcdef"
GOOD = '{"sentiment": "positive", "score": 0.9}'


@dataclass
class Answer:
    """One scripted response: a status and body, extra headers, a delay before it, or a
    connection reset instead of any response. A streamed answer is `pieces` of bytes sent
    as HTTP/1.1 chunks (`pause` seconds apart; `reset_after`: a reset after that many)."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict[str, str])
    delay: float = 0.0
    reset: bool = False
    pieces: list[bytes] | None = None
    pause: float = 0.0
    reset_after: int | None = None


def completion(content: str) -> dict[str, Any]:
    return {
        "choices": [{"message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 2, "completion_tokens": 3},
    }


def reset(handler: BaseHTTPRequestHandler) -> None:
    """An RST, not a clean close."""
    linger = struct.pack("ii", 1, 0)
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
    handler.close_connection = True


def stream(handler: BaseHTTPRequestHandler, answer: Answer) -> None:
    """`answer.pieces` as HTTP/1.1 chunks, as they would come from a streaming server."""
    handler.protocol_version = "HTTP/1.1"
    handler.send_response(answer.status)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for sent, piece in enumerate(answer.pieces or []):
        if sent == answer.reset_after:
            handler.wfile.flush()
            reset(handler)
            return
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
        handler.wfile.flush()
        time.sleep(answer.pause)
    handler.wfile.write(b"0\r\n\r\n")
    handler.close_connection = True


class Server:
    """A Chat Completions endpoint answering from a script, recording each request."""

    def __init__(self, *answers: Answer, host: str = "127.0.0.1") -> None:
        self.answers = list(answers)
        self.seen: list[tuple[str, dict[str, str], Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(size)
                outer.seen.append((self.path, dict(self.headers), json.loads(raw or "null")))
                self.answer(outer.answers.pop(0))

            def do_GET(self) -> None:  # a redirected POST that turned into a GET
                outer.seen.append((self.path, dict(self.headers), None))
                self.answer(Answer({"error": "GET"}, 405))

            def answer(self, answer: Answer) -> None:
                time.sleep(answer.delay)
                if answer.reset:
                    reset(self)
                    return
                if answer.pieces is not None:
                    stream(self, answer)
                    return
                body = answer.body
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                if "Content-Length" not in answer.headers:
                    self.send_header("Content-Length", str(len(data)))
                for name, value in answer.headers.items():
                    if value != "-":  # "-": no such header (HTTP/1.0 ends the body by closing)
                        self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda *args: None  # type: ignore[method-assign]
        self.port = self.server.server_address[1]
        self.url = f"http://{host}:{self.port}/v1"
        # A short poll: shutting the server down waits for one.
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
        """The `response_format` of each request received (None: none sent)."""
        return [(body or {}).get("response_format") for _, _, body in self.seen]


class Waits:
    """An injected sleep: records the waits instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def callback(url: str, waits: Waits | None = None, **options: Any) -> OpenAICompatible:
    options.setdefault("retry", Retry(attempts=4, base=1.0, cap=30.0, deadline=60.0))
    return OpenAICompatible(
        url, "m", api_key=KEY, timeout=5, sleep=waits or Waits(), random=lambda: 0.5, **options
    )


SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
JSON_REQUEST: dict[str, Any] = {
    "system": "",
    "messages": [{"role": "user", "content": "hi"}],
    "output": "json",
    "fragments": {
        "openai": {
            "request": {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "t", "strict": True, "schema": SCHEMA},
                }
            }
        }
    },
}
TEXT_REQUEST: dict[str, Any] = {
    "system": "",
    "messages": [{"role": "user", "content": "hi"}],
    "output": "text",
}


# -- retries ------------------------------------------------------------------------------------


def test_429_waits_as_retry_after_says_in_seconds_or_as_a_date() -> None:
    date = formatdate(time.time() + 3, usegmt=True)
    waits = Waits()
    with Server(
        Answer({"error": "slow down"}, 429, {"Retry-After": "7"}),
        Answer({"error": "slow down"}, 429, {"Retry-After": date}),
        Answer(completion('{"a": 1}')),
    ) as server:
        answer = callback(server.url, waits)(TEXT_REQUEST)
    assert answer["content"] == '{"a": 1}' and len(server.seen) == 3
    assert waits.waits[0] == 7
    assert 1 <= waits.waits[1] <= 3  # the date, against the clock (whole seconds)
    assert len(answer["notes"]) == 2 and "HTTP 429" in answer["notes"][0]


def test_503_then_success_waits_with_full_jitter() -> None:
    waits = Waits()
    with Server(
        Answer({"error": "busy"}, 503),
        Answer({"error": "busy"}, 502),
        Answer(completion("ok")),
    ) as server:
        answer = callback(server.url, waits)(TEXT_REQUEST)
    assert answer["content"] == "ok"
    assert waits.waits == [0.5, 1.0]  # draw 0.5 of base 1 s, then of 2 s


@pytest.mark.parametrize("status", [400, 401, 404, 501])
def test_a_request_the_server_refuses_is_not_sent_again(status: int) -> None:
    waits = Waits()
    with (
        Server(Answer({"error": "no"}, status)) as server,
        pytest.raises(LlmHttpError, match=f"HTTP {status}") as caught,
    ):
        callback(server.url, waits)(TEXT_REQUEST)
    assert len(server.seen) == 1 and not waits.waits and caught.value.status == status


def test_a_reset_connection_is_sent_again() -> None:
    with Server(Answer(reset=True), Answer(completion("ok"))) as server:
        answer = callback(server.url)(TEXT_REQUEST)
    assert answer["content"] == "ok" and len(server.seen) == 2
    assert "attempt 1 failed" in answer["notes"][0]


def test_a_refused_connection_is_tried_as_often_as_retry_says() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]  # closed again: nothing listens there
    waits = Waits()
    with pytest.raises(LlmHttpError, match=r"refused.*gave up after 3 attempts"):
        callback(f"http://127.0.0.1:{port}/v1", waits, retry=Retry(attempts=3))(TEXT_REQUEST)
    assert len(waits.waits) == 2


def test_attempts_1_turns_retries_off() -> None:
    with (
        Server(Answer({"error": "busy"}, 503)) as server,
        pytest.raises(LlmHttpError) as caught,
    ):
        callback(server.url, retry=Retry(attempts=1))(TEXT_REQUEST)
    assert str(caught.value).endswith('HTTP 503: {"error": "busy"}')


def test_a_retry_after_beyond_the_cap_fails_at_once() -> None:
    waits = Waits()
    with (
        Server(Answer({"error": "quota"}, 429, {"Retry-After": "3600"})) as server,
        pytest.raises(LlmHttpError, match=r"asks to wait 3600 s, more than Retry\.cap"),
    ):
        callback(server.url, waits)(TEXT_REQUEST)
    assert not waits.waits and len(server.seen) == 1


def test_a_slow_response_past_the_deadline_ends_the_call_in_time() -> None:
    """Real time: the server answers after 3 s, the deadline is 0.4 s."""
    with Server(Answer(completion("late"), delay=3), Answer(completion("late"))) as server:
        llm = callback(server.url, retry=Retry(attempts=5, base=0.1, deadline=0.4))
        began = time.monotonic()
        with pytest.raises(LlmHttpError, match=r"timed out.*past the retry deadline of 0\.4 s"):
            llm(TEXT_REQUEST)
        took = time.monotonic() - began
    assert took < 1.5, took


def test_a_body_trickling_past_the_deadline_ends_the_call_in_time() -> None:
    """Real time: the headers come at once, then the body a byte every 0.2 s, each read within
    the 5 s timeout; the deadline of 0.6 s ends the call (it took the whole 3 s and more)."""
    body = json.dumps(completion("late")).encode()
    pieces = [body[i : i + 1] for i in range(15)] + [body[15:]]
    with Server(Answer(pieces=pieces, pause=0.2)) as server:
        llm = callback(server.url, retry=Retry(attempts=1, deadline=0.6))
        began = time.monotonic()
        with pytest.raises(LlmHttpError, match=r"past the retry deadline of 0\.6 s"):
            llm(TEXT_REQUEST)
        took = time.monotonic() - began
    assert took < 1.5, took


def test_the_default_sleep_and_jitter_really_wait() -> None:
    """Real time, no injection: a short backoff happens and the second attempt answers."""
    with Server(Answer({"error": "busy"}, 503), Answer(completion("ok"))) as server:
        llm = OpenAICompatible(server.url, "m", retry=Retry(base=0.2, cap=0.2))
        began = time.monotonic()
        assert llm(TEXT_REQUEST)["content"] == "ok"
        took = time.monotonic() - began
    assert took < 2, took


def test_the_retry_policy_in_numbers() -> None:
    retry = Retry(attempts=9, base=0.5, cap=4.0)
    assert [retry.wait(n, None, 1.0) for n in range(1, 6)] == [0.5, 1.0, 2.0, 4.0, 4.0]
    assert retry.wait(3, None, 0.0) == 0.0 and retry.wait(1, 2.5, 0.9) == 2.5
    assert retry.wait(1, 4.5, 0.9) is None
    now = 1_700_000_000.0
    assert transport.retry_after({"retry-after": "12"}, now) == 12
    assert transport.retry_after({"Retry-After": formatdate(now + 30, usegmt=True)}, now) == 30
    assert transport.retry_after({"Retry-After": formatdate(now - 30, usegmt=True)}, now) == 0
    assert transport.retry_after({"retry-after-ms": "250", "Retry-After": "9"}, now) == 0.25
    assert transport.retry_after({"Retry-After": "soon"}, now) is None
    # An unreadable header is skipped, not an error: the other one still counts.
    assert transport.retry_after({"retry-after-ms": "soon"}, now) is None
    assert transport.retry_after({"retry-after-ms": "x", "Retry-After": "9"}, now) == 9
    assert transport.retry_after({"Retry-After": "nan"}, now) is None
    assert transport.retry_after({"Retry-After": "-5"}, now) is None
    assert transport.retry_after({}, now) is None
    for wrong in ({"attempts": 0}, {"base": -1}, {"deadline": 0}):
        with pytest.raises(ValueError, match="Retry"):
            Retry(**wrong)


# -- redirects, size, secrets --------------------------------------------------------------------


@pytest.mark.parametrize("status", [302, 307, 308])
def test_a_redirect_to_another_host_is_not_followed(status: int) -> None:
    with Server(Answer(completion("elsewhere")), host="localhost") as other:
        target = other.url + "/chat/completions?key=" + KEY
        with (
            Server(Answer({}, status, {"Location": target})) as server,
            pytest.raises(LlmHttpError, match=f"HTTP {status} redirect to") as caught,
        ):
            callback(server.url)(TEXT_REQUEST)
    assert not other.seen  # nothing, and no key, went to the other host
    assert KEY not in str(caught.value)
    assert f"http://localhost:{other.port}/v1/chat/completions" in str(caught.value)


def test_a_307_to_the_same_server_is_followed_with_the_body() -> None:
    with Server(Answer(completion("moved"))) as server:
        server.answers.insert(0, Answer({}, 307, {"Location": "/v2/chat/completions"}))
        answer = callback(server.url)(TEXT_REQUEST)
    assert answer["content"] == "moved"
    (first, _, sent), (second, headers, again) = server.seen
    assert (first, second) == ("/v1/chat/completions", "/v2/chat/completions")
    assert again == sent and headers["Authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize("url", ["file:///etc", "ftp://127.0.0.1/v1", "data:,x"])
def test_only_http_and_https_are_opened(url: str) -> None:
    with pytest.raises(LlmHttpError, match="unknown url type"):
        callback(url)(TEXT_REQUEST)


def test_a_response_past_max_response_bytes_is_refused() -> None:
    big = completion("x" * 5000)
    with Server(
        Answer(big, headers={"Content-Length": "-"}),
        Answer(big, headers={"Content-Length": "999999999"}),
    ) as server:
        llm = callback(server.url, max_response_bytes=4096)
        with pytest.raises(LlmHttpError, match=r"larger than max_response_bytes \(4096\)$"):
            llm(TEXT_REQUEST)
        with pytest.raises(LlmHttpError, match="Content-Length 999999999"):
            llm(TEXT_REQUEST)
    assert len(server.seen) == 2  # not sent again


def test_the_key_shows_in_no_repr_error_traceback_or_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    echo = {"error": f"bad key Bearer {KEY}; response_format json_schema unknown"}
    caplog.set_level(logging.DEBUG)
    with Server(
        Answer(echo, 503),
        Answer(echo, 500),  # names response_format: the next form
        Answer(completion('{"a": 1}')),
        Answer(echo, 401),
    ) as server:
        llm = callback(server.url + "?key=" + KEY, headers={"X-Token": KEY[::-1]})
        answer = llm(JSON_REQUEST)
        with pytest.raises(LlmHttpError) as caught:
            llm(JSON_REQUEST)
    assert server.seen[0][1]["Authorization"] == f"Bearer {KEY}"  # it was sent
    shown = [
        repr(llm),
        str(llm),
        str(caught.value),
        repr(caught.value),
        "".join(traceback.format_exception(caught.value)),
        *answer["notes"],
        *(record.getMessage() for record in caplog.records),
    ]
    assert caplog.records and "[redacted]" in str(caught.value)
    for text in shown:
        assert KEY not in text and KEY[::-1] not in text, text


def test_an_error_body_cut_inside_an_echoed_key_keeps_none_of_it() -> None:
    """The error body is read up to 4096 bytes: a key echoed across that limit left its start
    in `.body` (the whole key was no longer there to replace)."""
    for keep in (4, 12, len(KEY) - 1):
        echo = "x" * (4096 - len("Bearer ") - keep) + f"Bearer {KEY} and more"
        with Server(Answer(echo, 401)) as server, pytest.raises(LlmHttpError) as caught:
            callback(server.url)(TEXT_REQUEST)
        assert caught.value.body.endswith("Bearer [redacted]"), keep
        assert KEY[:keep] not in caught.value.body + str(caught.value)


# -- structured-output negotiation ---------------------------------------------------------------


SCHEMA_FORM = {
    "type": "json_schema",
    "json_schema": {"name": "t", "strict": True, "schema": SCHEMA},
}
OBJECT_FORM = {"type": "json_object", "schema": SCHEMA}
LLAMA_CPP_PYTHON_500 = {
    "error": {
        "message": "1 validation error: body.response_format.type: Input should be 'text'"
        " or 'json_object'",
        "type": "internal_server_error",
    }
}


def test_a_server_rejecting_json_schema_gets_json_object_once_per_client(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """llama-cpp-python's case: HTTP 500 naming the field, not retried, the fallback kept."""
    caplog.set_level(logging.INFO, logger="sigspec.client")
    waits = Waits()
    with Server(
        Answer(LLAMA_CPP_PYTHON_500, 500),
        Answer(completion('{"a": 1}')),
        Answer(completion('{"a": 2}')),
    ) as server:
        llm = callback(server.url, waits)
        first, second = llm(JSON_REQUEST), llm(JSON_REQUEST)
    assert server.formats() == [SCHEMA_FORM, OBJECT_FORM, OBJECT_FORM]
    assert not waits.waits and llm.form == "json_object"
    assert first["notes"] == [
        "the server rejected response_format json_schema (HTTP 500): sent again as json_object",
        "response_format json_object from now on for this client",
    ]
    assert "notes" not in second
    [record] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert record.name == "sigspec.client" and "using json_object from now on" in (
        record.getMessage()
    )


def test_extra_body_goes_in_every_request_and_every_form() -> None:
    """Sampling options (or a server's own) ride on each body, the fallback's too."""
    with Server(
        Answer(LLAMA_CPP_PYTHON_500, 500),
        Answer(completion('{"a": 1}')),
    ) as server:
        sampling = {"temperature": 0, "seed": 7, "max_tokens": 64}
        callback(server.url, extra_body=sampling)(JSON_REQUEST)
    assert server.formats() == [SCHEMA_FORM, OBJECT_FORM]
    for _, _, body in server.seen:
        assert {k: body[k] for k in sampling} == sampling and body["model"] == "m"
    with pytest.raises(ValueError, match="must not set response_format, stream"):
        OpenAICompatible(
            "http://127.0.0.1:9", "m", extra_body={"stream": True, "response_format": {}}
        )


def test_then_to_the_prompt_alone() -> None:
    with Server(
        Answer({"error": "unknown field"}, 400),
        Answer({"detail": "json_object is not supported"}, 422),
        Answer(completion('{"a": 1}')),
        Answer(completion('{"a": 2}')),
    ) as server:
        llm = callback(server.url)
        first = llm(JSON_REQUEST)
        llm(JSON_REQUEST)
    assert server.formats() == [SCHEMA_FORM, OBJECT_FORM, None, None]
    assert llm.form == "prompt"
    assert first["notes"][1].endswith("(HTTP 422): sent again with the prompt alone")


def test_a_form_once_answered_is_not_given_up() -> None:
    """After json_schema was answered, a 400 is the request's own error, raised; a 500 not
    naming the field is retried as any 5xx."""
    waits = Waits()
    with Server(
        Answer(completion('{"a": 1}')),
        Answer({"error": "context too long"}, 400),
        Answer({"error": "boom"}, 500),
        Answer(completion('{"a": 3}')),
    ) as server:
        llm = callback(server.url, waits)
        llm(JSON_REQUEST)
        with pytest.raises(LlmHttpError, match="HTTP 400"):
            llm(JSON_REQUEST)
        assert llm(JSON_REQUEST)["content"] == '{"a": 3}'
    assert server.formats() == [SCHEMA_FORM] * 4 and waits.waits == [0.5]
    assert llm.form == "json_schema"


def test_a_failure_of_every_form_settles_nothing() -> None:
    """A 400 that is not about the form (every form gets it): the last error is raised, and
    the next call starts from json_schema again."""
    too_long = {"error": "the prompt is too long"}
    with Server(*[Answer(too_long, 400)] * 3, Answer(completion('{"a": 1}'))) as server:
        llm = callback(server.url)
        with pytest.raises(LlmHttpError, match="too long"):
            llm(JSON_REQUEST)
        llm(JSON_REQUEST)
    assert server.formats() == [SCHEMA_FORM, OBJECT_FORM, None, SCHEMA_FORM]


def test_a_500_not_naming_the_form_is_retried_not_a_rejection() -> None:
    waits = Waits()
    with Server(Answer({"error": "overloaded"}, 500), Answer(completion("{}"))) as server:
        llm = callback(server.url, waits)
        llm(JSON_REQUEST)
    assert server.formats() == [SCHEMA_FORM, SCHEMA_FORM] and llm.form == "json_schema"


@pytest.mark.parametrize(
    ("pinned", "sent"),
    [("json_schema", SCHEMA_FORM), ("json_object", OBJECT_FORM), ("prompt", None)],
)
def test_a_pinned_form_is_all_that_is_sent(pinned: str, sent: Any) -> None:
    with Server(Answer({"error": "response_format unknown"}, 400)) as server:
        llm = callback(server.url, response_format=pinned)
        with pytest.raises(LlmHttpError, match="HTTP 400"):
            llm(JSON_REQUEST)
    assert server.formats() == [sent] and llm.form == pinned


def test_text_and_tool_requests_send_no_response_format() -> None:
    tool = {
        **JSON_REQUEST,
        "tools": [{"name": "respond", "description": "d", "parameters": SCHEMA}],
    }
    tool["tool_choice"] = {"tool": "respond"}
    with Server(Answer({"error": "bad"}, 400), Answer({"error": "bad"}, 400)) as server:
        llm = callback(server.url)
        for request in (TEXT_REQUEST, tool):
            with pytest.raises(LlmHttpError):
                llm(request)
    assert server.formats() == [None, None] and llm.form is None


def test_the_forms_in_numbers() -> None:
    payload = client.openai_payload(JSON_REQUEST, "m")
    assert transport.payload_forms(payload, "auto") == transport.RESPONSE_FORMS
    assert transport.payload_forms(payload, "prompt") == ("prompt",)
    plain = {**payload, "response_format": {"type": "json_object"}}
    assert transport.payload_forms(plain, "auto") == ("json_object", "prompt")
    assert transport.in_form(plain, "json_object")["response_format"] == {"type": "json_object"}
    with pytest.raises(ValueError, match="compiled openai fragment"):
        transport.in_form(plain, "json_schema")
    assert transport.payload_forms(client.openai_payload(TEXT_REQUEST, "m"), "auto") == ()
    assert transport.rejects_form("json_schema", 400, "", answered=False)
    assert not transport.rejects_form("json_schema", 400, "", answered=True)
    assert not transport.rejects_form("json_schema", 500, "overloaded", answered=False)
    assert transport.rejects_form("json_object", 500, "bad RESPONSE_FORMAT", answered=False)
    assert not transport.rejects_form("prompt", 400, "response_format", answered=False)
    assert not transport.rejects_form("json_schema", 401, "response_format", answered=False)
    with pytest.raises(ValueError, match="response_format must be"):
        OpenAICompatible("http://x", "m", response_format="json")


# -- the parser first ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sentiment(examples_output: Path) -> Iterator[ModuleType]:
    sys.dont_write_bytecode, before = True, sys.dont_write_bytecode
    folder = str(examples_output / "python")
    sys.path.insert(0, folder)
    try:
        yield importlib.import_module("signatures.client.sentiment")
    finally:
        sys.path.remove(folder)
        sys.dont_write_bytecode = before
        for name in [m for m in sys.modules if m == "signatures" or m.startswith("signatures.")]:
            del sys.modules[name]


def test_prose_around_fenced_json_with_a_trailing_comma_is_one_request(
    sentiment: ModuleType,
) -> None:
    """The issue's reply: the parser reads it, so the call takes 1 request, not 3."""
    reply = 'Sure! Here it is:\n```json\n{"sentiment": "positive", "score": 0.9,}\n```\nBye.'
    with Server(Answer(completion(reply))) as server:
        step = sentiment.classify(text="Nice", llm=callback(server.url))
    assert len(server.seen) == 1 and len(step.turns) == 1
    assert step.return_.sentiment == "positive" and step.turns[0].repairs
    assert step.turns[0].reply.content == reply


def test_a_reply_no_parser_reads_is_a_validation_turn(sentiment: ModuleType) -> None:
    """No hidden repair request: the signature's retry prompt is the next turn, and both
    turns are in `step.turns`."""
    with Server(
        Answer(completion("The sentiment is positive.")), Answer(completion(GOOD))
    ) as server:
        step = sentiment.classify(text="Nice", llm=callback(server.url))
    assert len(step.turns) == 2 and step.turns[0].errors
    assert step.usage == {"input": 4, "output": 6}
    headers, first = server.seen[0][1:]
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert first["model"] == "m" and first["stream"] is False
    assert first["response_format"]["json_schema"]["strict"] is True
    last = server.seen[1][2]["messages"]
    assert last[-2] == {"role": "assistant", "content": "The sentiment is positive."}
    assert "was not valid JSON" in last[-1]["content"]
    assert "Return ONLY valid compact JSON" not in json.dumps(server.seen)


def test_fallback_notes_are_on_the_turn(sentiment: ModuleType) -> None:
    with Server(Answer(LLAMA_CPP_PYTHON_500, 500), Answer(completion(GOOD))) as server:
        step = sentiment.classify(text="Nice", llm=callback(server.url))
    [turn] = step.turns
    assert turn.reply.notes[0].startswith("the server rejected response_format json_schema")
    assert server.formats()[1]["type"] == "json_object"


def test_the_repair_flag_is_gone() -> None:
    with pytest.raises(TypeError, match="repair"):
        OpenAICompatible("http://x", "m", repair=False)  # type: ignore[call-arg]
    assert not hasattr(client, "REPAIR_PROMPT")
