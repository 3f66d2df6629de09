"""Completion items: what may be written at the cursor (`context.py`) from what the project
declares (`project.View`). Free of pygls: items are plain data the server converts.

In a test, the call's arguments and its checks are `complete_tests.py`'s.

Names come from the declarations the document sees (itself and its imports) first; then
those of the project's other files, each with the `import` line to add (relative to the
document), except where that import would close a cycle (`import-cycle`: the file imports
the document already, directly or not). Names that fold to one (`-` and `_`) are offered
once, the first declaration's spelling (a visible one before one needing an import).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from sigspec.commands.lsp.complete_tests import arguments, subjects
from sigspec.commands.lsp.context import Context
from sigspec.commands.lsp.items import Item
from sigspec.commands.lsp.project import View
from sigspec.runtime.formats import CHECKS
from sigspec.semantics import attributes, ir
from sigspec.semantics.scope import Named, ParsedFile
from sigspec.semantics.types import Types, is_scalar, strip_optional
from sigspec.syntax import ast

_PRIMITIVE_DOCS: Mapping[ast.PrimKind, str] = ast.per_primitive(
    {
        "string": "Any text.",
        "int": "A whole number.",
        "float": "A number, whole or not.",
        "bool": "`true` or `false`.",
        "keyword": "A short identifier-like string (an enum value the model chooses freely).",
        "datetime": "An RFC 3339 date-time string.",
        "map": "Any JSON object.",
        "any": "Any JSON value.",
    }
)

_FORMATS = ",".join(CHECKS)  # the formats the runtime checks (the others warn)
_MODES = ",".join(ir.MODES)

# Each attribute as written, with its argument form: (snippet, what it takes, what it does).
SNIPPETS: Mapping[str, tuple[str, str, str]] = {
    "min": ("min(${1:0})", "(number)", "The smallest number allowed."),
    "max": ("max(${1:100})", "(number)", "The largest number allowed."),
    "min_length": ("min_length(${1:1})", "(count)", "The fewest characters a string holds."),
    "max_length": ("max_length(${1:100})", "(count)", "The most characters a string holds."),
    "min_items": ("min_items(${1:1})", "(count)", "The fewest items a list holds."),
    "max_items": ("max_items(${1:10})", "(count)", "The most items a list holds."),
    "pattern": ('pattern("${1:^[a-z]+\\$}")', '("regex")', "An ECMA-262 pattern a string matches."),
    "format": (
        f'format("${{1|{_FORMATS}|}}")',
        '("format")',
        "A string format the runtime checks.",
    ),
    "clamp": ("clamp(${1:0}, ${2:1})", "(low, high)", "A number out of range is clamped into it."),
    "fallback": ("fallback", "", "A bad or missing value falls back to the default."),
    "deprecated": ('deprecated("${1:reason}")', '("reason")', "Marks it deprecated."),
    "output": (f"output(${{1|{_MODES}|}})", "(mode)", "How the reply is read."),
    "prompt": ('prompt("$1")', '("template")', "The Mustache prompt template."),
    "system": ('system("${1:You are a helpful assistant.}")', '("text")', "The system message."),
    "max_turns": ("max_turns(${1:3})", "(count)", "The most model turns a call takes."),
    "allow_extra_keys": ("allow_extra_keys", "", "A reply may carry keys not declared."),
    "no_output_instructions": ("no_output_instructions", "", "Leave out the output format."),
    "tools": ("tools(${1})", "(tool, ...)", "The tools the model may call."),
    "compression": ("compression", "", "Compress the tool results sent back to the model."),
    "repeat": ("repeat(${1:5})", "(count)", "How many times `sigspec test` runs the test."),
    "min_pass_rate": (
        "min_pass_rate(${1:0.8})",
        "(share)",
        "The share of the runs that must pass, from above 0 to 1.",
    ),
}
if set(SNIPPETS) != set(attributes.TABLE):  # a new attribute needs its snippet
    raise AssertionError(
        f"snippets differ from the attributes: {set(attributes.TABLE) ^ set(SNIPPETS)}"
    )

_PLACES: Mapping[str, frozenset[str]] = {
    "field": frozenset({attributes.FIELD}),
    "signature": frozenset({attributes.SIGNATURE}),
    "tool": frozenset({attributes.TOOL}),
    "type": frozenset({attributes.TYPE}),
    "pipeline": frozenset({attributes.PIPELINE}),
    "import": frozenset({attributes.IMPORT}),
    "test": frozenset({attributes.TEST}),
}
_ANY_DECL = attributes.DECLS | {attributes.TEST}
_IMPORT = re.compile(r'(?m)^[ \t]*import[ \t]+"([^"\\\n]+)"')
# What starts a declaration, in the order offered.
KEYWORDS: tuple[tuple[str, str], ...] = (
    ("import", "Import the declarations of another .sig file."),
    ("type", "A named type."),
    ("signature", "A signature: named inputs, the reply's type."),
    ("tool", "A tool the model may call."),
    ("pipeline", "Signatures run in turn."),
    ("test", "A test: a signature called with arguments, and what its output must satisfy."),
)


def complete(context: Context, view: View | None, path: Path, text: str) -> list[Item]:
    """The items to offer at `context` in the document at `path` (resolved) holding `text`."""
    match context.kind:
        case "primitive":
            return list(_primitives(colon=False))
        case "type":
            named = _named(view, path, text, "type", "0")
            return [*named, *_primitives(colon=True)]
        case "step":
            return _named(view, path, text, "signature", "0")
        case "tool":
            return _named(view, path, text, "tool", "0")
        case "attribute":
            return list(_attributes(context.place))
        case "mode":
            return [
                Item(m, "mode", "output mode", None, f"{i:02d}", m) for i, m in enumerate(ir.MODES)
            ]
        case "template":
            return _template(context, view)
        case "keyword" | "expectation":
            return _words(context.kind)
        case "argument":
            return arguments(context, view)
        case "subject":
            return subjects(context, view)
        case "none":
            return []


def _words(kind: str) -> list[Item]:
    """The keywords that start a declaration, or the one a test's expectation may be."""
    if kind == "expectation":
        doc = "Any output the signature accepts passes."
        return [Item("valid", "keyword", "any valid output", doc, "0", "valid")]
    return [
        Item(word, "keyword", "declaration", doc, f"{i}", word)
        for i, (word, doc) in enumerate(KEYWORDS)
    ]


def _primitives(*, colon: bool) -> Iterator[Item]:
    for index, kind in enumerate(ast.PRIMITIVES):
        text = f":{kind}" if colon else kind
        yield Item(
            text, "primitive", "primitive type", _PRIMITIVE_DOCS[kind], f"1{index:02d}", text
        )


def _attributes(place: str | None) -> Iterator[Item]:
    where = _PLACES.get(place, _ANY_DECL) if place is not None else _ANY_DECL
    for index, (name, (places, _)) in enumerate(attributes.TABLE.items()):
        if places & where:
            snippet, takes, doc = SNIPPETS[name]
            yield Item(name, "attribute", f"@{name}{takes}", doc, f"{index:02d}", snippet, True)


def _named(view: View | None, path: Path, text: str, kind: str, group: str) -> list[Item]:
    """The declarations of `kind`, each name once (after folding): those the document sees,
    then those of files it could import (with the import to add)."""
    if view is None:
        return []
    seen: set[str] = set()
    items: list[Item] = []
    for file, decl, importing in _declarations(view, path, text):
        if _kind(decl) != kind or ir.fold(decl.name) in seen:
            continue
        seen.add(ir.fold(decl.name))
        detail = _detail(view.project, decl, file)
        if importing is not None:
            detail = f'{detail}  (adds import "{importing}")'
        order = f"{group if importing is None else '2'}{decl.name}"
        items.append(Item(decl.name, kind, detail, decl.doc, order, decl.name, False, importing))
    return items


def _kind(decl: Named) -> str:
    if isinstance(decl, ast.TypeDecl):
        return "type"
    if isinstance(decl, ast.PipelineDecl):
        return "pipeline"
    return decl.kind


def _declarations(
    view: View, path: Path, text: str
) -> Iterator[tuple[ParsedFile, Named, str | None]]:
    """The named declarations of the project: those the document sees (its own first) with
    None, then the others with the import that would make them visible, unless that import
    would close a cycle. When the view does not hold the document (its text did not parse),
    its imports are read from the text."""
    own = view.file_at(path)
    first = path.relative_to(view.root).as_posix() if path.is_relative_to(view.root) else ""
    visible = own.visible if own is not None else frozenset({first, *_imports(view, path, text)})
    files = sorted(view.files, key=lambda f: (f.source.path not in visible, f.source.path != first))
    for file in files:
        importing: str | None = None
        if file.source.path not in visible:
            if _reaches(view, file.source.path, first):
                continue
            importing = os.path.relpath(view.root / file.source.path, path.parent)
            importing = Path(importing).as_posix()
        for decl in file.module.decls:
            if not isinstance(decl, ast.ImportDecl | ast.TestDecl):
                yield file, decl, importing


def _reaches(view: View, start: str, target: str) -> bool:
    """Does the file `start` import `target`, directly or not? (Importing `start` from
    `target` would then close a cycle.)"""
    edges = {f.source.path: f.visible for f in view.files}
    stack, seen = [start], {start}
    while stack:
        current = stack.pop()
        if current == target:
            return True
        for following in edges.get(current, ()):
            if following not in seen:
                seen.add(following)
                stack.append(following)
    return False


def _imports(view: View, path: Path, text: str) -> Iterator[str]:
    for match in _IMPORT.finditer(text):
        target = (path.parent / match.group(1)).resolve()
        if target.is_relative_to(view.root):
            yield target.relative_to(view.root).as_posix()


def _detail(project: ir.Project, decl: Named, file: ParsedFile) -> str:
    """The declaration as printed: its resolved type, or its signature."""
    if isinstance(decl, ast.TypeDecl):
        found = project.types.get(decl.name)
        if found is not None:
            return f"type {decl.name} = {ir.render_type(found.type)}"
    elif isinstance(decl, ast.SignatureDecl):
        every = (*project.signatures, *project.tools)
        sig = next((s for s in every if s.name == decl.name), None)
        if sig is not None:
            return f"{decl.kind} {decl.name}{sig.render()}"
    elif isinstance(decl, ast.PipelineDecl):
        return f"pipeline {decl.name} = " + " |> ".join(s.name for s in decl.steps)
    written = file.source.text[decl.span.start : decl.span.end]
    return " ".join(written.split())[:120]


# ---- Mustache tags -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Frame:
    fields: tuple[ir.Field, ...]
    scalar_items: bool  # inside a section over a list of scalars: `{{.}}` is the item


def _template(context: Context, view: View | None) -> list[Item]:
    if view is None or context.signature is None:
        return []
    sig = view.project.signature(context.signature)
    if sig is None:
        return []
    frame = _frame(sig, context.sections, view.project.types)
    close = "" if context.closed else ("}}}" if context.sigil == "{" else "}}")
    if context.sigil == "/":
        if not context.sections:
            return []
        return [
            _tag(
                context.sections[-1].lstrip("^"),
                "section",
                "closes it",
                None,
                group="0",
                close=close,
            )
        ]
    items = [
        _tag(name, "variable", ir.render_type(t), doc, group="0", close=close)
        for name, t, doc in _paths(frame.fields, view.project.types, 3)
    ]
    if frame.scalar_items and context.sigil in ("", "&", "{"):
        items.append(_tag(".", "variable", "the current item", None, group="1", close=close))
    if context.sigil == "":
        items += _sections(frame, context)
    return items


def _tag(name: str, kind: str, detail: str, doc: str | None, *, group: str, close: str) -> Item:
    return Item(name, kind, detail, doc, f"{group}{name}", name + close)


def _sections(frame: _Frame, context: Context) -> list[Item]:
    """Section openers (`#name`, `^name`) and the closing tag of the innermost open one."""
    items = []
    closed = context.closed
    for f in frame.fields:
        for sigil, what in (
            ("#", "section: each item, or if set"),
            ("^", "inverted: if empty or unset"),
        ):
            body = f"{sigil}{f.name}" if closed else f"{sigil}{f.name}}}}}$0{{{{/{f.name}}}}}"
            items.append(
                Item(
                    f"{sigil}{f.name}",
                    "section",
                    what,
                    f.description,
                    f"2{sigil}{f.name}",
                    body,
                    not closed,
                )
            )
    if context.sections:
        name = context.sections[-1].lstrip("^")
        items.append(
            _tag(
                f"/{name}",
                "section",
                "closes the section",
                None,
                group="1",
                close="" if closed else "}}",
            )
        )
    return items


def _paths(
    fields: tuple[ir.Field, ...], types: Types, depth: int, prefix: str = ""
) -> Iterator[tuple[str, ir.TypeRef, str | None]]:
    """Each field's name, then the dotted names of a map field's own fields (`ticket.subject`)."""
    for f in fields:
        yield prefix + f.name, f.type, f.description
        inner = strip_optional(f.type, types)
        if depth > 1 and isinstance(inner, ir.MapOf):
            yield from _paths(inner.fields, types, depth - 1, f"{prefix}{f.name}.")


def _frame(sig: ir.Signature, sections: tuple[str, ...], types: Types) -> _Frame:
    """The names in scope inside the open sections: a list's item fields, a map's fields."""
    frame = _Frame(sig.params, False)
    for name in sections:
        if name.startswith("^"):
            continue  # an inverted section keeps the names around it
        found = _field(frame.fields, name, types)
        if found is None:
            continue  # an unknown or inverted section: the checker reports it
        base = strip_optional(found, types)
        if isinstance(base, ir.ListOf):
            item = strip_optional(base.item, types)
            fields = item.fields if isinstance(item, ir.MapOf) else ()
            frame = _Frame(fields, is_scalar(base.item, types))
        elif isinstance(base, ir.MapOf):
            frame = _Frame(base.fields, False)
    return frame


def _field(fields: tuple[ir.Field, ...], dotted: str, types: Types) -> ir.TypeRef | None:
    current: tuple[ir.Field, ...] = fields
    found: ir.TypeRef | None = None
    for part in dotted.split("."):
        match = next((f for f in current if ir.fold(f.name) == ir.fold(part)), None)
        if match is None:
            return None
        found = match.type
        inner = strip_optional(found, types)
        current = inner.fields if isinstance(inner, ir.MapOf) else ()
    return found


# ---- the import a name needs ----------------------------------------------------------------

_IMPORT_LINE = re.compile(r'(?m)^[ \t]*import[ \t]+"[^"\n]*"[^\n]*(?:\n|\Z)')
_FIRST_CODE = re.compile(r"(?m)^[ \t]*(?:##|[^#\s])")


def import_insertion(text: str, target: str) -> tuple[int, str]:
    """Where the line importing `target` goes in `text`, and what to insert there: after the
    last import; else above the first declaration (its doc comment and attributes), a
    blank line after it; else at the end."""
    line = f"import {json.dumps(target, ensure_ascii=False)}"
    found = list(_IMPORT_LINE.finditer(text))
    last = found[-1] if found else None
    if last is not None:
        at = last.end()
        return at, (line + "\n") if text[at - 1 : at] == "\n" else f"\n{line}"
    first = _FIRST_CODE.search(text)
    if first is not None:
        return first.start(), f"{line}\n\n"
    separator = "" if not text or text.endswith("\n") else "\n"
    return len(text), f"{separator}{line}\n"
