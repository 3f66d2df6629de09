"""The files that import an edited document and are not open: their findings, from one load
of the whole project, and which of them the editor has been shown.

An edit to `common.sig` can break `sentiment.sig`, which imports it, though nobody opened it;
the editor's problems panel should say so before the next `sigspec lint`. The check of such
importers loads the document's whole project once (the configuration's `sources`, else the
project root's folder; buffers over the disk) and reads every importer's findings from that
one load, however many importers there are. `Shown` remembers which files not open carry
findings in the editor, so that they are cleared once they stop importing the edited file,
are deleted, are opened (their own check takes over) or have no findings left.

Free of pygls, like `check.py`: the check runs off the server's event loop on a `Snapshot`.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sigspec.commands.lsp.check import Snapshot, configured, project_root, project_sources
from sigspec.compiler.findings import apply_severity
from sigspec.compiler.project import LoadResult, Parses, load
from sigspec.diagnostics import Diagnostic, codes


@dataclass(frozen=True, slots=True)
class Importer:
    """A project file that imports the edited one (directly or not), as the load saw it."""

    path: Path  # resolved
    text: str  # the text it was checked as: the positions of its findings are in it
    diagnostics: tuple[Diagnostic, ...]  # its own, at the configuration's `[severity]`
    reads: frozenset[Path]  # itself and every file it imports, resolved
    unresolved: bool  # an import in its closure names no existing file


@dataclass(frozen=True, slots=True)
class Importers:
    """The importers of one edited file within its project."""

    root: Path  # the project root: paths in the diagnostics are relative to it
    found: tuple[Importer, ...]
    # Every file some project file imports (directly or not): the others have no importers.
    imported: frozenset[Path] = frozenset()


def members(sources: Iterable[Path]) -> frozenset[Path]:
    """The project's files and folders, resolved (as the importers' paths are)."""
    return frozenset(source.resolve() for source in sources)


def in_project(path: Path, sources: Collection[Path]) -> bool:
    """Whether the file at `path` (resolved) is one of the project's sources or lies below
    one of its folders outside a hidden folder, as `sigspec lint` finds its files. Looked
    up by the path and its folders, not by the sources: a project without `sources` lists
    every file, and this is asked of every file."""
    if path in sources:
        return True
    for folder in path.parents:
        if folder in sources:
            between = path.relative_to(folder).parts[:-1]
            if not any(part.startswith(".") for part in between):
                return True
    return False


def check_importers(snapshot: Snapshot, parses: dict[Path, Parses] | None = None) -> Importers:
    """Every project file importing the document of `snapshot` but itself, with its findings.
    `parses` keeps what the files of each project root parsed to from one check to the next:
    an edit parses the edited file again, not the whole project.

    None found when the project is not known: a document outside the workspace with no
    configuration above it would make its whole folder (a home folder, say) the project."""
    root = project_root(snapshot.path, snapshot.workspace)
    config = configured(snapshot.path)
    if config is None and (snapshot.workspace is None or root != snapshot.workspace):
        return Importers(root, ())
    sources = members(project_sources(snapshot.path, root))
    cache = parses.setdefault(root, {}) if parses is not None else None
    result = load(
        [snapshot.path, *sources],
        root=root,
        overlay=snapshot.overlay,
        parses=cache,
        parallel=False,  # the server's process runs threads: a fork could deadlock
    )
    severity = config.severity if config is not None else {}
    # The loader named each file from its resolved path: joining undoes it, no link to read.
    where = {s.path: Path(os.path.normpath(root / s.path)) for s in result.sources}
    found = tuple(_importers(snapshot.path, where, sources, result, severity))
    return Importers(root, found, _imported(where, sources, result))


def _imported(
    where: Mapping[str, Path], sources: Collection[Path], result: LoadResult
) -> frozenset[Path]:
    imported: set[str] = set()
    for file in result.files:
        if in_project(where[file.source.path], sources):
            imported |= file.visible - {file.source.path}
    return frozenset(where[name] for name in imported if name in where)


def _importers(
    edited: Path,
    where: Mapping[str, Path],
    sources: Collection[Path],
    result: LoadResult,
    severity: Mapping[str, str],
) -> Iterable[Importer]:
    name = next((shown for shown, path in where.items() if path == edited), None)
    findings: dict[str, list[Diagnostic]] = defaultdict(list)
    for diagnostic in apply_severity(result.diagnostics, severity):
        findings[diagnostic.path].append(diagnostic)
    unresolved = {d.path for d in result.diagnostics if d.code == codes.IMPORT_NOT_FOUND.name}
    for file in result.files:
        shown = file.source.path
        if name is None or shown == name or name not in file.visible:
            continue
        path = where[shown]
        if not in_project(path, sources):
            continue  # under an import root: not the project's to report
        yield Importer(
            path=path,
            text=file.source.text,
            diagnostics=tuple(findings.get(shown, ())),
            reads=frozenset(where[v] for v in file.visible if v in where),
            unresolved=not unresolved.isdisjoint(file.visible),
        )


@dataclass(slots=True)
class _Entry:
    sources: set[Path]  # the edited files it was shown for as an importer
    reads: frozenset[Path]
    unresolved: bool
    shown: tuple[str, tuple[Diagnostic, ...]]  # the text and the findings last shown


@dataclass(slots=True)
class Shown:
    """The files not open whose findings the editor shows, each for the edited files it
    imports. Paths are resolved."""

    _entries: dict[Path, _Entry] = field(default_factory=dict)

    def update(self, edited: Path, importers: Importers, open_: Collection[Path]) -> list[Path]:
        """Take in a check of the importers of `edited`; the files whose findings to publish
        anew: changed, or to clear (those no longer holding findings are forgotten)."""
        publish = []
        found = {i.path: i for i in importers.found if i.path not in open_}
        for importer in found.values():
            entry = self._entries.get(importer.path)
            shown = (importer.text, importer.diagnostics)
            if not importer.diagnostics:
                if entry is not None:
                    del self._entries[importer.path]
                    publish.append(importer.path)
                continue
            if entry is None:
                entry = self._entries[importer.path] = _Entry(set(), frozenset(), False, ("", ()))
            entry.sources.add(edited)
            entry.reads, entry.unresolved = importer.reads, importer.unresolved
            if entry.shown != shown:
                entry.shown = shown
                publish.append(importer.path)
        for path, entry in list(self._entries.items()):
            if path not in found and edited in entry.sources:
                entry.sources.discard(edited)  # it no longer imports it, or is gone
                if path in open_:
                    del self._entries[path]  # its own check publishes for it
                elif not entry.sources:
                    del self._entries[path]
                    publish.append(path)
        return publish

    def holds(self, edited: Path) -> bool:
        """Whether a file is shown as an importer of `edited`."""
        return any(edited in entry.sources for entry in self._entries.values())

    def forget(self, path: Path) -> bool:
        """Stop tracking a file (opened, or deleted); whether it was shown."""
        return self._entries.pop(path, None) is not None

    def sources_reading(self, path: Path) -> set[Path]:
        """The edited files whose importers a change on disk to `path` can change: those of
        the shown files that read it (or that it is), or that miss an import."""
        found: set[Path] = set()
        for shown, entry in self._entries.items():
            if shown == path or path in entry.reads or entry.unresolved:
                found |= entry.sources
        return found

    def __contains__(self, path: object) -> bool:
        return path in self._entries


@dataclass(slots=True)
class Imported:
    """Which files some file of their project imports, as the latest check of importers of
    each project found: an edit to a file nothing imports needs no load of its project.
    Buffers' edits keep it true (each edited buffer's importers are checked, which refreshes
    it); a change on disk, a save or a close makes it unknown until the next check."""

    _roots: dict[Path, Path] = field(default_factory=dict)  # edited file -> project root
    _imported: dict[Path, frozenset[Path]] = field(default_factory=dict)  # by project root

    def record(self, edited: Path, importers: Importers) -> None:
        self._roots[edited] = importers.root
        self._imported[importers.root] = importers.imported

    def unimported(self, edited: Path) -> bool:
        """Whether `edited` is known to have no importers."""
        root = self._roots.get(edited)
        imported = self._imported.get(root) if root is not None else None
        return imported is not None and edited not in imported

    def forget(self) -> None:
        self._imported.clear()
