"""Provider fragments: a signature's output (a tool's params) in each provider's dialect,
inside that provider's request shapes, with every loss and limit as a diagnostic.

Losses (what a provider cannot enforce, moved to the description and checked by sigspec's
validator after the reply) are warnings; limits (what it would refuse at run time) are
errors; a signature a provider cannot express at all gets `{"unavailable": reason}`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sigspec.diagnostics import Diagnostic, codes
from sigspec.lower.providers import provider
from sigspec.lower.providers.base import Built, Provider, Request
from sigspec.lower.providers.dialect import Dialect
from sigspec.lower.providers.schema import (
    Loss,
    ProviderSchemaBuilder,
    Unsupported,
    recursive_types,
)
from sigspec.lower.schema import JsonSchema
from sigspec.semantics import ir


@dataclass(frozen=True, slots=True)
class Fragment:
    """One provider's entry for one signature or tool, as the providers file holds it."""

    entry: dict[str, Any]  # {"unavailable": reason} when the provider cannot express it
    diagnostics: tuple[Diagnostic, ...]
    schema: JsonSchema | None = None  # the output in the provider's dialect, as `entry` holds it

    @property
    def available(self) -> bool:
        return "unavailable" not in self.entry


def request_description(sig: ir.Signature) -> str:
    return sig.doc or f"Return the result of {sig.name}."


def tool_description(sig: ir.Signature) -> str:
    return sig.doc or sig.name


DefsCaches = dict[tuple[str, bool], dict[str, JsonSchema]]


@dataclass
class Fragments:
    """Builds fragments for one project; each dialect's `$defs` are built once and shared
    by every signature that uses them."""

    project: ir.Project
    recursive: frozenset[str] = frozenset()
    caches: DefsCaches = field(default_factory=dict)
    providers: dict[str, Provider] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.recursive = recursive_types(self.project)

    def of(self, sig: ir.Signature, name: str) -> Fragment:
        found: list[Diagnostic] = []
        chosen = self.providers.get(name) or self.providers.setdefault(name, provider(name))
        try:
            built = self._build(sig, name, chosen.dialect, found)
        except Unsupported as exc:
            return Fragment({"unavailable": str(exc)}, tuple(found))
        found += self._limits(sig, chosen, built)
        if sig.kind == "tool":
            entry = {"tool": chosen.tool(sig.name, tool_description(sig), built.schema)}
            return Fragment(entry, tuple(found))
        request = Request(
            sig.name,
            request_description(sig),
            built,
            lambda dialect: self._variant(sig, name, dialect, found),
        )
        requests: dict[str, Any] = {"wrapped": built.wrapped, **chosen.requests(request)}
        return Fragment(requests, tuple(found), built.schema)

    def _variant(
        self, sig: ir.Signature, name: str, dialect: Dialect, found: list[Diagnostic]
    ) -> Built | None:
        """Another dialect's form of the same signature (Gemini's OpenAPI subset)."""
        try:
            return self._build(sig, name, dialect, found)
        except Unsupported:
            return None

    def _build(
        self, sig: ir.Signature, name: str, dialect: Dialect, found: list[Diagnostic]
    ) -> Built:
        """Raises Unsupported (reported in `found`) when the dialect cannot express it."""
        losses: list[Loss] = []
        try:
            built = build(
                sig,
                self.project,
                dialect,
                recursive=self.recursive,
                losses=losses,
                caches=self.caches,
            )
        except Unsupported as exc:
            found.append(
                codes.PROVIDER_UNSUPPORTED.at_origin(
                    sig.origin,
                    provider=_reported(name, dialect),
                    signature=sig.name,
                    reason=str(exc),
                )
            )
            raise
        found += [
            codes.PROVIDER_LOSS.at_origin(
                loss.origin or sig.origin,
                provider=_reported(name, dialect),
                where=loss.where,
                what=loss.what,
            )
            for loss in losses
        ]
        return built

    def _limits(self, sig: ir.Signature, chosen: Provider, built: Built) -> list[Diagnostic]:
        return [
            codes.PROVIDER_LIMIT.at_origin(
                sig.origin, provider=chosen.name, signature=sig.name, what=what
            )
            for what in chosen.limits(sig.name, built.schema)
        ]


def _reported(provider: str, dialect: Dialect) -> str:
    """How a report names the provider: by the name `--provider` takes, and a second form of
    its schema by its fragment entry too."""
    return f"{provider} (`{dialect.form}`)" if dialect.form else provider


def build(
    sig: ir.Signature,
    project: ir.Project,
    dialect: Dialect,
    *,
    recursive: frozenset[str],
    losses: list[Loss],
    caches: DefsCaches,
) -> Built:
    """A signature's output (a tool's params) in one dialect."""
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
    losses += builder.losses
    return Built(root, wrapped)
