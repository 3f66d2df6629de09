"""The streaming SDK adapters (`openai_stream`, `anthropic_stream`, `gemini_stream`,
`ollama_stream` and their `a` forms): the official SDKs' own clients against the recording
server on 127.0.0.1, which streams each answer in the provider's wire format (OpenAI's SSE,
Anthropic's SSE events, Gemini's `alt=sse` stream, Ollama's NDJSON), cut into small pieces.

Each answer is first given whole to the plain adapter through a generated client function
(which builds the request), then streamed to the streaming adapter for that same request: the
chunks, joined as the streaming contract says, are what the plain adapter read (content, the
forced tool's arguments, refusal, reasoning, usage), and the body the SDK sent is the plain
one with its streaming switch set. Also: an early stop closes the connection, a client of
the other kind is refused, and `stream=True` given to a plain adapter points here.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from conftest import examples_package
from recording_server import Recorder, Streamed, ndjson, recording_server, sse
from test_adapters import (
    BY_NAME,
    CASES,
    PROVIDERS,
    THOUGHT,
    Provider,
    as_sent,
    fragment,
    with_thought,
)

Json = dict[str, Any]


@pytest.fixture(scope="module")
def pkg(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    with examples_package(examples_output) as modules:
        yield modules


@pytest.fixture(scope="module")
def server_once() -> Iterator[Recorder]:
    with recording_server() as recorder:
        yield recorder


@pytest.fixture
def server(server_once: Recorder) -> Iterator[Recorder]:
    yield server_once
    leftover = (server_once.requests[:], server_once.script[:], server_once.disconnects.qsize())
    server_once.requests.clear()
    server_once.script.clear()
    assert leftover == ([], [], 0), "a test left requests, replies or disconnects behind"


PIECE = 4  # characters per streamed piece: every answer comes in many chunks


def pieces(text: str) -> list[str]:
    return [text[i : i + PIECE] for i in range(0, len(text), PIECE)]


# ---- each provider's stream of a whole reply, in its wire format -------------------------------


def openai_events(body: Json) -> Streamed:
    """`chat.completion.chunk`s: the role, the content, refusal and reasoning in pieces, the
    tool call's name then its arguments in pieces, the finish reason, then the usage alone
    (`stream_options.include_usage`)."""
    choice = body["choices"][0]
    message = choice["message"]

    def chunk(delta: Json, finish: str | None = None) -> Json:
        head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
        entry = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return {**head, "choices": [entry]}

    events = [chunk({"role": "assistant", "content": ""})]
    for key in ("reasoning_content", "content", "refusal"):
        events += [chunk({key: piece}) for piece in pieces(message.get(key) or "")]
    for call in message.get("tool_calls") or []:
        function = {"name": call["function"]["name"], "arguments": ""}
        first = {"index": 0, "id": call["id"], "type": "function", "function": function}
        events.append(chunk({"tool_calls": [first]}))
        events += [
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]})
            for piece in pieces(call["function"]["arguments"])
        ]
    events.append(chunk({}, choice["finish_reason"]))
    usage = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    events.append({**usage, "choices": [], "usage": body["usage"]})
    return sse(events, done=True)


def anthropic_events(body: Json) -> Streamed:
    """Messages API events: `message_start` (input tokens, and an output count that the
    `message_delta` replaces), each block's start, deltas and stop, `message_delta`."""
    start = {**body, "content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": body["usage"]["input_tokens"], "output_tokens": 1}
    events: list[Json] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(body["content"]):
        kind = block["type"]
        if kind == "tool_use":
            opened, text = {**block, "input": {}}, json.dumps(block["input"])
            delta = [{"type": "input_json_delta", "partial_json": p} for p in pieces(text)]
        elif kind == "thinking":
            opened = {"type": "thinking", "thinking": "", "signature": ""}
            delta = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"])]
            delta.append({"type": "signature_delta", "signature": block["signature"]})
        else:
            opened = {"type": "text", "text": ""}
            delta = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
        events.append({"type": "content_block_start", "index": index, "content_block": opened})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in delta]
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": body["stop_reason"], "stop_sequence": None}
    usage = {"output_tokens": body["usage"]["output_tokens"]}
    events += [{"type": "message_delta", "delta": stop, "usage": usage}, {"type": "message_stop"}]
    return sse(events, named=True)


def gemini_events(body: Json) -> Streamed:
    """`GenerateContentResponse` chunks: each text part in pieces (thoughts too), a function
    call whole, the finish reason and the usage metadata in the last; a blocked prompt, whose
    reply has no candidate, as its one chunk."""
    if not body["candidates"]:
        return sse([body])
    candidate = body["candidates"][0]

    def chunk(part: Json, last: bool = False) -> Json:
        content = {"role": "model", "parts": [part]}
        if not last:
            return {"candidates": [{"content": content, "index": 0}], "modelVersion": "m"}
        entry = {"content": content, "finishReason": candidate["finishReason"], "index": 0}
        return {"candidates": [entry], "usageMetadata": body["usageMetadata"], "modelVersion": "m"}

    events = []
    for part in candidate["content"]["parts"]:
        if "text" in part:
            events += [chunk({**part, "text": p}) for p in pieces(part["text"])]
        else:
            events.append(chunk(part))
    events.append(chunk({"text": ""}, last=True))
    return sse(events)


def ollama_events(body: Json) -> Streamed:
    """`/api/chat` messages: thinking and content in pieces, then the counts in the last."""
    message = body["message"]

    def chunk(**fields: str) -> Json:
        return {
            "model": "m",
            "created_at": "2026-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": "", **fields},
            "done": False,
        }

    events = [chunk(thinking=p) for p in pieces(message.get("thinking") or "")]
    events += [chunk(content=p) for p in pieces(message.get("content") or "")]
    last = {**chunk(), "done": True, "done_reason": "stop"}
    last.update(prompt_eval_count=body["prompt_eval_count"], eval_count=body["eval_count"])
    return ndjson([*events, last])


STREAMS: dict[str, Callable[[Json], Streamed]] = {
    "openai": openai_events,
    "anthropic": anthropic_events,
    "gemini": gemini_events,
    "ollama": ollama_events,
}


# ---- the streaming contract's join, and the plain reply it must equal --------------------------


def joined(chunks: list[Any]) -> Json:
    """The chunks of one turn joined as the stream driver does (the streaming contract)."""
    texts: dict[str, list[str]] = {"content": [], "arguments": [], "refusal": [], "reasoning": []}
    tool, tokens = None, dict[str, int]()
    for chunk in chunks:
        if isinstance(chunk, str):
            chunk = {"content": chunk}  # noqa: PLW2901 (a string is the content's piece)
        assert set(chunk) <= {*texts, "tool", "tokens", "notes"}, chunk
        for key, found in texts.items():
            if chunk.get(key) is not None:
                assert isinstance(chunk[key], str), chunk
                found.append(chunk[key])
        tool = chunk.get("tool") or tool
        tokens.update(chunk.get("tokens") or {})
    reply = {key: "".join(found) if found else None for key, found in texts.items()}
    arguments = reply.pop("arguments")
    calls = [] if arguments is None else [{"name": tool or "respond", "arguments": arguments}]
    return {**reply, "tool_calls": calls, "tokens": tokens}


def as_joined(read: Json) -> Json:
    """A plain adapter's reply as the join gives it: the tool call without its id (a stream's
    has none) and with its arguments as JSON text (compared as the JSON they hold)."""
    calls = [{"name": c["name"], "arguments": c["arguments"]} for c in read["tool_calls"]]
    return {
        "content": read["content"],
        "refusal": read["refusal"],
        "reasoning": read["reasoning"],
        "tool_calls": calls,
        "tokens": read["tokens"],
    }


def same_reply(streamed: Json, plain: Json) -> bool:
    streamed = copy.deepcopy(streamed)
    for call in streamed["tool_calls"]:
        call["arguments"] = json.loads(call["arguments"])
    return streamed == as_joined(plain)


# ---- the adapters in their two forms ----------------------------------------------------------


@dataclass(frozen=True)
class Form:
    """The sync streaming adapter over the SDK's sync client (its chunks listed), or the
    async one over its async client (its chunks gathered under `asyncio.run`)."""

    name: str

    def adapter(self, pkg: dict[str, ModuleType], provider: Provider, url: str, **kw: Any) -> Any:
        name = provider.adapter.replace("_llm", "_stream")
        if self.name == "sync":
            return getattr(pkg["_adapters"], name)(provider.client(url), "m", **kw)
        return getattr(pkg["_adapters"], "a" + name)(provider.aclient(url), "m", **kw)

    def chunks(self, llm: Any, request: Json) -> list[Any]:
        if self.name == "sync":
            return list(llm(request))

        async def gathered() -> list[Any]:
            return [chunk async for chunk in llm(request)]

        return asyncio.run(gathered())


@pytest.fixture(params=["sync", "async"])
def form(request: pytest.FixtureRequest) -> Form:
    return Form(request.param)


@dataclass
class Plain:
    request: Json  # what the generated client function asked
    read: Json  # what the plain adapter read of the whole reply
    body: Json  # what the SDK sent
    path: str  # where it sent it


def plain_call(
    pkg: dict[str, ModuleType], server: Recorder, provider: Provider, reply: Json, **options: Any
) -> Plain:
    """One turn of `classify` through the plain sync adapter, given `reply` whole."""
    adapter = getattr(pkg["_adapters"], provider.adapter)(provider.client(server.url), "m")
    seen: list[tuple[Json, Json]] = []

    def llm(request: Json) -> Json:
        read: Json = adapter(request)
        seen.append((copy.deepcopy(request), read))
        return read

    server.script.append(reply)
    case = CASES[0]
    try:
        pkg[case.module].classify(**case.arguments, llm=llm, max_turns=1, **options)
    except pkg["_client"].JsonEnforcementError:
        pass  # a refusal: the reply was read all the same
    [(request, read)] = seen
    sent = server.take()
    return Plain(request, read, sent.body, sent.path)


def answer(provider: Provider, kind: str, pkg: dict[str, ModuleType]) -> Json:
    """The provider's whole reply of a kind: content, the forced tool's call, a refusal, or
    content after the model's thoughts."""
    case = CASES[0]
    if kind == "tool":
        call = {"name": "respond", "arguments": as_sent(pkg, case, provider.name)}
        return provider.reply(None, call)
    if kind == "refusal":
        return provider.reply(None, refusal="I cannot help with that.")
    body = provider.reply(json.dumps(as_sent(pkg, case, provider.name)))
    return with_thought(provider.name, body) if kind == "reasoning" else body


# What comes whole, in one chunk: Gemini's function call, its blocked prompt (one response
# with no candidate), and Anthropic's refusal (the stop reason, quoting the text streamed).
WHOLE = {("gemini", "tool"), ("gemini", "refusal"), ("anthropic", "refusal")}
KINDS = [
    (provider, kind)
    for provider in PROVIDERS
    for kind in ("content", "tool", "refusal", "reasoning")
    if provider.name != "ollama" or kind in ("content", "reasoning")
]


@pytest.mark.parametrize(("provider", "kind"), KINDS, ids=[f"{p.name}-{kind}" for p, kind in KINDS])
def test_the_joined_chunks_are_what_the_plain_adapter_reads(
    pkg: dict[str, ModuleType], server: Recorder, form: Form, provider: Provider, kind: str
) -> None:
    reply = answer(provider, kind, pkg)
    options = {"structured": "tool"} if kind == "tool" else {}
    plain = plain_call(pkg, server, provider, copy.deepcopy(reply), **options)
    server.script.append(STREAMS[provider.name](reply))
    chunks = form.chunks(form.adapter(pkg, provider, server.url), plain.request)
    streamed = joined(chunks)
    assert same_reply(streamed, plain.read), (streamed, plain.read)
    assert plain.read[{"tool": "tool_calls"}.get(kind, kind)]
    assert streamed["tokens"] == {"input": 11, "output": 7}
    carried = [c for c in chunks if c.get({"tool": "arguments"}.get(kind, kind))]
    whole = (provider.name, kind) in WHOLE
    assert len(carried) == 1 if whole else len(carried) > 1, chunks
    assert_sent_with_stream(provider.name, server.take(), plain)


def assert_sent_with_stream(provider: str, sent: Any, call: Plain) -> None:
    """The body is the plain adapter's (the compiled fragments unchanged) with the SDK's
    streaming switch set, to the streaming endpoint."""
    body, plain = copy.deepcopy(sent.body), copy.deepcopy(call.body)
    if provider == "openai":
        assert body.pop("stream") is True
        assert body.pop("stream_options") == {"include_usage": True}
        assert "stream" not in plain
    elif provider == "anthropic":
        assert body.pop("stream") is True and "stream" not in plain
    elif provider == "ollama":
        assert body.pop("stream") is True and plain.pop("stream") is False
    else:
        assert call.path.endswith("/models/m:generateContent")
        stream = call.path.replace(":generateContent", ":streamGenerateContent")
        assert sent.path == stream + "?alt=sse"
    assert body == plain


# ---- the chunks as they come ------------------------------------------------------------------


def test_openai_chunks_come_as_the_deltas_do(
    pkg: dict[str, ModuleType], server: Recorder, form: Form
) -> None:
    """The pieces in order: the forced tool's name first, then its arguments as sent, and
    the usage from the last chunk alone."""
    provider = BY_NAME["openai"]
    reply = answer(provider, "tool", pkg)
    plain = plain_call(pkg, server, provider, copy.deepcopy(reply), structured="tool")
    server.script.append(openai_events(reply))
    chunks = form.chunks(form.adapter(pkg, provider, server.url), plain.request)
    server.take()
    text = reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert chunks == [
        {"tool": "respond"},
        *({"arguments": piece} for piece in pieces(text)),
        {"tokens": {"input": 11, "output": 7}},
    ]


def test_anthropic_usage_comes_from_start_and_delta(
    pkg: dict[str, ModuleType], server: Recorder, form: Form
) -> None:
    """`message_start` gives the input count (and a first output count), `message_delta`
    the output count that replaces it; the thinking and text pieces in between, in order."""
    provider = BY_NAME["anthropic"]
    reply = answer(provider, "reasoning", pkg)
    plain = plain_call(pkg, server, provider, copy.deepcopy(reply))
    server.script.append(anthropic_events(reply))
    chunks = form.chunks(form.adapter(pkg, provider, server.url), plain.request)
    server.take()
    assert chunks[0] == {"tokens": {"input": 11, "output": 1}}
    assert chunks[-1] == {"tokens": {"output": 7}}
    middle = chunks[1:-1]
    assert [c for c in middle if "reasoning" in c] == [{"reasoning": p} for p in pieces(THOUGHT)]
    text = reply["content"][1]["text"]
    assert [c for c in middle if "content" in c] == [{"content": p} for p in pieces(text)]


def test_a_gemini_function_call_is_one_chunk_of_json(
    pkg: dict[str, ModuleType], server: Recorder, form: Form
) -> None:
    provider, case = BY_NAME["gemini"], CASES[0]
    reply = answer(provider, "tool", pkg)
    plain = plain_call(pkg, server, provider, copy.deepcopy(reply), structured="tool")
    server.script.append(gemini_events(reply))
    chunks = form.chunks(form.adapter(pkg, provider, server.url), plain.request)
    server.take()
    [call] = [c for c in chunks if "arguments" in c]
    assert call["tool"] == "respond" and json.loads(call["arguments"]) == case.answer


def test_a_streamed_refusal_after_an_answer_is_a_stop(
    pkg: dict[str, ModuleType], server: Recorder, form: Form
) -> None:
    """Gemini's last chunk stopped for safety after text came: no refusal, as the plain
    reader reads the whole reply (an answer, then a stop)."""
    provider = BY_NAME["gemini"]
    reply = answer(provider, "content", pkg)
    reply["candidates"][0]["finishReason"] = "SAFETY"
    plain = plain_call(pkg, server, provider, copy.deepcopy(reply))
    assert plain.read["refusal"] is None and plain.read["content"]
    server.script.append(gemini_events(reply))
    chunks = form.chunks(form.adapter(pkg, provider, server.url), plain.request)
    server.take()
    assert same_reply(joined(chunks), plain.read)


def test_an_openai_content_filter_stop_is_a_refusal(
    pkg: dict[str, ModuleType], server: Recorder, form: Form
) -> None:
    provider = BY_NAME["openai"]
    reply = answer(provider, "content", pkg)
    reply["choices"][0]["message"]["content"] = None
    reply["choices"][0]["finish_reason"] = "content_filter"
    plain = plain_call(pkg, server, provider, copy.deepcopy(reply))
    assert "content filter" in plain.read["refusal"]
    server.script.append(openai_events(reply))
    chunks = form.chunks(form.adapter(pkg, provider, server.url), plain.request)
    server.take()
    assert same_reply(joined(chunks), plain.read)


# ---- the stream's connection ------------------------------------------------------------------


def held(provider: str, reply: Json) -> Streamed:
    """The reply's stream without its end, held open: only the client can close it."""
    streamed = STREAMS[provider](reply)
    return Streamed(streamed.content_type, streamed.events[:-2], hold=True)


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_an_early_stop_closes_the_connection(
    pkg: dict[str, ModuleType], server: Recorder, form: Form, provider: Provider
) -> None:
    """The consumer takes the first chunks and stops (closes the iterator, as a `for`
    loop's `break` in a `with closing(...)` or the stream driver does): the adapter closes
    the SDK's stream, so the server sees the connection closed, not left open."""
    reply = answer(provider, "content", pkg)
    plain = plain_call(pkg, server, provider, copy.deepcopy(reply))
    server.script.append(held(provider.name, reply))
    llm = form.adapter(pkg, provider, server.url)
    if form.name == "sync":
        stream = iter(llm(plain.request))
        first = [next(stream), next(stream)]
        stream.close()
    else:

        async def two() -> list[Any]:
            stream = llm(plain.request)
            taken = [await anext(stream), await anext(stream)]
            await stream.aclose()
            return taken

        first = asyncio.run(two())
    assert len(first) == 2 and all(first), first
    assert server.disconnects.get(timeout=15) is True, "the stream's connection was left open"
    server.take()


# ---- clients of the other kind, and the `stream` argument --------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_an_async_client_given_to_a_sync_streaming_adapter_points_at_the_async_one(
    pkg: dict[str, ModuleType], server: Recorder, provider: Provider
) -> None:
    client = provider.aclient(server.url)
    if provider.name == "gemini":
        client = client.aio
    name = provider.adapter.replace("_llm", "_stream")
    llm = getattr(pkg["_adapters"], name)(client, "m")
    with pytest.raises(TypeError, match=f"{name} needs a synchronous client.*use a{name}"):
        list(llm(request_of(pkg)))
    assert server.requests == []


@pytest.mark.parametrize(
    "provider", [p for p in PROVIDERS if p.name != "gemini"], ids=lambda p: p.name
)
def test_a_sync_client_given_to_an_async_streaming_adapter_points_at_the_sync_one(
    pkg: dict[str, ModuleType], server: Recorder, provider: Provider
) -> None:
    """The sync client's stream is opened (its request sent) and closed unread."""
    name = "a" + provider.adapter.replace("_llm", "_stream")
    llm = getattr(pkg["_adapters"], name)(provider.client(server.url), "m")
    reply = answer(provider, "content", pkg)
    server.script.append(held(provider.name, reply))
    with pytest.raises(TypeError, match=f"{name} needs an async client.*use {name[1:]},"):
        Form("async").chunks(llm, request_of(pkg))
    if provider.name != "ollama":  # the ollama SDK's stream sends its request when read
        assert server.disconnects.get(timeout=15) is True
        server.take()
    else:
        server.script.clear()
        assert server.requests == []


def request_of(pkg: dict[str, ModuleType]) -> Json:
    case = CASES[0]
    spec = getattr(pkg[case.module], f"{case.function.upper()}_SPEC")
    return dict(pkg["_client"].build_request(spec, case.arguments))


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_stream_true_given_to_a_plain_adapter_points_at_the_streaming_one(
    pkg: dict[str, ModuleType], provider: Provider
) -> None:
    for prefix, client in (("", provider.client), ("a", provider.aclient)):
        name = prefix + provider.adapter
        streaming = name.replace("_llm", "_stream")
        with pytest.raises(ValueError, match=f"whole replies.*use {streaming}, the streaming"):
            getattr(pkg["_adapters"], name)(client("http://127.0.0.1:9"), "m", stream=True)
        with pytest.raises(ValueError, match=f"{streaming}: the adapter streams already"):
            getattr(pkg["_adapters"], streaming)(client("http://127.0.0.1:9"), "m", stream=False)


def test_extra_arguments_reach_the_streaming_call(
    pkg: dict[str, ModuleType], server: Recorder, form: Form
) -> None:
    provider = BY_NAME["openai"]
    reply = answer(provider, "content", pkg)
    server.script.append(openai_events(reply))
    llm = form.adapter(pkg, provider, server.url, temperature=0, extra_body={"top_k": 5})
    form.chunks(llm, request_of(pkg))
    body = server.take().body
    assert body["temperature"] == 0 and body["top_k"] == 5 and body["stream"] is True
    assert (
        body["response_format"] == fragment(pkg, CASES[0], "openai", "request")["response_format"]
    )


def test_the_streaming_adapters_are_exported(pkg: dict[str, ModuleType]) -> None:
    names = {p.adapter.replace("_llm", "_stream") for p in PROVIDERS}
    assert names | {"a" + n for n in names} <= set(pkg["_adapters"].__all__)


def test_any_object_with_the_sdk_s_method_streams(pkg: dict[str, ModuleType], form: Form) -> None:
    """A proxy or a test double works too: its method returns the events as dicts (an
    iterator, or for the async form an awaitable of an async iterator), and the adapter
    closes what it returned once read."""
    reply = answer(BY_NAME["openai"], "content", pkg)
    events = [json.loads(e[len("data: ") :]) for e in openai_events(reply).events[:-1]]
    seen: list[Json] = []
    closed: list[bool] = []

    class Events:
        def __init__(self) -> None:
            self.left = iter(events)

        def __iter__(self) -> Events:
            return self

        def __next__(self) -> Json:
            return next(self.left)

        def __aiter__(self) -> Events:
            return self

        async def __anext__(self) -> Json:
            try:
                return next(self.left)
            except StopIteration:
                raise StopAsyncIteration from None

        def close(self) -> None:
            closed.append(True)

        async def aclose(self) -> None:
            closed.append(True)

    def create(**arguments: Any) -> Events:
        seen.append(arguments)
        return Events()

    async def acreate(**arguments: Any) -> Events:
        await asyncio.sleep(0)
        return create(**arguments)

    method = create if form.name == "sync" else acreate
    client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=method)))
    made = getattr(pkg["_adapters"], "openai_stream" if form.name == "sync" else "aopenai_stream")
    chunks = form.chunks(made(client, "m", seed=1), request_of(pkg))
    assert "".join(c.get("content", "") for c in chunks) == json.dumps(CASES[0].answer)
    assert chunks[-1] == {"tokens": {"input": 11, "output": 7}} and closed == [True]
    [arguments] = seen
    assert arguments["seed"] == 1 and arguments["stream"] is True
