"""Type questions over the syntax, as the editor's index asks them of files that may not
check clean: what a name resolves to (as the checker's `Table.lookup` would), a type with
its `?` and aliases followed, and the shapes a value of a type may take. Free of pygls."""

from __future__ import annotations

from sigspec.semantics.ir import fold
from sigspec.semantics.scope import Named, ParsedFile, Table
from sigspec.syntax import ast

MAX_ALIASES = 32  # named types followed through aliases before giving up (a loop)

Shape = tuple[ast.TypeExpr, ParsedFile]  # a type and the file it is written in


def resolve_named(
    table: Table, name: str, kind: str, file: ParsedFile
) -> tuple[Named, ParsedFile] | None:
    """What the checker's `Table.lookup` finds, without its diagnostics."""
    entry = table.entries.get(fold(name))
    if entry is None or entry.kind != kind or entry.file.source.path not in file.visible:
        return None
    return entry.decl, entry.file


def strip(table: Table, t: ast.TypeExpr, file: ParsedFile) -> Shape | None:
    """A type with its `?` and named aliases followed (to the file declaring it)."""
    for _ in range(MAX_ALIASES):
        if isinstance(t, ast.OptionalType):
            t = t.inner
        elif isinstance(t, ast.NamedType):
            found = resolve_named(table, t.name, "type", file)
            if found is None or not isinstance(found[0], ast.TypeDecl):
                return None
            t, file = found[0].type, found[1]
        else:
            return t, file
    return None


def members(table: Table, t: ast.TypeExpr, file: ParsedFile) -> list[Shape]:
    """The shapes a value of `t` may take: `?`, named aliases and unions followed (as
    `semantics/testcases.py` follows a check's subject)."""
    out: list[Shape] = []
    stack = [(t, file)]
    for _ in range(MAX_ALIASES * 8):  # a union naming itself is no endless loop
        if not stack:
            break
        current, where = stack.pop()
        base = strip(table, current, where)
        if base is None:
            continue
        if isinstance(base[0], ast.UnionType):
            stack += [(m, base[1]) for m in reversed(base[0].members)]
        else:
            out.append(base)
    return out
