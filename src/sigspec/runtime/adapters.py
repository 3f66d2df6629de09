"""The official SDKs as the `llm` callback, one line each. Standard library only.

Copied into every generated Python package as `_adapters.py`. An adapter takes the user's own
client object (`openai.OpenAI`, `anthropic.Anthropic`, `google.genai.Client`,
`ollama.Client`) and a model name, and returns the callback the generated client functions
take: it builds the body from the request's compiled fragments with the runtime's payload
builders (the schema form, or the forced `respond` tool when the call asks
`structured="tool"`), calls the SDK's own method, and reads content, tool calls, refusal,
reasoning and usage with the runtime's readers. Nothing here imports an SDK: the package
still needs pydantic alone, and any object with the same method works (a proxy, a mock).

Each adapter has an async form, `a` + its name (`aopenai_llm` over `openai.AsyncOpenAI`,
`aanthropic_llm`, `agemini_llm` over `client.aio`, `aollama_llm` over `ollama.AsyncClient`):
the async callback the async client functions (`aclassify`) await. Both forms share the
body builders and readers; only the call differs (awaited, or refused when awaitable).

Each adapter has a streaming form, its name with `_stream` for `_llm` (`openai_stream`,
`aopenai_stream`, ...): the same request sent with the SDK's streaming switch, and a callback
that yields the reply's chunks as the SDK's events arrive (`{"content": "..."}`, the forced
tool's `{"arguments": "..."}`, `refusal`, `reasoning`, `tokens`), which the streaming client
functions (`classify_stream`) join into the reply the plain callback reads. An event is read
with the plain reader's rules (`read_openai` on a delta, `read_gemini` on a Gemini chunk), and
the SDK's stream is closed when the consumer stops early.

Keyword arguments beyond the model go to the SDK's method as they are (Gemini's into its
`config`), after the compiled ones, so they win: `temperature=0`, `extra_body={...}`, or a
`response_format` that pins the form a server takes.
"""

from __future__ import annotations

import json
from collections.abc import (
    AsyncIterator,
    Callable,
    Iterator,
)
from operator import attrgetter
from typing import Any

from .client import (
    AsyncLlm,
    Llm,
    Request,
    anthropic_payload,
    as_array,
    as_object,
    as_response,
    gemini_payload,
    ollama_payload,
    openai_payload,
    read_anthropic,
    read_gemini,
    read_ollama,
    read_openai,
)
from .stream import AsyncStreamLlm, StreamLlm

# A streamed reply's piece, as the stream driver takes it: a dict of `content`, `arguments`,
# `tool`, `refusal`, `reasoning`, `tokens` pieces.
Chunk = dict[str, Any]


def _plain(kwargs: dict[str, Any], adapter: str) -> dict[str, Any]:
    """The user's extra arguments, refused where they would change what the reply is."""
    if kwargs.get("stream"):
        streaming = adapter.replace("_llm", "_stream")
        raise ValueError(
            f"{adapter}: the callback reads whole replies, not streams: use {streaming}, "
            "the streaming adapter, with the streaming client functions (`classify_stream`)"
        )
    return kwargs


def _streamed(kwargs: dict[str, Any], adapter: str) -> dict[str, Any]:
    """The user's extra arguments of a streaming adapter, which sets `stream` itself."""
    if "stream" in kwargs:
        raise ValueError(f"{adapter}: the adapter streams already: leave `stream` out")
    return kwargs


def _sync(response: Any, adapter: str) -> Any:
    """The SDK's response, refused when it is still to be awaited: an async client's (the
    reader would find nothing in a coroutine and the call would fail as a bad reply)."""
    if hasattr(response, "__await__"):
        close = getattr(response, "close", None)
        if callable(close):
            close()  # never awaited: no request is sent, and no warning says so later
        raise TypeError(
            f"{adapter} needs a synchronous client: its method returned an awaitable "
            f"(an async client, such as AsyncOpenAI): use a{adapter}, the async adapter, "
            "with the async forms of the client functions (`aclassify`)"
        )
    return response


def _not_awaitable(response: Any, adapter: str) -> TypeError:
    """The error for a synchronous client given to an async adapter (its request is sent,
    and its reply is not read)."""
    return TypeError(
        f"{adapter} needs an async client (such as AsyncOpenAI): its method returned "
        f"{type(response).__name__}, not an awaitable: use {adapter[1:]}, the synchronous "
        "adapter, with the sync forms of the client functions"
    )


# Per SDK: the path of its method on the user's client (`"chat.completions.create"`), the
# keyword arguments of that method for a request, and the reader of its response. The sync
# and the async adapter share all three.
Arguments = Callable[[Request], dict[str, Any]]
Reader = Callable[[Any], dict[str, Any]]


def _llm(
    adapter: str, client: Any, method: str, arguments: Arguments, read: Reader
) -> Llm:
    def llm(request: Request) -> dict[str, Any]:
        send = attrgetter(method)(client)
        return read(_sync(send(**arguments(request)), adapter))

    return llm


def _allm(
    adapter: str, client: Any, method: str, arguments: Arguments, read: Reader
) -> AsyncLlm:
    async def llm(request: Request) -> dict[str, Any]:
        pending = attrgetter(method)(client)(**arguments(request))
        if not hasattr(pending, "__await__"):
            raise _not_awaitable(pending, adapter)
        return read(await pending)

    return llm


# Per SDK for a streamed reply: the reader of one of its events (a stream's chunk), made
# fresh for each call, as it may remember what earlier events said.
Events = Callable[[Any], list[Chunk]]


def _stream(
    adapter: str,
    client: Any,
    method: str,
    arguments: Arguments,
    events: Callable[[], Events],
) -> StreamLlm:
    def llm(request: Request) -> Iterator[Chunk]:
        send = attrgetter(method)(client)
        stream = _sync(send(**arguments(request)), adapter)
        read = events()
        try:
            for event in stream:
                yield from read(event)
        finally:  # also when the consumer stops early: the connection is not left open
            _close(stream)

    return llm


def _astream(
    adapter: str,
    client: Any,
    method: str,
    arguments: Arguments,
    events: Callable[[], Events],
) -> AsyncStreamLlm:
    async def llm(request: Request) -> AsyncIterator[Chunk]:
        stream = await _opened(
            attrgetter(method)(client)(**arguments(request)), adapter
        )
        read = events()
        try:
            async for event in stream:
                for chunk in read(event):
                    yield chunk
        finally:
            await _aclose(stream)

    return llm


async def _opened(pending: Any, adapter: str) -> Any:
    """An async SDK's stream: its method's result awaited (OpenAI's, Anthropic's, ollama's
    and google-genai's async methods return the stream when awaited), or as it is."""
    stream = await pending if hasattr(pending, "__await__") else pending
    if not hasattr(stream, "__aiter__"):
        _close(stream)  # a sync client's stream, opened: closed, not left to leak
        raise _not_awaitable(stream, adapter)
    return stream


def _close(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()


async def _aclose(stream: Any) -> None:
    close = getattr(stream, "aclose", None) or getattr(stream, "close", None)
    if callable(close):
        done: Any = close()  # a coroutine (an async stream) or None
        if hasattr(done, "__await__"):
            await done


def _chunk(**pieces: Any) -> list[Chunk]:
    """The chunk of an event's pieces that say something (none when none does)."""
    chunk = {key: value for key, value in pieces.items() if value}
    return [chunk] if chunk else []


class _OpenAIEvents:
    """Chat Completions chunks (`ChatCompletionChunk`): each choice's `delta` is read as a
    message by `read_openai` (content, refusal, reasoning, and the usage of the last chunk),
    and the forced tool call's `arguments` are taken as the pieces of JSON they are."""

    def __init__(self) -> None:
        self.answered = False  # content or a tool call came: no content-filter refusal

    def __call__(self, event: Any) -> list[Chunk]:
        fields = as_response(event)
        choices = as_array(fields.get("choices"))
        choice = as_object(choices[0] if choices else None)
        delta = as_object(choice.get("delta"))
        stop = None if self.answered else choice.get("finish_reason")
        message = {"message": delta, "finish_reason": stop}
        read = read_openai({"choices": [message], "usage": fields.get("usage")})
        tool, arguments = _tool_pieces(delta)
        self.answered = self.answered or bool(read["content"] or tool or arguments)
        return _chunk(
            content=read["content"],
            tool=tool,
            arguments=arguments,
            refusal=read["refusal"],
            reasoning=read["reasoning"],
            tokens=read["tokens"],
        )


def _tool_pieces(delta: dict[str, Any]) -> tuple[str | None, str]:
    """A delta's tool call: its name (in the call's first delta) and its next piece of
    arguments (raw JSON text: a piece such as `1` or `"a` is no value of its own)."""
    functions = [
        as_object(as_object(call).get("function"))
        for call in as_array(delta.get("tool_calls"))
    ]
    names = [f["name"] for f in functions if isinstance(f.get("name"), str)]
    pieces = [f["arguments"] for f in functions if isinstance(f.get("arguments"), str)]
    return (names[0] if names else None), "".join(pieces)


# Anthropic's content deltas: the delta's field holding the piece, and the chunk's key for it.
_ANTHROPIC_DELTAS = {
    "text_delta": ("text", "content"),
    "input_json_delta": ("partial_json", "arguments"),
    "thinking_delta": ("thinking", "reasoning"),
}


class _AnthropicEvents:
    """Messages API stream events: `message_start` (the input tokens), a `tool_use` block's
    start (the tool's name), `content_block_delta` pieces (text, the tool's input JSON,
    thinking) and `message_delta` (the output tokens, and the stop reason, read by
    `read_anthropic` over the text so far: `"refusal"` is a refusal quoting it)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, event: Any) -> list[Chunk]:
        fields = as_response(event)
        kind = fields.get("type")
        if kind == "message_start":
            message = as_object(fields.get("message"))
            return _chunk(
                tokens=read_anthropic({"usage": message.get("usage")})["tokens"]
            )
        if kind == "content_block_start":
            read = read_anthropic({"content": [fields.get("content_block")]})
            self.texts.append(read["content"] or "")
            tool = next((c["name"] for c in read["tool_calls"]), None)
            return _chunk(
                content=read["content"], reasoning=read["reasoning"], tool=tool
            )
        if kind == "content_block_delta":
            delta = as_object(fields.get("delta"))
            field, key = _ANTHROPIC_DELTAS.get(str(delta.get("type")), ("", ""))
            piece = delta.get(field) if field else None
            if key == "content" and isinstance(piece, str):
                self.texts.append(piece)
            return _chunk(**{key: piece}) if isinstance(piece, str) else []
        if kind == "message_delta":
            said = {"type": "text", "text": "".join(self.texts)}
            stop = as_object(fields.get("delta")).get("stop_reason")
            usage = fields.get("usage")
            read = read_anthropic(
                {"content": [said], "stop_reason": stop, "usage": usage}
            )
            return _chunk(refusal=read["refusal"], tokens=read["tokens"])
        return []


class _Responses:
    """The events of Gemini's and Ollama's streams: each a response of the plain form (a
    `GenerateContentResponse`, a `ChatResponse`) holding the next piece, read by the plain
    reader. A function call comes whole: its arguments are one chunk of JSON text. A
    refusal counts only before any answer (a stop for safety after it is a stop, as the
    plain reader reads a whole reply)."""

    def __init__(self, read: Reader) -> None:
        self.read = read
        self.answered = False

    def __call__(self, event: Any) -> list[Chunk]:
        read = self.read(event)
        refusal = None if self.answered else read["refusal"]
        calls = read["tool_calls"]
        self.answered = self.answered or bool(read["content"] or calls)
        chunks = _chunk(
            content=read["content"],
            refusal=refusal,
            reasoning=read["reasoning"],
            tokens=read["tokens"],
        )
        for call in calls:
            arguments = json.dumps(call["arguments"], ensure_ascii=False)
            chunks.append({"tool": call["name"], "arguments": arguments})
        return chunks


def _openai_arguments(
    model: str, extra: dict[str, Any], streamed: bool = False
) -> Arguments:
    """The keyword arguments of `client.chat.completions.create` for a request: streamed,
    with the usage in the stream's last chunk."""

    def arguments(request: Request) -> dict[str, Any]:
        payload = openai_payload(request, model)
        del payload["stream"]  # the SDK's default
        if streamed:
            payload.update(stream=True, stream_options={"include_usage": True})
        return {**payload, **extra}

    return arguments


def openai_llm(client: Any, model: str, **kwargs: Any) -> Llm:
    """The callback over an OpenAI SDK client (`openai.OpenAI(...)`, also with the
    `base_url` of any OpenAI-compatible server: vLLM, Ollama's `/v1`, llama.cpp, LM Studio,
    a LiteLLM proxy): `client.chat.completions.create(...)` with the compiled
    `response_format` (or the forced tool), read by `read_openai`."""
    arguments = _openai_arguments(model, _plain(kwargs, "openai_llm"))
    return _llm("openai_llm", client, "chat.completions.create", arguments, read_openai)


def aopenai_llm(client: Any, model: str, **kwargs: Any) -> AsyncLlm:
    """`openai_llm`, the async form: the async callback over `openai.AsyncOpenAI(...)`
    (any `base_url` too), for the async client functions (`aclassify`)."""
    arguments = _openai_arguments(model, _plain(kwargs, "aopenai_llm"))
    return _allm(
        "aopenai_llm", client, "chat.completions.create", arguments, read_openai
    )


def openai_stream(client: Any, model: str, **kwargs: Any) -> StreamLlm:
    """`openai_llm`, streamed: the streaming callback over `openai.OpenAI(...)` (any
    `base_url` too), for the streaming client functions (`classify_stream`). The request
    is `openai_llm`'s with `stream=True` and `stream_options={"include_usage": True}`;
    each `ChatCompletionChunk` gives its content, forced-tool arguments, refusal and
    reasoning pieces, the last one the usage."""
    arguments = _openai_arguments(model, _streamed(kwargs, "openai_stream"), True)
    method = "chat.completions.create"
    return _stream("openai_stream", client, method, arguments, _OpenAIEvents)


def aopenai_stream(client: Any, model: str, **kwargs: Any) -> AsyncStreamLlm:
    """`openai_stream`, the async form, over `openai.AsyncOpenAI(...)`, for the async
    streaming client functions (`aclassify_stream`)."""
    arguments = _openai_arguments(model, _streamed(kwargs, "aopenai_stream"), True)
    method = "chat.completions.create"
    return _astream("aopenai_stream", client, method, arguments, _OpenAIEvents)


def _anthropic_arguments(
    model: str, max_tokens: int, extra: dict[str, Any], streamed: bool = False
) -> Arguments:
    """The keyword arguments of `client.messages.create` for a request."""
    stream = {"stream": True} if streamed else {}
    return lambda request: {
        **anthropic_payload(request, model, max_tokens),
        **stream,
        **extra,
    }


def anthropic_llm(
    client: Any, model: str, *, max_tokens: int = 4096, **kwargs: Any
) -> Llm:
    """The callback over an Anthropic SDK client (`anthropic.Anthropic(...)`):
    `client.messages.create(...)` with the compiled `output_config` (or the forced tool),
    read by `read_anthropic`. `max_tokens` is the API's required cap on the reply."""
    arguments = _anthropic_arguments(model, max_tokens, _plain(kwargs, "anthropic_llm"))
    return _llm("anthropic_llm", client, "messages.create", arguments, read_anthropic)


def aanthropic_llm(
    client: Any, model: str, *, max_tokens: int = 4096, **kwargs: Any
) -> AsyncLlm:
    """`anthropic_llm`, the async form: the async callback over
    `anthropic.AsyncAnthropic(...)`, for the async client functions (`aclassify`)."""
    arguments = _anthropic_arguments(
        model, max_tokens, _plain(kwargs, "aanthropic_llm")
    )
    return _allm("aanthropic_llm", client, "messages.create", arguments, read_anthropic)


def anthropic_stream(
    client: Any, model: str, *, max_tokens: int = 4096, **kwargs: Any
) -> StreamLlm:
    """`anthropic_llm`, streamed: `client.messages.create(..., stream=True)` over
    `anthropic.Anthropic(...)`, its events read as the pieces of the reply: text, the
    forced tool's name and input JSON, thinking, the usage (input from `message_start`,
    output from `message_delta`), and a refusal when the stop reason is `"refusal"`."""
    extra = _streamed(kwargs, "anthropic_stream")
    arguments = _anthropic_arguments(model, max_tokens, extra, True)
    method = "messages.create"
    return _stream("anthropic_stream", client, method, arguments, _AnthropicEvents)


def aanthropic_stream(
    client: Any, model: str, *, max_tokens: int = 4096, **kwargs: Any
) -> AsyncStreamLlm:
    """`anthropic_stream`, the async form, over `anthropic.AsyncAnthropic(...)`."""
    extra = _streamed(kwargs, "aanthropic_stream")
    arguments = _anthropic_arguments(model, max_tokens, extra, True)
    method = "messages.create"
    return _astream("aanthropic_stream", client, method, arguments, _AnthropicEvents)


def _gemini_arguments(model: str, config: dict[str, Any]) -> Arguments:
    """The keyword arguments of google-genai's `client.models.generate_content` for a
    request: the body's `generationConfig`, `systemInstruction`, `tools` and `toolConfig`
    go in its `config`."""

    def arguments(request: Request) -> dict[str, Any]:
        payload = gemini_payload(request)
        merged: dict[str, Any] = dict(payload.get("generationConfig", {}))
        for key in ("systemInstruction", "tools", "toolConfig"):
            if key in payload:
                merged[key] = payload[key]
        return {
            "model": model,
            "contents": payload["contents"],
            "config": merged | config,
        }

    return arguments


def gemini_llm(client: Any, model: str, **config: Any) -> Llm:
    """The callback over a google-genai client (`google.genai.Client(...)`):
    `client.models.generate_content(...)` with the compiled `responseJsonSchema` (or, with
    `structured="tool"`, the forced `respond` function), read by `read_gemini`. Keyword
    arguments are fields of its `config` (`temperature=0`, `thinking_config={...}`)."""
    arguments = _gemini_arguments(model, _plain(config, "gemini_llm"))
    return _llm("gemini_llm", client, "models.generate_content", arguments, read_gemini)


def agemini_llm(client: Any, model: str, **config: Any) -> AsyncLlm:
    """`gemini_llm`, the async form, for the async client functions (`aclassify`): over
    the same `google.genai.Client(...)`, whose `client.aio.models.generate_content(...)`
    it awaits (its async client, `client.aio`, works as well)."""
    arguments = _gemini_arguments(model, _plain(config, "agemini_llm"))
    aio = getattr(client, "aio", client)
    return _allm("agemini_llm", aio, "models.generate_content", arguments, read_gemini)


def _gemini_events() -> Events:
    return _Responses(read_gemini)


def gemini_stream(client: Any, model: str, **config: Any) -> StreamLlm:
    """`gemini_llm`, streamed: `client.models.generate_content_stream(...)` over
    `google.genai.Client(...)`, each chunk read by `read_gemini` (text, thoughts, usage
    metadata); a function call comes whole, its arguments one chunk of JSON text."""
    arguments = _gemini_arguments(model, _streamed(config, "gemini_stream"))
    method = "models.generate_content_stream"
    return _stream("gemini_stream", client, method, arguments, _gemini_events)


def agemini_stream(client: Any, model: str, **config: Any) -> AsyncStreamLlm:
    """`gemini_stream`, the async form: over the same `google.genai.Client(...)`, whose
    `client.aio.models.generate_content_stream(...)` it awaits (or over `client.aio`)."""
    arguments = _gemini_arguments(model, _streamed(config, "agemini_stream"))
    aio = getattr(client, "aio", client)
    method = "models.generate_content_stream"
    return _astream("agemini_stream", aio, method, arguments, _gemini_events)


def _ollama_arguments(
    model: str, extra: dict[str, Any], streamed: bool = False
) -> Arguments:
    """The keyword arguments of the ollama SDK's `client.chat` for a request."""
    return lambda request: {
        **ollama_payload(request, model),
        "stream": streamed,
        **extra,
    }


def ollama_llm(client: Any, model: str, **kwargs: Any) -> Llm:
    """The callback over an ollama SDK client (`ollama.Client(...)`): `client.chat(...)`
    with the compiled `format` schema, read by `read_ollama` (`options={...}`, `think=...`
    and `keep_alive=...` pass through). Ollama has no compiled forced tool:
    `structured="tool"` sends the schema form, and the answer is read from the reply's
    text."""
    arguments = _ollama_arguments(model, _plain(kwargs, "ollama_llm"))
    return _llm("ollama_llm", client, "chat", arguments, read_ollama)


def aollama_llm(client: Any, model: str, **kwargs: Any) -> AsyncLlm:
    """`ollama_llm`, the async form: the async callback over `ollama.AsyncClient(...)`,
    for the async client functions (`aclassify`)."""
    arguments = _ollama_arguments(model, _plain(kwargs, "aollama_llm"))
    return _allm("aollama_llm", client, "chat", arguments, read_ollama)


def _ollama_events() -> Events:
    return _Responses(read_ollama)


def ollama_stream(client: Any, model: str, **kwargs: Any) -> StreamLlm:
    """`ollama_llm`, streamed: `client.chat(..., stream=True)` over `ollama.Client(...)`,
    each message read by `read_ollama` (content, thinking; the counts in the last)."""
    arguments = _ollama_arguments(model, _streamed(kwargs, "ollama_stream"), True)
    return _stream("ollama_stream", client, "chat", arguments, _ollama_events)


def aollama_stream(client: Any, model: str, **kwargs: Any) -> AsyncStreamLlm:
    """`ollama_stream`, the async form, over `ollama.AsyncClient(...)`."""
    arguments = _ollama_arguments(model, _streamed(kwargs, "aollama_stream"), True)
    return _astream("aollama_stream", client, "chat", arguments, _ollama_events)


__all__ = [
    "AsyncStreamLlm",
    "StreamLlm",
    "aanthropic_llm",
    "aanthropic_stream",
    "agemini_llm",
    "agemini_stream",
    "anthropic_llm",
    "anthropic_stream",
    "aollama_llm",
    "aollama_stream",
    "aopenai_llm",
    "aopenai_stream",
    "gemini_llm",
    "gemini_stream",
    "ollama_llm",
    "ollama_stream",
    "openai_llm",
    "openai_stream",
]
