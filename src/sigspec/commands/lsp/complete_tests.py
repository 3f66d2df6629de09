"""Completion in a test declaration (`context.py` says where): inside its call, the params of
its signature not given yet (`name = `); inside its checks, the fields of the output a subject
may step into (those of the steps written before a `.`, through `?`, named types, lists and
unions), `$` and `len(`. The signature is read from the project's last view, so it may be
declared in another file, and the document need not parse. Free of pygls.
"""

from __future__ import annotations

from sigspec.commands.lsp.context import Context
from sigspec.commands.lsp.items import Item
from sigspec.commands.lsp.project import View
from sigspec.semantics import ir
from sigspec.semantics.types import Types, strip_optional


def arguments(context: Context, view: View | None) -> list[Item]:
    """The params of the test's signature its call does not give yet."""
    sig = view.project.signature(context.signature) if view and context.signature else None
    if sig is None:
        return []
    given = {ir.fold(name) for name in context.given}
    return [
        Item(
            p.name,
            "variable",
            ir.render_type(p.type) + ("" if p.required else "  (optional)"),
            p.description,
            f"{0 if p.required else 1}{index:03d}",
            f"{p.name} = $1",
            snippet=True,
        )
        for index, p in enumerate(sig.params)
        if ir.fold(p.name) not in given
    ]


def subjects(context: Context, view: View | None) -> list[Item]:
    """The fields a check may look at after the steps written; at its start `$` and `len(`."""
    sig = view.project.signature(context.signature) if view and context.signature else None
    if sig is None or view is None:
        return []
    output = ir.Prim("string") if sig.mode == "text" else sig.output
    types = view.project.types
    items = [
        Item(f.name, "field", ir.render_type(f.type), f.description, f"0{f.name}", f.name)
        for f in _fields_at(output, context.path, types)
    ]
    if not context.path:
        items.append(Item("$", "keyword", "the whole output", None, "1$", "$"))
        if not context.nested:
            doc = "The length of a string, a list or a map: `len(items) >= 2`."
            items.append(Item("len(", "keyword", "len(subject)", doc, "2len", "len($1)", True))
    return items


def _fields_at(output: ir.TypeRef, path: tuple[str | int, ...], types: Types) -> list[ir.Field]:
    """The fields of what `path` names in the output (through `?`, names and unions), each
    name once."""
    places = [output]
    for step in path:
        nxt: list[ir.TypeRef] = []
        for t in _shapes(places, types):
            if isinstance(step, int) and isinstance(t, ir.ListOf):
                nxt.append(t.item)
            elif isinstance(step, str) and isinstance(t, ir.MapOf):
                nxt += [f.type for f in t.fields if ir.fold(f.name) == ir.fold(step)]
        places = nxt
    seen: set[str] = set()
    out = []
    for t in _shapes(places, types):
        if isinstance(t, ir.MapOf):
            for f in t.fields:
                if ir.fold(f.name) not in seen:
                    seen.add(ir.fold(f.name))
                    out.append(f)
    return out


def _shapes(places: list[ir.TypeRef], types: Types) -> list[ir.TypeRef]:
    """The shapes values of these types may take: unions flattened, `?` and names followed."""
    out: list[ir.TypeRef] = []
    stack = list(reversed(places))
    for _ in range(_MAX_SHAPES):  # a union naming itself is no endless loop
        if not stack:
            break
        t = strip_optional(stack.pop(), types)
        if isinstance(t, ir.Union):
            stack += reversed(t.members)
        else:
            out.append(t)
    return out


_MAX_SHAPES = 1024  # the types looked at, unions of unions followed
