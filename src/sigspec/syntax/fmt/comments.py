"""Where each comment goes when a file is reprinted: no comment is ever dropped.

Anchors are declarations and fields (params included). A comment on the same line after an
anchor trails it; a comment inside a field's text trails that field; otherwise it leads the
next anchor of its innermost container (a map or a param list), or dangles before the
container's closing bracket, or, at the top level, ends the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast

Key = tuple[str, int, int]


def key(kind: str, span: Span) -> Key:
    return (kind, span.start, span.end)


@dataclass(frozen=True, slots=True)
class Placed:
    text: str
    blank_after: bool  # a blank line followed it in the source: keep the paragraph break


@dataclass
class Attachments:
    leading: dict[Key, list[Placed]] = field(default_factory=dict)
    trailing: dict[Key, list[Placed]] = field(default_factory=dict)
    dangling: dict[Key, list[Placed]] = field(default_factory=dict)
    end_of_file: list[Placed] = field(default_factory=list)

    def inside(self, container: Key, anchors: list[Key]) -> bool:
        """Does anything in this container carry a comment (forcing a multi-line layout)?"""
        return bool(self.dangling.get(container)) or any(
            self.leading.get(k) or self.trailing.get(k) for k in anchors
        )


@dataclass(frozen=True, slots=True)
class _Container:
    key: Key
    span: Span
    anchors: tuple[tuple[Key, Span], ...]


def params_span(decl: ast.SignatureDecl) -> Span:
    return Span(decl.name_span.end, decl.output.span.start)


def test_args_span(decl: ast.TestDecl) -> Span:
    """From the signature's name to the expectation: the parentheses and the arrow."""
    return Span(decl.target.span.end, decl.expect.span.start)


def ellipsis_key(t: ast.MapType) -> Key:
    return ("ellipsis", t.span.end, t.span.end)


def _ellipsis_span(source: SourceFile, t: ast.MapType) -> Span:
    """Where an open map's `...` stands: after its last field, past commas and comments."""
    text = source.text
    pos = t.fields[-1].span.end if t.fields else t.span.start + 1
    while not text.startswith("...", pos) and pos < t.span.end:
        pos = text.index("\n", pos) if text[pos] == "#" else pos + 1
    return Span(pos, pos + 3)


def _type_containers(source: SourceFile, t: ast.TypeExpr) -> Iterator[_Container]:
    stack: list[ast.TypeExpr] = [t]
    while stack:
        node = stack.pop()
        match node:
            case ast.MapType(fields, is_open, span):
                anchors = [(key("field", f.span), f.span) for f in fields]
                if is_open:
                    # An anchor of its own, so that a comment next to it stays next to it.
                    anchors.append((ellipsis_key(node), _ellipsis_span(source, node)))
                yield _Container(key("map", span), span, tuple(anchors))
                stack += [f.type for f in fields]
            case ast.ListType(item) | ast.OptionalType(item):
                stack.append(item)
            case ast.UnionType(members):
                stack += members


def _containers(source: SourceFile, module: ast.Module) -> list[_Container]:
    out: list[_Container] = []
    for decl in module.decls:
        if isinstance(decl, ast.SignatureDecl):
            span = params_span(decl)
            out.append(
                _Container(
                    key("params", span),
                    span,
                    tuple((key("field", f.span), f.span) for f in decl.params),
                )
            )
            for p in decl.params:
                out += _type_containers(source, p.type)
            out += _type_containers(source, decl.output)
        elif isinstance(decl, ast.TypeDecl):
            out += _type_containers(source, decl.type)
        elif isinstance(decl, ast.TestDecl):
            span = test_args_span(decl)
            args = tuple((key("arg", a.span), a.span) for a in decl.args)
            out.append(_Container(key("args", span), span, args))
            if isinstance(decl.expect, ast.Checks):
                checks = tuple((key("check", c.span), c.span) for c in decl.expect.items)
                out.append(_Container(key("checks", decl.expect.span), decl.expect.span, checks))
    return out


def attach(source: SourceFile, module: ast.Module) -> Attachments:
    result = Attachments()
    containers = _containers(source, module)
    top = _Container(
        ("module", 0, 0),
        Span(0, len(source.text)),
        tuple((key("decl", d.span), d.span) for d in module.decls),
    )
    for comment in module.comments:
        placed = Placed(comment.text.rstrip(), _blank_after(source, comment.span.end))
        start = comment.span.start
        inner = [c for c in containers if c.span.start < start < c.span.end]
        box = min(inner, key=lambda c: c.span.end - c.span.start) if inner else top
        _place(source, result, box, comment, placed)
    return result


def _place(
    source: SourceFile, result: Attachments, box: _Container, comment: ast.Comment, placed: Placed
) -> None:
    start = comment.span.start
    line = source.position(start).line
    for anchor_key, span in box.anchors:
        if box.key[0] == "module" and span.start < start < span.end:
            # Inside a declaration but in no container (say, between its attributes):
            # keep it with the declaration, above it.
            result.leading.setdefault(anchor_key, []).append(placed)
            return
        same_line = source.position(span.end).line == line and span.end <= start
        if span.start < start < span.end or (same_line and _only_commas(source, span.end, start)):
            result.trailing.setdefault(anchor_key, []).append(placed)
            return
    following = [(k, s) for k, s in box.anchors if s.start > start]
    if following:
        result.leading.setdefault(following[0][0], []).append(placed)
    elif box.key[0] == "module":
        result.end_of_file.append(placed)
    else:
        result.dangling.setdefault(box.key, []).append(placed)


def _only_commas(source: SourceFile, begin: int, end: int) -> bool:
    return not source.text[begin:end].replace(",", "").strip()


def _blank_after(source: SourceFile, end: int) -> bool:
    rest = source.text[end:]
    first_nl = rest.find("\n")
    if first_nl < 0:
        return False
    second_nl = rest.find("\n", first_nl + 1)
    between = rest[first_nl + 1 : second_nl if second_nl >= 0 else len(rest)]
    return second_nl >= 0 and not between.strip()
