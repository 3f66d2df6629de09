"""`sigspec lsp`: a language server (pygls) publishing lint diagnostics and formatting documents.

The only module that imports pygls, which is an optional extra (`sigspec[lsp]`). Checking
and formatting are the same library calls as `sigspec lint` and `sigspec fmt`; open buffers
stand in for files on disk, so an import of an unsaved, edited file sees the edited text.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from sigspec.compiler.config import ConfigError, load_config
from sigspec.compiler.paths import display_path
from sigspec.compiler.project import load
from sigspec.diagnostics import Diagnostic, Severity
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax.fmt.run import format_source

if TYPE_CHECKING:
    from pygls.workspace import TextDocument

_SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.NOTE: lsp.DiagnosticSeverity.Information,
}


def _range(source: SourceFile, span: Span | None) -> lsp.Range:
    """A span in code points as an LSP range of 0-based lines and code-point columns."""
    if span is None:
        return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    start, end = source.position(span.start), source.position(span.end)
    return lsp.Range(
        lsp.Position(start.line - 1, start.column - 1), lsp.Position(end.line - 1, end.column - 1)
    )


def _message(diagnostic: Diagnostic) -> str:
    return "\n".join([diagnostic.message, *(f"help: {hint}" for hint in diagnostic.hints)])


def to_lsp(diagnostic: Diagnostic, root: Path, document: TextDocument) -> lsp.Diagnostic:
    """One sigspec diagnostic on an open document, ranges in the client's position encoding."""
    source = diagnostic.source or SourceFile(document.uri, "")
    codec = document.position_codec
    related = [
        lsp.DiagnosticRelatedInformation(
            lsp.Location(
                from_fs_path(str(root / label.source.path)) or document.uri,
                codec.range_to_client_units(
                    label.source.text.splitlines(True), _range(label.source, label.span)
                ),
            ),
            label.message,
        )
        for label in diagnostic.labels
    ]
    return lsp.Diagnostic(
        range=codec.range_to_client_units(document.lines, _range(source, diagnostic.span)),
        message=_message(diagnostic),
        severity=_SEVERITY[diagnostic.severity],
        code=diagnostic.code,
        source="sigspec",
        related_information=related or None,
    )


def _root(server: LanguageServer, path: Path) -> Path:
    """The project root of a file, as the command line finds it: the folder of the nearest
    configuration above it; else the workspace folder holding the file, else its folder."""
    try:
        config = load_config(path.parent)
    except ConfigError:  # a broken configuration: `sigspec lint` reports it, not the editor
        config = None
    if config is not None and config.path is not None and path.is_relative_to(config.root):
        return config.root
    workspace = server.workspace.root_path
    if workspace and path.is_relative_to(Path(workspace).resolve()):
        return Path(workspace).resolve()
    return path.parent


def _sig_documents(server: LanguageServer) -> dict[Path, TextDocument]:
    documents: dict[Path, TextDocument] = {}
    for uri, document in server.workspace.text_documents.items():
        path = to_fs_path(uri)
        if path is not None and path.endswith(".sig"):
            documents[Path(path).resolve()] = document
    return documents


def diagnose(server: LanguageServer) -> None:
    """Check every open .sig document against the open buffers and publish the results.

    All open documents are checked again on any change: an edit to one file can fix or break
    another that imports it.
    """
    documents = _sig_documents(server)
    overlay = {path: document.source for path, document in documents.items()}
    for path, document in documents.items():
        root = _root(server, path)
        shown = display_path(path, root)
        result = load([path], root=root, overlay=overlay)
        found = [to_lsp(d, root, document) for d in result.diagnostics if d.path == shown]
        server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=document.uri, diagnostics=found, version=None)
        )


def format_edits(document: TextDocument) -> list[lsp.TextEdit]:
    """One edit replacing the whole document with its canonical form; none when already
    canonical or when it does not parse (the diagnostics say why)."""
    result = format_source(SourceFile(document.uri, document.source))
    if result.text is None or result.text == document.source:
        return []
    lines = document.lines
    end = lsp.Position(len(lines), 0)
    return [lsp.TextEdit(lsp.Range(lsp.Position(0, 0), end), result.text)]


def build_server(version: str) -> LanguageServer:
    server = LanguageServer(
        "sigspec", version, text_document_sync_kind=lsp.TextDocumentSyncKind.Full
    )

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        diagnose(ls)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        diagnose(ls)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        diagnose(ls)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        # A closed file's findings belong to `sigspec lint` now, not to the editor.
        ls.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )
        diagnose(ls)

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: LanguageServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit]:
        return format_edits(ls.workspace.get_text_document(params.text_document.uri))

    return server


def serve(version: str) -> None:
    build_server(version).start_io()
