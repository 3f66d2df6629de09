"""AST (+ comments) → canonical `.sig` text. `fmt` is idempotent and keeps every comment.

Layout: one declaration per paragraph (imports grouped), attributes one per line, and a map
or param list flat when it fits in WIDTH columns and holds no comment, else one item per line.
"""

from __future__ import annotations

import re
from typing import assert_never

from sigspec.diagnostics.source import SourceFile
from sigspec.syntax import ast
from sigspec.syntax.fmt.comments import (
    Attachments,
    Key,
    Placed,
    attach,
    ellipsis_key,
    key,
    params_span,
    test_args_span,
)
from sigspec.syntax.fmt.literals import encode, encode_triple, scalar

WIDTH = 100


def subject_text(path: tuple[ast.PathStep, ...]) -> str:
    """A check's subject: `$` (the whole output), `score`, `items[0].name`, `$[1]`."""
    text = "$" if not path or isinstance(path[0], int) else ""
    for step in path:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


INDENT = "  "


def format_module(source: SourceFile, module: ast.Module) -> str:
    return _Printer(attach(source, module)).module(module)


# What compiler/suppress.py reads as a suppression (the syntax layer cannot import it).
_SUPPRESSION = re.compile(r"#\s*sigspec:\s*ignore\[")


class _Printer:
    def __init__(self, notes: Attachments) -> None:
        self.notes = notes

    # ---- declarations ----

    def module(self, module: ast.Module) -> str:
        chunks: list[str] = []
        previous: tuple[ast.Decl, str] | None = None
        for decl in module.decls:
            text = self.decl(decl)
            if previous is not None:
                chunks.append("\n" if _together(previous, (decl, text)) else "\n\n")
            chunks.append(text)
            previous = decl, text
        tail = self._comment_lines(self.notes.end_of_file, "")
        text = "".join(chunks)
        if tail:
            text = f"{text}\n\n{tail}" if text else tail
        return text.strip("\n") + "\n" if text.strip() else ""

    def decl(self, decl: ast.Decl) -> str:
        k = key("decl", decl.span)
        head = self._comment_lines(_apart_from_doc(self.notes.leading.get(k, [])), "")
        if decl.doc is not None:
            head += "".join(f"##{' ' + line if line else ''}\n" for line in decl.doc.split("\n"))
        head += "".join(self.attr(a) + "\n" for a in decl.attrs)
        body = self._decl_body(decl)
        return head + body + self._trailing(k, "")

    def _decl_body(self, decl: ast.Decl) -> str:
        match decl:
            case ast.ImportDecl():
                return f"import {encode(decl.path)}"
            case ast.TypeDecl():
                start = f"type {decl.name} = "
                return start + self.type(decl.type, "", len(start))
            case ast.SignatureDecl():
                return self._signature(decl)
            case ast.PipelineDecl():
                return f"pipeline {decl.name} = " + " |> ".join(s.name for s in decl.steps)
            case ast.TestDecl():
                return self._test(decl)
            case _:
                assert_never(decl)

    def _test(self, decl: ast.TestDecl) -> str:
        head = f"test {decl.name} = {decl.target.name}"
        items = [f"{a.name} = {self.value(a.value)}" for a in decl.args]
        keys = [key("arg", a.span) for a in decl.args]
        container = key("args", test_args_span(decl))
        args = self._items(items, keys, container, brackets="()", indent="", column=len(head))
        if "\n" not in args and items:
            # As for a signature: the flat call must leave room for the expectation's start.
            start = f"{head}{args} -> "
            first = self._expectation(decl.expect, len(start)).split("\n", 1)[0]
            if len(start) + len(first) > WIDTH:
                args = self._items(items, keys, container, brackets="()", indent="", column=WIDTH)
        start = f"{head}{args} -> "
        column = len(start.rsplit("\n", 1)[-1])
        return start + self._expectation(decl.expect, column)

    def _expectation(self, expect: ast.Expectation, column: int) -> str:
        match expect:
            case ast.Valid():
                return "valid"
            case ast.Checks(items, span):
                texts = [self._check(c) for c in items]
                keys = [key("check", c.span) for c in items]
                return self._items(
                    texts, keys, key("checks", span), brackets="{}", indent="", column=column
                )
            case _:
                return self.value(expect)

    def _check(self, check: ast.Check) -> str:
        subject = subject_text(check.subject.path)
        if check.length:
            subject = f"len({subject})"
        return f"{subject} {check.op} {self.value(check.value)}"

    def _signature(self, decl: ast.SignatureDecl) -> str:
        container = key("params", params_span(decl))
        head = f"{decl.kind} {decl.name}"
        items = [self.field(p, INDENT) for p in decl.params]
        keys = [key("field", p.span) for p in decl.params]
        params = self._items(items, keys, container, brackets="()", indent="", column=len(head))
        if "\n" not in params:
            # The flat params must leave room for ` -> ` and the output's first line.
            start = f"{head}{params} -> "
            first = self.type(decl.output, "", len(start)).split("\n", 1)[0]
            if len(start) + len(first) > WIDTH and items:
                params = self._items(items, keys, container, brackets="()", indent="", column=WIDTH)
        start = f"{head}{params} -> "
        column = len(start.rsplit("\n", 1)[-1])
        return start + self.type(decl.output, "", column)

    # ---- fields, attributes, values ----

    def field(self, f: ast.Field, indent: str) -> str:
        type_text = self.type(f.type, indent, len(indent) + len(f.name) + 1)
        if isinstance(f.type, ast.UnionType) and (f.default or f.attrs or f.description):
            type_text = f"({type_text})"  # keep the tail visibly apart from the last member
        text = f"{f.name} {type_text}"
        if f.default is not None:
            text += " = " + self.value(f.default)
        for attr in f.attrs:
            text += " " + self.attr(attr)
        if f.description is not None:
            text += " " + self.string(f.description)
        return text

    def attr(self, attr: ast.Attribute) -> str:
        if attr.args is None:
            return f"@{attr.name}"
        args = ", ".join(a.name if isinstance(a, ast.NameArg) else self.value(a) for a in attr.args)
        return f"@{attr.name}({args})"

    def value(self, v: ast.Value) -> str:
        match v:
            case ast.ScalarValue():
                return self.string(v) if isinstance(v.value, str) else scalar(v.value)
            case ast.ListValue(items):
                return "[" + ", ".join(self.value(i) for i in items) + "]"
            case ast.MapValue(entries):
                return "{" + ", ".join(f"{encode(k)}: {self.value(x)}" for k, x in entries) + "}"
            case _:
                assert_never(v)

    def string(self, v: ast.ScalarValue) -> str:
        text = str(v.value)
        return encode_triple(text) if v.triple else encode(text)

    # ---- types ----

    def type(self, t: ast.TypeExpr, indent: str, column: int) -> str:
        match t:
            case ast.PrimType(name):
                return f":{name}"
            case ast.NamedType(name):
                return name
            case ast.ListType(item):
                return "[" + self.type(item, indent, column + 1) + "]"
            case ast.MapType():
                return self._map(t, indent, column)
            case ast.OptionalType(inner):
                # `?` binds to an atom: `(:int?)?` and `(A | B)?` keep their parentheses.
                if isinstance(inner, ast.UnionType | ast.OptionalType):
                    return "(" + self.type(inner, indent, column + 1) + ")?"
                return self.type(inner, indent, column) + "?"
            case ast.UnionType(members):
                parts = [self.type(m, indent, column) for m in members]
                return " | ".join(
                    f"({p})" if isinstance(m, ast.UnionType) else p
                    for p, m in zip(parts, members, strict=True)
                )
            case ast.LiteralType(value):
                return encode(value) if isinstance(value, str) else scalar(value)
            case _:
                assert_never(t)

    def _map(self, t: ast.MapType, indent: str, column: int) -> str:
        inner = indent + INDENT
        items = [self.field(f, inner) for f in t.fields]
        keys = [key("field", f.span) for f in t.fields]
        if t.open:
            items.append("...")
            keys.append(ellipsis_key(t))
        return self._items(
            items, keys, key("map", t.span), brackets="{}", indent=indent, column=column
        )

    def _items(
        self,
        items: list[str],
        keys: list[Key],
        container: Key,
        *,
        brackets: str,
        indent: str,
        column: int,
    ) -> str:
        open_, close = brackets[0], brackets[1]
        dangling = self.notes.dangling.get(container, [])
        flat = open_ + ", ".join(items) + close
        multiline = any("\n" in i for i in items)
        if not self.notes.inside(container, keys) and not multiline and column + len(flat) <= WIDTH:
            return flat
        if not items and not dangling:
            return open_ + close
        inner = indent + INDENT
        lines = [open_]
        for index, (item, k) in enumerate(zip(items, keys, strict=True)):
            comma = "," if index < len(items) - 1 else ""
            lines.append(self._comment_lines(self.notes.leading.get(k, []), inner).rstrip("\n"))
            lines.append(f"{inner}{item}{comma}{self._trailing(k, inner)}")
        lines.append(self._comment_lines(dangling, inner).rstrip("\n"))
        lines.append(indent + close)
        return "\n".join(line for line in lines if line)

    # ---- comments ----

    def _trailing(self, k: Key, indent: str) -> str:
        # Only the first note stays on the item's line; the others go on lines of their own.
        # A suppression goes first: on a line of its own it would silence the next line.
        notes = sorted(
            self.notes.trailing.get(k, []), key=lambda n: _SUPPRESSION.search(n.text) is None
        )
        if not notes:
            return ""
        rest = "".join(f"\n{indent}{n.text}" for n in notes[1:])
        return f" {notes[0].text}{rest}"

    @staticmethod
    def _comment_lines(notes: list[Placed], indent: str) -> str:
        return "".join(f"{indent}{n.text}\n" + ("\n" if n.blank_after else "") for n in notes)


def _together(previous: tuple[ast.Decl, str], current: tuple[ast.Decl, str]) -> bool:
    """Imports stay in one paragraph; so do tests printed on one line each."""
    kinds = {type(previous[0]), type(current[0])}
    if kinds == {ast.ImportDecl}:
        return True
    return kinds == {ast.TestDecl} and "\n" not in previous[1] + current[1]


def _apart_from_doc(notes: list[Placed]) -> list[Placed]:
    """A `##` comment that is not a doc comment must not end up right above the declaration
    (or its doc), where it would become (part of) the doc: a blank line keeps it apart."""
    if notes and notes[-1].text.startswith("##") and not notes[-1].blank_after:
        return [*notes[:-1], Placed(notes[-1].text, blank_after=True)]
    return notes
