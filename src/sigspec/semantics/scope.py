"""Names: the project-wide declaration table and what each file can see of it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sigspec.diagnostics import Diagnostic, Label, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.diagnostics.suggest import Suggestion, suggest
from sigspec.semantics.ir import fold
from sigspec.syntax import ast

Named = ast.TypeDecl | ast.SignatureDecl | ast.PipelineDecl


@dataclass(frozen=True, slots=True)
class ParsedFile:
    source: SourceFile
    module: ast.Module
    visible: frozenset[str]  # paths whose declarations this file sees: itself and its imports


@dataclass(frozen=True, slots=True)
class Entry:
    decl: Named
    file: ParsedFile

    @property
    def kind(self) -> str:
        if isinstance(self.decl, ast.TypeDecl):
            return "type"
        if isinstance(self.decl, ast.PipelineDecl):
            return "pipeline"
        return self.decl.kind


@dataclass(frozen=True, slots=True)
class Table:
    entries: dict[str, Entry]  # folded name -> first declaration

    def lookup(
        self,
        name: str,
        kind: str,
        *,
        file: ParsedFile,
        span: Span,
        code: codes.Code,
        suggest: bool = True,
    ) -> tuple[Entry | None, list[Diagnostic]]:
        """The visible declaration of `kind` named `name`, or a diagnostic saying why not
        (with close names when `suggest`: that compares it with every declaration)."""
        entry = self.entries.get(fold(name))
        if entry is not None and entry.kind == kind and entry.file.source.path in file.visible:
            return entry, []
        found = Suggestion()
        if entry is not None and entry.kind != kind:
            found = Suggestion((f"`{entry.decl.name}` is a {entry.kind}, not a {kind}",))
        elif entry is not None:
            found = Suggestion(
                (
                    f"`{entry.decl.name}` is declared in {entry.file.source.path}; "
                    f'add `import "{entry.file.source.path}"` (relative to this file)',
                )
            )
        elif suggest:
            found = self._close(name, kind, file)
        return None, [
            code.at(file.source, span, name=name, hints=found.hints, fixes=found.fixes(span))
        ]

    def _close(self, name: str, kind: str, file: ParsedFile) -> Suggestion:
        """Visible declarations of `kind` close to `name`, listed when few; a type written
        as a bare primitive (`string`, `integer`) suggests the primitive when no declared
        type is close."""
        visible = [
            e.decl.name
            for e in self.entries.values()
            if e.kind == kind and e.file.source.path in file.visible
        ]
        found = suggest(name, visible, scope=f"{kind}s in scope")
        if kind != "type" or found.replacements:
            return found
        word = name.lower()
        if word in ast.LIST_WORDS:
            return Suggestion((ast.LIST_HINT, *found.hints))
        prim = ast.primitive(word) or ast.PRIMITIVE_SYNONYMS.get(word)
        if prim is None:
            return found
        return Suggestion((f"did you mean `:{prim}`?", *found.hints), (f":{prim}",))


def build_table(files: Sequence[ParsedFile]) -> tuple[Table, list[Diagnostic]]:
    entries: dict[str, Entry] = {}
    diags: list[Diagnostic] = []
    for file in files:
        for decl in file.module.decls:
            if isinstance(decl, ast.ImportDecl | ast.TestDecl):
                continue  # tests have a namespace of their own, per file
            key = fold(decl.name)
            first = entries.get(key)
            if first is None:
                entries[key] = Entry(decl, file)
                continue
            label = Label(first.file.source, first.decl.name_span, "first declared here")
            diags.append(
                codes.DUPLICATE_DECLARATION.at(
                    file.source, decl.name_span, name=decl.name, labels=(label,)
                )
            )
    return Table(entries), diags


def check_duplicates(
    fields: tuple[ast.Field, ...], source: SourceFile, code: codes.Code
) -> list[Diagnostic]:
    """Duplicate names after `-`/`_` folding, reported once per folded name."""
    groups: dict[str, list[ast.Field]] = {}
    for f in fields:
        groups.setdefault(fold(f.name), []).append(f)
    diags: list[Diagnostic] = []
    for folded, group in groups.items():
        if len(group) > 1:
            names = ", ".join(f.name for f in group)
            labels = tuple(Label(source, f.name_span, "also here") for f in group[1:])
            diags.append(
                code.at(source, group[0].name_span, folded=folded, names=names, labels=labels)
            )
    return diags
