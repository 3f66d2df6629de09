"""A project's view with its index of names, loaded once and kept while nothing it read
changed: the open buffers it was loaded with, the files it read from disk (their size and
modification time) and the folders holding them (a file created or deleted there changes
the folder's time), and a generation bumped when the client says files changed on disk.
Free of pygls.

Loading costs what `sigspec lint` of the project costs (100 files of 1,000 signatures: about
1 s on a quiet machine, `bench/lint_scale.py`), the index a tenth more; a hover, a definition
or a rename on a loaded project takes milliseconds (`bench/lsp_navigate.py`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sigspec.commands.lsp.check import project_root, project_sources
from sigspec.commands.lsp.project import View, load_view
from sigspec.commands.lsp.symbols import Index, Key
from sigspec.compiler.project import load
from sigspec.semantics import ir
from sigspec.syntax import ast

if TYPE_CHECKING:
    from sigspec.lower.views import Lowered

_Stamp = tuple[int, int] | None  # a file's modification time and size; None: unreadable


class Loaded:
    """A view, its index and its lowered views (computed on first use)."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.index = Index(view.files, import_targets(view))

    @cached_property
    def lowered(self) -> Lowered:
        from sigspec.lower.views import Lowered

        return Lowered(self.view.project)

    def schema(self, sig: ir.Signature) -> Mapping[str, Any]:
        """What `sigspec schema` prints: a tool's arguments, a signature's output."""
        if sig.kind == "tool":
            return self.lowered.input_schema(sig)
        return self.lowered.output_schema(sig)

    def path_name(self, path: Path) -> str | None:
        """A file's `source.path` in the view, from where it lies (resolved)."""
        file = self.view.file_at(path)
        return file.source.path if file is not None else None


def import_targets(view: View) -> dict[Key, str]:
    """The file each import names, when the view holds it: (file, path's start) -> path."""
    by_place = {view.path_of(f): f.source.path for f in view.files}
    found: dict[Key, str] = {}
    for file in view.files:
        folder = view.path_of(file).parent
        for decl in file.module.decls:
            if isinstance(decl, ast.ImportDecl):
                try:
                    target = by_place.get((folder / decl.path).resolve())
                except (OSError, ValueError):
                    continue
                if target is not None:
                    found[(file.source.path, decl.path_span.start)] = target
    return found


def _stamp(path: Path) -> _Stamp:
    try:
        status = path.stat()
    except (OSError, ValueError):
        return None
    return status.st_mtime_ns, status.st_size


@dataclass
class _Entry:
    overlay: frozenset[tuple[Path, str]]
    generation: int
    stamps: dict[Path, _Stamp]
    loaded: Loaded

    def fresh(self) -> bool:
        return all(_stamp(path) == stamp for path, stamp in self.stamps.items())


@dataclass
class Views:
    """The loaded project of each project root, one at a time per root."""

    generation: int = 0
    _entries: dict[Path, _Entry] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def changed_on_disk(self) -> None:
        with self._lock:
            self.generation += 1

    def get(self, path: Path, overlay: Mapping[Path, str], workspace: Path | None) -> Loaded:
        """The project of the document at `path` (resolved), buffers over the disk."""
        root = project_root(path, workspace)
        return self._cached(root, overlay, path, lambda: load_view(path, overlay, workspace))

    def of_workspace(self, workspace: Path, overlay: Mapping[Path, str]) -> Loaded:
        """The project of a workspace folder (its configuration's, else every file in it),
        with the open documents below its root."""
        probe = workspace / "workspace.sig"  # a file there: its configuration is found
        root = project_root(probe, workspace)

        def load_all() -> View:
            opened = sorted(p for p in overlay if p.is_relative_to(root))
            result = load([*project_sources(probe, root), *opened], root=root, overlay=overlay)
            return View(root=root, files=result.files, project=result.project)

        return self._cached(root, overlay, None, load_all)

    def _cached(
        self,
        root: Path,
        overlay: Mapping[Path, str],
        path: Path | None,
        load_view: Callable[[], View],
    ) -> Loaded:
        buffers = frozenset(overlay.items())
        with self._lock:
            entry = self._entries.get(root)
            generation = self.generation
        if (
            entry is not None
            and entry.overlay == buffers
            and entry.generation == generation
            and (path is None or entry.loaded.view.file_at(path) is not None)
            and entry.fresh()
        ):
            return entry.loaded
        loaded = Loaded(load_view())
        view = loaded.view
        # A folder's time changes when a file is created or deleted in it.
        on_disk = [view.path_of(f) for f in view.files if view.path_of(f) not in overlay]
        folders = {view.root, *(p.parent for p in on_disk)}
        stamps = {p: _stamp(p) for p in [*on_disk, *sorted(folders)]}
        with self._lock:
            self._entries[root] = _Entry(buffers, generation, stamps, loaded)
        return loaded
