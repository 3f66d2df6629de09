"""The official SDKs as the `llm` callback, one line each. Standard library only.

Copied into every generated Python package as `_adapters.py`. An adapter takes the user's own
client object (`openai.OpenAI`, `anthropic.Anthropic`, `google.genai.Client`,
`ollama.Client`) and a model name, and returns the callback the generated client functions
take: it builds the body from the request's compiled fragments with the runtime's payload
builders (the schema form, or the forced `respond` tool when the call asks
`structured="tool"`), calls the SDK's own method, and reads content, tool calls, refusal,
reasoning and usage with the runtime's readers. Nothing here imports an SDK: the package
still needs pydantic alone, and any object with the same method works (a proxy, a mock).

Keyword arguments beyond the model go to the SDK's method as they are (Gemini's into its
`config`), after the compiled ones, so they win: `temperature=0`, `extra_body={...}`, or a
`response_format` that pins the form a server takes.
"""

from __future__ import annotations

from typing import Any

from .client import (
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
            "(an async client, such as AsyncOpenAI)"
        )
    return response


def _openai_arguments(
    request: Request, model: str, extra: dict[str, Any]
) -> dict[str, Any]:
    """The keyword arguments of `client.chat.completions.create` for a request."""
    payload = openai_payload(request, model)
    del payload["stream"]  # the SDK's default; a streamed reply is another method's
    return {**payload, **extra}


def openai_llm(client: Any, model: str, **kwargs: Any) -> Llm:
    """The callback over an OpenAI SDK client (`openai.OpenAI(...)`, also with the
    `base_url` of any OpenAI-compatible server: vLLM, Ollama's `/v1`, llama.cpp, LM Studio,
    a LiteLLM proxy): `client.chat.completions.create(...)` with the compiled
    `response_format` (or the forced tool), read by `read_openai`."""
    extra = _plain(kwargs, "openai_llm")

    def llm(request: Request) -> dict[str, Any]:
        arguments = _openai_arguments(request, model, extra)
        return read_openai(
            _sync(client.chat.completions.create(**arguments), "openai_llm")
        )

    return llm


def _anthropic_arguments(
    request: Request, model: str, max_tokens: int, extra: dict[str, Any]
) -> dict[str, Any]:
    """The keyword arguments of `client.messages.create` for a request."""
    return {**anthropic_payload(request, model, max_tokens), **extra}


def anthropic_llm(
    client: Any, model: str, *, max_tokens: int = 4096, **kwargs: Any
) -> Llm:
    """The callback over an Anthropic SDK client (`anthropic.Anthropic(...)`):
    `client.messages.create(...)` with the compiled `output_config` (or the forced tool),
    read by `read_anthropic`. `max_tokens` is the API's required cap on the reply."""
    extra = _plain(kwargs, "anthropic_llm")

    def llm(request: Request) -> dict[str, Any]:
        arguments = _anthropic_arguments(request, model, max_tokens, extra)
        return read_anthropic(
            _sync(client.messages.create(**arguments), "anthropic_llm")
        )

    return llm


def _gemini_arguments(
    request: Request, model: str, config: dict[str, Any]
) -> dict[str, Any]:
    """The keyword arguments of google-genai's `client.models.generate_content` for a
    request: the body's `generationConfig` and `systemInstruction` go in its `config`."""
    payload = gemini_payload(request)
    merged: dict[str, Any] = dict(payload.get("generationConfig", {}))
    if "systemInstruction" in payload:
        merged["systemInstruction"] = payload["systemInstruction"]
    return {"model": model, "contents": payload["contents"], "config": merged | config}


def gemini_llm(client: Any, model: str, **config: Any) -> Llm:
    """The callback over a google-genai client (`google.genai.Client(...)`):
    `client.models.generate_content(...)` with the compiled `responseJsonSchema`, read by
    `read_gemini`. Keyword arguments are fields of its `config` (`temperature=0`,
    `thinking_config={...}`). Gemini has no compiled forced tool: `structured="tool"` sends
    the schema form, and the answer is read from the reply's text."""
    extra = _plain(config, "gemini_llm")

    def llm(request: Request) -> dict[str, Any]:
        arguments = _gemini_arguments(request, model, extra)
        return read_gemini(
            _sync(client.models.generate_content(**arguments), "gemini_llm")
        )

    return llm


def _ollama_arguments(
    request: Request, model: str, extra: dict[str, Any]
) -> dict[str, Any]:
    """The keyword arguments of the ollama SDK's `client.chat` for a request."""
    return {**ollama_payload(request, model), **extra}


def ollama_llm(client: Any, model: str, **kwargs: Any) -> Llm:
    """The callback over an ollama SDK client (`ollama.Client(...)`): `client.chat(...)`
    with the compiled `format` schema, read by `read_ollama` (`options={...}`, `think=...`
    and `keep_alive=...` pass through). Ollama has no compiled forced tool:
    `structured="tool"` sends the schema form, and the answer is read from the reply's
    text."""
    extra = _plain(kwargs, "ollama_llm")

    def llm(request: Request) -> dict[str, Any]:
        arguments = _ollama_arguments(request, model, extra)
        return read_ollama(_sync(client.chat(**arguments), "ollama_llm"))

    return llm


__all__ = [
    "anthropic_llm",
    "gemini_llm",
    "ollama_llm",
    "openai_llm",
]
