"""A .sig file's validators module: for each signature `validate_NAME`, `validate_NAME_input`
and `parse_NAME`, standard library only, with the typed forms they return (`pytypes.py`).
Fast: generated checks (`fastpath.py`) in front of the runtime's validator; compact: the
runtime's validator with the descriptors alone."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, assert_never

import jinja2

from sigspec.emit.python import pysource as ps
from sigspec.emit.python.fastpath import FastPaths, signature_exits
from sigspec.emit.python.imports import relative
from sigspec.emit.python.names import Namespace, pascal
from sigspec.emit.python.pytypes import PyTypes
from sigspec.lower.names.python import suffix
from sigspec.lower.quoting import line_comment
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
class SigView:
    name: str
    ident: str
    output_type: str  # the output's typed form (a TypedDict or an alias)
    input_type: str
    output: str  # the name of the output's descriptor
    input: str
    output_literal: str  # `OUTPUT = Map(...)`, the descriptors' statements
    input_literal: str
    checker: str  # parse_NAME's checker (fast validators first)
    comment: str  # what the signature's output is, as a comment
    body: str  # validate_NAME's checks (emit/python/fastpath.py)
    result: str  # the normalised value's expression once they passed
    deep: bool  # may a valid value nest past the default depth limit (checked first, then)
    lines: Mapping[str, str]  # statements and headers, each as ruff formats it


def _def(name: str, params: list[str], returns: str) -> str:
    """A function's header, as ruff formats it."""
    tail = f" -> {returns}:"
    return ps.render(ps.call(f"def {name}", *map(ps.code, params)), 0, 0, len(tail)) + tail


def _call(indent: int, head: str, *args: str) -> str:
    """`head(args)` at `indent` (a statement: `return f(...)`, `x: T = f(...)`)."""
    return "    " * indent + ps.render(ps.call(head, *map(ps.code, args)), indent)


def _lines(
    sig: ir.Signature, ident: str, names: Mapping[str, str], compact: bool
) -> dict[str, str]:
    out, in_, types = names["output"], names["input"], names["types"]
    out_t, in_t = names["output_type"], names["input_type"]
    limits = "limits: Limits | None = None"
    slow = f"_slow: Callable[..., {out_t}] = _rt.validate"
    check = "_rt.check" if compact else names["checker"]
    return {
        "validate": _def(
            f"validate_{ident}",
            ["value: Any", limits] if compact else ["value: Any", slow, limits],
            out_t,
        ),
        "validate_input": _def(f"validate_{ident}_input", ["value: Any", limits], in_t),
        "parse": _def(f"parse_{ident}", ["text: str", limits], "ParseResult"),
        "compact": _call(1, f"result: {out_t} = _rt.validate", out, "value", types, "limits"),
        "limited": _call(2, "return _slow", out, "value", types, "limits"),
        "too_deep": _call(2, "return _slow", out, "value", types),
        "input": _call(1, f"result: {in_t} = _rt.validate", in_, "value", types, "limits"),
        "parse_call": _call(1, "return _rt.parse_reply", "text", out, types, check, "limits"),
        "checker": _call(0, f"{names['checker']} = _rt.checker", f"validate_{ident}"),
    }


def _comment(sig: ir.Signature) -> str:
    text = line_comment(f"`{sig.name}` returns {ir.render_type(sig.output)}")
    lines = textwrap.wrap(text, 86, break_long_words=False, break_on_hyphens=False)
    return "\n".join(f"# {line}" for line in lines)


def _names(module: Module, compact: bool) -> Namespace:
    """The module's namespace with its public functions' names taken first."""
    space = Namespace(_MODULE_NAMES)
    for sig in module.signatures:
        ident = suffix(sig.name)
        space.take_all((f"validate_{ident}", f"validate_{ident}_input", f"parse_{ident}"))
    return space


def validators_module(
    lowered: Lowered, module: Module, env: jinja2.Environment, *, compact: bool
) -> str:
    project = lowered.project
    space = _names(module, compact)
    named = reachable_names(
        [t for s in module.signatures for t in (s.output, *(p.type for p in s.params))],
        project.types,
    )
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
    types = space.take("TYPES")
    used: set[str] = set()  # the descriptor classes the module names
    fast = FastPaths(project, space)
    views = []
    for sig, (output_type, input_type) in zip(module.signatures, tops, strict=True):
        ident = suffix(sig.name)
        output = space.take(f"{ident.upper()}_OUTPUT")
        input_ = space.take(f"{ident.upper()}_INPUT")
        checker = space.take(f"_checker_{ident}")
        checks = (
            ("", "")
            if compact
            else fast.body(
                sig.output,
                "value",
                1,
                exits=signature_exits(output, types),
                label=sig.name,
                reserved=("result",),
            )
        )
        views.append(
            SigView(
                sig.name,
                ident,
                output_type,
                input_type,
                output,
                input_,
                ps.assign(output, descriptor_node(lowered.output_descriptor(sig), used)).rstrip(),
                ps.assign(input_, descriptor_node(lowered.input_descriptor(sig), used)).rstrip(),
                checker,
                _comment(sig),
                *checks,
                deep=not compact and _deep(sig.output, project.types),
                lines=_lines(
                    sig,
                    ident,
                    {
                        "output": output,
                        "input": input_,
                        "types": types,
                        "output_type": output_type,
                        "input_type": input_type,
                        "checker": checker,
                    },
                    compact,
                ),
            )
        )
    exports = [
        f"{kind}_{v.ident}{tail}"
        for v in views
        for kind, tail in (("validate", ""), ("validate", "_input"), ("parse", ""))
    ]
    exports += [pytypes.names[n] for n in named]
    exports += [name for v in views for name in (v.output_type, v.input_type)]
    exports += ["Limits", "ParseResult", "ReplyError", "ValidationError"]
    exports = [ps.string(name) for name in sorted(exports)]
    type_descriptors = lowered.type_descriptors(module.signatures)
    types_literal = ps.assign(
        types,
        ps.lit({k: descriptor_node(v, used) for k, v in type_descriptors.items()}),
        "dict[str, Descriptor]",
    ).rstrip()
    return render(
        env,
        "python/module.py.j2",
        source=module.source,
        up=relative(module.path, ()),
        runtime=relative(module.path, ("_runtime",)),
        uses_re=not compact and any(" = re.compile(" in c for c in fast.constants),
        typing=_import_order({"Any", "TYPE_CHECKING", *pytypes.uses}),
        runtime_names=_import_order(
            {*used, "Limits", "ParseResult", "ReplyError", "ValidationError"}
        ),
        definitions=pytypes.definitions,
        types=types,
        types_literal=types_literal,
        constants=fast.constants,
        functions=fast.functions,
        signatures=views,
        compact=compact,
        exports=exports,
        depth=LIMITS.depth,
        uses_depth=any(v.deep for v in views),
    )


def _import_order(names: set[str]) -> list[str]:
    """Names in a `from` import as ruff's isort orders them: constants, classes, the rest."""

    def key(name: str) -> tuple[int, str, str]:
        group = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
        return group, name.lower(), name

    return sorted(names, key=key)
