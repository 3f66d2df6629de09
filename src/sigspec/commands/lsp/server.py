"""The pygls server: editor notifications in, checks scheduled, diagnostics and edits out.

A change to a document rechecks that document and the open documents that import it
(directly or not), after a short pause in the typing (`DELAY`), one check at a time off the
event loop: formatting and further edits are answered while a check runs, and a newer edit
supersedes the check of an older text. A check that fails becomes an internal-error
diagnostic on its own document; the others are checked as usual.

A change or save also checks the project's files that import the document and are not open
(`importers.py`: one load of the whole project, whatever their number), published without a
version and cleared once they stop importing it, are deleted or are clean; an opened file's
own check takes over. `.sig` files changed on disk (`workspace/didChangeWatchedFiles`,
registered when the client can) recheck the open documents and shown importers reading them.

Navigation, hover, completion and workspace symbols read one cache of loaded projects per
session (`views.py`), which reuses the parses of the importers' checks; a change on disk the
client reports makes every kept project stale.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec

from sigspec.commands.lsp import edit, navigation
from sigspec.commands.lsp.check import (
    Checked,
    Snapshot,
    failure_log,
    internal_error,
    lint_document,
)
from sigspec.commands.lsp.files import client_uri, watch_files
from sigspec.commands.lsp.importers import Imported, Importers, Shown, check_importers
from sigspec.commands.lsp.readers import Readers
from sigspec.commands.lsp.schedule import Scheduler
from sigspec.commands.lsp.views import Views
from sigspec.compiler.project import Parses
from sigspec.diagnostics import Diagnostic, Severity
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.syntax.fmt.run import format_source

# Seconds without an edit to a document before it is checked: typing is not checked per key.
DELAY = 0.2

Check = Callable[[Snapshot], Checked]

logger = logging.getLogger(__name__)

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


def to_lsp(
    diagnostics: Sequence[Diagnostic], root: Path, uri: str, text: str, codec: PositionCodec
) -> list[lsp.Diagnostic]:
    """Sigspec diagnostics on a document holding `text`, ranges in the client's position
    encoding (UTF-16 code units unless the client chose otherwise). Each text is split into
    lines once: a large file with many findings would otherwise be split for each."""
    split: dict[str, list[str]] = {}

    def lines(of: str) -> list[str]:
        if of not in split:
            split[of] = of.splitlines(True)
        return split[of]

    def one(diagnostic: Diagnostic) -> lsp.Diagnostic:
        source = diagnostic.source or SourceFile(uri, "")
        related = [
            lsp.DiagnosticRelatedInformation(
                lsp.Location(
                    from_fs_path(os.path.normpath(root / label.source.path)) or uri,
                    codec.range_to_client_units(
                        lines(label.source.text), _range(label.source, label.span)
                    ),
                ),
                label.message,
            )
            for label in diagnostic.labels
        ]
        return lsp.Diagnostic(
            range=codec.range_to_client_units(lines(text), _range(source, diagnostic.span)),
            message=_message(diagnostic),
            severity=_SEVERITY[diagnostic.severity],
            code=diagnostic.code,
            source="sigspec",
            related_information=related or None,
            data=edit.fixes_for(diagnostic, lines(text), codec),
        )

    return [one(d) for d in diagnostics]


def format_edits(uri: str, text: str, lines: Sequence[str]) -> list[lsp.TextEdit]:
    """One edit replacing the whole document with its canonical form; none when already
    canonical or when it does not parse (the diagnostics say why)."""
    result = format_source(SourceFile(uri, text))
    if result.text is None or result.text == text:
        return []
    end = lsp.Position(len(lines), 0)
    return [lsp.TextEdit(lsp.Range(lsp.Position(0, 0), end), result.text)]


@dataclass(frozen=True, slots=True)
class _Result:
    """A finished check: what to publish for which version, and what the check read."""

    version: int | None
    diagnostics: list[lsp.Diagnostic]
    checked: Checked
    overlay: Mapping[Path, str]  # the buffers it was checked against


@dataclass(frozen=True, slots=True)
class _ImportersOf:
    """The key of the check of a document's importers that are not open."""

    uri: str


@dataclass(frozen=True, slots=True)
class _Found:
    """A finished check of importers: what it found, and their diagnostics for the editor."""

    importers: Importers | None  # None when the check failed
    diagnostics: Mapping[Path, list[lsp.Diagnostic]]  # those with findings


def _sig_path(uri: str) -> Path | None:
    path = to_fs_path(uri)
    return Path(path).resolve() if path is not None and path.endswith(".sig") else None


class _Session:
    """The state of one editor session: the scheduled checks, what each check read, and the
    files not open whose findings were published."""

    def __init__(self, server: LanguageServer, check: Check, version: str, delay: float) -> None:
        self.server = server
        self.check = check
        self.version = version
        self.readers = Readers()
        self.shown = Shown()
        self.imported = Imported()
        self.parses: dict[Path, Parses] = {}  # by project root: importers' checks and views
        # The loaded projects that navigation, hover and completion read, one cache for all.
        self.views = Views(self.parses)
        # Documents whose importers were checked (changed or saved): URI -> resolved path.
        self.edited: dict[str, Path] = {}
        self.scheduler: Scheduler[str | _ImportersOf, _Result | _Found] = Scheduler(
            self._start, self._finish, delay
        )

    def documents(self) -> dict[str, Path]:
        """The open .sig documents: URI -> resolved path."""
        found = {}
        for uri in self.server.workspace.text_documents:
            path = _sig_path(uri)
            if path is not None:
                found[uri] = path
        return found

    def changed(
        self, uri: str, *, on_disk: bool = False, itself: bool = True, importers: bool = True
    ) -> None:
        """Recheck a document (unless `itself` is false), the open documents reading it and
        (unless `importers` is false) its importers that are not open."""
        path = _sig_path(uri)
        if path is None:
            return
        if on_disk:
            self.imported.forget()
        others = [u for u in self.documents() if u != uri]
        affected: list[str | _ImportersOf] = list(self.readers.of(path, others, on_disk=on_disk))
        if importers:
            self.edited[uri] = path
            affected.append(_ImportersOf(uri))
        self.scheduler.request([uri, *affected] if itself else affected)

    def opened(self, uri: str) -> None:
        path = _sig_path(uri)
        if path is not None:
            self.shown.forget(path)  # its own check takes over, under the same URI
        self.changed(uri, on_disk=True, importers=False)

    def closed(self, uri: str) -> None:
        reads = self.readers.reads(uri)
        self.imported.forget()  # the disk's text stands in for the buffer's now
        self.scheduler.cancel(uri)
        self.readers.forget(uri)
        # A closed file's findings belong to `sigspec lint` now, not to the editor (unless it
        # imports an edited file: the checks of those importers below say).
        self._publish(uri, [])
        # Its importers read the disk again, not the buffer.
        self.changed(uri, itself=False, importers=uri in self.edited)
        self.scheduler.request(
            _ImportersOf(u) for u, p in self.edited.items() if reads is None or p in reads
        )

    def on_disk(self, changes: Iterable[lsp.FileEvent]) -> None:
        """Files changed on disk (outside the editor, or saved): recheck the open documents
        and the shown importers that read them; a deleted file shown is cleared."""
        paths = {p for p in (_sig_path(c.uri) for c in changes) if p is not None}
        self.imported.forget()
        documents = self.documents()
        uris = {u for u, p in documents.items() if p in paths}
        affected: set[str | _ImportersOf] = set()
        for path in sorted(paths):
            if not path.exists() and self.shown.forget(path):
                self._publish(self._uri(path), [])
            affected |= set(
                self.readers.of(path, [u for u in documents if u not in uris], on_disk=True)
            )
            sources = self.shown.sources_reading(path)
            affected |= {_ImportersOf(u) for u, p in self.edited.items() if p in sources}
        # A file created or changed may import an edited document now.
        affected |= {_ImportersOf(u) for u in self.edited if u in documents}
        self.scheduler.request(sorted(affected, key=str))

    def _uri(self, path: Path) -> str:
        return client_uri(path, self.server.workspace.root_path)

    def _start(self, key: str | _ImportersOf) -> Callable[[], _Result | _Found] | None:
        """On the event loop: freeze the texts a check reads; None if there is nothing to do."""
        if isinstance(key, _ImportersOf):
            return self._start_importers(key)
        documents = self.documents()
        path = documents.get(key)
        if path is None:
            return None
        workspace = self.server.workspace
        document = workspace.get_text_document(key)
        snapshot = self._snapshot(path, document.source, documents)
        codec = document.position_codec
        version = document.version
        return lambda: self._run(snapshot, key, version, codec)

    def _snapshot(self, path: Path, text: str, documents: Mapping[str, Path]) -> Snapshot:
        workspace = self.server.workspace
        overlay = {p: workspace.get_text_document(u).source for u, p in documents.items()}
        root_path = workspace.root_path
        return Snapshot(
            path=path,
            text=text,
            overlay=overlay,
            workspace=Path(root_path).resolve() if root_path else None,
        )

    def _start_importers(self, key: _ImportersOf) -> Callable[[], _Found] | None:
        path = self.edited.get(key.uri)
        if path is None or (self.imported.unimported(path) and not self.shown.holds(path)):
            return None  # nothing imports it, and nothing was shown for it
        snapshot = self._snapshot(path, "", self.documents())
        codec = self.server.workspace.position_codec
        given = self.server.workspace.root_path
        return lambda: self._run_importers(snapshot, codec, partial(client_uri, given=given))

    def _run(
        self, snapshot: Snapshot, uri: str, version: int | None, codec: PositionCodec
    ) -> _Result:
        """Off the event loop: check one document; a failure is this document's alone."""
        try:
            checked = self.check(snapshot)
            found = to_lsp(checked.diagnostics, checked.root, uri, snapshot.text, codec)
        # Anything at all: in this worker thread no signal arrives, so whatever is raised
        # (even SystemExit) is a bug in the checker, and must not stop the other checks.
        except BaseException as error:
            logger.error("%s", failure_log(snapshot, error))
            checked = Checked(diagnostics=(), root=snapshot.path.parent, reads=None)
            diagnostic = internal_error(snapshot, error, self.version)
            found = to_lsp([diagnostic], checked.root, uri, snapshot.text, codec)
        return _Result(version, found, checked, snapshot.overlay)

    def _run_importers(
        self, snapshot: Snapshot, codec: PositionCodec, uri: Callable[[Path], str]
    ) -> _Found:
        """Off the event loop: the importers of one document, from one load of its project.
        A failure is logged and publishes nothing: it is no importer's fault."""
        try:
            found = check_importers(snapshot, self.parses)
            return _Found(
                found,
                {
                    importer.path: to_lsp(
                        importer.diagnostics, found.root, uri(importer.path), importer.text, codec
                    )
                    for importer in found.found
                    if importer.diagnostics
                },
            )
        except BaseException as error:  # as in `_run`
            logger.error("%s", failure_log(snapshot, error))
            return _Found(None, {})

    def _finish(self, key: str | _ImportersOf, result: _Result | _Found) -> None:
        if isinstance(result, _Found):
            self._finish_importers(key, result)
            return
        assert isinstance(key, str)
        if self._stale(result):
            # A buffer it read changed (or opened or closed) while it ran, and it was not
            # known to read it when that happened: its first check, or a new import.
            self.scheduler.request([key])
            return
        self.readers.record(key, result.checked)
        self.server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=key, diagnostics=result.diagnostics, version=result.version
            )
        )

    def _finish_importers(self, key: str | _ImportersOf, result: _Found) -> None:
        path = self.edited.get(key.uri) if isinstance(key, _ImportersOf) else None
        if path is None or result.importers is None:
            return
        self.imported.record(path, result.importers)
        open_ = set(self.documents().values())
        for changed in self.shown.update(path, result.importers, open_):
            # Never open here: no version, and the document's own check publishes for it.
            self._publish(self._uri(changed), result.diagnostics.get(changed, []))

    def _publish(self, uri: str, diagnostics: list[lsp.Diagnostic]) -> None:
        self.server.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )

    def _stale(self, result: _Result) -> bool:
        reads = result.checked.reads
        if reads is None:
            return False
        workspace = self.server.workspace
        now = {p: workspace.get_text_document(u).source for u, p in self.documents().items()}
        return any(now.get(path) != result.overlay.get(path) for path in reads)


def build_server(
    version: str, *, check: Check = lint_document, delay: float = DELAY
) -> LanguageServer:
    """The language server; `check` and `delay` are for tests to replace."""
    server = LanguageServer(
        "sigspec", version, text_document_sync_kind=lsp.TextDocumentSyncKind.Full
    )
    session = _Session(server, check, version, delay)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        session.opened(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        session.changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        session.changed(params.text_document.uri, on_disk=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        session.closed(params.text_document.uri)

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: LanguageServer, params: lsp.InitializedParams) -> None:
        await watch_files(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(
        ls: LanguageServer, params: lsp.DidChangeWatchedFilesParams
    ) -> None:
        session.views.changed_on_disk()
        session.on_disk(params.changes)

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: LanguageServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit]:
        if params.text_document.uri not in ls.workspace.text_documents:
            return []  # a document the client never opened: nothing to edit
        document = ls.workspace.get_text_document(params.text_document.uri)
        return format_edits(document.uri, document.source, document.lines)

    navigation.register(server, session, session.views)
    edit.register(server, session.views)
    return server


def serve(version: str) -> None:
    build_server(version).start_io()
