"""Typed client modules: one function per signature and pipeline of a .sig file.

Each function hands its arguments to `_client.call_json` (or `call_text`), which validates them
with the generated input validator, builds the prompt from the compiled templates, runs the
flow with the generated reply parser, and returns a `Step` of the Pydantic output model.
Every value taken from the .sig file reaches the module as a Python literal made by `repr` or
as JSON text inside one, so nothing in a signature can become code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jinja2

from sigspec.emit.python.imports import Aliases, relative
from sigspec.emit.python.shared import SharedJson, packed_text
from sigspec.emit.python.texts import SharedText
from sigspec.lower.fragments import own_strings
from sigspec.lower.names.python import function_name, kwarg, suffix
from sigspec.lower.providers import NAMES as PROVIDERS
from sigspec.lower.providers import provider
from sigspec.lower.templating import render
from sigspec.lower.views import Lowered, Module
from sigspec.semantics import ir
from sigspec.semantics.types import deref

_PRIM: Mapping[ir.PrimKind, str] = ir.per_primitive(
    {
        "string": "str",
        "keyword": "str",
        "datetime": "str",
        "int": "int",
        "float": "float",
        "bool": "bool",
        "any": "Any",
        "map": "dict[str, Any]",
    }
)


@dataclass(frozen=True)
class Annotations:
    """Python annotations for IR types; named object types may also be passed as models."""

    project: ir.Project
    classes: frozenset[str]
    models: str  # the alias the client module imports its models module under

    def of(self, t: ir.TypeRef, seen: tuple[str, ...] = ()) -> str:
        match t:
            case ir.Prim(kind):
                return _PRIM[kind]
            case ir.ListOf(item):
                return f"list[{self.of(item, seen)}]"
            case ir.MapOf():
                return "dict[str, Any]"
            case ir.Optional(inner):
                return f"{self.of(inner, seen)} | None"
            case ir.Literal(value):
                return "float" if isinstance(value, float) else f"Literal[{value!r}]"
            case ir.Union(members):
                return self._union(members, seen)
            case ir.Ref(name):
                return self._named(name, seen)
        return "Any"

    def _union(self, members: Iterable[ir.TypeRef], seen: tuple[str, ...]) -> str:
        literals = [
            m.value for m in members if isinstance(m, ir.Literal) and not isinstance(m.value, float)
        ]
        rest = [
            self.of(m, seen)
            for m in members
            if not (isinstance(m, ir.Literal) and not isinstance(m.value, float))
        ]
        parts = ([f"Literal[{', '.join(repr(v) for v in literals)}]"] if literals else []) + rest
        return " | ".join(dict.fromkeys(parts))

    def _named(self, name: str, seen: tuple[str, ...]) -> str:
        target = deref(ir.Ref(name), self.project.types)
        if isinstance(target, ir.MapOf):
            if name in self.classes:
                return f"{self.models}.{name} | dict[str, Any]"
            return "dict[str, Any]"
        if name in seen:
            return "Any"
        return self.of(target, (*seen, name))


@dataclass(frozen=True)
class ParamView:
    name: str
    kwarg: str
    annotation: str
    default: str | None  # a Python literal, or None when the param is required


@dataclass(frozen=True)
class SigView:
    name: str
    ident: str  # the client function's name
    mode: str
    doc: str
    params: tuple[ParamView, ...]
    output: str  # the output model's class name
    module: str  # the generated module (client/<module>.py, models/<module>.py)
    validators: str  # the tail of its validator names: validate_<it>, parse_<it>


def _params(sig: ir.Signature, annotations: Annotations) -> tuple[ParamView, ...]:
    out = []
    for p in sig.params:
        default = None
        if p.default is not None:
            default = repr(p.default.value)
        elif isinstance(p.type, ir.Optional):
            default = "None"
        out.append(ParamView(p.name, kwarg(p.name), annotations.of(p.type), default))
    # Required params first, so the generated `def` is valid whatever the declaration order.
    return tuple(sorted(out, key=lambda v: v.default is not None))


def sig_view(lowered: Lowered, sig: ir.Signature, annotations: Annotations) -> SigView:
    return SigView(
        name=sig.name,
        ident=function_name(sig.name),
        mode=sig.mode,
        doc=sig.doc or "",
        params=_params(sig, annotations),
        output=lowered.io[sig.name].output,
        module=lowered.module_of(sig).dotted,
        validators=suffix(sig.name),
    )


def _used(lowered: Lowered, sig: ir.Signature) -> dict[str, Any]:
    """The fragment entries the runtime's payload builders read, of each provider it has one
    for; the rest (vLLM's, Gemini's OpenAPI form) stay in the providers target."""
    out = {}
    for name in PROVIDERS:
        entries = provider(name).runtime_entries
        fragment = lowered.fragment(sig, name)
        if entries and fragment.available:
            out[name] = {k: v for k, v in fragment.entry.items() if k in entries}
    return out


@dataclass(frozen=True)
class Specs:
    """What a client module holds of its signatures' compiled output."""

    table: str | None  # the shared JSON table (emit/python/shared.py), if any
    texts: list[str]  # `_TEXT_n = ...`: prompt paragraphs in common (emit/python/texts.py)
    specs: list[str]  # each signature's `_client.Spec(...)` expression


def specs(lowered: Lowered, sigs: Sequence[ir.Signature], views: Sequence[SigView]) -> Specs:
    """Each signature's `_client.Spec(...)` expression: compiled prompts, schema and
    provider fragments (schema and fragments as packed JSON text, decoded on first use so
    that importing stays cheap), with what the module's signatures have in common."""
    schemas = [lowered.output_schema(sig) if sig.mode == "json" else None for sig in sigs]
    frags = [_used(lowered, sig) if sig.mode == "json" else None for sig in sigs]
    shared = SharedJson([d for d in (*schemas, *frags) if d])
    # A signature's fragments are the same wrappers as its neighbours', around its own
    # schemas, with its name and description: framed, each keeps only what is its own.
    framed = shared.frames(
        [shared.pack(frag) if frag else None for frag in frags],
        [own_strings(sig) for sig in sigs],
    )
    packed = [
        (shared.pack(schema) if schema else None, frag)
        for schema, frag in zip(schemas, framed, strict=True)
    ]
    table = shared.table() if shared.entries else None
    prompts = [lowered.prompts(sig) for sig in sigs]
    common = SharedText(t for p in prompts for t in (p.system, p.user, p.retry) if t is not None)
    out = []
    for sig, view, (schema, frag), texts in zip(sigs, views, packed, prompts, strict=True):
        fields = {
            "name": repr(sig.name),
            "mode": repr(sig.mode),
            "system": common.expression(texts.system),
            "user": common.expression(texts.user),
            "retry": common.expression(texts.retry),
            "schema_json": repr(packed_text(schema)),
            "max_turns": repr(sig.max_turns),
            "doc": repr(sig.doc or ""),
            "fragments_json": repr(packed_text(frag)),
            "descriptions": repr(lowered.output_descriptions(sig)),
            "shared": "_SHARED" if table else "None",
            "module": repr(view.module),
            "key": repr(view.validators),
            "model": repr(view.output),
        }
        body = "".join(f"\n    {k}={v}," for k, v in fields.items())
        out.append(f"_client.Spec({body}\n)")
    return Specs(table, common.constants(), out)


@dataclass(frozen=True)
class PipelineView:
    name: str
    ident: str
    doc: str
    steps: tuple[SigView, ...]


@dataclass(frozen=True, slots=True)
class ImportLine:
    source: str  # after `from`
    name: str  # after `import`
    alias: str
    module: str = ""  # the dotted module path it stands for


def _returns(view: SigView, models: Mapping[str, str]) -> str:
    return "Step[str]" if view.mode == "text" else f"Step[{models[view.module]}.{view.output}]"


def client_module(
    lowered: Lowered,
    module: Module,
    classes: Mapping[str, frozenset[str]],
    env: jinja2.Environment,
) -> str:
    """The client module of one .sig file. `classes` holds the model classes of every
    module whose signatures this one's functions name (its own, and its pipelines' steps)."""
    here = ("client", *module.path)
    runnable = pipeline_steps(lowered, module)
    others = sorted({lowered.module_of(s).dotted for _, sigs in runnable for s in sigs})
    aliases = Aliases.of(module.dotted, [o for o in others if o != module.dotted])

    def view(sig: ir.Signature) -> SigView:
        dotted = lowered.module_of(sig).dotted
        annotations = Annotations(lowered.project, classes[dotted], aliases.models[dotted])
        return sig_view(lowered, sig, annotations)

    def line(kind: str, dotted: str, alias: str) -> ImportLine:
        path = (kind, *dotted.split("."))
        return ImportLine(relative(here, path[:-1]), path[-1], alias, dotted)

    views = [view(s) for s in module.signatures]
    pipelines = [
        PipelineView(p.name, function_name(p.name), p.doc or "", tuple(view(s) for s in sigs))
        for p, sigs in runnable
    ]
    returns = {v.ident: _returns(v, aliases.models) for v in views}
    returns.update({p.ident: _returns(p.steps[-1], aliases.models) for p in pipelines})
    models = [line("models", m, a) for m, a in aliases.models.items()]
    texts = specs(lowered, module.signatures, views)
    return render(
        env,
        "python/client.py.j2",
        source=module.source,
        signatures=list(zip(views, texts.specs, strict=True)),
        shared=texts.table,
        texts=texts.texts,
        pipelines=pipelines,
        returns=returns,
        aliases=aliases,
        up=relative(here, ()),
        up_client=relative(here, ("_client",)),
        validators=ImportLine(relative(here, module.path[:-1]), module.path[-1], "_v"),
        own=models[0],
        models=models,
        clients=[line("client", m, a) for m, a in aliases.clients.items()],
    )


def pipeline_steps(
    lowered: Lowered, module: Module
) -> list[tuple[ir.Pipeline, list[ir.Signature]]]:
    """The module's pipelines a client runs, with their steps' signatures (a PTC-Lisp step
    runs elsewhere, so a pipeline with one has no client function)."""
    out = []
    for p in module.pipelines:
        sigs = [lowered.project.signature(s) for s in p.steps]
        steps = [s for s in sigs if s is not None]
        if len(steps) == len(sigs) and all(s.mode != "ptc_lisp" for s in steps):
            out.append((p, steps))
    return out
