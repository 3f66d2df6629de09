"""Lark parse tree → AST, bottom-up and without recursion, one function per grammar rule.

The parser keeps every token (`keep_all_tokens`) instead of propagating positions, which
costs Lark almost half its parse time; a node's span is the extent of its children, brackets
and keywords included. Non-recursive because `field_list` is left-recursive: a map with
thousands of fields is a deep tree.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from lark import Token, Tree

from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.diagnostics.suggest import Suggestion, suggest
from sigspec.syntax import ast
from sigspec.syntax.strings import StringError, decode

Children = list[Any]
_MAX_INT_DIGITS = 4_000  # below Python's int-from-text limit (4,300)
_MAX_INDEX_DIGITS = 9  # a list index: no reply holds a billion items


def _unknown_primitive(source: SourceFile, token: Token) -> Diagnostic:
    """`:integer` and the like: a known synonym, else a close spelling, and the valid ones."""
    word = str(token)[1:]
    if word.lower() in ast.LIST_WORDS:
        found = Suggestion((ast.LIST_HINT,))
    else:
        names = ast.PRIMITIVES + tuple(ast.PRIMITIVE_ALIASES)
        found = suggest(word, names, prefix=":", synonyms=ast.PRIMITIVE_SYNONYMS)
    valid = "valid types: " + " ".join(f":{p}" for p in ast.PRIMITIVES)
    return codes.UNKNOWN_PRIMITIVE.at(
        source,
        _tok(token),
        name=str(token),
        hints=(*found.hints, valid),
        fixes=found.fixes(_tok(token)),
    )


def _tok(token: Token) -> Span:
    return Span(token.start_pos or 0, token.end_pos or 0)


def _start(item: Any) -> int | None:
    if isinstance(item, Token):
        return item.start_pos
    if isinstance(item, tuple | list):
        return _start(item[0]) if item else None
    return item.span.start if item is not None else None


def _end(item: Any) -> int | None:
    if isinstance(item, Token):
        return item.end_pos
    if isinstance(item, tuple | list):
        return _end(item[-1]) if item else None
    return item.span.end if item is not None else None


def extent(children: Children) -> Span:
    starts = (s for s in map(_start, children) if s is not None)
    ends = (e for e in map(_end, reversed(children)) if e is not None)
    return Span(next(starts, 0), next(ends, 0))


class _Fields(list[ast.Field]):
    """A `field_list` under construction (told apart from the tuples other rules build)."""


class _Args(tuple[ast.TestArg, ...]):
    """A test's arguments (told apart from the attributes' tuple)."""


def _field_list(children: Children) -> tuple[ast.Field, ...]:
    return next((tuple(x) for x in children if isinstance(x, _Fields)), ())


def _values(children: Children) -> list[Any]:
    """The AST values among a node's children: punctuation and placeholders dropped."""
    return [c for c in children if c is not None and not isinstance(c, Token)]


def _names(children: Children) -> list[Token]:
    return [c for c in children if isinstance(c, Token) and c.type == "NAME"]


class AstBuilder:
    """Builds the AST for one source; collects (never raises) the diagnostics it finds."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.diagnostics: list[Diagnostic] = []
        self.rules: dict[str, Callable[[Children], Any]] = {
            name: getattr(self, name) for name in RULES
        }

    def build(self, tree: Tree[Token]) -> Any:
        done: dict[int, Any] = {}
        for node in tree.iter_subtrees():  # children always come before their parent
            # Each result is taken by its one parent, so that only the unfinished ones stay.
            children = [done.pop(id(c)) if isinstance(c, Tree) else c for c in node.children]
            done[id(node)] = self.rules[str(node.data)](children)
        return done[id(tree)]

    # ---- strings and numbers ----

    def string(self, token: Token) -> ast.ScalarValue:
        try:
            value = decode(str(token))
        except StringError as exc:
            self.diagnostics.append(codes.INVALID_STRING.at(self.source, _tok(token), reason=exc))
            value = ""
        return ast.ScalarValue(value, _tok(token), triple=token.type == "TRIPLE_STRING")

    def number(self, token: Token) -> int | float:
        text = str(token)
        if not any(c in text for c in ".eE"):
            if len(text.lstrip("-")) <= _MAX_INT_DIGITS:
                return int(text)
            # int() refuses over 4,300 digits (a ValueError); no JSON number needs so many.
            detail = f"integer of {len(text)} characters is too long"
            self.diagnostics.append(codes.SYNTAX_ERROR.at(self.source, _tok(token), detail=detail))
            return 0
        value = float(text)
        if math.isfinite(value):
            return value
        detail = f"number {text} is out of range"
        self.diagnostics.append(codes.SYNTAX_ERROR.at(self.source, _tok(token), detail=detail))
        return 0.0

    def _first_string(self, c: Children) -> ast.ScalarValue:
        strings = ("STRING", "TRIPLE_STRING")
        return self.string(next(t for t in c if isinstance(t, Token) and t.type in strings))

    # ---- values ----

    def v_string(self, c: Children) -> ast.ScalarValue:
        return self.string(c[0])

    def v_number(self, c: Children) -> ast.ScalarValue:
        return ast.ScalarValue(self.number(c[0]), _tok(c[0]))

    def v_true(self, c: Children) -> ast.ScalarValue:
        return ast.ScalarValue(True, _tok(c[0]))

    def v_false(self, c: Children) -> ast.ScalarValue:
        return ast.ScalarValue(False, _tok(c[0]))

    def v_null(self, c: Children) -> ast.ScalarValue:
        return ast.ScalarValue(None, _tok(c[0]))

    def v_list(self, c: Children) -> ast.ListValue:
        return ast.ListValue(tuple(_values(c)), extent(c))

    def pair(self, c: Children) -> tuple[str, ast.Value]:
        return (str(self.string(c[0]).value), _values(c)[-1])

    def v_map(self, c: Children) -> ast.MapValue:
        return ast.MapValue(tuple(x for x in c if isinstance(x, tuple)), extent(c))

    def attr_name(self, c: Children) -> ast.NameArg:
        return ast.NameArg(str(c[0]), _tok(c[0]))

    def attr(self, c: Children) -> ast.Attribute:
        has_parens = any(isinstance(x, Token) and x.type == "LPAR" for x in c)
        args = tuple(_values(c)) if has_parens else None
        return ast.Attribute(str(c[0])[1:], args, extent(c))

    def attrs(self, c: Children) -> tuple[ast.Attribute, ...]:
        return tuple(c)

    def default(self, c: Children) -> ast.Value:
        return _values(c)[0]  # type: ignore[no-any-return]

    # ---- types ----

    def prim(self, c: Children) -> ast.PrimType:
        word = str(c[0])[1:]
        name = ast.primitive(word) or word
        if ast.primitive(word) is None:
            self.diagnostics.append(_unknown_primitive(self.source, c[0]))
        return ast.PrimType(name, _tok(c[0]))

    def named(self, c: Children) -> ast.NamedType:
        return ast.NamedType(str(c[0]), _tok(c[0]))

    def list_type(self, c: Children) -> ast.ListType:
        return ast.ListType(_values(c)[0], extent(c))

    def closed_map(self, c: Children) -> ast.MapType:
        return ast.MapType(_field_list(c), False, extent(c))

    def open_map(self, c: Children) -> ast.MapType:
        return ast.MapType(_field_list(c), True, extent(c))

    def open_map_empty(self, c: Children) -> ast.MapType:
        return ast.MapType((), True, extent(c))

    def group(self, c: Children) -> ast.TypeExpr:
        # Parentheses only group; the node takes their span so that `(...)?` adjacency holds.
        return replace(_values(c)[0], span=extent(c))  # type: ignore[no-any-return]

    def optional(self, c: Children) -> ast.OptionalType:
        inner, qmark = c
        if inner.span.end != qmark.start_pos:
            self.diagnostics.append(codes.SPACE_BEFORE_OPTIONAL.at(self.source, _tok(qmark)))
        return ast.OptionalType(inner, extent(c))

    def union(self, c: Children) -> ast.UnionType:
        return ast.UnionType(tuple(_values(c)), extent(c))

    def lit_string(self, c: Children) -> ast.LiteralType:
        return ast.LiteralType(self.string(c[0]).value, _tok(c[0]))

    def lit_number(self, c: Children) -> ast.LiteralType:
        return ast.LiteralType(self.number(c[0]), _tok(c[0]))

    def lit_true(self, c: Children) -> ast.LiteralType:
        return ast.LiteralType(True, _tok(c[0]))

    def lit_false(self, c: Children) -> ast.LiteralType:
        return ast.LiteralType(False, _tok(c[0]))

    def lit_null(self, c: Children) -> ast.LiteralType:
        return ast.LiteralType(None, _tok(c[0]))

    # ---- fields ----

    def field(self, c: Children) -> ast.Field:
        name, type_, default, attrs, desc = c
        description = self.string(desc) if desc is not None else None
        span = extent([name, type_, default, attrs, desc])
        return ast.Field(str(name), _tok(name), type_, default, attrs, description, span)

    def field_list(self, c: Children) -> _Fields:
        # The rule is left-recursive (one node per field): grow one list in place, since
        # copying the prefix at each node made a signature's fields quadratic in time and
        # memory (1.9 GB for 20,000 fields).
        if len(c) == 1:
            return _Fields([c[0]])
        fields: _Fields = c[0]
        fields.append(c[-1])
        return fields

    def params(self, c: Children) -> tuple[ast.Field, ...]:
        return tuple(c[0])

    # ---- declarations ----

    def import_decl(self, c: Children) -> ast.ImportDecl:
        path = self._first_string(c)
        return ast.ImportDecl(str(path.value), path.span, c[0], None, extent(c))

    def type_decl(self, c: Children) -> ast.TypeDecl:
        name = _names(c)[0]
        return ast.TypeDecl(str(name), _tok(name), _values(c)[-1], c[0], None, extent(c))

    def _signature(self, kind: str, c: Children) -> ast.SignatureDecl:
        name = _names(c)[0]
        params = next((x for x in c[1:] if isinstance(x, tuple)), ())
        output = _values(c)[-1]
        return ast.SignatureDecl(kind, str(name), _tok(name), params, output, c[0], None, extent(c))

    def signature_decl(self, c: Children) -> ast.SignatureDecl:
        return self._signature("signature", c)

    def tool_decl(self, c: Children) -> ast.SignatureDecl:
        return self._signature("tool", c)

    def pipeline_decl(self, c: Children) -> ast.PipelineDecl:
        name, *steps = _names(c)
        nodes = tuple(ast.NamedType(str(t), _tok(t)) for t in steps)
        return ast.PipelineDecl(str(name), _tok(name), nodes, c[0], None, extent(c))

    # ---- tests ----

    def test_decl(self, c: Children) -> ast.TestDecl:
        name, target = _names(c)[:2]
        args = next((x for x in c if isinstance(x, _Args)), ())
        node = ast.NamedType(str(target), _tok(target))
        return ast.TestDecl(str(name), _tok(name), node, tuple(args), c[-1], c[0], None, extent(c))

    def test_args(self, c: Children) -> _Args:
        return _Args(x for x in c if isinstance(x, ast.TestArg))

    def test_arg(self, c: Children) -> ast.TestArg:
        name, value = c[0], _values(c)[-1]
        return ast.TestArg(str(name), _tok(name), value, extent(c))

    def expect_valid(self, c: Children) -> ast.Valid:
        return ast.Valid(_tok(c[0]))

    def expect_exact(self, c: Children) -> ast.Value:
        return c[0]  # type: ignore[no-any-return]

    def expect_checks(self, c: Children) -> ast.Checks:
        return ast.Checks(tuple(x for x in c if isinstance(x, ast.Check)), extent(c))

    def check(self, c: Children) -> ast.Check:
        subject, op, value = c
        return ast.Check(subject, str(op), value, False, extent(c))  # type: ignore[arg-type]

    def check_in(self, c: Children) -> ast.Check:
        return ast.Check(c[0], "in", c[-1], False, extent(c))

    def check_match(self, c: Children) -> ast.Check:
        return ast.Check(c[0], "~", c[-1], False, extent(c))

    def check_call(self, c: Children) -> ast.Check:
        function, subject, op, value = c[0], c[2], c[4], c[5]
        if str(function) != "len":
            detail = f"`{function}(...)` is no check; the one function is `len(...)`"
            self.diagnostics.append(
                codes.SYNTAX_ERROR.at(self.source, _tok(function), detail=detail)
            )
        return ast.Check(subject, str(op), value, True, extent(c))  # type: ignore[arg-type]

    def subject(self, c: Children) -> ast.Subject:
        path: list[ast.PathStep] = []
        steps: list[Span] = []
        for token in c:
            if token.type == "NAME":
                path.append(str(token))
            elif token.type == "NUMBER":
                path.append(self._index(token))
            else:
                continue
            steps.append(_tok(token))
        return ast.Subject(tuple(path), tuple(steps), extent(c))

    def _index(self, token: Token) -> int:
        text = str(token)
        if text.isdigit() and len(text) <= _MAX_INDEX_DIGITS:
            return int(text)
        detail = f"`[{text}]` is no list index (a whole number from 0)"
        self.diagnostics.append(codes.SYNTAX_ERROR.at(self.source, _tok(token), detail=detail))
        return 0

    def module(self, c: Children) -> tuple[ast.Decl, ...]:
        return tuple(c)

    def inline(self, c: Children) -> ast.InlineSignature:
        return ast.InlineSignature(None, c[0], extent(c))

    def inline_full(self, c: Children) -> ast.InlineSignature:
        params = next((x for x in c if isinstance(x, tuple)), ())
        return ast.InlineSignature(params, _values(c)[-1], extent(c))


RULES = (
    "v_string",
    "v_number",
    "v_true",
    "v_false",
    "v_null",
    "v_list",
    "pair",
    "v_map",
    "attr_name",
    "attr",
    "attrs",
    "default",
    "prim",
    "named",
    "list_type",
    "closed_map",
    "open_map",
    "open_map_empty",
    "group",
    "optional",
    "union",
    "lit_string",
    "lit_number",
    "lit_true",
    "lit_false",
    "lit_null",
    "field",
    "field_list",
    "params",
    "import_decl",
    "type_decl",
    "signature_decl",
    "tool_decl",
    "pipeline_decl",
    "test_decl",
    "test_args",
    "test_arg",
    "expect_valid",
    "expect_exact",
    "expect_checks",
    "check",
    "check_in",
    "check_match",
    "check_call",
    "subject",
    "module",
    "inline",
    "inline_full",
)
