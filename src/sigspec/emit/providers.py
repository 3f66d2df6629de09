"""The `providers` target: for every json-mode signature and every tool, each chosen
provider's request fragments, ready to merge into a request (lowered in `lower/fragments.py`).
Losses are warnings; limits are errors; a signature a provider cannot express at all gets
`{"unavailable": reason}`."""

from __future__ import annotations

import json
from typing import Any

from sigspec.diagnostics import Diagnostic
from sigspec.emit.base import Artifact, EmitContext, EmitResult, with_header
from sigspec.emit.layout import provider_path
from sigspec.emit.options import ProvidersOptions
from sigspec.lower.views import Lowered, Module
from sigspec.semantics import ir


def _layout(source: str, sig: ir.Signature, entries: dict[str, Any]) -> str:
    """Pretty at the top, one compact line per provider: readable diffs, and C-speed JSON
    (the stdlib encodes `indent=` output in pure Python, which dominated compile time)."""
    head = with_header(source, {sig.kind: sig.name})
    lines = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    providers = [
        f"    {json.dumps(name)}: {json.dumps(entry, ensure_ascii=False)}"
        for name, entry in entries.items()
    ]
    return "{\n" + "\n".join(lines) + '\n  "providers": {\n' + ",\n".join(providers) + "\n  }\n}\n"


def emit_module(
    lowered: Lowered, module: Module, options: ProvidersOptions, context: EmitContext
) -> EmitResult:
    files: list[Artifact] = []
    diagnostics: list[Diagnostic] = []
    for sig in (*module.signatures, *module.tools):
        if sig.kind == "signature" and sig.mode != "json":
            continue  # text and ptc_lisp replies are not JSON documents
        entries: dict[str, Any] = {}
        for name in options.providers:
            fragment = lowered.fragment(sig, name)
            entries[name] = fragment.entry
            diagnostics += fragment.diagnostics
        files.append(
            Artifact(provider_path(sig), _layout(module.source, sig, entries), module.source)
        )
    return EmitResult(tuple(files), tuple(diagnostics))


def emit_common(lowered: Lowered, options: ProvidersOptions, context: EmitContext) -> EmitResult:
    return EmitResult()
