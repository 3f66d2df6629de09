"""Lark parse tree → AST. One method per grammar rule; spans come from Lark's metadata.

Non-recursive on purpose: `field_list` is left-recursive, so a map with thousands of fields is
a deep tree, and a recursive transformer would hit Python's recursion limit.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from lark import Token, Transformer_NonRecursive, v_args

from sigspec.diagnostics import Diagnostic, codes
from sigspec.source import SourceFile, Span
from sigspec.syntax import ast
from sigspec.syntax.strings import StringError, decode

PRIMITIVES = ("string", "int", "float", "bool", "keyword", "datetime", "map", "any")
PRIMITIVE_ALIASES = {"boolean": "bool"}


def _span(meta: Any) -> Span:
    return Span(meta.start_pos, meta.end_pos)


def _tok(token: Token) -> Span:
    return Span(token.start_pos or 0, token.end_pos or 0)


@v_args(meta=True)
class AstBuilder(Transformer_NonRecursive[Token, Any]):
    """Builds the AST for one source; collects (never raises) the diagnostics it finds."""

    def __init__(self, source: SourceFile) -> None:
        super().__init__()
        self.source = source
        self.diagnostics: list[Diagnostic] = []

    # ---- strings and numbers ----

    def _string(self, token: Token) -> ast.ScalarValue:
        try:
            value = decode(str(token))
        except StringError as exc:
            self.diagnostics.append(codes.INVALID_STRING.at(self.source, _tok(token), reason=exc))
            value = ""
        return ast.ScalarValue(value, _tok(token), triple=token.type == "TRIPLE_STRING")

    def _number(self, token: Token) -> int | float:
        text = str(token)
        if any(c in text for c in ".eE"):
            value = float(text)
            if not math.isfinite(value):
                self.diagnostics.append(
                    codes.SYNTAX_ERROR.at(
                        self.source, _tok(token), detail=f"number {text} is out of range"
                    )
                )
                return 0.0
            return value
        return int(text)

    # ---- values ----

    def v_string(self, meta: Any, c: list[Any]) -> ast.ScalarValue:
        return self._string(c[0])

    def v_number(self, meta: Any, c: list[Any]) -> ast.ScalarValue:
        return ast.ScalarValue(self._number(c[0]), _span(meta))

    def v_true(self, meta: Any, c: list[Any]) -> ast.ScalarValue:
        return ast.ScalarValue(True, _span(meta))

    def v_false(self, meta: Any, c: list[Any]) -> ast.ScalarValue:
        return ast.ScalarValue(False, _span(meta))

    def v_null(self, meta: Any, c: list[Any]) -> ast.ScalarValue:
        return ast.ScalarValue(None, _span(meta))

    def v_list(self, meta: Any, c: list[Any]) -> ast.ListValue:
        return ast.ListValue(tuple(x for x in c if x is not None), _span(meta))

    def pair(self, meta: Any, c: list[Any]) -> tuple[str, ast.Value]:
        key = self._string(c[0]).value
        return (str(key), c[1])

    def v_map(self, meta: Any, c: list[Any]) -> ast.MapValue:
        return ast.MapValue(tuple(x for x in c if x is not None), _span(meta))

    def attr_name(self, meta: Any, c: list[Any]) -> ast.NameArg:
        return ast.NameArg(str(c[0]), _tok(c[0]))

    def attr(self, meta: Any, c: list[Any]) -> ast.Attribute:
        args = None if c[1] is None else tuple(x for x in c[2:] if x is not None)
        return ast.Attribute(str(c[0])[1:], args, _span(meta))

    def attrs(self, meta: Any, c: list[Any]) -> tuple[ast.Attribute, ...]:
        return tuple(c)

    def default(self, meta: Any, c: list[Any]) -> ast.Value:
        return c[0]  # type: ignore[no-any-return]

    # ---- types ----

    def prim(self, meta: Any, c: list[Any]) -> ast.PrimType:
        word = str(c[0])[1:]
        name = PRIMITIVE_ALIASES.get(word, word)
        if name not in PRIMITIVES:
            from sigspec.diagnostics.suggest import did_you_mean

            hints = did_you_mean(word, PRIMITIVES + tuple(PRIMITIVE_ALIASES), prefix=":")
            valid = "valid types: " + " ".join(f":{p}" for p in PRIMITIVES)
            self.diagnostics.append(
                codes.UNKNOWN_PRIMITIVE.at(
                    self.source, _span(meta), name=str(c[0]), hints=(*hints, valid)
                )
            )
        return ast.PrimType(name, _span(meta))

    def named(self, meta: Any, c: list[Any]) -> ast.NamedType:
        return ast.NamedType(str(c[0]), _span(meta))

    def list_type(self, meta: Any, c: list[Any]) -> ast.ListType:
        return ast.ListType(c[0], _span(meta))

    def closed_map(self, meta: Any, c: list[Any]) -> ast.MapType:
        return ast.MapType(c[0] or (), False, _span(meta))

    def open_map(self, meta: Any, c: list[Any]) -> ast.MapType:
        return ast.MapType(c[0], True, _span(meta))

    def open_map_empty(self, meta: Any, c: list[Any]) -> ast.MapType:
        return ast.MapType((), True, _span(meta))

    def group(self, meta: Any, c: list[Any]) -> ast.TypeExpr:
        # Parentheses only group; the node takes their span so that `(...)?` adjacency holds.
        return replace(c[0], span=_span(meta))  # type: ignore[no-any-return]

    def optional(self, meta: Any, c: list[Any]) -> ast.OptionalType:
        inner, qmark = c
        if inner.span.end != qmark.start_pos:
            self.diagnostics.append(codes.SPACE_BEFORE_OPTIONAL.at(self.source, _tok(qmark)))
        return ast.OptionalType(inner, _span(meta))

    def union(self, meta: Any, c: list[Any]) -> ast.UnionType:
        return ast.UnionType(tuple(c), _span(meta))

    def lit_string(self, meta: Any, c: list[Any]) -> ast.LiteralType:
        return ast.LiteralType(self._string(c[0]).value, _span(meta))

    def lit_number(self, meta: Any, c: list[Any]) -> ast.LiteralType:
        return ast.LiteralType(self._number(c[0]), _span(meta))

    def lit_true(self, meta: Any, c: list[Any]) -> ast.LiteralType:
        return ast.LiteralType(True, _span(meta))

    def lit_false(self, meta: Any, c: list[Any]) -> ast.LiteralType:
        return ast.LiteralType(False, _span(meta))

    def lit_null(self, meta: Any, c: list[Any]) -> ast.LiteralType:
        return ast.LiteralType(None, _span(meta))

    # ---- fields ----

    def field(self, meta: Any, c: list[Any]) -> ast.Field:
        name, type_, default, attrs, desc = c
        description = self._string(desc) if desc is not None else None
        return ast.Field(str(name), _tok(name), type_, default, attrs, description, _span(meta))

    def field_list(self, meta: Any, c: list[Any]) -> tuple[ast.Field, ...]:
        if len(c) == 1:
            return (c[0],)
        return (*c[0], c[1])

    def params(self, meta: Any, c: list[Any]) -> tuple[ast.Field, ...]:
        return c[0]  # type: ignore[no-any-return]

    # ---- declarations ----

    def import_decl(self, meta: Any, c: list[Any]) -> ast.ImportDecl:
        path = self._string(c[1])
        return ast.ImportDecl(str(path.value), path.span, c[0], None, _span(meta))

    def type_decl(self, meta: Any, c: list[Any]) -> ast.TypeDecl:
        attrs, name, type_ = c
        return ast.TypeDecl(str(name), _tok(name), type_, attrs, None, _span(meta))

    def _signature(self, kind: str, meta: Any, c: list[Any]) -> ast.SignatureDecl:
        attrs, name, params, _arrow, output = c
        return ast.SignatureDecl(
            kind, str(name), _tok(name), params or (), output, attrs, None, _span(meta)
        )

    def signature_decl(self, meta: Any, c: list[Any]) -> ast.SignatureDecl:
        return self._signature("signature", meta, c)

    def tool_decl(self, meta: Any, c: list[Any]) -> ast.SignatureDecl:
        return self._signature("tool", meta, c)

    def pipeline_decl(self, meta: Any, c: list[Any]) -> ast.PipelineDecl:
        attrs, name, *rest = c
        steps = tuple(ast.NamedType(str(t), _tok(t)) for t in rest if t.type == "NAME")
        return ast.PipelineDecl(str(name), _tok(name), steps, attrs, None, _span(meta))

    def module(self, meta: Any, c: list[Any]) -> tuple[ast.Decl, ...]:
        return tuple(c)

    def inline(self, meta: Any, c: list[Any]) -> ast.InlineSignature:
        return ast.InlineSignature(None, c[0], _span(meta))

    def inline_full(self, meta: Any, c: list[Any]) -> ast.InlineSignature:
        params, _arrow, output = c
        return ast.InlineSignature(params or (), output, _span(meta))
