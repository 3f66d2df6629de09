"""Reaching the model: for the configured provider, the request body the runtime's payload
builder makes of a client request (what a cassette records and hashes), and the live
callback (the generated `_transport.OpenAICompatible`, or an official SDK through the
generated `_adapters`). The API key is read from the environment variable the
configuration names, and goes nowhere but the client object (never a repr, a message or a
cassette)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sigspec.commands.test.build import Client

Body = Callable[[dict[str, Any]], dict[str, Any]]
Llm = Callable[[dict[str, Any]], Any]

# The official SDK each provider other than `openai` needs: its import name, its package.
SDKS = {"anthropic": ("anthropic", "anthropic"), "gemini": ("google.genai", "google-genai")}
SDKS["ollama"] = ("ollama", "ollama")
ANTHROPIC_MAX_TOKENS = 4096  # the API requires a cap: the adapter's default
OPENAI_URL = "https://api.openai.com/v1"


class SetupError(ValueError):
    """The configuration cannot reach a model (exit 2): said in a sentence."""


@dataclass(frozen=True)
class Endpoint:
    provider: str
    model: str
    base_url: str | None
    params: Mapping[str, Any]
    api_key: str | None = field(default=None, repr=False)


def api_key(variable: str | None) -> str | None:
    """The key from the environment variable named `variable` (None: no key configured);
    a variable named but unset is an error, since a live run would fail on every call."""
    if variable is None:
        return None
    value = os.environ.get(variable)
    if not value:
        raise SetupError(f"the environment variable {variable} (`api_key_env`) is not set")
    return value


def body_builder(endpoint: Endpoint, client: Client) -> Body:
    """The provider's request body of a client request, as the live callback sends it."""
    runtime = client.runtime["_client"]
    model, params = endpoint.model, dict(endpoint.params)
    if endpoint.provider == "anthropic":
        most = params.pop("max_tokens", ANTHROPIC_MAX_TOKENS)
        return lambda r: {**runtime.anthropic_payload(r, model, most), **params}
    if endpoint.provider == "gemini":
        config = {"config": params} if params else {}
        return lambda r: {"model": model, **runtime.gemini_payload(r), **config}
    if endpoint.provider == "ollama":
        return lambda r: {**runtime.ollama_payload(r, model), **params}
    return lambda r: {**runtime.openai_payload(r, model), **params}


def callback(endpoint: Endpoint, client: Client) -> Llm:
    """The live callback of the configured provider."""
    adapters = client.runtime["_adapters"]
    params = dict(endpoint.params)
    if endpoint.provider == "openai":
        try:
            made: Llm = client.runtime["_transport"].OpenAICompatible(
                base_url=endpoint.base_url or OPENAI_URL,
                model=endpoint.model,
                api_key=endpoint.api_key,
                extra_body=params,
            )
        except ValueError as exc:
            raise SetupError(f"[test] params: {exc}") from None
        return made
    sdk = _sdk(endpoint.provider)
    try:
        return _sdk_callback(endpoint, sdk, adapters, params)
    except Exception as exc:  # the SDK refused its settings (Gemini without a key)
        raise SetupError(f"{endpoint.provider}: {type(exc).__name__}: {exc}") from None


def _sdk_callback(endpoint: Endpoint, sdk: Any, adapters: Any, params: dict[str, Any]) -> Llm:
    if endpoint.provider == "anthropic":
        extra = {"base_url": endpoint.base_url} if endpoint.base_url else {}
        most = params.pop("max_tokens", ANTHROPIC_MAX_TOKENS)
        made = sdk.Anthropic(api_key=endpoint.api_key, **extra)
        # The SDK's method takes only the fields it knows by name: the rest goes as JSON.
        body = {"extra_body": params} if params else {}
        return adapters.anthropic_llm(made, endpoint.model, max_tokens=most, **body)  # type: ignore[no-any-return]
    if endpoint.provider == "gemini":
        http = sdk.types.HttpOptions(base_url=endpoint.base_url) if endpoint.base_url else None
        made = sdk.Client(api_key=endpoint.api_key, http_options=http)
        return adapters.gemini_llm(made, endpoint.model, **params)  # type: ignore[no-any-return]
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    made = sdk.Client(host=endpoint.base_url, headers=headers)
    return adapters.ollama_llm(made, endpoint.model, **params)  # type: ignore[no-any-return]


def _sdk(provider: str) -> Any:
    module, package = SDKS[provider]
    try:
        return importlib.import_module(module)
    except ImportError:
        raise SetupError(
            f"provider `{provider}` needs its official SDK: pip install {package}"
        ) from None
