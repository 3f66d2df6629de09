"""The inline-signature API: `parse_signature(text)` for one PtcRunner-style string."""

from __future__ import annotations

from sigspec.diagnostics import Diagnostic, codes, has_errors, sort_diagnostics
from sigspec.diagnostics.source import SourceFile
from sigspec.semantics import ir
from sigspec.semantics.resolve import Resolver
from sigspec.semantics.rules import Defaults, check_field
from sigspec.semantics.scope import ParsedFile, Table
from sigspec.syntax import ast
from sigspec.syntax.parser import parse_inline


class SignatureError(ValueError):
    """An inline signature was rejected; `.diagnostics` says why."""

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        self.diagnostics = diagnostics
        first = next((d for d in diagnostics if d.is_error), diagnostics[0])
        where = ""
        if first.source is not None and first.span is not None:
            pos = first.source.position(first.span.start)
            where = f" at line {pos.line}, column {pos.column}"
        super().__init__(f"invalid signature{where}: {first.message} [{first.code}]")


def parse_signature(text: str) -> ir.Signature:
    """Parse and check one inline signature; raise `SignatureError` if it is not valid."""
    source = SourceFile("<signature>", text)
    node, diags = parse_inline(source)
    if node is None or has_errors(diags):
        raise SignatureError(sort_diagnostics(diags))
    file = ParsedFile(source, ast.Module((), ()), frozenset({source.path}))
    resolver = Resolver(Table({}), file)
    params = resolver.fields(node.params or (), codes.DUPLICATE_PARAM)
    output = resolver.type(node.output)
    found = [*diags, *resolver.diagnostics]
    for site in resolver.sites:
        found += check_field(site, {}, Defaults({}))
    if has_errors(found):
        raise SignatureError(sort_diagnostics(found))
    return ir.Signature(
        name="",
        params=params,
        output=output,
        shorthand=node.params is None,
        origin=ir.Origin(source, node.span),
    )
