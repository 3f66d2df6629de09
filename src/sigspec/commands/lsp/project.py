"""The whole project a document belongs to, as the editor's features read it: every `.sig`
file of the project (the configuration's `sources`, else the project root's folder), open
buffers over the disk, parsed and checked once.

Navigation (definition, references, rename, symbols), hover and completion ask questions of
a `View`; it is free of pygls, built off the server's event loop like a check, and kept by
`views.py` while nothing it read changes. A view's load never forks (`parallel=False`): the
server's process runs threads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sigspec.commands.lsp.check import project_root, project_sources
from sigspec.compiler.project import LoadResult, Parses, load
from sigspec.semantics import ir
from sigspec.semantics.scope import ParsedFile


@dataclass(frozen=True, slots=True)
class View:
    """A project's files as parsed (those that parse), their resolved IR, and where they lie."""

    root: Path  # resolved; a file's `source.path` is relative to it
    files: tuple[ParsedFile, ...]
    project: ir.Project
    read: frozenset[Path] = frozenset()  # every file read (resolved), parsed or not

    def path_of(self, file: ParsedFile) -> Path:
        """Where a file lies (resolved)."""
        return (self.root / file.source.path).resolve()

    def file_at(self, path: Path) -> ParsedFile | None:
        """The parsed file at a resolved path, if it parsed."""
        for file in self.files:
            if self.path_of(file) == path:
                return file
        return None


def view_of(root: Path, result: LoadResult) -> View:
    """The view of a load of the project at `root` (resolved)."""
    read = frozenset((root / s.path).resolve() for s in result.sources)
    return View(root=root, files=result.files, project=result.project, read=read)


def load_view(
    path: Path, overlay: Mapping[Path, str], workspace: Path | None, parses: Parses | None = None
) -> View:
    """The project of the document at `path` (resolved), buffers in `overlay` over the disk.
    The document itself is always included, even when the configuration's sources miss it.
    `parses`: what the previous load of this root parsed (see `compiler.project.Parses`)."""
    root = project_root(path, workspace)
    sources = [path, *project_sources(path, root)]
    result = load(sources, root=root, overlay=overlay, parses=parses, parallel=False)
    return view_of(root, result)
