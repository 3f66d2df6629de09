"""Breaking changes between two versions of a project, direction-aware (like `buf breaking`).

Inputs are written by callers: a new version must accept every call the old one did. Outputs
are read by consumers: every value the new version can return must fit the old type. Types
are compared structurally with named types inlined, so renaming a `type` breaks nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from sigspec.diagnostics import Diagnostic, codes
from sigspec.lower.names import module_path
from sigspec.semantics import ir
from sigspec.semantics.types import Types, assignable, inline_refs


def compare(old: ir.Project, new: ir.Project) -> list[Diagnostic]:
    found: list[Diagnostic] = list(_moved(old, new))
    for before in old.signatures:
        after = new.signature(before.name)
        if after is None:
            found.append(codes.REMOVED_SIGNATURE.at_origin(before.origin, name=before.name))
            continue
        if after.mode != before.mode:
            found.append(
                codes.CHANGED_MODE.at_origin(
                    after.origin,
                    name=after.name,
                    old=before.mode,
                    new=after.mode,
                )
            )
        found += _params(before, after, old, new)
        found += _output(before, after, old, new)
    return found


def _moved(old: ir.Project, new: ir.Project) -> Iterator[Diagnostic]:
    """Signatures whose generated module has a new name (their file moved or was renamed):
    code that imports them from the old module breaks. One report per pair of modules."""
    moved: dict[tuple[str, str], list[ir.Signature]] = {}
    for before in old.signatures:
        after = new.signature(before.name)
        if after is None:
            continue
        was, now = _module(before), _module(after)
        if was != now:
            moved.setdefault((was, now), []).append(after)
    for (was, now), sigs in moved.items():
        names = ", ".join(f"`{s.name}`" for s in sigs)
        yield codes.RENAMED_MODULE.at_origin(sigs[0].origin, old=was, new=now, names=names)


def _module(sig: ir.Signature) -> str:
    return ".".join(module_path(sig.origin.source.path)) if sig.origin is not None else ""


def _params(
    before: ir.Signature, after: ir.Signature, old: ir.Project, new: ir.Project
) -> Iterator[Diagnostic]:
    olds = {ir.fold(p.name): p for p in before.params}
    for param in after.params:
        previous = olds.pop(ir.fold(param.name), None)
        if previous is None or (param.required and not previous.required):
            if param.required:
                yield codes.ADDED_REQUIRED_PARAM.at_origin(
                    param.origin, name=after.name, param=param.name
                )
            continue
        old_type = inline_refs(previous.type, old.types)
        new_type = inline_refs(param.type, new.types)
        if not assignable(old_type, new_type, new.types):
            yield codes.NARROWED_PARAM_TYPE.at_origin(
                param.origin,
                name=after.name,
                param=param.name,
                old=ir.render_type(old_type),
                new=ir.render_type(new_type),
            )
    for removed in olds.values():
        yield codes.REMOVED_PARAM.at_origin(after.origin, name=after.name, param=removed.name)


def _output(
    before: ir.Signature, after: ir.Signature, old: ir.Project, new: ir.Project
) -> Iterator[Diagnostic]:
    yield from _types(
        inline_refs(before.output, old.types),
        inline_refs(after.output, new.types),
        name=after.name,
        path="root",
        origin=after.origin,
        types=new.types,
    )


def _types(
    old: ir.TypeRef,
    new: ir.TypeRef,
    *,
    name: str,
    path: str,
    origin: ir.Origin | None,
    types: Types,
) -> Iterator[Diagnostic]:
    if isinstance(old, ir.MapOf) and isinstance(new, ir.MapOf):
        yield from _maps(old, new, name=name, path=path, origin=origin, types=types)
        return
    if isinstance(old, ir.ListOf) and isinstance(new, ir.ListOf):
        yield from _types(
            old.item, new.item, name=name, path=f"{path}[]", origin=origin, types=types
        )
        return
    if not assignable(new, old, types):
        yield codes.WIDENED_OUTPUT_TYPE.at_origin(
            origin,
            name=name,
            path=path,
            old=ir.render_type(old),
            new=ir.render_type(new),
        )


def _maps(
    old: ir.MapOf,
    new: ir.MapOf,
    *,
    name: str,
    path: str,
    origin: ir.Origin | None,
    types: Types,
) -> Iterator[Diagnostic]:
    news = {ir.fold(f.name): f for f in new.fields}
    olds = {ir.fold(f.name) for f in old.fields}
    added = [f for f in new.fields if ir.fold(f.name) not in olds]
    for field in old.fields:
        where = field.name if path == "root" else f"{path}.{field.name}"
        current = news.get(ir.fold(field.name))
        if current is None:
            twin = next((f for f in added if f.type == field.type), None)
            if twin is not None:
                yield codes.RENAMED_OUTPUT_FIELD.at_origin(
                    twin.origin or origin,
                    name=name,
                    path=where,
                    new=twin.name,
                )
            else:
                yield codes.REMOVED_OUTPUT_FIELD.at_origin(origin, name=name, path=where)
            continue
        spot = current.origin or origin
        # A default fills an absent field, so only `T?` makes it possibly missing.
        if not isinstance(field.type, ir.Optional) and isinstance(current.type, ir.Optional):
            yield codes.OUTPUT_FIELD_MADE_OPTIONAL.at_origin(spot, name=name, path=where)
            continue
        yield from _types(field.type, current.type, name=name, path=where, origin=spot, types=types)
