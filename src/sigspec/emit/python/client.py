"""Typed client modules: one function per signature and pipeline of a .sig file.

Each function hands its arguments to `_client.call_json` (or `call_text`), which validates them
with the generated input validator, builds the prompt from the compiled templates, runs the
flow with the generated reply parser, and returns a `Step` of the Pydantic output model.
Every value taken from the .sig file reaches the module as a Python literal made by `repr` or
as JSON text inside one, so nothing in a signature can become code.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import jinja2

from sigspec.emit.base import source_of
from sigspec.emit.jsonschema import output_schema
from sigspec.emit.prompts import header_line, prompt_texts
from sigspec.emit.providers import own_strings
from sigspec.emit.python.models import ModelNames
from sigspec.emit.python.names import suffix
from sigspec.emit.python.shared import SharedJson, packed_text
from sigspec.emit.python.texts import SharedText
from sigspec.emit.templating import render
from sigspec.semantics import ir
from sigspec.semantics.types import deref

# Keyword arguments of every client function; a param of the same name gets a trailing `_`.
RESERVED = frozenset({"llm", "max_turns", "structured", "field_descriptions"})

_PRIM = {
    "string": "str",
    "keyword": "str",
    "datetime": "str",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "any": "Any",
    "map": "dict[str, Any]",
}


def kwarg(name: str) -> str:
    """A param's keyword-argument name: an identifier, never a keyword or a client option."""
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    text = f"_{text}" if not text or text[0].isdigit() else text
    clash = keyword.iskeyword(text) or text in RESERVED or _private(text)
    return f"{text}_" if clash else text


def _private(name: str) -> bool:
    """A name the module itself uses (`_v`, `_client`, `_m_<module>`, ...): a param or
    function so named would shadow it."""
    return name in ("_v", "_client") or name.startswith(
        ("_m_", "_c_", "_SPEC_", "_SHARED", "_TEXT_")
    )


# Module-level names of a client module that a function name must not shadow.
_MODULE_NAMES = frozenset(
    {
        "Any",
        "JsonEnforcementError",
        "Literal",
        "Llm",
        "Mapping",
        "Request",
        "Step",
        "TYPE_CHECKING",
        "annotations",
    }
)


def function_name(name: str) -> str:
    """A signature's or pipeline's client function name, clear of the module's own names."""
    text = kwarg(name)
    return f"{text}_" if text in _MODULE_NAMES else text


@dataclass(frozen=True)
class Annotations:
    """Python annotations for IR types; named object types may also be passed as models."""

    project: ir.Project
    classes: frozenset[str]
    models: str  # the alias the client module imports its models module under

    def of(self, t: ir.TypeRef, seen: tuple[str, ...] = ()) -> str:
        match t:
            case ir.Prim(kind):
                return _PRIM.get(kind, "Any")
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


def sig_view(
    sig: ir.Signature, module: str, names: dict[str, ModelNames], annotations: Annotations
) -> SigView:
    return SigView(
        name=sig.name,
        ident=function_name(sig.name),
        mode=sig.mode,
        doc=sig.doc or "",
        params=_params(sig, annotations),
        output=names[sig.name].output,
        module=module,
        validators=suffix(sig.name),
    )


def output_descriptions(sig: ir.Signature, project: ir.Project) -> dict[str, str]:
    """The output's field descriptions, which a pipeline hands to its next step."""
    target = deref(sig.output, project.types)
    if not isinstance(target, ir.MapOf):
        return {}
    return {f.name: f.description for f in target.fields if f.description}


# The fragment entries the runtime's payload helpers read; the rest (vLLM's, Gemini's OpenAPI
# form) stay in the providers target, so each client module carries less.
_USED = {
    "openai": ("wrapped", "request", "tool_request"),
    "anthropic": ("wrapped", "request", "tool_request"),
    "gemini": ("wrapped", "request"),
    "ollama": ("wrapped", "request"),
}


def _used(entries: dict[str, Any]) -> dict[str, Any]:
    return {
        provider: {k: v for k, v in entry.items() if k in _USED[provider]}
        for provider, entry in entries.items()
        if provider in _USED
    }


@dataclass(frozen=True)
class Specs:
    """What a client module holds of its signatures' compiled output."""

    table: str | None  # the shared JSON table (emit/python/shared.py), if any
    texts: list[str]  # `_TEXT_n = ...`: prompt paragraphs in common (emit/python/texts.py)
    specs: list[str]  # each signature's `_client.Spec(...)` expression


def _template(text: str | None, sig: ir.Signature) -> str | None:
    """A prompt file's text less its header: a standalone comment line, which renders to
    nothing (the client module has a header of its own)."""
    header = header_line(source_of(sig)) + "\n"
    return text[len(header) :] if text is not None and text.startswith(header) else text


def specs(
    sigs: list[ir.Signature],
    project: ir.Project,
    env: jinja2.Environment,
    fragments: Callable[[ir.Signature], dict[str, Any]],
    views: list[SigView],
) -> Specs:
    """Each signature's `_client.Spec(...)` expression: compiled prompts, schema and
    provider fragments (schema and fragments as packed JSON text, decoded on first use so
    that importing stays cheap), with what the module's signatures have in common."""
    schemas = [output_schema(sig, project) if sig.mode == "json" else None for sig in sigs]
    frags = [_used(fragments(sig)) if sig.mode == "json" else None for sig in sigs]
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
    prompts = [
        {role: _template(texts.get(role), sig) for role in ("system", "user", "retry")}
        for sig in sigs
        for texts in (prompt_texts(sig, project, env),)
    ]
    common = SharedText(t for p in prompts for t in p.values() if t is not None)
    out = []
    for sig, view, (schema, frag), texts in zip(sigs, views, packed, prompts, strict=True):
        fields = {
            "name": repr(sig.name),
            "mode": repr(sig.mode),
            "system": common.expression(texts["system"]),
            "user": common.expression(texts["user"]),
            "retry": common.expression(texts["retry"]),
            "schema_json": repr(packed_text(schema)),
            "max_turns": repr(sig.max_turns),
            "doc": repr(sig.doc or ""),
            "fragments_json": repr(packed_text(frag)),
            "descriptions": repr(output_descriptions(sig, project)),
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

    @property
    def returns(self) -> str:
        last = self.steps[-1]
        return "Step[str]" if last.mode == "text" else f"Step[_m_{last.module}.{last.output}]"


def client_module(
    *,
    source: str,
    module: str,
    views: list[SigView],
    specs: Specs,
    pipelines: list[PipelineView],
    env: jinja2.Environment,
) -> str:
    """The client module of one .sig file."""
    others = sorted({s.module for p in pipelines for s in p.steps} - {module})
    return render(
        env,
        "python/client.py.j2",
        source=source,
        module=module,
        signatures=list(zip(views, specs.specs, strict=True)),
        shared=specs.table,
        texts=specs.texts,
        pipelines=pipelines,
        others=others,
    )
