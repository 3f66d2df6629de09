"""The provider registry: one module per provider, one line here per module.

A provider module holds its dialect of JSON Schema, its size limits, the shapes of its
request fragments and tool entries, and the names of its runtime payload builder and reply
reader (`base.Provider`). Modules are imported when a provider is first used, so that reading
the configuration needs only the names.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sigspec.lower.providers.base import Provider

PROVIDERS: dict[str, str] = {
    "openai": "sigspec.lower.providers.openai",
    "anthropic": "sigspec.lower.providers.anthropic",
    "gemini": "sigspec.lower.providers.gemini",
    "ollama": "sigspec.lower.providers.ollama",
    "vllm": "sigspec.lower.providers.vllm",
}
NAMES = tuple(PROVIDERS)


def provider(name: str) -> Provider:
    """The provider `name` (a key of PROVIDERS)."""
    found: Provider = importlib.import_module(PROVIDERS[name]).PROVIDER
    return found
