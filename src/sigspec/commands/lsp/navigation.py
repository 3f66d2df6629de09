"""The LSP side of navigation and hover: definition, references, prepareRename and rename,
document and workspace symbols, hover. Each request freezes the open buffers on the event
loop, asks the project's loaded view (`views.py`, kept while nothing changed) off it, and
converts code-point offsets to the client's position encoding (UTF-16 unless it chose
otherwise) and back. The answers themselves come from `navigate`, `outline` and `hover`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec

from sigspec.commands.lsp import hover as hovers
from sigspec.commands.lsp import navigate, outline
from sigspec.commands.lsp.views import Loaded, Views
from sigspec.diagnostics.source import SourceFile, Span

if TYPE_CHECKING:
    from sigspec.commands.lsp.server import _Session

T = TypeVar("T")
_Answer = Callable[[Any, "_Files", str], T]

_SYMBOL_KINDS = {
    "type": lsp.SymbolKind.Struct,
    "signature": lsp.SymbolKind.Function,
    "tool": lsp.SymbolKind.Method,
    "pipeline": lsp.SymbolKind.Operator,
    "test": lsp.SymbolKind.Event,
    "param": lsp.SymbolKind.Variable,
    "field": lsp.SymbolKind.Field,
}


@dataclass(frozen=True, slots=True)
class _Client:
    """What the client negotiated and holds open, as a request started."""

    codec: PositionCodec
    versions: Mapping[str, int | None]  # URI -> version of each open document
    changes_only: bool  # the client takes `changes`, not `documentChanges`


class _Files:
    """Converting a loaded project's offsets to LSP locations and back."""

    def __init__(self, loaded: Loaded, client: _Client, opened: Mapping[Path, str]) -> None:
        self.loaded = loaded
        self.client = client
        self.codec = client.codec
        self.opened = opened  # resolved path -> the URI the client opened it by
        self._lines: dict[str, list[str]] = {}
        self._uris: dict[str, str] = {}

    def source(self, name: str) -> SourceFile:
        return self.loaded.index.files[name].source

    def lines(self, name: str) -> list[str]:
        if name not in self._lines:
            self._lines[name] = self.source(name).text.split("\n")
        return self._lines[name]

    def uri(self, name: str) -> str:
        if name not in self._uris:
            path = (self.loaded.view.root / name).resolve()
            self._uris[name] = self.opened.get(path) or from_fs_path(str(path)) or path.as_uri()
        return self._uris[name]

    def offset(self, name: str, position: lsp.Position) -> int:
        lines = self.lines(name)
        if position.line >= len(lines):
            return len(self.source(name).text)
        client = lsp.Position(position.line, position.character)  # the codec may change it
        at = self.codec.position_from_client_units(lines, client)
        start = sum(len(line) + 1 for line in lines[: at.line])
        return start + min(at.character, len(lines[at.line]))

    def position(self, name: str, offset: int) -> lsp.Position:
        where = self.source(name).position(offset)
        point = lsp.Position(where.line - 1, where.column - 1)
        return self.codec.position_to_client_units(self.lines(name), point)

    def range(self, name: str, span: Span) -> lsp.Range:
        return lsp.Range(self.position(name, span.start), self.position(name, span.end))

    def location(self, name: str, span: Span) -> lsp.Location:
        return lsp.Location(self.uri(name), self.range(name, span))


class _Navigator:
    """What every request needs: the open documents (read on the event loop) and the
    loaded projects (asked off it)."""

    def __init__(self, server: LanguageServer, session: _Session, views: Views) -> None:
        self.server = server
        self.session = session
        self.views = views

    def _frozen(self) -> tuple[dict[Path, str], dict[Path, str], Path | None, _Client]:
        """On the event loop: the buffers, their URIs, the workspace folder, the client."""
        workspace = self.server.workspace
        documents = self.session.documents()
        buffers = {p: workspace.get_text_document(u).source for u, p in documents.items()}
        uris = {p: u for u, p in documents.items()}
        root = workspace.root_path
        versions = {u: d.version for u, d in workspace.text_documents.items()}
        client = _Client(workspace.position_codec, versions, _wants_changes(self.server))
        return buffers, uris, Path(root).resolve() if root else None, client

    def handler(self, answer: _Answer[Any]) -> Callable[[Any], Awaitable[Any]]:
        """A request on a position (or the whole) of a document: `answer(params, files,
        name)` off the event loop; a refusal becomes an error response."""

        async def handle(params: Any) -> Any:
            path = to_fs_path(params.text_document.uri)
            if path is None or not path.endswith(".sig"):
                return None
            where = Path(path).resolve()
            buffers, uris, folder, client = self._frozen()

            def work() -> Any:
                loaded = self.views.get(where, buffers, folder)
                name = loaded.path_name(where)
                if name is None:
                    return None
                return answer(params, _Files(loaded, client, uris), name)

            result = await asyncio.get_running_loop().run_in_executor(None, work)
            if isinstance(result, navigate.Refusal):
                raise JsonRpcInvalidParams(result.message)
            return result

        return handle

    async def workspace_symbol(self, params: lsp.WorkspaceSymbolParams) -> Any:
        buffers, uris, folder, client = self._frozen()

        def work() -> list[lsp.WorkspaceSymbol]:
            projects = [self.views.get(p, buffers, folder) for p in sorted(buffers)]
            if folder is not None:
                projects.append(self.views.of_workspace(folder, buffers))
            return _search([_Files(p, client, uris) for p in projects], params.query)

        return await asyncio.get_running_loop().run_in_executor(None, work)


def register(server: LanguageServer, session: _Session, views: Views) -> None:
    """Navigation and hover on `server`; `session` knows the open documents, `views` is the
    session's cache of loaded projects (shared with completion)."""
    navigator = _Navigator(server, session, views)
    for method, options, answer in _REQUESTS:
        server.feature(method, options)(navigator.handler(answer))

    async def workspace_symbol(params: lsp.WorkspaceSymbolParams) -> Any:
        return await navigator.workspace_symbol(params)

    server.feature(lsp.WORKSPACE_SYMBOL)(workspace_symbol)


def _definition(params: lsp.DefinitionParams, files: _Files, name: str) -> Any:
    offset = files.offset(name, params.position)
    found = navigate.definition(files.loaded.index, name, offset)
    return [files.location(f.path, f.span) for f in found] or None


def _references(params: lsp.ReferenceParams, files: _Files, name: str) -> Any:
    offset = files.offset(name, params.position)
    declaration = params.context.include_declaration
    found = navigate.references(files.loaded.index, name, offset, declaration=declaration)
    return [files.location(f.path, f.span) for f in found]


def _prepare_rename(params: lsp.PrepareRenameParams, files: _Files, name: str) -> Any:
    offset = files.offset(name, params.position)
    found = navigate.renameable(files.loaded.index, name, offset)
    if found is None:
        return None
    span, _ = found
    written = files.source(name).text[span.start : span.end]
    return lsp.PrepareRenamePlaceholder(files.range(name, span), written)


def _rename(params: lsp.RenameParams, files: _Files, name: str) -> Any:
    offset = files.offset(name, params.position)
    found = navigate.rename(files.loaded.index, name, offset, params.new_name)
    if isinstance(found, navigate.Refusal):
        return found
    return _workspace_edit(files, found)


def _document_symbol(params: lsp.DocumentSymbolParams, files: _Files, name: str) -> Any:
    return [_symbol(files, name, o) for o in outline.outline(files.loaded.index, name)]


def _hover(params: lsp.HoverParams, files: _Files, name: str) -> Any:
    loaded = files.loaded
    offset = files.offset(name, params.position)
    found = hovers.hover(loaded.index, loaded.view.project, loaded.schema, name, offset)
    if found is None:
        return None
    content = lsp.MarkupContent(lsp.MarkupKind.Markdown, found.markdown)
    return lsp.Hover(content, files.range(name, found.span))


_REQUESTS: tuple[tuple[str, Any, _Answer[Any]], ...] = (
    (lsp.TEXT_DOCUMENT_DEFINITION, None, _definition),
    (lsp.TEXT_DOCUMENT_REFERENCES, None, _references),
    (lsp.TEXT_DOCUMENT_PREPARE_RENAME, None, _prepare_rename),
    (lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True), _rename),
    (lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, _document_symbol),
    (lsp.TEXT_DOCUMENT_HOVER, None, _hover),
)


def _symbol(files: _Files, name: str, item: outline.Outline) -> lsp.DocumentSymbol:
    return lsp.DocumentSymbol(
        name=item.name,
        kind=_SYMBOL_KINDS[item.kind],
        detail=item.detail,
        range=files.range(name, item.span),
        selection_range=files.range(name, item.selection),
        children=[_symbol(files, name, child) for child in item.children],
    )


def _search(projects: list[_Files], query: str) -> list[lsp.WorkspaceSymbol]:
    """The matching declarations of each project once (a file in two projects, once)."""
    seen: set[tuple[str, int]] = set()
    out = []
    for files in projects:
        for decl in outline.search(files.loaded.index, query):
            location = files.location(decl.path, decl.node.span)
            if (location.uri, decl.span.start) in seen:
                continue
            seen.add((location.uri, decl.span.start))
            kind = _SYMBOL_KINDS[decl.kind]
            symbol = lsp.WorkspaceSymbol(
                location=location, name=decl.name, kind=kind, container_name=decl.kind
            )
            out.append(symbol)
    return out


def _wants_changes(server: LanguageServer) -> bool:
    """Whether the client takes only `changes` (no `documentChanges`)."""
    capabilities: Any = server.client_capabilities
    edit = getattr(getattr(capabilities, "workspace", None), "workspace_edit", None)
    return not (edit is not None and edit.document_changes)


def _workspace_edit(files: _Files, edits: navigate.Edits) -> lsp.WorkspaceEdit:
    by_uri = {
        files.uri(name): [lsp.TextEdit(files.range(name, span), text) for span, text in spans]
        for name, spans in sorted(edits.items())
    }
    versions = files.client.versions
    if files.client.changes_only:
        return lsp.WorkspaceEdit(changes=by_uri)
    return lsp.WorkspaceEdit(
        document_changes=[
            lsp.TextDocumentEdit(
                lsp.OptionalVersionedTextDocumentIdentifier(uri, versions.get(uri)), list(text)
            )
            for uri, text in by_uri.items()
        ]
    )
