"""What loaded .sig files mean, without positions: the summary `sigspec fmt` proves it keeps.

Per file: its declarations in source order, each as its checked IR (every field but the
origin, so doc comments, attributes and defaults count; numbers tagged with their type, so
`1`, `1.0` and `true` differ), and the codes of the diagnostics reported in it. With
`lowered`, each declaration also carries its JSON Schemas and each signature its rendered
prompts. Those are functions of the IR, so they add nothing to a comparison that the IR
does not already decide; the tests ask for them to hold that claim to the corpus.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, is_dataclass
from functools import cache
from typing import Any

from sigspec.compiler.project import LoadResult
from sigspec.semantics import ir

Summary = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Declaration:
    kind: str  # "type", "signature", "tool", "pipeline" or "test"
    name: str
    summary: Summary


@dataclass(frozen=True, slots=True)
class FileMeaning:
    declarations: tuple[Declaration, ...]  # in source order
    diagnostics: tuple[str, ...]  # the codes, sorted


@cache
def _kept(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind) if f.name != "origin")


def freeze(node: Any) -> Any:
    """A value with its origins dropped and its numbers tagged, comparable with `==`."""
    if is_dataclass(node) and not isinstance(node, type):
        kind = type(node)
        return (kind.__name__, *((name, freeze(getattr(node, name))) for name in _kept(kind)))
    if isinstance(node, bool | int | float):
        return (type(node).__name__, repr(node))  # repr: -0.0 and 0.0 differ too
    if isinstance(node, Mapping):
        return ("map", *((freeze(k), freeze(v)) for k, v in node.items()))
    if isinstance(node, tuple | list):
        return ("list", *(freeze(x) for x in node))
    return node


def meanings(loaded: LoadResult, *, lowered: bool = False) -> dict[str, FileMeaning]:
    """Every loaded file's meaning, by its path as shown in diagnostics."""
    project = loaded.project
    views = _Views(project) if lowered and not loaded.has_errors else None
    entries: list[tuple[ir.Origin | None, Declaration]] = []
    for typedef in project.types.values():
        extra = views.type_schemas(typedef) if views else ()
        summary = (freeze(typedef), *extra)
        entries.append((typedef.origin, Declaration("type", typedef.name, summary)))
    for sig in (*project.signatures, *project.tools):
        extra = views.signature_views(sig) if views else ()
        entries.append((sig.origin, Declaration(sig.kind, sig.name, (freeze(sig), *extra))))
    for pipeline in project.pipelines:
        summary = (freeze(pipeline),)
        entries.append((pipeline.origin, Declaration("pipeline", pipeline.name, summary)))
    for test in project.tests:
        entries.append((test.origin, Declaration("test", test.name, (freeze(test),))))
    placed: dict[str, list[tuple[int, Declaration]]] = {s.path: [] for s in loaded.sources}
    for origin, decl in entries:
        path, start = (origin.source.path, origin.span.start) if origin else ("", 0)
        placed.setdefault(path, []).append((start, decl))
    codes: dict[str, list[str]] = {}
    for diagnostic in loaded.diagnostics:
        codes.setdefault(diagnostic.path, []).append(diagnostic.code)
    return {
        path: FileMeaning(
            tuple(decl for _, decl in sorted(placed.get(path, []), key=lambda item: item[0])),
            tuple(sorted(codes.get(path, []))),
        )
        for path in sorted({*placed, *codes})
    }


def difference(before: FileMeaning | None, after: FileMeaning | None) -> str | None:
    """What differs between two meanings of one file, in words; None when nothing does."""
    if before == after:
        return None
    if before is None or after is None:
        return "the file is no longer loaded" if after is None else "a new file is loaded"
    if before.declarations != after.declarations:
        return _declarations(before.declarations, after.declarations)
    gone = sorted(set(before.diagnostics) - set(after.diagnostics))
    come = sorted(set(after.diagnostics) - set(before.diagnostics))
    change = ", ".join([*(f"-{c}" for c in gone), *(f"+{c}" for c in come)])
    return f"its diagnostics change ({change or 'how many of each code'})"


def _declarations(before: tuple[Declaration, ...], after: tuple[Declaration, ...]) -> str:
    for old, new in zip(before, after, strict=False):
        if (old.kind, old.name) != (new.kind, new.name):
            break
        if old != new:
            return f"{old.kind} `{old.name}` changes"

    def names(decls: tuple[Declaration, ...]) -> str:
        return ", ".join(f"{d.kind} {d.name}" for d in decls) or "none"

    return f"its declarations change from ({names(before)}) to ({names(after)})"


class _Views:
    """The lowered views a declaration's meaning includes under `lowered`."""

    def __init__(self, project: ir.Project) -> None:
        from sigspec.lower.views import Lowered

        self.project = project
        self.lowered = Lowered(project)

    def type_schemas(self, typedef: ir.TypeDef) -> Summary:
        from sigspec.lower.schema import SchemaBuilder

        builder = SchemaBuilder(self.project)
        schema = builder.type(ir.Ref(typedef.name))
        return (_json(schema), _json(builder.definitions()))

    def signature_views(self, sig: ir.Signature) -> Summary:
        schemas = (_json(self.lowered.input_schema(sig)), _json(self.lowered.output_schema(sig)))
        if sig.kind != "signature":
            return schemas
        return (*schemas, _json(self.lowered.prompts(sig).by_role()))


def _json(value: Any) -> str:
    """Key order kept, and `1`, `1.0` and `true` apart: what a generated file would hold."""
    return json.dumps(value, ensure_ascii=False)
