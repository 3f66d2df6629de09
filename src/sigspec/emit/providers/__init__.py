"""The `providers` target: request fragments, ready to merge, for every json-mode signature
and every tool, per provider (reference/providers.md). Losses are warnings; limits are errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sigspec.diagnostics import Diagnostic, codes
from sigspec.emit.base import Artifact, EmitContext, EmitResult, source_of, with_header
from sigspec.emit.jsonschema import JsonSchema
from sigspec.emit.layout import provider_path
from sigspec.emit.providers import dialects as d
from sigspec.emit.providers.limits import anthropic_limits, openai_limits
from sigspec.emit.providers.openapi import to_openapi
from sigspec.emit.providers.schema import Loss, ProviderSchemaBuilder, Unsupported, recursive_types
from sigspec.emit.targets import PROVIDER_NAMES
from sigspec.semantics import ir

PROVIDERS = PROVIDER_NAMES
_DIALECTS = {
    "openai": d.OPENAI,
    "anthropic": d.ANTHROPIC,
    "gemini": d.GEMINI,
    "ollama": d.OLLAMA,
    "vllm": d.VLLM,
}


@dataclass(frozen=True, slots=True)
class Built:
    schema: JsonSchema
    wrapped: str | None  # the key the real output sits under when the root had to be wrapped


DefsCaches = dict[tuple[str, bool], dict[str, JsonSchema]]


def build(
    sig: ir.Signature,
    project: ir.Project,
    dialect: d.Dialect,
    *,
    recursive: frozenset[str],
    losses: list[Loss],
    caches: DefsCaches,
) -> Built:
    """The provider's schema for a signature's output (a tool's params for tools)."""
    closed = not sig.allow_extra_keys
    builder = ProviderSchemaBuilder(
        project,
        dialect,
        closed=closed,
        recursive=recursive,
        defs_cache=caches.setdefault((dialect.name, closed), {}),
    )
    builder.path = [sig.name]
    if sig.kind == "tool":
        root = builder.object(ir.MapOf(sig.params, open=False))
    else:
        output = sig.output
        if isinstance(output, ir.Ref) and dialect.wrap_root:  # no `$ref` at the root
            builder.ref(output)  # same recursion rule as any other use
            output = project.types[output.name].type
        root = builder.type(output)
    wrapped = None
    if dialect.wrap_root and root.get("type") != "object":
        wrapped = "items" if root.get("type") == "array" else "result"
        root = {
            "type": "object",
            "properties": {wrapped: root},
            "required": [wrapped],
            "additionalProperties": False,
        }
    defs = builder.definitions()
    if defs:
        root = {**root, "$defs": defs}
    if dialect.openapi:
        root = to_openapi(root)
    losses += builder.losses
    return Built(root, wrapped)


def _request_doc(sig: ir.Signature) -> str:
    return sig.doc or f"Return the result of {sig.name}."


def _tool_doc(sig: ir.Signature) -> str:
    return sig.doc or sig.name


def own_strings(sig: ir.Signature) -> tuple[str, ...]:
    """The strings of a signature's fragments that are its own, besides its schemas: its
    name and descriptions (the Python client shares the rest between signatures)."""
    return (sig.name, _request_doc(sig), _tool_doc(sig))


def _requests(sig: ir.Signature, name: str, built: Built, openapi: Built | None) -> dict[str, Any]:
    s = built.schema
    doc = _request_doc(sig)
    if name == "openai":
        function = {"name": sig.name, "description": doc, "strict": True, "parameters": s}
        return {
            "request": {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": sig.name, "strict": True, "schema": s},
                }
            },
            "tool_request": {
                "tools": [{"type": "function", "function": function}],
                "tool_choice": {"type": "function", "function": {"name": sig.name}},
                "parallel_tool_calls": False,
            },
        }
    if name == "anthropic":
        return {
            "request": {"output_config": {"format": {"type": "json_schema", "schema": s}}},
            "tool_request": {
                "tools": [
                    {"name": sig.name, "description": doc, "strict": True, "input_schema": s}
                ],
                "tool_choice": {"type": "tool", "name": sig.name},
            },
        }
    if name == "gemini":
        out: dict[str, Any] = {
            "request": {
                "generationConfig": {
                    "responseMimeType": "application/json",
                    "responseJsonSchema": s,
                }
            }
        }
        if openapi is not None:
            out["openapi_request"] = {
                "generationConfig": {
                    "responseMimeType": "application/json",
                    "responseSchema": openapi.schema,
                }
            }
        return out
    if name == "ollama":
        return {"request": {"format": s}}
    return {"request": {"structured_outputs": {"json": s}}}


def _tool_entry(sig: ir.Signature, name: str, built: Built) -> dict[str, Any]:
    doc = _tool_doc(sig)
    s = built.schema
    if name == "openai":
        return {
            "type": "function",
            "function": {"name": sig.name, "description": doc, "strict": True, "parameters": s},
        }
    if name == "anthropic":
        return {"name": sig.name, "description": doc, "input_schema": s}
    if name == "gemini":
        return {"name": sig.name, "description": doc, "parametersJsonSchema": s}
    return {"type": "function", "function": {"name": sig.name, "description": doc, "parameters": s}}


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


@dataclass
class _Run:
    project: ir.Project
    providers: tuple[str, ...]
    recursive: frozenset[str]
    diagnostics: list[Diagnostic]
    caches: DefsCaches = field(default_factory=dict)

    def entry(self, sig: ir.Signature, name: str) -> dict[str, Any] | None:
        losses: list[Loss] = []
        try:
            built = build(
                sig,
                self.project,
                _DIALECTS[name],
                recursive=self.recursive,
                losses=losses,
                caches=self.caches,
            )
        except Unsupported as exc:
            self.unsupported(sig, name, str(exc))
            return {"unavailable": str(exc)}
        self.report(sig, name, losses, built)
        if sig.kind == "tool":
            return {"tool": _tool_entry(sig, name, built)}
        openapi = self.openapi(sig) if name == "gemini" else None
        return {"wrapped": built.wrapped, **_requests(sig, name, built, openapi)}

    def openapi(self, sig: ir.Signature) -> Built | None:
        losses: list[Loss] = []
        try:
            built = build(
                sig,
                self.project,
                d.GEMINI_OPENAPI,
                recursive=self.recursive,
                losses=losses,
                caches=self.caches,
            )
        except Unsupported as exc:
            self.unsupported(sig, d.GEMINI_OPENAPI.name, str(exc))
            return None
        self.report(sig, d.GEMINI_OPENAPI.name, losses, built)
        return built

    def report(self, sig: ir.Signature, name: str, losses: list[Loss], built: Built) -> None:
        for loss in losses:
            self.diagnostics.append(
                codes.PROVIDER_LOSS.at_origin(
                    loss.origin or sig.origin,
                    provider=name,
                    where=loss.where,
                    what=loss.what,
                )
            )
        problems = {"openai": openai_limits, "anthropic": anthropic_limits}.get(name)
        for what in problems(sig.name, built.schema) if problems else ():
            self.diagnostics.append(
                codes.PROVIDER_LIMIT.at_origin(
                    sig.origin, provider=name, signature=sig.name, what=what
                )
            )

    def unsupported(self, sig: ir.Signature, name: str, reason: str) -> None:
        self.diagnostics.append(
            codes.PROVIDER_UNSUPPORTED.at_origin(
                sig.origin,
                provider=name,
                signature=sig.name,
                reason=reason,
            )
        )

    def artifacts(self) -> Iterator[Artifact]:
        for sig in (*self.project.signatures, *self.project.tools):
            if sig.kind == "signature" and sig.mode != "json":
                continue  # text and ptc_lisp replies are not JSON documents
            entries = {name: self.entry(sig, name) for name in self.providers}
            source = source_of(sig)
            yield Artifact(provider_path(sig), _layout(source, sig, entries), source)


def fragment(
    sig: ir.Signature, project: ir.Project, provider: str
) -> tuple[dict[str, Any] | None, tuple[Diagnostic, ...]]:
    """One provider's entry for one signature or tool, as the `providers` file holds it."""
    run = _Run(project, (provider,), recursive_types(project), [])
    if sig.kind == "signature" and sig.mode != "json":
        return None, ()
    entry = run.entry(sig, provider)
    if entry is not None and "unavailable" in entry:
        entry = None
    return entry, tuple(run.diagnostics)


def fragments_by_provider(
    project: ir.Project, providers: tuple[str, ...]
) -> Callable[[ir.Signature], dict[str, Any]]:
    """For many signatures: each one's available entries by provider, sharing one run's caches
    (diagnostics belong to the providers target and are not collected here)."""
    run = _Run(project, providers, recursive_types(project), [])

    def entries(sig: ir.Signature) -> dict[str, Any]:
        found = {name: run.entry(sig, name) for name in providers}
        return {k: v for k, v in found.items() if v is not None and "unavailable" not in v}

    return entries


class ProvidersEmitter:
    name = "providers"

    def emit(self, project: ir.Project, context: EmitContext) -> EmitResult:
        chosen = tuple(context.options.get("providers", PROVIDERS))
        run = _Run(project, chosen, recursive_types(project), [])
        files = tuple(run.artifacts())
        return EmitResult(files, tuple(run.diagnostics))


EMITTER = ProvidersEmitter()
NAME_PATTERN = re.compile(d.OPENAI_NAME)
