"""Definition, references and rename over a project's `Index`: where a name is declared,
where it is used, and the edits that rename it everywhere. Free of pygls; positions are
code-point offsets into a file's text, files are named by their `source.path`.
"""

from __future__ import annotations

from dataclasses import dataclass

from sigspec.commands.lsp.symbols import (
    TOP_LEVEL,
    Declaration,
    ImportPath,
    Index,
    Reference,
)
from sigspec.diagnostics.source import Span
from sigspec.semantics.ir import fold
from sigspec.syntax import ast

# The words the grammar reserves wherever a name may stand.
KEYWORDS = frozenset({"import", "type", "signature", "tool", "pipeline", "true", "false", "null"})


@dataclass(frozen=True, slots=True)
class Location:
    path: str  # a file's `source.path` in the index
    span: Span


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a rename cannot be done, in words for the user."""

    message: str


Edits = dict[str, list[tuple[Span, str]]]  # path -> (span, new text), in source order


def definition(index: Index, path: str, offset: int) -> list[Location]:
    """The declaration a name at `offset` refers to (or is), or the file an import's path
    names; nothing elsewhere."""
    site = index.at(path, offset)
    if isinstance(site, ImportPath):
        return [Location(site.target, Span(0, 0))] if site.target is not None else []
    if site is None:
        return []
    found = index.declaration_of(site)
    return [Location(found.path, found.span)] if found is not None else []


def references(index: Index, path: str, offset: int, *, declaration: bool) -> list[Location]:
    """Every use of the name at `offset` across the project (and its declaration when
    `declaration`)."""
    site = index.at(path, offset)
    found = index.declaration_of(site) if site is not None else None
    if found is None:
        return []
    uses = [Location(r.path, r.span) for r in index.references_to(found.key)]
    return [Location(found.path, found.span), *uses] if declaration else uses


def renameable(index: Index, path: str, offset: int) -> tuple[Span, Declaration] | None:
    """The name at `offset` when it names a declaration (primitives, keywords, attributes
    and unknown names are not renameable)."""
    site = index.at(path, offset)
    if not isinstance(site, Declaration | Reference):
        return None
    found = index.declaration_of(site)
    return (site.span, found) if found is not None else None


def rename(index: Index, path: str, offset: int, new: str) -> Edits | Refusal:
    """The edits renaming the declaration named at `offset` and every reference to it
    (whichever `-`/`_` spelling each uses), or why not."""
    target = renameable(index, path, offset)
    if target is None:
        return Refusal("nothing to rename here: put the cursor on a declared name")
    _, found = target
    refused = check_name(index, found, new)
    if refused is not None:
        return refused
    edits: Edits = {}
    places = [(found.path, found.span), *((r.path, r.span) for r in index.references_to(found.key))]
    outside = sorted({file for file, _ in places if _outside(file)})
    if outside:
        # An import root may be shared by projects this one cannot see: renaming there
        # would break them without a word.
        return Refusal(
            f"cannot rename `{found.name}`: it is written in {outside[0]}, outside this "
            "project (an import root other projects may share); rename it in its own project"
        )
    for file, span in places:
        edits.setdefault(file, []).append((span, new))
    for spans in edits.values():
        spans.sort(key=lambda edit: edit[0].start)
    return edits


def _outside(file: str) -> bool:
    """Is a file, named as the project shows it, outside the project root?"""
    return file.startswith("../") or file == ".." or file.startswith("/")


def check_name(index: Index, found: Declaration, new: str) -> Refusal | None:
    """A new name must be a name, no keyword, and not clash after folding with another
    declaration (a top-level one anywhere in the project, a test of the same file, or a
    param or field beside)."""
    if not ast.NAME.fullmatch(new):
        return Refusal(
            f"`{new}` is not a valid name: a name starts with a letter or `_` and holds "
            "letters, digits, `_` and `-`"
        )
    if new in KEYWORDS:
        return Refusal(f"`{new}` is a keyword of the language, not a name")
    if found.kind in TOP_LEVEL:
        others = [d for d in index.declarations.values() if d.kind in TOP_LEVEL]
    elif found.kind == "test":  # tests are named per file, apart from the declarations
        others = [
            d for d in index.declarations.values() if d.kind == "test" and d.path == found.path
        ]
    else:
        others = [index.declarations[k] for k in index.groups.get(found.key, ())]
    for other in others:
        if other.key != found.key and fold(other.name) == fold(new):
            where = f" in {other.path}" if other.path != found.path else ""
            folding = " (`-` and `_` are the same in names)" if other.name != new else ""
            return Refusal(
                f"cannot rename `{found.name}` to `{new}`: the {other.kind} "
                f"`{other.name}`{where} has that name{folding}"
            )
    return None
