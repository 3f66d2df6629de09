"""JSON Schema and OpenAPI documents → formatted `.sig` declarations (`sigspec import`).

Pure: a JSON value in, `.sig` text and diagnostics out; reading files and importing Python
modules is the command's (`commands/import_.py`). `document.py` finds the named schemas and
their sigspec names, `convert.py` turns one schema into a type; the text is printed by the
formatter (`syntax/fmt/`), so it is the layout `sigspec fmt` keeps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sigspec.diagnostics import Diagnostic, sort_diagnostics
from sigspec.diagnostics.source import SourceFile
from sigspec.importer.convert import Converter, optional
from sigspec.importer.document import NotASchema, read_document
from sigspec.syntax.fmt.run import format_source

__all__ = ["Imported", "NotASchema", "TooLarge", "import_schema"]

_LIMITS = frozenset({"file-too-large", "too-many-declarations", "nesting-too-deep"})


class TooLarge(NotASchema):
    """The document imports to more than one `.sig` file may hold (`syntax/limits.py`)."""


@dataclass(frozen=True, slots=True)
class Imported:
    text: str  # formatted `.sig` text
    diagnostics: tuple[Diagnostic, ...]


def import_schema(value: Any, *, path: str, stem: str, name: str | None = None) -> Imported:
    """`value` (a parsed JSON document) as `.sig` declarations. `path` names the document in
    diagnostics; the root type is `name`, else the root's `title`, else `stem`. Raises
    `NotASchema` for a document that is neither a schema nor an OpenAPI document."""
    document, diags = read_document(value, path, name, stem)
    convert = Converter(document, diags)
    decls = []
    if document.root is not None:
        root = {k: v for k, v in document.root.items() if k not in ("$defs", "definitions")}
        decls.append(_declaration(convert, document.root_name, root, "#"))
    for at, (type_name, schema) in document.named.items():
        decls.append(_declaration(convert, type_name, schema, at))
    text = "\n".join(decls)
    formatted = format_source(SourceFile(path, text))
    if formatted.text is None:
        too_large = [d.message for d in formatted.diagnostics if d.code in _LIMITS]
        if too_large:
            raise TooLarge(f"the imported .sig text is too large: {too_large[0]}")
        # Else the converter wrote something the grammar refuses: a bug.
        raise AssertionError(f"import wrote unparsable text: {formatted.diagnostics}\n{text}")
    return Imported(formatted.text, sort_diagnostics(convert.diags))


def _declaration(convert: Converter, type_name: str, schema: Any, at: str) -> str:
    notes = schema if isinstance(schema, dict) else {}
    piece = convert.piece(schema, at, notes=True)
    if piece.attrs:
        convert.unsupported(at, "constraints on a named type: sigspec keeps them on fields")
    if "default" in notes:
        convert.approximated(f"{at}/default", "a default on a named type is not kept")
    lines = []
    doc = notes.get("description")
    if isinstance(doc, str):
        # Every line break an editor shows (CR, U+2028...) starts a `##` line: a description
        # must not show as code it is not.
        lines += [f"## {line}".rstrip() for line in doc.splitlines() or [""]]
    if notes.get("deprecated") is True:
        lines.append("@deprecated")
    text = optional(piece) if piece.nullable else piece.text
    lines.append(f"type {type_name} = {text}\n")
    return "\n".join(lines)
