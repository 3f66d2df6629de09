"""What a file declares, as a tree (document symbols), and the project's declarations that
match a query (workspace symbols). Free of pygls."""

from __future__ import annotations

from dataclasses import dataclass

from sigspec.commands.lsp.symbols import Declaration, Index, Kind
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast

_DETAIL_WIDTH = 60


@dataclass(frozen=True, slots=True)
class Outline:
    name: str
    kind: Kind
    detail: str  # the type or the signature's shape, as written (shortened)
    span: Span  # the whole declaration
    selection: Span  # its name
    children: tuple[Outline, ...]


def outline(index: Index, path: str) -> list[Outline]:
    """The declarations of a file in source order (its tests too), their params and fields
    as children (a field's own map fields under it)."""
    file = index.files.get(path)
    if file is None:
        return []
    source = file.source
    out = []
    for decl in index.top_level(path):
        node = decl.node
        match node:
            case ast.TypeDecl():
                children = _fields(source, node.type, "field")
                detail = _written(source, node.type.span)
            case ast.SignatureDecl():
                params = tuple(_field(source, p, "param") for p in node.params)
                children = params + _fields(source, node.output, "field")
                detail = "-> " + _written(source, node.output.span)
            case ast.PipelineDecl():
                children = ()
                detail = " |> ".join(step.name for step in node.steps)
            case ast.TestDecl():
                children = ()
                detail = f"test of {node.target.name}"
            case _:
                continue
        span = _with_doc(source, node.span) if node.doc is not None else node.span
        out.append(Outline(decl.name, decl.kind, detail, span, decl.span, children))
    return out


def _with_doc(source: SourceFile, span: Span) -> Span:
    """A declaration's span grown over the `##` doc comment lines right above it."""
    text = source.text
    start = span.start
    while start > 0:
        line_start = text.rfind("\n", 0, start - 1) + 1
        if not text[line_start : start - 1].lstrip().startswith("##"):
            break
        start = line_start
    return Span(start, span.end)


def _fields(source: SourceFile, t: ast.TypeExpr, kind: Kind) -> tuple[Outline, ...]:
    """The fields of the maps a type holds, through lists, `?` and unions."""
    match t:
        case ast.MapType(fields):
            return tuple(_field(source, f, kind) for f in fields)
        case ast.ListType(item):
            return _fields(source, item, kind)
        case ast.OptionalType(inner):
            return _fields(source, inner, kind)
        case ast.UnionType(members):
            return tuple(o for m in members for o in _fields(source, m, kind))
        case _:
            return ()


def _field(source: SourceFile, f: ast.Field, kind: Kind) -> Outline:
    detail = _written(source, f.type.span)
    return Outline(f.name, kind, detail, f.span, f.name_span, _fields(source, f.type, "field"))


def _written(source: SourceFile, span: Span) -> str:
    """A piece of source on one line, shortened."""
    text = " ".join(source.text[span.start : span.end].split())
    return text if len(text) <= _DETAIL_WIDTH else text[: _DETAIL_WIDTH - 1] + "…"


def search(index: Index, query: str) -> list[Declaration]:
    """The top-level declarations and tests whose name matches `query` ignoring case: the
    whole name, then a prefix, a substring, and last the query's characters in order
    (fuzzy). An empty query matches everything."""
    ranked = []
    for path in sorted(index.files):
        for decl in index.top_level(path):
            rank = match_rank(decl.name, query)
            if rank is not None:
                ranked.append((rank, decl.name.lower(), decl.path, decl.span.start, decl))
    ranked.sort(key=lambda r: r[:4])
    return [r[-1] for r in ranked]


def match_rank(name: str, query: str) -> int | None:
    """How well a name matches a query (lower is better), None when it does not."""
    name, query = name.lower(), query.lower()
    if name == query:
        return 0
    if name.startswith(query):
        return 1
    if query in name:
        return 2
    at = 0
    for char in query:
        at = name.find(char, at) + 1
        if at == 0:
            return None
    return 3
