"""The `python` target: validators and reply parsers, Pydantic models and typed clients.

`python/PACKAGE/_runtime.py`, `_reply.py` and `_client.py` are sigspec's own runtime
(`sigspec/runtime/`), copied, with the Mustache renderer as `_mustache.py`. Each `.sig` file becomes
`PACKAGE/<module>.py` (standard library only: `validate_NAME`, `validate_NAME_input`,
`parse_NAME`), `PACKAGE/models/<module>.py` (Pydantic v2, through datamodel-code-generator)
and `PACKAGE/client/<module>.py` (a function per signature and pipeline).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sigspec.emit.base import HEADER, Artifact, EmitContext, EmitResult, source_of
from sigspec.emit.providers import PROVIDERS, fragments_by_provider
from sigspec.emit.python.descriptors import (
    input_descriptor,
    output_descriptor,
    type_descriptors,
)
from sigspec.emit.python.fastpath import FastPaths, signature_exits
from sigspec.emit.python.names import identifier, module_names, suffix
from sigspec.emit.python.runtime import RUNTIME_MODULES, SHIPPED, shipped_source
from sigspec.emit.templating import environment, render
from sigspec.semantics import ir
from sigspec.semantics.types import reachable_names

DEFAULT_PACKAGE = "signatures"


@dataclass(frozen=True)
class SigView:
    name: str
    ident: str
    output: str
    input: str
    body: str  # validate_NAME's checks (emit/python/fastpath.py)
    result: str  # the normalised value's expression once they passed


def _module(
    project: ir.Project, source: str, sigs: list[ir.Signature], env: Any, compact: bool
) -> str:
    """A source's validators module: generated checks for each signature (fastpath.py), or,
    compact, the runtime's validator bound to each one's descriptors."""
    fast = FastPaths(project)
    views = []
    for sig in sigs:
        ident = suffix(sig.name)
        views.append(
            SigView(
                sig.name,
                ident,
                repr(output_descriptor(sig, project)),
                repr(input_descriptor(sig)),
                *(
                    ("", "")
                    if compact
                    else fast.body(sig.output, "value", 1, exits=signature_exits(ident))
                ),
            )
        )
    exports = [
        repr(f"{kind}_{v.ident}{suffix}")
        for v in views
        for kind, suffix in (("validate", ""), ("validate", "_input"), ("parse", ""))
    ]
    roots = [t for s in sigs for t in (s.output, *(p.type for p in s.params))]
    types = type_descriptors(project, reachable_names(roots, project.types))
    uses_re = any(c.split(" = ", 1)[1].startswith("re.compile(") for c in fast.constants)
    return render(
        env,
        "python/module.py.j2",
        source=source,
        uses_re=uses_re,
        types=repr(types),
        constants=fast.constants,
        functions=fast.functions,
        signatures=views,
        compact=compact,
        exports=sorted(exports),
    )


@dataclass(frozen=True)
class _Modules:
    """What every module of a source needs: the client views of every signature (pipelines
    reach across files), the model texts and the provider fragments."""

    project: ir.Project
    by_source: dict[str, list[ir.Signature]]
    names: dict[str, str]
    models: dict[str, str]  # source -> models module text
    views: dict[str, Any]  # folded signature name -> client.SigView
    fragments: Any
    env: Any
    compact: bool  # validators: the runtime's, bound to descriptors (option validators)

    def texts(self, sources: list[str]) -> list[tuple[str, str]]:
        """(validators module, client module) of each source."""
        return [(self.validators(source), self.client(source)) for source in sources]

    def validators(self, source: str) -> str:
        return _module(self.project, source, self.by_source[source], self.env, self.compact)

    def client(self, source: str) -> str:
        from sigspec.emit.python import client

        views = self.views
        pipelines = [
            client.PipelineView(
                p.name,
                client.function_name(p.name),
                p.doc or "",
                tuple(views[ir.fold(s)] for s in p.steps),
            )
            for p in self.project.pipelines
            if source_of(p) == source and all(views[ir.fold(s)].mode != "ptc_lisp" for s in p.steps)
        ]
        sigs = self.by_source[source]
        sig_views = [views[ir.fold(s.name)] for s in sigs]
        return client.client_module(
            source=source,
            module=self.names[source],
            views=sig_views,
            specs=client.specs(sigs, self.project, self.env, self.fragments, sig_views),
            pipelines=pipelines,
            env=self.env,
        )


def _modules(
    project: ir.Project,
    by_source: dict[str, list[ir.Signature]],
    names: dict[str, str],
    options: dict[str, Any],
    env: Any,
) -> _Modules:
    """Models (through datamodel-code-generator) and what the other modules need."""
    from sigspec.emit.python import client, models

    taken = set(project.types)
    model_names = models.model_names(project.signatures, taken)
    jobs = []
    for source in sorted(by_source):
        extra = [t.name for t in project.types.values() if source_of(t) == source]
        doc = models.document(project, by_source[source], model_names, extra)
        jobs.append((doc, f"# {HEADER.format(source=source)}"))
    made = dict(zip(sorted(by_source), models.generate_many(jobs), strict=True))
    texts = {source: m.text for source, m in made.items()}
    views: dict[str, client.SigView] = {}
    for source in sorted(by_source):
        annotations = client.Annotations(project, made[source].classes, f"_m_{names[source]}")
        for sig in by_source[source]:
            views[ir.fold(sig.name)] = client.sig_view(sig, names[source], model_names, annotations)
    fragments = fragments_by_provider(project, tuple(options.get("providers", PROVIDERS)))
    compact = options.get("validators", "fast") == "compact"
    return _Modules(project, by_source, names, texts, views, fragments, env, compact)


PARALLEL_FROM = 200  # signatures; below this a fork costs more than it saves


def _source_texts(modules: _Modules) -> dict[str, tuple[str, str]]:
    """Each source's (validators, client) texts; for large projects half of the sources in a
    forked child (sigspec/parallel.py), so both cores work."""
    sources = sorted(modules.by_source)
    if len(modules.project.signatures) < PARALLEL_FROM:
        return dict(zip(sources, modules.texts(sources), strict=True))
    from sigspec.infra.parallel import fork_map

    half = len(sources) // 2
    first, second = fork_map(modules.texts, sources[:half], sources[half:])
    return dict(zip(sources, first + second, strict=True))


def _artifacts(project: ir.Project, package: str, options: dict[str, Any]) -> Iterator[Artifact]:
    env = environment()
    by_source: dict[str, list[ir.Signature]] = {}
    for sig in project.signatures:
        by_source.setdefault(source_of(sig), []).append(sig)
    names = module_names(sorted(by_source))
    modules = _modules(project, by_source, names, options, env)
    texts = _source_texts(modules)
    base = f"python/{package}"
    listed = [{"name": names[s], "source": s} for s in sorted(by_source)]
    yield Artifact(f"{base}/__init__.py", render(env, "python/__init__.py.j2", modules=listed), "")
    for name in RUNTIME_MODULES:
        yield Artifact(f"{base}/{SHIPPED[name]}.py", shipped_source(name), "")
    # PEP 561 readers look only for "partial"; the header line is a comment to them.
    yield Artifact(f"{base}/py.typed", "# Code generated by sigspec. DO NOT EDIT.\n", "")
    for source in sorted(by_source):
        yield Artifact(f"{base}/{names[source]}.py", texts[source][0], source)
    for part in ("models", "client"):
        text = render(env, f"python/{part}_init.py.j2", modules=listed)
        yield Artifact(f"{base}/{part}/__init__.py", text, "")
    for source in sorted(by_source):
        yield Artifact(f"{base}/models/{names[source]}.py", modules.models[source], source)
        yield Artifact(f"{base}/client/{names[source]}.py", texts[source][1], source)


class PythonEmitter:
    name = "python"

    def emit(self, project: ir.Project, context: EmitContext) -> EmitResult:
        package = str(context.options.get("package", DEFAULT_PACKAGE))
        return EmitResult(tuple(_artifacts(project, package, context.options)))


EMITTER = PythonEmitter()


__all__ = ["EMITTER", "identifier", "module_names", "suffix"]
