"""`OpenAICompatible.stream` and `AsyncOpenAICompatible.stream` against a scripted server on
127.0.0.1 sending server-sent events: chunks as they arrive however the bytes are split, usage,
tool arguments, refusals and reasoning, retries before the first chunk only, the deadline and
the size bound over the whole stream, and a stream's chunks joined as the streaming contract
says giving what the plain callback's reader gives for the same completion."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from sigspec.runtime.client import read_openai
from sigspec.runtime.transport import AsyncOpenAICompatible, LlmHttpError, Retry, _Events
from test_transport import (
    JSON_REQUEST,
    KEY,
    LLAMA_CPP_PYTHON_500,
    OBJECT_FORM,
    SCHEMA_FORM,
    TEXT_REQUEST,
    Answer,
    Server,
    Waits,
    callback,
)

Json = dict[str, Any]


def delta(choice: Json | None = None, usage: Json | None = None, **fields: Any) -> Json:
    """One `chat.completion.chunk` with `fields` as its delta (or `choice` as it is)."""
    choices = [choice or {"index": 0, "delta": fields}] if choice or fields else []
    event: Json = {"object": "chat.completion.chunk", "choices": choices}
    if usage is not None:
        event["usage"] = usage
    return event


def sse(*events: Json | str, done: bool = True, newline: bytes = b"\n") -> bytes:
    """The events as a server sends them (a str: a raw line, such as a comment)."""
    lines: list[bytes] = []
    for event in events:
        if isinstance(event, str):
            lines.append(event.encode() + newline)
        else:
            data = json.dumps(event, ensure_ascii=False).encode()
            lines.append(b"data: " + data + newline + newline)
    if done:
        lines.append(b"data: [DONE]" + newline + newline)
    return b"".join(lines)


def cut(raw: bytes, *at: bytes | int) -> list[bytes]:
    """`raw` in pieces, cut at byte offsets or just inside the first occurrence of a marker."""
    points = sorted(
        point if isinstance(point, int) else raw.index(point) + len(point) // 2 for point in at
    )
    bounds = [0, *points, len(raw)]
    return [raw[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def joined(chunks: list[Any]) -> Json:
    """The chunks of one turn joined as the streaming contract says."""
    texts: dict[str, list[str]] = {"content": [], "arguments": [], "refusal": [], "reasoning": []}
    tool, tokens, notes = None, {}, []
    for chunk in chunks:
        if isinstance(chunk, str):
            texts["content"].append(chunk)
            continue
        for key, parts in texts.items():
            if key in chunk:
                parts.append(chunk[key])
        tool = chunk.get("tool", tool)
        tokens.update(chunk.get("tokens", {}))
        notes += chunk.get("notes", [])
    answer: Json = {
        key: "".join(texts[key]) if texts[key] else None
        for key in ("content", "refusal", "reasoning")
    }
    arguments = texts["arguments"]
    calls = [{"id": None, "name": tool or "respond", "arguments": "".join(arguments)}]
    answer["tool_calls"] = calls if arguments else []
    answer["tokens"] = tokens
    if notes:
        answer["notes"] = notes
    return answer


def decoded(answer: Json) -> Json:
    """`answer` with its tool calls' arguments decoded, as `read_openai` gives them."""
    calls = [{**c, "arguments": json.loads(c["arguments"])} for c in answer["tool_calls"]]
    return {**answer, "tool_calls": calls}


Drain = Callable[..., list[Any]]  # drain(url, request, into=None, **options) -> the chunks


def acallback(url: str, waits: Waits | None = None, **options: Any) -> AsyncOpenAICompatible:
    """`callback`'s async twin: its awaited waits go to `waits`."""
    options.setdefault("retry", Retry(attempts=4, base=1.0, cap=30.0, deadline=60.0))
    recorder = waits or Waits()

    async def sleep(seconds: float) -> None:
        recorder(seconds)

    return AsyncOpenAICompatible(
        url, "m", api_key=KEY, timeout=5, sleep=sleep, random=lambda: 0.5, **options
    )


def _sync(url: str, request: Json, into: list[Any] | None = None, **options: Any) -> list[Any]:
    chunks = [] if into is None else into
    for chunk in callback(url, options.pop("waits", None), **options).stream(request):
        chunks.append(chunk)
    return chunks


def _async(url: str, request: Json, into: list[Any] | None = None, **options: Any) -> list[Any]:
    chunks = [] if into is None else into
    llm = acallback(url, options.pop("waits", None), **options)

    async def run() -> None:
        async for chunk in llm.stream(request):
            chunks.append(chunk)

    asyncio.run(run())
    return chunks


@pytest.fixture(params=["sync", "async"])
def drain(request: pytest.FixtureRequest) -> Drain:
    """Reads a whole stream the sync or the async way (`waits=`: a `Waits` recording)."""
    return {"sync": _sync, "async": _async}[request.param]


# -- the events, however the bytes are split ------------------------------------------------


@pytest.mark.parametrize("newline", [b"\r\n", b"\r", b"\n"])
def test_events_split_at_every_byte_give_the_same_chunks(newline: bytes) -> None:
    """CRLF, CR or LF (the three line ends of server-sent events, as the TypeScript reader
    takes them; a CR alone was not read), comments, `event:` lines, `data:` without its
    space, a multi-byte character: fed whole, a byte at a time, and cut in two at every
    offset."""
    raw = sse(
        ": keep-alive",
        "event: message",
        delta(role="assistant", content=""),
        delta(content="héllo ☃"),
        delta(content=" wörld"),
        "",
        delta({"index": 0, "delta": {}, "finish_reason": "stop"}),
        delta(usage={"prompt_tokens": 3, "completion_tokens": 4}),
        newline=newline,
    ).replace(b'data: {"object"', b'data:{"object"', 1)
    expected = [
        {"content": "héllo ☃"},
        {"content": " wörld"},
        {"tokens": {"input": 3, "output": 4}},
    ]

    def fed(pieces: list[bytes]) -> list[Json]:
        events = _Events(10**6, "u", str)
        chunks = [c for piece in pieces for c in events.feed(piece)]
        assert events.done
        return chunks + events.end()

    assert fed([raw]) == expected
    assert fed([raw[i : i + 1] for i in range(len(raw))]) == expected
    for at in range(1, len(raw)):
        assert fed([raw[:at], raw[at:]]) == expected, at


def test_a_stream_split_inside_a_character_and_inside_data_joins_to_the_plain_reply(
    drain: Drain,
) -> None:
    raw = sse(
        delta(role="assistant", content=""),
        delta(content='{"word": "crème'),
        delta(content=' brûlée"}'),
        delta({"index": 0, "delta": {}, "finish_reason": "stop"}),
        delta(usage={"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12}),
    )
    pieces = cut(raw, "è".encode(), "û".encode(), b"data: {", b'data: {"object', b"[DONE]")
    plain = {
        "choices": [
            {
                "message": {"role": "assistant", "content": '{"word": "crème brûlée"}'},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12},
    }
    with Server(Answer(pieces=pieces, pause=0.02)) as server:
        chunks = drain(server.url, JSON_REQUEST)
    assert joined(chunks) == read_openai(plain)
    assert chunks[-1] == {"tokens": {"input": 7, "output": 5}}
    _, headers, sent = server.seen[0]
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert sent["response_format"] == SCHEMA_FORM
    assert headers["Accept"] == "text/event-stream"
    assert headers["Authorization"] == f"Bearer {KEY}"


def test_chunks_are_given_as_they_arrive() -> None:
    """The first chunk comes while the server still pauses before the next."""
    raw = sse(
        delta(content="a"),
        delta(content="b"),
        delta({"index": 0, "delta": {}, "finish_reason": "stop"}),
    )
    pieces = [raw[: raw.index(b"data:", 1)], raw[raw.index(b"data:", 1) :]]
    with Server(Answer(pieces=pieces, pause=0.6)) as server:
        began = time.monotonic()
        stream = callback(server.url).stream(TEXT_REQUEST)
        assert not server.seen  # nothing is sent before the first chunk is asked for
        first = next(stream)
        took = time.monotonic() - began
        rest = list(stream)
    assert first == {"content": "a"} and rest == [{"content": "b"}]
    assert took < 0.5, took


def test_tool_arguments_stream_with_the_name_from_the_first_delta(drain: Drain) -> None:
    call = {"index": 0, "id": "call_1", "type": "function"}
    raw = sse(
        delta(tool_calls=[{**call, "function": {"name": "respond", "arguments": ""}}]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": '{"a": '}}]),
        delta(tool_calls=[{"index": 0, "function": {"arguments": "1}"}}]),
        delta({"index": 0, "delta": {}, "finish_reason": "tool_calls"}),
        delta(usage={"prompt_tokens": 2, "completion_tokens": 3}),
    )
    plain = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"function": {"name": "respond", "arguments": '{"a": 1}'}}],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 2, "completion_tokens": 3},
    }
    tool = {**JSON_REQUEST, "tools": [{"name": "respond", "description": "d", "parameters": {}}]}
    tool["tool_choice"] = {"tool": "respond"}
    with Server(Answer(pieces=cut(raw, b'{\\"a\\": ', b'"1}"'))) as server:
        chunks = drain(server.url, tool)
    assert chunks[0] == {"tool": "respond"}
    assert [c.get("arguments") for c in chunks[1:3]] == ['{"a": ', "1}"]
    assert decoded(joined(chunks)) == read_openai(plain)
    sent = server.seen[0][2]
    assert sent["tool_choice"]["function"]["name"] == "respond"
    assert "response_format" not in sent


def test_refusal_and_reasoning_stream(drain: Drain) -> None:
    raw = sse(
        delta(reasoning_content="The user asks "),
        delta(reasoning_content="for harm."),
        delta(refusal="I can't "),
        delta(refusal="help with that."),
        delta({"index": 0, "delta": {}, "finish_reason": "stop"}),
    )
    plain = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "refusal": "I can't help with that.",
                    "reasoning_content": "The user asks for harm.",
                },
                "finish_reason": "stop",
            }
        ]
    }
    with Server(Answer(pieces=[raw])) as server:
        chunks = drain(server.url, TEXT_REQUEST)
    assert joined(chunks) == read_openai(plain)


def test_a_content_filter_stop_is_a_refusal_as_in_the_plain_reply(drain: Drain) -> None:
    raw = sse(delta({"index": 0, "delta": {}, "finish_reason": "content_filter"}))
    plain = {"choices": [{"message": {"content": None}, "finish_reason": "content_filter"}]}
    with Server(Answer(pieces=[raw])) as server:
        chunks = drain(server.url, TEXT_REQUEST)
    assert joined(chunks) == read_openai(plain) and joined(chunks)["refusal"]


# -- failures: retried before the first chunk, raised after it -------------------------------


def test_a_429_before_the_first_byte_is_sent_again(drain: Drain) -> None:
    waits = Waits()
    raw = sse(delta(content="ok"), delta({"index": 0, "delta": {}, "finish_reason": "stop"}))
    with Server(
        Answer({"error": "slow down"}, 429, {"Retry-After": "3"}), Answer(pieces=[raw])
    ) as server:
        chunks = drain(server.url, TEXT_REQUEST, waits=waits)
    assert waits.waits == [3] and len(server.seen) == 2
    [note] = chunks[0]["notes"]
    assert "HTTP 429" in note and joined(chunks)["content"] == "ok"


def test_a_reset_before_the_first_chunk_is_sent_again(drain: Drain) -> None:
    raw = sse(delta(content="ok"))
    with Server(Answer(pieces=[raw], reset_after=0), Answer(pieces=[raw])) as server:
        chunks = drain(server.url, TEXT_REQUEST)
    assert len(server.seen) == 2 and joined(chunks)["content"] == "ok"
    assert "attempt 1 failed" in chunks[0]["notes"][0]


def test_a_reset_mid_stream_is_an_error_not_sent_again(drain: Drain) -> None:
    raw = sse(delta(content="Hello"), delta(content=" there"), delta(content="!"))
    got: list[Any] = []
    with (
        Server(Answer(pieces=cut(raw, b" there"), pause=0.05, reset_after=1)) as server,
        pytest.raises(LlmHttpError, match=r"broke after its first chunk.*not sent again"),
    ):
        drain(server.url, TEXT_REQUEST, into=got)
    assert got == [{"content": "Hello"}] and len(server.seen) == 1


def test_a_stream_cut_short_without_done_or_finish_reason_is_an_error(drain: Drain) -> None:
    raw = sse(delta(content="Hel"), done=False)
    got: list[Any] = []
    with (
        Server(Answer(pieces=[raw])) as server,
        pytest.raises(LlmHttpError, match=r"ended before its end \(no \[DONE\]"),
    ):
        drain(server.url, TEXT_REQUEST, into=got)
    assert got == [{"content": "Hel"}] and len(server.seen) == 1


def test_a_finished_stream_without_done_is_whole(drain: Drain) -> None:
    raw = sse(
        delta({"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}),
        delta(usage={"prompt_tokens": 1, "completion_tokens": 1}),
        done=False,
    )
    with Server(Answer(pieces=[raw[:-1]])) as server:  # not even the last blank line
        chunks = drain(server.url, TEXT_REQUEST)
    assert joined(chunks)["content"] == "ok" and joined(chunks)["tokens"] == {
        "input": 1,
        "output": 1,
    }


def test_an_error_event_is_an_error_without_the_key(drain: Drain) -> None:
    raw = sse(
        delta(content="par"),
        {"error": {"message": f"overloaded (Bearer {KEY})", "type": "server_error"}},
    )
    got: list[Any] = []
    with (
        Server(Answer(pieces=[raw])) as server,
        pytest.raises(LlmHttpError, match=r"stream reports an error.*overloaded") as caught,
    ):
        drain(server.url, TEXT_REQUEST, into=got)
    assert KEY not in str(caught.value) and "[redacted]" in str(caught.value)
    assert got == [{"content": "par"}] and len(server.seen) == 1


def test_the_size_bound_holds_for_the_whole_stream(drain: Drain) -> None:
    raw = sse(*[delta(content="x" * 100)] * 50)
    got: list[Any] = []
    with (
        Server(Answer(pieces=cut(raw, *range(500, len(raw), 500)))) as server,
        pytest.raises(LlmHttpError, match=r"stream is larger than max_response_bytes \(2048\)"),
    ):
        drain(server.url, TEXT_REQUEST, into=got, max_response_bytes=2048)
    assert 0 < len(got) < 50


def test_the_deadline_holds_for_a_stream_that_trickles(drain: Drain) -> None:
    """Real time: a chunk every 0.25 s for 5 s, each within `timeout`; the deadline is 1 s."""
    raw = sse(*[delta(content=str(n)) for n in range(20)])
    pieces = cut(raw, *[raw.index(b"data:", 10 + i * 60) for i in range(19)])
    got: list[Any] = []
    with Server(Answer(pieces=pieces, pause=0.25)) as server:
        began = time.monotonic()
        with pytest.raises(LlmHttpError, match=r"past the retry deadline of 1 s"):
            drain(server.url, TEXT_REQUEST, into=got, retry=Retry(deadline=1.0))
        took = time.monotonic() - began
    assert 1.0 <= took < 2.0, took
    assert 1 <= len(got) < 20


def test_a_server_that_does_not_stream_is_named(drain: Drain) -> None:
    with (
        Server(Answer({"choices": []})) as server,
        pytest.raises(LlmHttpError, match="answered without streaming"),
    ):
        drain(server.url, TEXT_REQUEST)


# -- negotiation, as for plain calls ---------------------------------------------------------


def test_a_stream_negotiates_the_form_once_per_client() -> None:
    raw = sse(delta(content='{"a": 1}'), delta({"index": 0, "delta": {}, "finish_reason": "stop"}))
    with Server(
        Answer(LLAMA_CPP_PYTHON_500, 500), Answer(pieces=[raw]), Answer(pieces=[raw])
    ) as server:
        llm = callback(server.url)
        first, second = list(llm.stream(JSON_REQUEST)), list(llm.stream(JSON_REQUEST))
    assert server.formats() == [SCHEMA_FORM, OBJECT_FORM, OBJECT_FORM]
    assert llm.form == "json_object"
    assert first[0]["notes"][1] == "response_format json_object from now on for this client"
    assert "notes" not in second[0]


def test_an_async_stream_negotiates_the_form_once_per_client() -> None:
    raw = sse(delta(content='{"a": 1}'), delta({"index": 0, "delta": {}, "finish_reason": "stop"}))
    with Server(
        Answer({"error": "unknown field"}, 400), Answer(pieces=[raw]), Answer(pieces=[raw])
    ) as server:
        llm = acallback(server.url)

        async def both() -> list[list[Any]]:
            out: list[list[Any]] = []
            for _ in range(2):
                out.append([c async for c in llm.stream(JSON_REQUEST)])
            return out

        first, second = asyncio.run(both())
    assert server.formats() == [SCHEMA_FORM, OBJECT_FORM, OBJECT_FORM]
    assert joined(first)["content"] == joined(second)["content"] == '{"a": 1}'
    assert llm.form == "json_object"
