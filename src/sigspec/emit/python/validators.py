"""A .sig file's validators module: for each signature `validate_NAME`, `validate_NAME_input`
and `parse_NAME`, standard library only. Fast: generated checks (`fastpath.py`) in front of
the runtime's validator; compact: the runtime's validator bound to the descriptors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import assert_never

import jinja2

from sigspec.emit.python.fastpath import FastPaths, signature_exits
from sigspec.emit.python.imports import relative
from sigspec.lower.names.python import suffix
from sigspec.lower.templating import render
from sigspec.lower.views import Lowered, Module
from sigspec.runtime.common import LIMITS
from sigspec.semantics import ir


@dataclass(frozen=True)
class SigView:
    name: str
    ident: str
    output: str
    input: str
    body: str  # validate_NAME's checks (emit/python/fastpath.py)
    result: str  # the normalised value's expression once they passed
    deep: bool  # may a valid value nest past the default depth limit (checked first, then)


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


def validators_module(
    lowered: Lowered, module: Module, env: jinja2.Environment, *, compact: bool
) -> str:
    fast = FastPaths(lowered.project)
    views = []
    for sig in module.signatures:
        ident = suffix(sig.name)
        checks = (
            ("", "") if compact else fast.body(sig.output, "value", 1, exits=signature_exits(ident))
        )
        views.append(
            SigView(
                sig.name,
                ident,
                repr(lowered.output_descriptor(sig)),
                repr(lowered.input_descriptor(sig)),
                *checks,
                deep=not compact and _deep(sig.output, lowered.project.types),
            )
        )
    exports = [
        repr(f"{kind}_{v.ident}{tail}")
        for v in views
        for kind, tail in (("validate", ""), ("validate", "_input"), ("parse", ""))
    ]
    uses_re = any(c.split(" = ", 1)[1].startswith("re.compile(") for c in fast.constants)
    return render(
        env,
        "python/module.py.j2",
        source=module.source,
        up=relative(module.path, ()),
        runtime=relative(module.path, ("_runtime",)),
        uses_re=uses_re,
        types=repr(lowered.type_descriptors(module.signatures)),
        constants=fast.constants,
        functions=fast.functions,
        signatures=views,
        compact=compact,
        exports=sorted(exports),
        depth=LIMITS.depth,
        uses_depth=any(v.deep for v in views),
    )
