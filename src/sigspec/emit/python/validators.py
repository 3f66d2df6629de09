"""A .sig file's validators module: for each signature `validate_NAME`, `validate_NAME_input`
and `parse_NAME`, standard library only. Fast: generated checks (`fastpath.py`) in front of
the runtime's validator; compact: the runtime's validator bound to the descriptors."""

from __future__ import annotations

from dataclasses import dataclass

import jinja2

from sigspec.emit.python.fastpath import FastPaths, signature_exits
from sigspec.emit.python.imports import relative
from sigspec.lower.names.python import suffix
from sigspec.lower.templating import render
from sigspec.lower.views import Lowered, Module


@dataclass(frozen=True)
class SigView:
    name: str
    ident: str
    output: str
    input: str
    body: str  # validate_NAME's checks (emit/python/fastpath.py)
    result: str  # the normalised value's expression once they passed


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
    )
