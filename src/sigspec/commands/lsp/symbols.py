"""The names of a project, as the editor's navigation reads them: every declaration (types,
signatures, tools, pipelines, tests, and their params and fields) and every reference to one,
each with its file and span.

A reference resolves to the declaration the checker would pick: names are project-global and
compared after `-`/`_` folding (`ir.fold`), a type or pipeline step only when declared in a
file the referring file sees (`ParsedFile.visible`), a `@tools` name among all the project's
tools (as `rules.check_tools` does). The tags of `@prompt` and `@system` templates
(`{{text}}`, `{{ticket.subject}}`, names inside `{{#items}}`) are references of the params
and fields they name. A test refers to its signature, its argument names to the params they
pass, and each name in a check's subject (`items[0].name`) to the output field it steps
into, through named types, `?` and unions as `semantics/testcases.py` follows it. Tests are
named per file, apart from the project's declarations. Free of pygls: navigation, rename,
symbols and hover read it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from sigspec.commands.lsp.shapes import resolve_named, strip
from sigspec.commands.lsp.testuses import uses_in_test
from sigspec.diagnostics.source import Span
from sigspec.semantics.ir import fold
from sigspec.semantics.prompt import Placement, Tag, TemplateError, tags
from sigspec.semantics.scope import Named, ParsedFile, build_table
from sigspec.syntax import ast

Kind = Literal["type", "signature", "tool", "pipeline", "test", "param", "field"]
Key = tuple[str, int]  # a declaration: its file's path and where its name starts

TOP_LEVEL: frozenset[str] = frozenset({"type", "signature", "tool", "pipeline"})
OUTLINED: frozenset[str] = TOP_LEVEL | {"test"}  # a file's symbols: tests too


@dataclass(frozen=True, slots=True)
class Declaration:
    kind: Kind
    name: str
    path: str  # the file's `source.path` (relative to the project root)
    span: Span  # the name
    node: Named | ast.TestDecl | ast.Field
    parent: Key | None = None  # a param's or field's top-level declaration

    @property
    def key(self) -> Key:
        return (self.path, self.span.start)


@dataclass(frozen=True, slots=True)
class Reference:
    """A name that refers to a declaration: `target` is None when it resolves to nothing."""

    path: str
    span: Span
    name: str  # as written
    target: Key | None


@dataclass(frozen=True, slots=True)
class ImportPath:
    """An import's path string; `target` is the imported file's path, when it was read."""

    path: str
    span: Span
    target: str | None


@dataclass(frozen=True, slots=True)
class PrimitiveUse:
    path: str
    span: Span
    kind: ast.PrimKind


Site = Declaration | Reference | ImportPath | PrimitiveUse


@dataclass(frozen=True, slots=True)
class _Typed:
    """A param or field as a template sees it: its declaration and its type's syntax."""

    key: Key
    type: ast.TypeExpr
    file: ParsedFile


_Frame = dict[str, _Typed] | None  # folded name -> field; None: no fields here


class Index:
    """The sites of a project's files, found once, asked many times."""

    def __init__(self, files: Sequence[ParsedFile], import_targets: dict[Key, str]) -> None:
        self.files = {f.source.path: f for f in files}
        self.table, _ = build_table(files)
        self.declarations: dict[Key, Declaration] = {}
        self.groups: dict[Key, tuple[Key, ...]] = {}  # a param or field -> its siblings
        self.sites: dict[str, list[Site]] = {}
        for file in files:
            walker = _Walker(self, file, import_targets)
            self.sites[file.source.path] = sorted(walker.walk(), key=lambda s: s.span.start)

    # ---- questions ----

    def at(self, path: str, offset: int) -> Site | None:
        """The site whose span holds `offset` (its end included: a cursor just after a name
        is on it); the innermost when several do."""
        found = [s for s in self.sites.get(path, ()) if s.span.start <= offset <= s.span.end]
        return min(found, key=lambda s: s.span.end - s.span.start) if found else None

    def declaration_of(self, site: Site) -> Declaration | None:
        if isinstance(site, Declaration):
            return site
        if isinstance(site, Reference) and site.target is not None:
            return self.declarations.get(site.target)
        return None

    def references_to(self, key: Key) -> list[Reference]:
        """Every reference resolving to the declaration, in path and source order."""
        return [
            site
            for path in sorted(self.sites)
            for site in self.sites[path]
            if isinstance(site, Reference) and site.target == key
        ]

    def references(self) -> Iterator[Reference]:
        for path in sorted(self.sites):
            yield from (s for s in self.sites[path] if isinstance(s, Reference))

    def entry_key(self, name: str) -> Key | None:
        """The top-level declaration the checker knows under a name (the first one)."""
        entry = self.table.entries.get(fold(name))
        return (entry.file.source.path, entry.decl.name_span.start) if entry else None

    def top_level(self, path: str) -> list[Declaration]:
        """The declarations of a file, its tests included, in source order."""
        return [
            s for s in self.sites.get(path, ()) if isinstance(s, Declaration) and s.kind in OUTLINED
        ]

    def children(self, key: Key) -> list[Declaration]:
        """The params and fields of a top-level declaration, in source order."""
        path = key[0]
        return [
            s for s in self.sites.get(path, ()) if isinstance(s, Declaration) and s.parent == key
        ]


class _Walker:
    """The sites of one file; declarations and sibling groups go into the index as found."""

    def __init__(self, index: Index, file: ParsedFile, import_targets: dict[Key, str]) -> None:
        self.index = index
        self.file = file
        self.path = file.source.path
        self.import_targets = import_targets
        self.found: list[Site] = []

    def walk(self) -> list[Site]:
        for decl in self.file.module.decls:
            match decl:
                case ast.ImportDecl():
                    target = self.import_targets.get((self.path, decl.path_span.start))
                    self.found.append(ImportPath(self.path, decl.path_span, target))
                case ast.TypeDecl():
                    key = self._top(decl)
                    self._type(decl.type, key)
                case ast.SignatureDecl():
                    key = self._top(decl)
                    self._fields(decl.params, "param", key)
                    self._type(decl.output, key)
                    self._attributes(decl, key)
                case ast.PipelineDecl():
                    self._top(decl)
                    for step in decl.steps:
                        self._refer(step.name, step.span, "signature")
                case ast.TestDecl():
                    self._test(decl)
        return self.found

    def _test(self, decl: ast.TestDecl) -> None:
        self._declare(Declaration("test", decl.name, self.path, decl.name_span, decl))
        for span, name, key in uses_in_test(self.index.table, self.file, decl):
            self.found.append(Reference(self.path, span, name, key))

    def _top(self, decl: Named) -> Key:
        kind: Kind
        if isinstance(decl, ast.TypeDecl):
            kind = "type"
        elif isinstance(decl, ast.PipelineDecl):
            kind = "pipeline"
        else:
            kind = "tool" if decl.kind == "tool" else "signature"
        return self._declare(Declaration(kind, decl.name, self.path, decl.name_span, decl))

    def _declare(self, declaration: Declaration) -> Key:
        self.index.declarations[declaration.key] = declaration
        self.found.append(declaration)
        return declaration.key

    def _refer(self, name: str, span: Span, kind: str) -> None:
        found = resolve_named(self.index.table, name, kind, self.file)
        target = (found[1].source.path, found[0].name_span.start) if found else None
        self.found.append(Reference(self.path, span, name, target))

    def _fields(self, fields: tuple[ast.Field, ...], kind: Kind, parent: Key) -> None:
        keys = []
        for f in fields:
            keys.append(self._declare(Declaration(kind, f.name, self.path, f.name_span, f, parent)))
            self._type(f.type, parent)
        for key in keys:
            self.index.groups[key] = tuple(keys)

    def _type(self, t: ast.TypeExpr, parent: Key) -> None:
        match t:
            case ast.PrimType(name, span):
                prim = ast.primitive(name)
                if prim is not None:
                    self.found.append(PrimitiveUse(self.path, span, prim))
            case ast.NamedType(name, span):
                self._refer(name, span, "type")
            case ast.ListType(item):
                self._type(item, parent)
            case ast.OptionalType(inner):
                self._type(inner, parent)
            case ast.UnionType(members):
                for member in members:
                    self._type(member, parent)
            case ast.MapType(fields):
                self._fields(fields, "field", parent)
            case ast.LiteralType():
                pass

    def _attributes(self, decl: ast.SignatureDecl, key: Key) -> None:
        for attr in decl.attrs:
            if attr.name == "tools":
                for arg in attr.args or ():
                    self._tool(arg)
            elif attr.name in ("prompt", "system") and attr.args:
                self._template(decl, attr)

    def _tool(self, arg: ast.AttrArg) -> None:
        """A `@tools` argument: a bare name, or a string naming a tool (its inside)."""
        if isinstance(arg, ast.NameArg):
            name, span = arg.name, arg.span
        elif isinstance(arg, ast.ScalarValue) and isinstance(arg.value, str):
            name, span = arg.value, Span(arg.span.start + 1, arg.span.end - 1)
            if self.file.source.text[span.start : span.end] != name:
                return  # escapes or a triple-quoted string: no plain name to point at
        else:
            return
        entry = self.index.table.entries.get(fold(name))
        target = None
        if entry is not None and entry.kind == "tool":
            target = (entry.file.source.path, entry.decl.name_span.start)
        self.found.append(Reference(self.path, span, name, target))

    # ---- templates ----

    def _template(self, decl: ast.SignatureDecl, attr: ast.Attribute) -> None:
        arg = attr.args[0] if attr.args else None
        if not isinstance(arg, ast.ScalarValue) or not isinstance(arg.value, str):
            return
        template = arg.value
        try:
            found = tags(template)
        except TemplateError:
            return  # the checker reports it; no tag is trusted
        at = Placement(template, self.file.source, attr)
        params = {
            fold(p.name): _Typed((self.path, p.name_span.start), p.type, self.file)
            for p in decl.params
        }
        stack: list[_Frame] = [params]
        for tag in found:
            if tag.kind == "close":  # it names what its section opened with: renamed with it
                if len(stack) > 1:
                    stack.pop()
                self._tag(template, tag, stack[-1], at)
                continue
            resolved = self._tag(template, tag, stack[-1], at) if tag.name != "." else None
            if tag.kind == "section" and resolved is not None:
                stack.append(self._enter(resolved, stack[-1]))
            elif tag.kind in ("section", "inverted"):  # as the checker: the same names inside
                stack.append(stack[-1])

    def _tag(self, template: str, tag: Tag, frame: _Frame, at: Placement) -> _Typed | None:
        """The references of one tag's dotted name, part by part; what the last part names."""
        start, _ = tag.name_at(template)
        resolved: _Typed | None = None
        offset = start
        for part in tag.name.split("."):
            found = frame.get(fold(part)) if frame is not None else None
            if found is None:
                return None
            span = at.span(offset, offset + len(part))
            if self.file.source.text[span.start : span.end] == part:
                self.found.append(Reference(self.path, span, part, found.key))
            resolved = found
            frame = self.fields_of(found.type, found.file)
            offset += len(part) + 1
        return resolved

    def _enter(self, typed: _Typed, outside: _Frame) -> _Frame:
        """The names inside a section over a param or field (as `prompt._enter`): a list's
        element's fields, a map's fields; else (a condition) the same names as outside."""
        base = strip(self.index.table, typed.type, typed.file)
        if base is None:
            return outside
        t, file = base
        if isinstance(t, ast.ListType):
            return self.fields_of(t.item, file)
        if isinstance(t, ast.MapType):
            return self.fields_of(t, file)
        return outside

    def fields_of(self, t: ast.TypeExpr, file: ParsedFile) -> _Frame:
        base = strip(self.index.table, t, file)
        if base is None or not isinstance(base[0], ast.MapType):
            return None
        owner = base[1]
        return {
            fold(f.name): _Typed((owner.source.path, f.name_span.start), f.type, owner)
            for f in base[0].fields
        }
