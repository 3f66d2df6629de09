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

Keyword arguments beyond the model go to the SDK's method as they are (Gemini's into its
`config`), after the compiled ones, so they win: `temperature=0`, `extra_body={...}`, or a
`response_format` that pins the form a server takes.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from .client import (
    AsyncLlm,
    Llm,
    Request,
    anthropic_payload,
    gemini_payload,
    ollama_payload,
    openai_payload,
    read_anthropic,
    read_gemini,
    read_ollama,
    read_openai,
)


def _plain(kwargs: dict[str, Any], adapter: str) -> dict[str, Any]:
    """The user's extra arguments, refused where they would change what the reply is."""
    if kwargs.get("stream"):
        raise ValueError(f"{adapter}: the callback reads whole replies, not streams")
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


def _openai_arguments(model: str, extra: dict[str, Any]) -> Arguments:
    """The keyword arguments of `client.chat.completions.create` for a request."""

    def arguments(request: Request) -> dict[str, Any]:
        payload = openai_payload(request, model)
        del payload["stream"]  # the SDK's default; a streamed reply is another method's
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


def _anthropic_arguments(
    model: str, max_tokens: int, extra: dict[str, Any]
) -> Arguments:
    """The keyword arguments of `client.messages.create` for a request."""
    return lambda request: {**anthropic_payload(request, model, max_tokens), **extra}


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


def _ollama_arguments(model: str, extra: dict[str, Any]) -> Arguments:
    """The keyword arguments of the ollama SDK's `client.chat` for a request."""
    return lambda request: {**ollama_payload(request, model), **extra}


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


__all__ = [
    "aanthropic_llm",
    "agemini_llm",
    "anthropic_llm",
    "aollama_llm",
    "aopenai_llm",
    "gemini_llm",
    "ollama_llm",
    "openai_llm",
]
