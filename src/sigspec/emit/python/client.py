"""Typed client modules: one function per signature and pipeline of a .sig file.

A client module reads like one a person would write: the named types' JSON Schemas first,
each once; then per signature its prompts as triple-quoted text, its output schema and
provider request fragments as dict literals (a provider's form of a schema only where it
differs from the plain one), the `Spec` that binds them, and its function, documented from
the `##` comment and the field descriptions. Each function hands its arguments to
`_client.call_json` (or `call_text`), which validates them with the generated input
validator, renders the prompts, runs the flow with the generated reply parser, and returns a
`Step` of the Pydantic output model. Each function and pipeline has an async form beside it,
`aNAME` (`async_names`), which hands the same arguments to `_client.acall_json` (or
`acall_text`) and awaits an async callback: the runtime's one loop serves both.

Every value from a .sig file reaches the module as a literal printed by `pysource`, so
nothing in a signature can become code, and the module is `ruff format` clean as written.
"""

from __future__ import annotations

import json
import keyword
import textwrap
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import jinja2

from sigspec.emit.python import pysource as ps
from sigspec.emit.python.imports import Aliases, relative
from sigspec.emit.python.pytypes import PRIMITIVES
from sigspec.emit.python.validators import partial_types
from sigspec.lower.names.python import (
    CLIENT_MODULE_NAMES,
    constant,
    function_name,
    kwarg,
    suffix,
)
from sigspec.lower.providers import NAMES as PROVIDERS
from sigspec.lower.providers import provider
from sigspec.lower.templating import render
from sigspec.lower.views import Lowered, Module
from sigspec.semantics import ir
from sigspec.semantics.types import deref

# Names a module-level name of a client module never takes: what the module imports and the
# builtins its annotations use (`CLIENT_MODULE_NAMES`), and the keywords (an alias named
# after a param `none` must not be `None`). A fixed list: the same on every Python.
MODULE_NAMES = CLIENT_MODULE_NAMES | frozenset(keyword.kwlist)


@dataclass
class LiteralAliases:
    """Module-level aliases for the `Literal[...]` types of params too long to show inline:
    `Colour = Literal["red", ...]`, named after the .sig type (or the param) they stand for."""

    names: Namer
    by_text: dict[str, str] = field(default_factory=dict)
    statements: list[str] = field(default_factory=list)

    def alias(self, values: Sequence[Any], wanted: str) -> str:
        node = ps.subscript("Literal", *(ps.lit(v) for v in values))
        if node.text not in self.by_text:
            self.by_text[node.text] = name = self.names.take(wanted)
            self.statements.append(ps.assign(name, node))
        return self.by_text[node.text]


@dataclass(frozen=True)
class Annotations:
    """Python annotations for IR types; named object types may also be passed as models."""

    project: ir.Project
    classes: frozenset[str]
    models: str  # the alias the client module imports its models module under
    aliases: LiteralAliases | None = None  # given: literal unions become aliases
    naming: str = ""  # what an alias made here is named after

    def of(self, t: ir.TypeRef, seen: tuple[str, ...] = ()) -> str:
        match t:
            case ir.Prim(kind):
                return PRIMITIVES[kind]
            case ir.ListOf(item):
                return f"list[{self.of(item, seen)}]"
            case ir.MapOf():
                return "dict[str, Any]"
            case ir.Optional(inner):
                return f"{self.of(inner, seen)} | None"
            case ir.Literal(value):
                return "float" if isinstance(value, float) else f"Literal[{ps.flat(ps.lit(value))}]"
            case ir.Union(members):
                return self._union(members, seen)
            case ir.Ref(name):
                return self._named(name, seen)
        return "Any"

    def _union(self, members: Iterable[ir.TypeRef], seen: tuple[str, ...]) -> str:
        def literal(m: ir.TypeRef) -> bool:
            return isinstance(m, ir.Literal) and not isinstance(m.value, float)

        values = [m.value for m in members if isinstance(m, ir.Literal) and literal(m)]
        rest = [self.of(m, seen) for m in members if not literal(m)]
        shown = f"Literal[{', '.join(ps.flat(ps.lit(v)) for v in values)}]"
        if values and self.aliases is not None:
            shown = self.aliases.alias(values, _camel(self.naming))
        parts = ([shown] if values else []) + rest
        return " | ".join(dict.fromkeys(parts))

    def _named(self, name: str, seen: tuple[str, ...]) -> str:
        target = deref(ir.Ref(name), self.project.types)
        if isinstance(target, ir.MapOf):
            if name in self.classes:
                return f"{self.models}.{name} | dict[str, Any]"
            return "dict[str, Any]"
        if name in seen:
            return "Any"
        return replace(self, naming=name).of(target, (*seen, name))


def _camel(name: str) -> str:
    """`favourite_colour` -> `FavouriteColour`; `Colour` stays."""
    return "".join(part[:1].upper() + part[1:] for part in suffix(name).split("_")) or "Value"


@dataclass(frozen=True)
class ParamView:
    name: str
    kwarg: str
    annotation: str
    default: str | None  # a Python literal, or None when the param is required
    description: str
    # A map default: the function takes None for it (a literal `{}` default would be shared
    # between calls) and leaves the key out, so that the validator fills it in. (A list
    # default is a tuple, and the param a `Sequence`.)
    mutable_default: bool = False
    shown_default: str = ""  # that default, as the docstring shows it

    @property
    def line(self) -> str:
        """The parameter as its line of the `def` shows it (without the comma)."""
        default = f" = {self.default}" if self.default is not None else ""
        return f"{self.kwarg}: {self.annotation}{default}"


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
    spec: str = ""  # the module constant holding its `Spec`
    docstring: str = ""
    async_ident: str = ""  # its async form's name (json and text signatures)
    async_docstring: str = ""


def _param(p: ir.Field, annotations: Annotations) -> ParamView:
    annotation, default, mutable, shown = annotations.of(p.type), None, False, ""
    value = p.default.value if p.default is not None else None
    if isinstance(value, list) and annotation.startswith("list["):
        # An immutable default: a tuple, for a `Sequence` (sent as the list it stands for).
        annotation, default = (
            "Sequence[" + annotation.removeprefix("list["),
            ps.flat(ps.lit(tuple(value))),
        )
    elif isinstance(value, list | dict):
        mutable, default, shown = True, "None", ps.flat(ps.lit(value))
        annotation = annotation if annotation.endswith("| None") else f"{annotation} | None"
    elif p.default is not None:
        default = ps.flat(ps.lit(value))
    elif isinstance(p.type, ir.Optional):
        default = "None"
    description = p.description or ""
    return ParamView(p.name, kwarg(p.name), annotation, default, description, mutable, shown)


def _params(sig: ir.Signature, annotations: Annotations) -> tuple[ParamView, ...]:
    out = []
    for p in sig.params:
        view = _param(p, replace(annotations, aliases=None))
        if ps.width(f"{ps.INDENT}{view.line},") > ps.WIDTH and annotations.aliases is not None:
            view = _param(p, replace(annotations, naming=p.name))  # the literals as aliases
        out.append(view)
    # Required params first, so the generated `def` is valid whatever the declaration order.
    return tuple(sorted(out, key=lambda v: v.default is not None))


def sig_view(lowered: Lowered, sig: ir.Signature, annotations: Annotations) -> SigView:
    module = lowered.module_of(sig)
    ident = function_name(sig.name)
    return SigView(
        name=sig.name,
        ident=ident,
        mode=sig.mode,
        doc=sig.doc or "",
        params=_params(sig, annotations),
        output=lowered.io[sig.name].output,
        module=module.dotted,
        validators=suffix(sig.name),
        async_ident=async_names(lowered, module).get(ident, ""),
    )


def async_names(lowered: Lowered, module: Module) -> dict[str, str]:
    """The async form's name of each client function of a module (json and text signatures,
    pipelines), by the sync form's: `a` + its name, as httpx's and the OpenAI SDK's async
    clients read. The sync names stay as they are; where `a` + a name is taken (a signature
    `aclassify` beside `classify`, a keyword, a name the module imports) the async form gets
    `_2`, `_3`, ... A function of the module alone: a pipeline of another module names the
    same async step."""
    runnable = pipeline_steps(lowered, module)
    names = Namer()
    names.taken.update(function_name(s.name) for s in module.signatures)
    names.taken.update(function_name(p.name) for p, _ in runnable)
    sync = [function_name(s.name) for s in module.signatures if s.mode in _OPTIONS]
    sync += [function_name(p.name) for p, _ in runnable]
    return {name: names.take(f"a{name}") for name in sync}


def stream_names(lowered: Lowered, module: Module) -> dict[str, tuple[str, str]]:
    """The stream forms' names of each json signature's client function, by the sync
    form's: `NAME_stream` and `aNAME_stream`, taken after every other function's name, so
    a signature `x_stream` beside `x` keeps its name and `x`'s stream form gets `_2`."""
    names = Namer()
    names.taken.update(function_name(s.name) for s in module.signatures)
    names.taken.update(function_name(p.name) for p, _ in pipeline_steps(lowered, module))
    asyncs = async_names(lowered, module)
    names.taken.update(asyncs.values())
    json_sigs = [function_name(s.name) for s in module.signatures if s.mode == "json"]
    return {
        ident: (names.take(f"{ident}_stream"), names.take(f"{asyncs[ident]}_stream"))
        for ident in json_sigs
    }


def _provider_schemas(lowered: Lowered, sig: ir.Signature) -> Iterator[tuple[str, Any]]:
    for name in PROVIDERS:
        fragment = lowered.fragment(sig, name)
        if provider(name).runtime_entries and fragment.available and fragment.schema:
            yield name, fragment.schema


def _key(value: Any) -> str:
    """Equal JSON values, equal keys (key order counts: it is what the module prints)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Namer:
    """Module-level names, each taken once: a clash gets `_2`, `_3`, ..."""

    taken: set[str] = field(default_factory=lambda: set(MODULE_NAMES))

    def take(self, wanted: str) -> str:
        name, n = wanted, 1
        while name in self.taken:
            n += 1
            name = f"{wanted}_{n}"
        self.taken.add(name)
        return name


@dataclass
class Constants:
    """The module's constants, in the order they are written, and the names to print in
    place of a value that one of them holds."""

    names: Namer
    statements: list[str] = field(default_factory=list)
    defs: dict[tuple[str, str], str] = field(default_factory=dict)  # ($defs key, value)
    texts: dict[str, str] = field(default_factory=dict)  # prompt text -> its constant

    def define(self, wanted: str, node: ps.Node, annotation: str = "") -> str:
        name = self.names.take(wanted)
        self.statements.append(ps.assign(name, node, annotation))
        return name

    def named_type(self, key: str, value: Any, dialect: str) -> None:
        """A `$defs` entry, once per distinct value: `SENTIMENT`, and `SENTIMENT_OPENAI`
        where a provider's form differs."""
        if (key, _key(value)) not in self.defs:
            wanted = constant(key) + ("" if not dialect else "_" + dialect.upper())
            name = self.define(wanted, self.node(value, {}), "JsonObject")
            self.defs[key, _key(value)] = name

    def node(self, value: Any, schemas: Mapping[int, str]) -> ps.Node:
        """`value` printed with the named types under `$defs`, and the objects in `schemas`
        (their `id` -> constant) below the root, written as their constants' names."""
        return ps.Json(self._named(value, schemas, root=True))

    def _named(self, value: Any, schemas: Mapping[int, str], root: bool = False) -> Any:
        if not root and (found := schemas.get(id(value))):
            return ps.code(found)
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if k == "$defs" and isinstance(v, dict):
                    out[k] = {d: self._def(d, s, schemas) for d, s in v.items()}
                else:
                    out[k] = self._named(v, schemas)
            return out
        if isinstance(value, list):
            return [self._named(v, schemas) for v in value]
        return value

    def _def(self, key: str, value: Any, schemas: Mapping[int, str]) -> Any:
        found = self.defs.get((key, _key(value)))
        return ps.code(found) if found else self._named(value, schemas)

    def text(self, wanted: str, text: str | None) -> str:
        """A prompt template's constant (the same text twice: one constant)."""
        if text is None:
            return "None"
        if text not in self.texts:
            self.texts[text] = self.names.take(wanted)
            self.statements.append(f"{self.texts[text]} = {ps.block(text)}\n")
        return self.texts[text]


def _shared_texts(lowered: Lowered, sigs: Sequence[ir.Signature], constants: Constants) -> None:
    """Prompt texts two signatures of the module have in common, named by their role."""
    seen: dict[str, int] = {}
    roles: dict[str, str] = {}
    for sig in sigs:
        prompts = lowered.prompts(sig)
        for role, text in (
            ("system", prompts.system),
            ("user", prompts.user),
            ("retry", prompts.retry),
        ):
            if text is not None:
                seen[text] = seen.get(text, 0) + 1
                roles.setdefault(text, role)
    for text, count in seen.items():
        if count > 1:
            constants.text(f"{roles[text].upper()}_PROMPT", text)


def _named_types(lowered: Lowered, sigs: Sequence[ir.Signature], constants: Constants) -> None:
    """Every `$defs` entry of the module's schemas, the plain forms first."""
    json_sigs = [s for s in sigs if s.mode == "json"]
    for sig in json_sigs:
        for key, value in lowered.output_schema(sig).get("$defs", {}).items():
            constants.named_type(key, value, "")
    for sig in json_sigs:
        for name, schema in _provider_schemas(lowered, sig):
            for key, value in schema.get("$defs", {}).items():
                constants.named_type(key, value, name)


def _schemas(lowered: Lowered, sig: ir.Signature, constants: Constants) -> dict[int, str]:
    """The signature's output schema and each provider's form of it, as constants (a form
    equal to one already written takes its constant): each schema object's `id` -> its
    constant, the plain schema first. The fragments hold these very objects."""
    stem = constant(sig.name)
    plain = lowered.output_schema(sig)
    first = constants.define(f"{stem}_SCHEMA", constants.node(plain, {}), "JsonObject")
    by_value, out = {_key(plain): first}, {id(plain): first}
    for name, schema in _provider_schemas(lowered, sig):
        key = _key(schema)
        if key not in by_value:
            node = constants.node(schema, {})
            by_value[key] = constants.define(f"{stem}_SCHEMA_{name.upper()}", node, "JsonObject")
        out[id(schema)] = by_value[key]
    return out


def _spec(lowered: Lowered, sig: ir.Signature, view: SigView, constants: Constants) -> str:
    """The signature's constants (prompts, schemas, fragments) and its `Spec`; returns the
    Spec's constant."""
    stem = constant(sig.name)
    prompts = lowered.prompts(sig)
    kwargs: dict[str, ps.Node] = {"name": ps.lit(sig.name), "mode": ps.lit(sig.mode)}
    for role, text in (
        ("system", prompts.system),
        ("user", prompts.user),
        ("retry", prompts.retry),
    ):
        kwargs[role] = ps.code(constants.text(f"{stem}_{role.upper()}", text))
    fragments = None
    if sig.mode == "json":
        schemas = _schemas(lowered, sig, constants)
        kwargs["schema"] = ps.code(next(iter(schemas.values())))
        node = constants.node(lowered.runtime_fragments(sig), schemas)
        fragments = ps.code(constants.define(f"{stem}_FRAGMENTS", node, "JsonObject"))
    else:
        kwargs["schema"] = ps.lit(None)
    kwargs["max_turns"] = ps.lit(sig.max_turns)
    kwargs["doc"] = ps.lit(sig.doc or "")
    if fragments is not None:
        kwargs["fragments"] = fragments
    kwargs["descriptions"] = ps.lit(lowered.output_descriptions(sig))
    kwargs.update(
        module=ps.lit(view.module), key=ps.lit(view.validators), model=ps.lit(view.output)
    )
    if view.async_ident:
        kwargs.update(function=ps.lit(view.ident), async_function=ps.lit(view.async_ident))
    return constants.define(f"{stem}_SPEC", ps.call("Spec", **kwargs))


def _arg(p: ParamView) -> str:
    if not p.mutable_default:
        return p.description
    default = f"None (the default) stands for {p.shown_default}."
    return f"{p.description.rstrip('.')}. {default}" if p.description else default


def _docstring(
    doc: str,
    params: Sequence[ParamView],
    returns: str,
    fields: Mapping[str, str],
    note: str = "",
) -> str:
    """A function's docstring: the `##` comment, the `note` (an async form's), its described
    params, what it returns."""
    parts = [doc.strip() or "Call the model and return its checked answer."]
    parts += [note] if note else []
    described = [p for p in params if p.description or p.mutable_default]
    if described:
        parts.append("Args:\n" + "\n".join(f"    {p.kwarg}: {_arg(p)}" for p in described))
    if returns:
        lines = [f"    {returns}"] + [f"    - {name}: {text}" for name, text in fields.items()]
        if fields:
            lines[0] = lines[0][:-1] + ", whose fields are:"
        parts.append("Returns:\n" + "\n".join(lines))
    return ps.docstring("\n\n".join(parts), 1)


@dataclass(frozen=True)
class PipelineView:
    name: str
    ident: str
    doc: str
    steps: tuple[SigView, ...]
    async_ident: str


def _async_note(sync: str) -> str:
    return f"The async form of `{sync}`: `llm` is an async callback, which it awaits."


def _returns(view: SigView, models: Mapping[str, str]) -> str:
    return "Step[str]" if view.mode == "text" else f"Step[{models[view.module]}.{view.output}]"


def _def(
    name: str,
    params: Sequence[str],
    returns: str,
    doc: str,
    body: Sequence[str],
    *,
    asynchronous: bool = False,
) -> str:
    """A function (`async def` when `asynchronous`): keyword-only params one a line (the
    trailing comma keeps ruff from joining them), its docstring and body."""
    head = f"{'async ' if asynchronous else ''}def {name}("
    if params:
        head += "\n    *,\n" + "".join(f"    {p},\n" for p in params)
    lines = [f"{head}) -> {returns}:", f"    {doc}", *body]
    return "\n".join(lines) + "\n"


def _statement(prefix: str, node: ps.Node) -> str:
    """One statement of a function body (four spaces in): `prefix` then the expression."""
    return "    " + prefix + ps.render(node, 1, len(prefix))


def _values(params: Sequence[ParamView]) -> ps.Node:
    """The arguments as the dict the runtime validates, by their .sig names."""
    given = [p for p in params if not p.mutable_default]
    return ps.lit({p.name: ps.code(p.kwarg) for p in given})


def _body(view: SigView, asynchronous: bool = False) -> list[str]:
    """Calls `_client.call_json` (or `call_text`; awaits `acall_json` or `acall_text` when
    `asynchronous`) with the arguments; a list or map param left at None is left out, for
    the validator to fill in its default."""
    a = "a" if asynchronous else ""
    body: list[str] = []
    values: ps.Node = _values(view.params)
    if any(p.mutable_default for p in view.params):
        body.append(_statement("_values: JsonObject = ", values))
        for p in (p for p in view.params if p.mutable_default):
            body += [
                f"    if {p.kwarg} is not None:",
                f"        _values[{ps.string(p.name)}] = {p.kwarg}",
            ]
        values = ps.code("_values")
    if view.mode == "text":
        call = ps.call(
            f"_client.{a}call_text",
            ps.code(view.spec),
            values,
            ps.code("llm"),
            ps.code("field_descriptions"),
            ps.code("hooks"),
        )
    else:
        call = ps.call(
            f"_client.{a}call_json",
            ps.code(view.spec),
            values,
            ps.code("llm"),
            max_turns=ps.code("max_turns"),
            structured=ps.code("structured"),
            described=ps.code("field_descriptions"),
            limits=ps.code("limits"),
            budget=ps.code("budget"),
            hooks=ps.code("hooks"),
        )
    return [*body, _statement("return await " if asynchronous else "return ", call)]


_OPTIONS = {
    "json": (
        "max_turns: int | None = None",
        'structured: Literal["prompt", "tool"] = "prompt"',
        "field_descriptions: Mapping[str, str] | None = None",
        "limits: Limits | None = None",
        "budget: Budget | None = None",
        "hooks: Hooks | None = None",
    ),
    "text": (
        "field_descriptions: Mapping[str, str] | None = None",
        "hooks: Hooks | None = None",
    ),
}


def _llm(asynchronous: bool) -> str:
    return "llm: AsyncLlm" if asynchronous else "llm: Llm"


def _function(view: SigView, models: Mapping[str, str], imports: _Imports) -> str:
    params = [p.line for p in view.params]
    if view.mode in _OPTIONS:
        sync, async_ = (
            _def(
                name,
                [*params, _llm(asynchronous), *_OPTIONS[view.mode]],
                _returns(view, models),
                doc,
                _body(view, asynchronous),
                asynchronous=asynchronous,
            )
            for name, doc, asynchronous in (
                (view.ident, view.docstring, False),
                (view.async_ident, view.async_docstring, True),
            )
        )
        return f"{sync}\n\n{async_}"
    own = models[view.module]
    build = [
        f"    from {imports.validators.source} import {imports.validators.name} as _v",
        "",
        _statement(
            "values = ",
            ps.call(
                f"_v.validate_{view.validators}_input",
                ps.call("_client.plain", _values(view.params)),
            ),
        ),
        _statement(
            "return ", ps.call("_client.build_request", ps.code(view.spec), ps.code("values"))
        ),
    ]
    doc = ps.docstring(
        "The first request of this PTC-Lisp signature; the program runs elsewhere.", 1
    )
    out = _def(f"build_{view.validators}_request", params, "Request", doc, build)
    local = [
        (imports.validators.source, f"import {imports.validators.name} as _v"),
        (imports.own.source, f"import {imports.own.name} as {own}"),
    ]
    check = [
        *(f"    from {source} {names}" for source, names in sorted(local)),
        "",
        _statement(
            "return ",
            ps.call(
                f"{own}.{view.output}.model_validate",
                ps.call(f"_v.validate_{view.validators}", ps.code("value")),
            ),
        ),
    ]
    doc = ps.docstring("The program's result, checked by the generated validator and typed.", 1)
    head = f"def validate_{view.validators}_output(value: Any) -> {own}.{view.output}:"
    return out + "\n\n" + "\n".join([head, f"    {doc}", *check]) + "\n"


@dataclass(frozen=True)
class StreamView:
    """A json signature's stream forms: their names, and the partial type they yield as
    the client module names it (its validators module's, imported for the checkers)."""

    sync: str
    async_: str
    partial: str

    @property
    def names(self) -> tuple[str, str]:
        return self.sync, self.async_


def _stream_views(
    lowered: Lowered, module: Module, names: Namer, aliases: Aliases
) -> dict[str, StreamView]:
    """Each json signature's stream forms, by its function's name; their names and the
    alias of the validators module (which holds the partial types) are taken in `names`."""
    found = stream_names(lowered, module)
    names.taken.update(n for pair in found.values() for n in pair)
    if not found:
        return {}
    alias = names.take("_v_" + aliases.models[module.dotted].removeprefix("_m_"))
    partials = partial_types(lowered, module)
    by_ident = {function_name(s.name): s.name for s in module.signatures}
    return {
        ident: StreamView(sync, async_, f"{alias}.{partials[by_ident[ident]]}")
        for ident, (sync, async_) in found.items()
    }


def _v_alias(streams: Mapping[str, StreamView]) -> str:
    return next(iter(streams.values())).partial.split(".")[0]


def _streams(view: SigView, stream: StreamView | None, models: Mapping[str, str]) -> str:
    """`NAME_stream` and `aNAME_stream` (appended to `NAME`'s forms, or nothing):
    `NAME`'s arguments and `strings`, handed to the stream runtime, which yields the
    partials and keeps the `Step`."""
    if stream is None:
        return ""
    model = f"{models[view.module]}.{view.output}"
    out = []
    for name, asynchronous in ((stream.sync, False), (stream.async_, True)):
        a = "a" if asynchronous else ""
        kind = "AsyncStream" if asynchronous else "Stream"
        llm = "llm: AsyncStreamLlm" if asynchronous else "llm: StreamLlm"
        params = [p.line for p in view.params]
        params += [llm, *_OPTIONS["json"], _STRINGS]
        body = _body(view, asynchronous)
        call = ps.call(
            f"_stream.{a}call_json_stream",
            ps.code(view.spec),
            _values(view.params) if not _mutable(view) else ps.code("_values"),
            ps.code("llm"),
            max_turns=ps.code("max_turns"),
            structured=ps.code("structured"),
            described=ps.code("field_descriptions"),
            limits=ps.code("limits"),
            budget=ps.code("budget"),
            hooks=ps.code("hooks"),
            strings=ps.code("strings"),
            names=ps.lit((stream.sync, stream.async_)),
        )
        body = [*body[:-1], _statement("return ", call)]
        doc = _stream_docstring(view, stream, asynchronous)
        node = ps.subscript(kind, ps.code(stream.partial), ps.code(model))
        returns = ps.render(node, 0, len(") -> "), len(":"))
        out.append(_def(name, params, returns, doc, body))
    return "".join("\n\n\n" + f.rstrip("\n") for f in out)


_STRINGS = 'strings: Literal["complete", "growing"] = "complete"'


def _mutable(view: SigView) -> bool:
    return any(p.mutable_default for p in view.params)


def _stream_docstring(view: SigView, stream: StreamView, asynchronous: bool) -> str:
    partial = stream.partial.rsplit(".", 1)[-1]
    if asynchronous:
        how = (
            f"The async form of `{stream.sync}`: `llm` is an async streaming callback (an"
            " `async def` generator of chunks); `async for` the partials, then"
            " `await stream.result()` is the `Step`."
        )
    else:
        how = (
            f"`{view.ident}`, streamed: `llm` returns an iterable of chunks (strings, or"
            " dicts with `content`, `arguments`, `tokens`, `refusal`, ...). Iterate the"
            " returned stream for the partial answers, each yielded when it changed; then"
            " `stream.step` (or `stream.result()`) is the `Step` the plain call returns."
        )
    what = (
        f"A partial (`{partial}`) holds the output's fields that are complete and valid"
        ' so far; with `strings="growing"`, a string field also while it is written. A'
        " turn that fails validation is retried: `stream.turn` (from 1) tells a new turn,"
        " whose partials start again."
    )
    wrapped = [textwrap.fill(part, ps.WIDTH - len(ps.INDENT)) for part in (how, what)]
    parts = [view.doc.strip() or "Call the model and stream its checked answer.", *wrapped]
    return ps.docstring("\n\n".join(parts), 1)


def _pipeline(
    p: PipelineView,
    models: Mapping[str, str],
    aliases: Aliases,
    own: str,
    asynchronous: bool = False,
) -> str:
    """A pipeline's function, or its async form: each step's function (awaited) in turn."""
    first = p.steps[0]
    json_steps = any(step.mode == "json" for step in p.steps)
    options = ["max_turns: int | None = None", "budget: Budget | None = None"]
    params = [q.line for q in first.params] + [_llm(asynchronous)]
    params += [*(options if json_steps else ()), "hooks: Hooks | None = None"]
    body: list[str] = []
    for i, step in enumerate(p.steps):
        ident = step.async_ident if asynchronous else step.ident
        call_name = ident if step.module == own else f"{aliases.clients[step.module]}.{ident}"
        if i == 0:
            args: list[ps.Node] = []
            kwargs: dict[str, ps.Node] = {q.kwarg: ps.code(q.kwarg) for q in first.params}
            kwargs["llm"] = ps.code("llm")
        else:
            piped = ps.lit({q.name: q.kwarg for q in step.params})
            args = [ps.Brackets("**_client.pipe_args", "(", (ps.code(f"_step{i - 1}"), piped), ")")]
            kwargs = {
                "llm": ps.code("llm"),
                "field_descriptions": ps.code(f"_step{i - 1}.field_descriptions"),
            }
        if step.mode == "json":
            kwargs["max_turns"] = ps.code("max_turns")
            earlier = [ps.code(f"_step{j}") for j in range(i)]
            spent = ps.call("_client.remaining", ps.code("budget"), *earlier)
            kwargs["budget"] = spent if earlier else ps.code("budget")
        kwargs["hooks"] = ps.code("hooks")
        prefix = f"_step{i} = " + ("await " if asynchronous else "")
        body.append(_statement(prefix, ps.call(call_name, *args, **kwargs)))
    earlier = [ps.code(f"_step{i}") for i in range(len(p.steps) - 1)]
    body.append(
        _statement(
            "return ", ps.call("_client.chain", *earlier, last=ps.code(f"_step{len(p.steps) - 1}"))
        )
    )
    steps = " -> ".join(s.ident for s in p.steps)
    parts = [
        p.doc.strip() or f"Run {steps}.",
        f"Steps: {steps}; each answer gives the next step its arguments.",
    ]
    if asynchronous:
        parts.insert(1, _async_note(p.ident))
    described = [q for q in first.params if q.description]
    if described:
        parts.append("Args:\n" + "\n".join(f"    {q.kwarg}: {q.description}" for q in described))
    doc = ps.docstring("\n\n".join(parts), 1)
    name = p.async_ident if asynchronous else p.ident
    returns = _returns(p.steps[-1], models)
    return _def(name, params, returns, doc, body, asynchronous=asynchronous)


@dataclass(frozen=True, slots=True)
class ImportLine:
    source: str  # after `from`
    name: str  # after `import`
    alias: str
    module: str = ""  # the dotted module path it stands for


@dataclass(frozen=True)
class _Imports:
    validators: ImportLine
    own: ImportLine
    models: list[ImportLine]
    clients: list[ImportLine]


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
    names = Namer()  # function names first: they derive from the .sig names alone
    names.taken.update(function_name(s.name) for s in module.signatures)
    names.taken.update(function_name(p.name) for p, _ in runnable)
    own_async = async_names(lowered, module)
    names.taken.update(own_async.values())
    streams = _stream_views(lowered, module, names, aliases)
    names.taken.update(aliases.models.values())
    names.taken.update(aliases.clients.values())
    literals = LiteralAliases(names)

    def view(sig: ir.Signature) -> SigView:
        dotted = lowered.module_of(sig).dotted
        models = aliases.models[dotted]
        annotations = Annotations(lowered.project, classes[dotted], models, literals)
        return sig_view(lowered, sig, annotations)

    def line(kind: str, dotted: str, alias: str) -> ImportLine:
        path = (kind, *dotted.split("."))
        return ImportLine(relative(here, path[:-1]), path[-1], alias, dotted)

    sigs = module.signatures
    views = [view(s) for s in sigs]
    pipelines = [
        PipelineView(
            p.name,
            function_name(p.name),
            p.doc or "",
            tuple(view(s) for s in steps),
            own_async[function_name(p.name)],
        )
        for p, steps in runnable
    ]
    models = [line("models", m, a) for m, a in aliases.models.items()]
    imports = _Imports(
        ImportLine(relative(here, module.path[:-1]), module.path[-1], "_v"),
        models[0],
        models,
        [line("client", m, a) for m, a in aliases.clients.items()],
    )
    constants = Constants(names)
    _named_types(lowered, sigs, constants)
    types_end = len(constants.statements)
    _shared_texts(lowered, sigs, constants)
    shared_end = len(constants.statements)
    by_module = aliases.models
    sections = []
    for sig, v in zip(sigs, views, strict=True):
        start = len(constants.statements)
        spec = _spec(lowered, sig, v, constants)
        fields = lowered.output_descriptions(sig) if v.mode == "json" else {}
        doc = _docstring(v.doc, v.params, _returns_text(v), fields)
        note = _async_note(v.ident)
        async_doc = _docstring(v.doc, v.params, _returns_text(v), fields, note)
        done = replace(v, spec=spec, docstring=doc, async_docstring=async_doc)
        statements = [t.rstrip("\n") for t in constants.statements[start:]]
        code = _function(done, by_module, imports).rstrip("\n")
        sections.append((statements, code + _streams(done, streams.get(v.ident), by_module)))
    functions = [
        _pipeline(p, by_module, aliases, module.dotted, asynchronous).rstrip("\n")
        for p in pipelines
        for asynchronous in (False, True)
    ]
    code = "\n".join([*(f for _, f in sections), *functions])
    callables: list[SigView | PipelineView] = [*views, *pipelines]
    used = [m for m in models if f"{m.alias}." in code]
    return render(
        env,
        "python/client.py.j2",
        source=module.source,
        named_types=[t.rstrip("\n") for t in constants.statements[:types_end]],
        shared_texts=[t.rstrip("\n") for t in constants.statements[types_end:shared_end]],
        sections=sections,
        pipelines=functions,
        imports=imports,
        models=used,
        typing=(["TYPE_CHECKING"] if used or streams else []) + _typing(views, pipelines, literals),
        validators=bool(streams),
        # The models modules and, for the stream forms' partial types, the validators
        # module, in the order ruff's isort keeps.
        checking=sorted(
            [*used]
            + (
                [ImportLine(relative(here, module.path[:-1]), module.path[-1], _v_alias(streams))]
                if streams
                else []
            ),
            key=lambda line: (line.source, line.name),
        ),
        streams=_from_import(
            relative(here, ("_stream",)), ["AsyncStream", "AsyncStreamLlm", "Stream", "StreamLlm"]
        )
        if streams
        else "",
        stream_example=next((f"`{s.sync}` beside `{i}`" for i, s in streams.items()), ""),
        literal_aliases=[t.rstrip("\n") for t in literals.statements],
        runtime=_from_import(
            relative(here, ("_client",)),
            _runtime_names(views, pipelines, bool(constants.statements[:types_end])),
        ),
        async_example=next(
            (f"`{f.async_ident}` beside `{f.ident}`" for f in callables if f.async_ident),
            "",
        ),
        up=relative(here, ()),
        exported=[
            ps.string(name)
            for name in sorted(
                [*_exported(views, pipelines), *(n for s in streams.values() for n in s.names)]
            )
        ],
        names=[v.name for v in views],
        abc=_abc(views, pipelines),
    )


def _returns_text(view: SigView) -> str:
    if view.mode == "text":
        return "A `Step` whose `return_` is the reply's text."
    return f"A `Step` whose `return_` is the model `{view.output}`." if view.mode == "json" else ""


def _typing(
    views: Sequence[SigView], pipelines: Sequence[PipelineView], literals: LiteralAliases
) -> list[str]:
    """The names the module takes from `typing` and `collections.abc` (ruff: none unused)."""
    params = [p for v in views for p in v.params] + [
        p for pl in pipelines for p in pl.steps[0].params
    ]
    annotations = " ".join([p.annotation for p in params] + literals.statements)
    modes = {v.mode for v in views}
    any_ = "Any" in annotations or "ptc_lisp" in modes or any(p.mutable_default for p in params)
    return [
        name
        for name, used in (("Any", any_), ("Literal", "Literal[" in annotations or "json" in modes))
        if used
    ]


def _abc(views: Sequence[SigView], pipelines: Sequence[PipelineView]) -> list[str]:
    """The names the module takes from `collections.abc`."""
    params = [p for v in views for p in v.params] + [
        p for q in pipelines for p in q.steps[0].params
    ]
    used = {
        "Mapping": any(v.mode in _OPTIONS for v in views),
        "Sequence": any(p.annotation.startswith("Sequence[") for p in params),
    }
    return [name for name, wanted in used.items() if wanted]


def _from_import(source: str, names: Sequence[str]) -> str:
    """`from source import names` on one line, or one name a line where that is too long
    (as ruff format leaves it)."""
    line = f"from {source} import {', '.join(names)}"
    if ps.width(line) <= ps.WIDTH:
        return line
    return f"from {source} import (\n" + "".join(f"    {n},\n" for n in names) + ")"


def _runtime_names(
    views: Sequence[SigView], pipelines: Sequence[PipelineView], types: bool
) -> list[str]:
    modes = {v.mode for v in views}
    calls = bool(modes & {"json", "text"}) or bool(pipelines)
    json_calls = "json" in modes or any(s.mode == "json" for p in pipelines for s in p.steps)
    names = {
        "AsyncLlm": calls,
        "Budget": json_calls,
        "Hooks": calls,
        "JsonEnforcementError": True,
        "JsonObject": types or "json" in modes,
        "Limits": "json" in modes,
        "Llm": calls,
        "Request": "ptc_lisp" in modes,
        "Spec": True,
        "Step": calls,
    }
    return [name for name, used in names.items() if used]


def _exported(views: Sequence[SigView], pipelines: Sequence[PipelineView]) -> list[str]:
    out = ["JsonEnforcementError"]
    if any(v.mode != "ptc_lisp" for v in views) or pipelines:
        out.append("Step")
    for v in views:
        if v.mode == "ptc_lisp":
            out += [f"build_{v.validators}_request", f"validate_{v.validators}_output"]
        else:
            out += [v.ident, v.async_ident]
    return out + [name for p in pipelines for name in (p.ident, p.async_ident)]


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
