"""The names a test declaration uses, for the editor's index (`symbols.py`): the signature
it calls, its arguments' names (the params they pass), the keys of the JSON objects it
gives for a map type (an argument, an exact output: the fields they name), and each name
in a check's subject (`items[0].name`: the output field it steps into), followed through
named types, `?`, lists and unions as `semantics/testcases.py` follows them. A name that
resolves to nothing is a use of nothing; what follows it is not followed. Free of pygls.
"""

from __future__ import annotations

from sigspec.commands.lsp.shapes import members, resolve_named
from sigspec.diagnostics.source import Span
from sigspec.semantics.ir import fold
from sigspec.semantics.scope import ParsedFile, Table
from sigspec.syntax import ast

Key = tuple[str, int]  # a declaration: its file's path and where its name starts
Use = tuple[Span, str, Key | None]  # where a name is written, as written, what it names


def uses_in_test(table: Table, file: ParsedFile, decl: ast.TestDecl) -> list[Use]:
    """The uses in a test of `file`, in source order."""
    found = resolve_named(table, decl.target.name, "signature", file)
    sig = found[0] if found is not None else None
    target = (found[1].source.path, sig.name_span.start) if found and sig else None
    uses: list[Use] = [(decl.target.span, decl.target.name, target)]
    if found is None or not isinstance(sig, ast.SignatureDecl):
        return uses
    owner = found[1]
    reader = _Reader(table, file.source.text, uses)
    params = {fold(p.name): p for p in sig.params}
    for arg in decl.args:
        param = params.get(fold(arg.name))
        key = (owner.source.path, param.name_span.start) if param else None
        uses.append((arg.name_span, arg.name, key))
        if param is not None:
            reader.value(arg.value, param.type, owner)
    if isinstance(decl.expect, ast.Checks):
        for check in decl.expect.items:
            reader.subject(check.subject, sig.output, owner)
    elif not isinstance(decl.expect, ast.Valid):
        reader.value(decl.expect, sig.output, owner)
    return uses


def key_span(text: str, key: str, start: int, value: int) -> Span | None:
    """Where a JSON object's key is written, inside its quotes: the last `"key"` between
    the object's start and the entry's value, with only a `:` and spaces after it. None
    for a key written with escapes (no plain name to rename)."""
    quoted = f'"{key}"'
    at = text.rfind(quoted, start, value)
    if at < 0 or text[at + len(quoted) : value].strip() != ":":
        return None
    return Span(at + 1, at + 1 + len(key))


class _Reader:
    """Values and subjects of one test, read against the signature's types."""

    def __init__(self, table: Table, text: str, uses: list[Use]) -> None:
        self.table = table
        self.text = text
        self.uses = uses

    def value(self, value: ast.Value, t: ast.TypeExpr, owner: ParsedFile) -> None:
        """The keys of a JSON object given for a map type, in lists too."""
        shapes = members(self.table, t, owner)
        if isinstance(value, ast.ListValue):
            items = [(m.item, file) for m, file in shapes if isinstance(m, ast.ListType)]
            for item in value.items if items else ():
                self.value(item, *items[0])
            return
        if not isinstance(value, ast.MapValue):
            return
        maps = [(m, file) for m, file in shapes if isinstance(m, ast.MapType)]
        for key, item in value.entries:
            field = next(
                ((f, file) for m, file in maps for f in m.fields if fold(f.name) == fold(key)),
                None,
            )
            span = key_span(self.text, key, value.span.start, item.span.start)
            if field is None or span is None:
                continue
            self.uses.append((span, key, (field[1].source.path, field[0].name_span.start)))
            self.value(item, field[0].type, field[1])

    def subject(self, subject: ast.Subject, output: ast.TypeExpr, owner: ParsedFile) -> None:
        """A subject's names, step by step through the output's type."""
        places = [(output, owner)]
        for step, span in zip(subject.path, subject.steps, strict=True):
            # Each shape once: through a recursive union the same declarations come back
            # from every member, and the places would double at each step.
            shapes = list(
                {
                    (id(m[0]), m[1].source.path): m
                    for t, file in places
                    for m in members(self.table, t, file)
                }.values()
            )
            if isinstance(step, int):
                places = [(t.item, file) for t, file in shapes if isinstance(t, ast.ListType)]
                continue
            key: Key | None = None
            places = []
            for t, file in shapes:
                if not isinstance(t, ast.MapType):
                    continue
                match = next((f for f in t.fields if fold(f.name) == fold(step)), None)
                if match is not None:
                    key = key or (file.source.path, match.name_span.start)
                    places.append((match.type, file))
            self.uses.append((span, step, key))
            if key is None:
                return
