"""The lowering stage: the checked IR → the views every target consumes.

Targets never walk the IR for these facts themselves and never import each other: a name, a
schema, a provider fragment, a prompt or a runtime descriptor is computed here, once per
declaration (when first asked for), and every target reads the same value. Names are decided
for the whole project up front (they are cheap and cross files); the rest is per declaration,
so a compile may lower two halves of a project in two processes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from sigspec.lower.names import IoNames, ModulePath, io_names, module_path
from sigspec.lower.schema import Caches, JsonSchema, input_schema, output_schema
from sigspec.semantics import descriptors, ir
from sigspec.semantics.types import deref, reachable_names

if TYPE_CHECKING:
    import jinja2

    from sigspec.lower.fragments import Fragment, Fragments
    from sigspec.lower.names.typescript import Names as TypeScriptNames
    from sigspec.lower.prompts import PromptSet

Declaration = ir.Signature | ir.TypeDef | ir.Pipeline


def source_of(decl: Declaration) -> str:
    """The .sig file a declaration comes from, relative to the project root."""
    return decl.origin.source.path if decl.origin is not None else "<unknown>"


@dataclass(frozen=True, slots=True)
class Module:
    """One .sig file's declarations, in source order, and its module path."""

    source: str
    path: ModulePath
    signatures: tuple[ir.Signature, ...]
    tools: tuple[ir.Signature, ...]
    types: tuple[str, ...]  # the named types declared in this file
    pipelines: tuple[ir.Pipeline, ...]

    @property
    def dotted(self) -> str:
        return ".".join(self.path)


def modules(project: ir.Project) -> tuple[Module, ...]:
    """Every file that declares something, sorted by path."""
    found: dict[str, tuple[list[Any], list[Any], list[Any], list[Any]]] = {}

    def of(decl: Declaration) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
        return found.setdefault(source_of(decl), ([], [], [], []))

    for sig in project.signatures:
        of(sig)[0].append(sig)
    for tool in project.tools:
        of(tool)[1].append(tool)
    for name, typedef in project.types.items():
        of(typedef)[2].append(name)
    for pipeline in project.pipelines:
        of(pipeline)[3].append(pipeline)
    return tuple(
        Module(source, module_path(source), *(tuple(part) for part in found[source]))
        for source in sorted(found)
    )


class Lowered:
    """A project's lowered views. One per compile (and per process of a split compile):
    each view is computed on first use and kept."""

    def __init__(self, project: ir.Project) -> None:
        self.project = project
        self.modules = modules(project)
        self.io: Mapping[str, IoNames] = io_names(project.signatures, project.types)
        self._by_source = {m.source: m for m in self.modules}
        self._schema_caches: Caches = {True: {}}
        self._inputs: dict[str, JsonSchema] = {}
        self._outputs: dict[str, JsonSchema] = {}
        self._fragments: dict[tuple[str, str, str], Fragment] = {}
        self._prompts: dict[str, PromptSet] = {}
        self._descriptors: dict[tuple[str, str], descriptors.Descriptor] = {}

    def module_of(self, decl: Declaration) -> Module:
        return self._by_source[source_of(decl)]

    # ---- schemas ----

    def input_schema(self, sig: ir.Signature) -> JsonSchema:
        key = _key(sig)
        if key not in self._inputs:
            self._inputs[key] = input_schema(sig, self.project, self._schema_caches)
        return self._inputs[key]

    def output_schema(self, sig: ir.Signature) -> JsonSchema:
        key = _key(sig)
        if key not in self._outputs:
            self._outputs[key] = output_schema(sig, self.project, self._schema_caches)
        return self._outputs[key]

    # ---- provider fragments ----

    @cached_property
    def _fragment_builder(self) -> Fragments:
        from sigspec.lower.fragments import Fragments

        return Fragments(self.project)

    def fragment(self, sig: ir.Signature, provider: str) -> Fragment:
        """One provider's fragment of a json-mode signature or a tool, with its losses."""
        key = (sig.kind, _key(sig), provider)
        if key not in self._fragments:
            self._fragments[key] = self._fragment_builder.of(sig, provider)
        return self._fragments[key]

    def runtime_fragments(self, sig: ir.Signature) -> dict[str, dict[str, Any]]:
        """The fragment entries the runtimes' payload builders read (`request`,
        `tool_request`, `wrapped`), of each provider a runtime has a builder for; the rest
        (vLLM's, Gemini's OpenAPI form) stay in the providers target."""
        from sigspec.lower.providers import NAMES, provider

        out = {}
        for name in NAMES:
            entries = provider(name).runtime_entries
            fragment = self.fragment(sig, name)
            if entries and fragment.available:
                # `wrapped` only where the root is wrapped: the runtimes read it as optional.
                used = fragment.entry.items()
                out[name] = {k: v for k, v in used if k in entries and (k != "wrapped" or v)}
        return out

    # ---- prompts ----

    @cached_property
    def env(self) -> jinja2.Environment:
        """The one Jinja environment of this compile (prompts, and targets' skeletons)."""
        from sigspec.lower.templating import environment

        return environment()

    def prompts(self, sig: ir.Signature) -> PromptSet:
        """A signature's prompt templates, without any file header."""
        key = _key(sig)
        if key not in self._prompts:
            from sigspec.lower.prompts import prompt_set

            self._prompts[key] = prompt_set(sig, self.project, self.env)
        return self._prompts[key]

    # ---- runtime descriptors ----

    def output_descriptor(self, sig: ir.Signature) -> descriptors.Descriptor:
        key = ("output", _key(sig))
        if key not in self._descriptors:
            self._descriptors[key] = descriptors.output_descriptor(sig, self.project)
        return self._descriptors[key]

    def input_descriptor(self, sig: ir.Signature) -> descriptors.Descriptor:
        key = ("input", _key(sig))
        if key not in self._descriptors:
            self._descriptors[key] = descriptors.input_descriptor(sig)
        return self._descriptors[key]

    def type_descriptors(self, sigs: tuple[ir.Signature, ...]) -> dict[str, Any]:
        """The named types these signatures use, reached through each other too."""
        roots = [t for s in sigs for t in (s.output, *(p.type for p in s.params))]
        names = reachable_names(roots, self.project.types)
        return descriptors.type_descriptors(self.project, names)

    def output_descriptions(self, sig: ir.Signature) -> dict[str, str]:
        """The output's field descriptions, which a pipeline hands to its next step."""
        target = deref(sig.output, self.project.types)
        if not isinstance(target, ir.MapOf):
            return {}
        return {f.name: f.description for f in target.fields if f.description}

    # ---- per-language names ----

    @cached_property
    def typescript(self) -> TypeScriptNames:
        from sigspec.lower.names.typescript import project_names

        return project_names(self)


def _key(sig: ir.Signature) -> str:
    return ir.fold(sig.name)
