"""Where the per-signature targets put a signature's files. Kept apart from the emitters: the
manifest records these paths whichever targets ran, without importing their machinery."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sigspec.semantics import ir


def schema_paths(sig: ir.Signature) -> dict[str, str]:
    return {
        "input": f"jsonschema/{sig.name}.input.json",
        "output": f"jsonschema/{sig.name}.output.json",
    }


def provider_path(sig: ir.Signature) -> str:
    return f"providers/{sig.name}.json"


def prompt_paths(sig: ir.Signature) -> dict[str, str]:
    """Where each prompt of a signature goes; which of them exist depends on its mode."""
    base = f"prompts/{sig.name}"
    return {
        "system": f"{base}/system.mustache",
        "user": f"{base}/user.mustache",
        "retry": f"{base}/retry.mustache",
        "user_local": f"{base}/user.local.mustache",
    }
