"""A .sig file's validators module: for each signature `validate_NAME`, `validate_NAME_input`
and `parse_NAME`, standard library only, with the typed forms they return (`pytypes.py`).
Fast: generated checks (`fastpath.py`) in front of the runtime's validator; compact: the
runtime's validator with the descriptors alone."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, assert_never

import jinja2

from sigspec.emit.python import pysource as ps
from sigspec.emit.python.checked import comment
from sigspec.emit.python.fastpath import FastPaths, signature_exits
from sigspec.emit.python.imports import relative
from sigspec.emit.python.names import Namespace, pascal
from sigspec.emit.python.pytypes import PyTypes
from sigspec.lower.names.python import suffix
from sigspec.lower.templating import render
from sigspec.lower.views import Lowered, Module
from sigspec.runtime import validate as rt
from sigspec.runtime.common import LIMITS
from sigspec.semantics import ir
from sigspec.semantics.types import reachable_names

# The runtime's descriptor classes, by the name a generated module imports them under.
DESCRIPTOR_CLASSES = frozenset(
    {
        "AnyValue",
        "Bool",
        "Const",
        "DateTime",
        "Enum",
        "Field",
        "Float",
        "Int",
        "Keyword",
        "List",
        "Map",
        "Nullable",
        "Object",
        "Ref",
        "Str",
        "Union",
    }
)


def descriptor_node(value: Any, used: set[str]) -> ps.Node:
    """A runtime descriptor as the constructor calls that make it (`Map((Field(...),))`),
    adding the classes it names to `used`."""
    if isinstance(value, rt._Node):
        name = type(value).__name__
        assert name in DESCRIPTOR_CLASSES, name
        used.add(name)
        args, kwargs = value.arguments()
        return ps.call(
            name,
            *(descriptor_node(a, used) for a in args),
            **{k: descriptor_node(v, used) for k, v in kwargs.items()},
        )
    if isinstance(value, tuple):
        return ps.lit(tuple(descriptor_node(v, used) for v in value))
    return ps.lit(value)


def nesting(t: ir.TypeRef, types: Mapping[str, ir.TypeDef]) -> int:
    """How deep lists and maps nest in a value of type `t` at most; -1 for no bound (`:any`,
    `:map`, an open map's extra fields, a recursive type)."""
    return _Nesting(types).of(t)


class _Nesting:
    """`nesting`, each named type measured once: a diamond of types (`type A = {x B, y B}`)
    would otherwise be walked once per path, 2**n times."""

    def __init__(self, types: Mapping[str, ir.TypeDef]) -> None:
        self.types = types
        self.known: dict[str, int] = {}
        self.open: set[str] = set()  # named types being measured: meeting one is recursion

    def of(self, t: ir.TypeRef) -> int:
        match t:
            case ir.Prim(kind):
                return -1 if kind in ("any", "map") else 0
            case ir.Literal():
                return 0
            case ir.Optional(inner):
                return self.of(inner)
            case ir.Ref(name):
                return self.named(name)
            case ir.ListOf(item):
                below = self.of(item)
                return -1 if below < 0 else below + 1
            case ir.MapOf(fields, is_open):
                depths = [self.of(f.type) for f in fields]
                return -1 if is_open or -1 in depths else max(depths, default=0) + 1
            case ir.Union(members):
                depths = [self.of(m) for m in members]
                return -1 if -1 in depths else max(depths)
            case _:
                assert_never(t)

    def named(self, name: str) -> int:
        # A recursive type is unbounded (-1), and -1 passes up through every type around
        # it: what is remembered for a name never depends on the path that reached it.
        if name in self.open:
            return -1
        if name not in self.known:
            self.open.add(name)
            self.known[name] = self.of(self.types[name].type)
            self.open.discard(name)
        return self.known[name]


def _deep(t: ir.TypeRef, types: Mapping[str, ir.TypeDef]) -> bool:
    """Must the generated checks test the value's depth first? Only where a valid value may
    nest past the limit: elsewhere a deeper value fails the type's own checks, and the
    runtime, naming its errors, finds the depth."""
    depth = nesting(t, types)
    return depth < 0 or depth > LIMITS.depth


# Names a validators module binds itself (imports, its private helpers); `.sig` names that
# would clash with them take a suffix.
_MODULE_NAMES = frozenset(
    {
        "Any",
        "Callable",
        "Descriptor",
        "Limits",
        "Literal",
        "ParseResult",
        "ReplyError",
        "TYPE_CHECKING",
        "TypeAlias",
        "TypedDict",
        "ValidationError",
        "annotations",
        "re",
        "_rt",
        "_MISS",
        "_SLOW",
        "_BAD",
        "_is_datetime",
        "_finite",
        "_too_deep",
        *DESCRIPTOR_CLASSES,
    }
)


@dataclass(frozen=True)
class SigNames:
    """The module-level names one signature's code uses."""

    ident: str  # validate_<ident>, parse_<ident>
    output_type: str  # the output's typed form (a TypedDict or an alias)
    input_type: str
    output: str  # the output's descriptor
    input: str
    types: str  # the named types' descriptors


@dataclass(frozen=True)
class SigView:
    name: str
    names: SigNames
    output_literal: str  # `OUTPUT = Map(...)`, the descriptors' statements
    input_literal: str
    comment: str  # what the signature's validator checks, as a comment
    body: str  # validate_NAME's checks (emit/python/fastpath.py)
    result: str  # the normalised value's expression once they passed
    deep: bool  # may a valid value nest past the default depth limit (checked first, then)
    lines: Mapping[str, str]  # statements and headers, each as ruff formats it
    partial: str = ""  # a json signature's `partial_NAME` (a stream's partial answer)


def _def(name: str, params: list[ps.Node], returns: str) -> str:
    """A function's header, as ruff formats it."""
    tail = f" -> {returns}:"
    return ps.render(ps.call(f"def {name}", *params), 0, 0, len(tail)) + tail


def _slow_param(output_type: str) -> ps.Node:
    """`_slow: Callable[..., T] = _rt.validate`, split inside its brackets when too long
    for its line (as ruff splits it)."""
    text = f"_slow: Callable[..., {output_type}] = _rt.validate"
    if len(ps.INDENT) + len(text) + 1 <= ps.WIDTH:
        return ps.code(text)
    hook = ps.subscript("_slow: Callable", ps.code("..."), ps.code(output_type))
    one = ps.flat(hook)[len("_slow: Callable[") : -1]
    if 2 * len(ps.INDENT) + len(one) <= ps.WIDTH:  # ruff keeps `..., T` on one line
        inner = f"_slow: Callable[\n{2 * ps.INDENT}{one}\n{ps.INDENT}]"
    else:
        inner = ps.render(hook, 1)
    return ps.code(inner + " = _rt.validate")


def _call(indent: int, head: str, *args: ps.Node | str) -> str:
    """`head(args)` at `indent` (a statement: `return f(...)`, `x: T = f(...)`)."""
    nodes = [ps.code(a) if isinstance(a, str) else a for a in args]
    return ps.INDENT * indent + ps.render(ps.call(head, *nodes), indent)


def _lines(n: SigNames, compact: bool) -> dict[str, str]:
    """The statements of a signature's functions whose length depends on its names."""
    value: ps.Node = ps.code("value: Any")
    limits: ps.Node = ps.code("limits: Limits | None = None")
    params = [value, limits] if compact else [value, _slow_param(n.output_type), limits]
    # The parser: with the runtime's validator, or the generated checks first (a clean
    # reply is decoded and checked at once: `parse_checked`).
    parser, check = "_rt.parse_checked", f"validate_{n.ident}"
    if compact:
        parser, check = "_rt.parse_reply", "_rt.check"
    result = f"result: {n.output_type} = _rt.validate"
    kept = f"    result: {n.output_type} = value"
    if len(kept) > ps.WIDTH:  # ruff parenthesises a right-hand side it cannot split
        kept = f"    result: {n.output_type} = (\n        value\n    )"
    return {
        "validate": _def(f"validate_{n.ident}", params, n.output_type),
        "validate_input": _def(f"validate_{n.ident}_input", [value, limits], n.input_type),
        "parse": _def(f"parse_{n.ident}", [ps.code("text: str"), limits], "ParseResult"),
        "compact": _call(1, result, n.output, "value", n.types, "limits"),
        "limited": _call(2, "return _slow", n.output, "value", n.types, "limits"),
        "too_deep": _call(2, "return _slow", n.output, "value", n.types),
        "kept": kept,
        "input": _call(
            1, f"result: {n.input_type} = _rt.validate", n.input, "value", n.types, "limits"
        ),
        "parse_call": _call(1, f"return {parser}", "text", n.output, n.types, check, "limits"),
    }


@dataclass
class _Module:
    """One validators module being written: its namespace, its types, its checks."""

    lowered: Lowered
    compact: bool
    space: Namespace
    pytypes: PyTypes
    fast: FastPaths
    types: str  # the name of the named types' descriptors
    used: set[str]  # the descriptor classes the module names

    def descriptor(self, name: str, d: Any) -> str:
        return ps.assign(name, descriptor_node(d, self.used)).rstrip()

    def signature(self, sig: ir.Signature, output_type: str, input_type: str) -> SigView:
        ident = suffix(sig.name)
        take = self.space.take
        names = SigNames(
            ident,
            output_type,
            input_type,
            take(f"{ident.upper()}_OUTPUT"),
            take(f"{ident.upper()}_INPUT"),
            self.types,
        )
        exits = signature_exits(names.output, self.types)
        checks = (
            ("", "")
            if self.compact
            else self.fast.body(
                sig.output, "value", 1, exits=exits, label=sig.name, reserved=("result",)
            )
        )
        return SigView(
            sig.name,
            names,
            self.descriptor(names.output, self.lowered.output_descriptor(sig)),
            self.descriptor(names.input, self.lowered.input_descriptor(sig)),
            comment(sig),
            *checks,
            deep=not self.compact and _deep(sig.output, self.lowered.project.types),
            lines=_lines(names, self.compact),
        )


def _partial(n: SigNames, name: str, partial_type: str) -> str:
    """`partial_NAME`: what of a streamed answer is valid so far, for the stream drivers."""
    params: list[ps.Node] = [
        ps.code("value: Any"),
        ps.code("growing: str | None = None"),
        ps.code("memo: dict[Any, Any] | None = None"),
    ]
    returns = f"{partial_type} | None"
    text = (
        f"What of a partial answer to `{name}` (a stream's `PartialReader.value`) is"
        " valid so far, normalised; `growing`, `memo`: the stream's."
    )
    doc = ps.docstring(textwrap.fill(text, ps.WIDTH - len(ps.INDENT)), 1)
    call = _call(
        1, f"result: {returns} = _rt.partial", n.output, "value", n.types, "growing", "memo"
    )
    head = _def(f"partial_{n.ident}", params, returns)
    return "\n".join([head, f"    {doc}", call, "    return result"])


def _names(module: Module) -> Namespace:
    """The module's namespace with its public functions' names taken first."""
    space = Namespace(_MODULE_NAMES)
    for sig in module.signatures:
        ident = suffix(sig.name)
        space.take_all((f"validate_{ident}", f"validate_{ident}_input", f"parse_{ident}"))
        if sig.mode == "json":
            space.take(f"partial_{ident}")
    return space


def _exports(views: list[SigView], types: list[str]) -> list[str]:
    """`__all__`: the functions, the typed forms, and what the runtime lends the module."""
    names = [*types, "Limits", "ParseResult", "ReplyError", "ValidationError"]
    for v in views:
        n = v.names
        names += [f"validate_{n.ident}", f"validate_{n.ident}_input", f"parse_{n.ident}"]
        names += [n.output_type, n.input_type]
        if v.partial:
            names.append(f"partial_{n.ident}")
    return [ps.string(name) for name in sorted(names)]


def _typed(
    lowered: Lowered, module: Module
) -> tuple[Namespace, PyTypes, list[tuple[str, str]], dict[str, str]]:
    """The module's typed forms: its namespace, its types, each signature's output and
    params types, and each json signature's partial type (by signature)."""
    project = lowered.project
    space = _names(module)
    roots = [t for s in module.signatures for t in (s.output, *(p.type for p in s.params))]
    named = reachable_names(roots, project.types)
    pytypes = PyTypes(project.types, space)
    pytypes.name_types(named)
    for name in named:
        pytypes.define_named(name)
    tops = [
        (
            pytypes.top(sig.output, pascal(sig.name) + "Output"),
            pytypes.top(ir.MapOf(sig.params, True), pascal(sig.name) + "Input"),
        )
        for sig in module.signatures
    ]
    partials = {
        sig.name: pytypes.partial(sig.output, pascal(sig.name) + "Partial", output)
        for sig, (output, _) in zip(module.signatures, tops, strict=True)
        if sig.mode == "json"
    }
    return space, pytypes, tops, partials


def partial_types(lowered: Lowered, module: Module) -> dict[str, str]:
    """Each json signature's partial type's name in its validators module (the client
    module's stream functions name it)."""
    return _typed(lowered, module)[3]


def validators_module(
    lowered: Lowered, module: Module, env: jinja2.Environment, *, compact: bool
) -> str:
    project = lowered.project
    space, pytypes, tops, partials = _typed(lowered, module)
    types = space.take("TYPES")
    writer = _Module(lowered, compact, space, pytypes, FastPaths(project, space), types, set())
    views = [writer.signature(s, *top) for s, top in zip(module.signatures, tops, strict=True)]
    views = [
        replace(v, partial=_partial(v.names, v.name, partials[v.name])) if v.name in partials else v
        for v in views
    ]
    descriptors = lowered.type_descriptors(module.signatures)
    types_node = ps.lit({k: descriptor_node(v, writer.used) for k, v in descriptors.items()})
    fast = writer.fast
    return render(
        env,
        "python/module.py.j2",
        source=module.source,
        up=relative(module.path, ()),
        runtime=relative(module.path, ("_runtime",)),
        uses_re=not compact and any("re.compile(" in c for c in fast.constants),
        typing=_import_order({"Any", "TYPE_CHECKING", *pytypes.uses}),
        runtime_names=_import_order(
            {*writer.used, "Limits", "ParseResult", "ReplyError", "ValidationError"}
        ),
        definitions=pytypes.definitions,
        types_literal=ps.assign(types, types_node, "dict[str, Descriptor]").rstrip(),
        constants=fast.constants,
        functions=fast.functions,
        signatures=views,
        compact=compact,
        exports=_exports(views, [*pytypes.names.values(), *partials.values()]),
        depth=LIMITS.depth,
        uses_depth=any(v.deep for v in views),
    )


def _import_order(names: set[str]) -> list[str]:
    """Names in a `from` import as ruff's isort orders them: constants, classes, the rest."""

    def key(name: str) -> tuple[int, str, str]:
        group = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
        return group, name.lower(), name

    return sorted(names, key=key)
