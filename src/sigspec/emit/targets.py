"""Target names, without importing the emitters (the CLI and the up-to-date check need only
the names; `emit/__init__.py` holds the implementations and checks it matches this list)."""

from __future__ import annotations

from collections.abc import Sequence

TARGET_NAMES = ("jsonschema", "providers", "prompts", "python", "typescript", "manifest")
ALWAYS = ("manifest",)  # written whatever was asked for: the record of ownership
PROVIDER_NAMES = ("openai", "anthropic", "gemini", "ollama", "vllm")


def selected(targets: Sequence[str]) -> list[str]:
    """The targets to run, in registry order, the always-on ones included."""
    wanted = set(targets or TARGET_NAMES) | set(ALWAYS)
    return [name for name in TARGET_NAMES if name in wanted]
