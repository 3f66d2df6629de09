"""Text → AST for `.sig` modules and inline signatures, with readable syntax errors."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax import ast
from sigspec.syntax.limits import DEFAULT_LIMITS, SourceLimits, utf8_size
from sigspec.syntax.loader import get_parser
from sigspec.syntax.scan import MAX_DEPTH, scan
from sigspec.syntax.tree import AstBuilder

_REGEX_TERMINALS = {
    "NAME": "a name",
    "PRIM": "a type such as `:string`",
    "ATTR": "an attribute such as `@min(0)`",
    "NUMBER": "a number",
    "STRING": "a string",
    "TRIPLE_STRING": "a string",
    "$END": "the end of the input",
}

Result = tuple[Any, tuple[Diagnostic, ...]]


def parse_module(
    source: SourceFile, limits: SourceLimits = DEFAULT_LIMITS
) -> tuple[ast.Module | None, tuple[Diagnostic, ...]]:
    """A file's AST, or None when it cannot be parsed or exceeds `limits`."""
    size = utf8_size(source.text, limits.max_file_bytes)
    if size > limits.max_file_bytes:
        limit = limits.max_file_bytes
        return None, (codes.FILE_TOO_LARGE.at(source, Span(0, 0), size=size, limit=limit),)
    trivia = scan(source.text)
    decls, diags = _parse(source, "module", trivia.too_deep_at)
    if decls is None:
        return None, diags
    if len(decls) > limits.max_declarations:
        first = decls[limits.max_declarations]
        found = codes.TOO_MANY_DECLARATIONS.at(
            source, first.span, count=len(decls), limit=limits.max_declarations
        )
        return None, (*diags, found)
    attached, comments = _attach_docs(source, decls, trivia.comments)
    return ast.Module(attached, comments), diags


def parse_inline(source: SourceFile) -> tuple[ast.InlineSignature | None, tuple[Diagnostic, ...]]:
    trivia = scan(source.text)
    if trivia.comments:
        first = trivia.comments[0].span
        return None, (codes.COMMENT_IN_INLINE.at(source, first),)
    node, diags = _parse(source, "inline", trivia.too_deep_at)
    return node, diags


def _parse(source: SourceFile, start: str, too_deep_at: int | None) -> Result:
    if too_deep_at is not None:
        span = Span(too_deep_at, too_deep_at + 1)
        return None, (codes.NESTING_TOO_DEEP.at(source, span, limit=MAX_DEPTH),)
    parser = get_parser()
    try:
        tree = parser.parse(source.text, start=start)
    except UnexpectedInput as exc:
        return None, (_syntax_error(source, exc, parser, start),)
    builder = AstBuilder(source)
    result = builder.build(tree)
    return result, tuple(builder.diagnostics)


# ---- doc comments ----------------------------------------------------------------------------


def _attach_docs(
    source: SourceFile, decls: tuple[ast.Decl, ...], comments: tuple[ast.Comment, ...]
) -> tuple[tuple[ast.Decl, ...], tuple[ast.Comment, ...]]:
    """`##` lines directly above a declaration become its doc; other comments stay comments."""
    doc_lines: dict[int, int] = {}  # line -> comment index, for `##` comments alone on a line
    for index, comment in enumerate(comments):
        pos = source.position(comment.span.start)
        if (
            comment.text.startswith("##")
            and not source.line_text(pos.line)[: pos.column - 1].strip()
        ):
            doc_lines[pos.line] = index
    used: set[int] = set()
    out: list[ast.Decl] = []
    for decl in decls:
        line = source.position(decl.span.start).line - 1
        taken: list[int] = []
        while line in doc_lines and doc_lines[line] not in used:
            taken.append(doc_lines[line])
            line -= 1
        used.update(taken)
        text = "\n".join(comments[i].text[2:].removeprefix(" ") for i in reversed(taken))
        out.append(replace(decl, doc=text) if taken else decl)
    return tuple(out), tuple(c for i, c in enumerate(comments) if i not in used)


# ---- syntax errors -----------------------------------------------------------------------------


def _describe(name: str, parser: Any) -> str:
    if name in _REGEX_TERMINALS:
        return _REGEX_TERMINALS[name]
    try:
        return f"`{parser.get_terminal(name).pattern.value}`"
    except (KeyError, AttributeError):
        return name


def _syntax_error(source: SourceFile, exc: UnexpectedInput, parser: Any, start: str) -> Diagnostic:
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        char = source.text[pos]
        return codes.SYNTAX_ERROR.at(
            source,
            Span(pos, pos + 1),
            detail=f"unexpected character {char!r}",
            hints=_char_hints(source.text, pos),
        )
    assert isinstance(exc, UnexpectedToken)
    token = exc.token
    if token.type == "$END":
        pos = len(source.text)
        found = "end of input"
    else:
        pos = token.start_pos or 0
        found = f"`{token}`"
    expected_names = _accepted(exc)
    expected = sorted({_describe(name, parser) for name in expected_names})
    detail = f"unexpected {found}; expected " + _join_or(expected)
    end = pos + max(1, len(str(token)) if token.type != "$END" else 1)
    hints = _token_hints(source.text, pos, token, expected_names, start)
    return codes.SYNTAX_ERROR.at(
        source, Span(pos, min(end, len(source.text) + 1)), detail=detail, hints=hints
    )


def _accepted(exc: UnexpectedToken) -> set[str]:
    """What the parser really accepts here; LALR's state-merged `expected` can over-report."""
    try:
        interactive: Any = exc.interactive_parser
        return set(interactive.accepts()) or set(exc.expected)
    except Exception:  # the interactive replay is best-effort; the raw set is still correct
        return set(exc.expected)


def _join_or(items: list[str]) -> str:
    if len(items) <= 2:
        return " or ".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


def _char_hints(text: str, pos: int) -> tuple[str, ...]:
    char = text[pos]
    if char == "\u00a0":
        return ("a non-breaking space is not whitespace; use a plain space",)
    if char == ":":
        return ("a type keyword follows `:` directly, as in `:int`",)
    if char == '"':
        return ('this string is not closed on its line; use """...""" for several lines',)
    if char == "?":
        return ("`?` follows a type directly, as in `:int?`",)
    return ()


def _token_hints(
    text: str, pos: int, token: Any, expected: set[str], start: str
) -> tuple[str, ...]:
    before = text[:pos].rstrip()
    prev = before[-1:] if before else ""
    kind = token.type
    if prev == "," and kind in {"RBRACE", "RPAR", "RSQB"}:
        return ("trailing commas are not allowed",)
    if prev == "[" and kind == "RSQB":
        return ("a list type needs exactly one element type, as in `[:string]`",)
    if kind == "COMMA" and "RSQB" in expected:
        return ("a list type holds exactly one element type; use a union `[A | B]`",)
    if kind == "ARROW" and start == "inline":
        return ("the arrow form needs parenthesised params: `(a :int) -> T`",)
    if kind == "COLON":
        return ("a type keyword follows `:` directly, as in `:int`",)
    if kind == "QMARK":
        return ("`?` can appear once, directly after a type",)
    if "COMMA" in expected and kind in {"NAME", "PRIM", "LBRACE", "LSQB", "STRING"}:
        return ("is a comma missing before this?",)
    return ()
