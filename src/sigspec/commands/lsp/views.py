"""The language server's one cache of loaded projects, shared by navigation, hover,
completion and workspace symbols; free of pygls (`get` runs off the server's event loop).

An entry is a `Loaded` project (its `View`, and computed on first use its `Index` of names
and its `Lowered` schemas: completion reads the view alone), kept in a small LRU keyed on
(project root, open buffers). An entry is fresh while the buffers are those it was loaded
with, the generation is the one it was loaded in (bumped when the client says files changed
on disk, `changed_on_disk`), and the files it read from disk and the folders holding them
keep their stamps (size and modification time; a file created or deleted in a folder changes
the folder's time).

Also kept per document: the last project in which the document itself parsed, for completion
while it is being typed (`for_completion`: a half-written declaration does not parse; the
names it could use do not change with it).

The loads reuse the parses of the previous load of the same root (`load(parses=...)`, shared
with the checks of importers) and never fork (`parallel=False`): forking the server's
multi-threaded process could deadlock the child on a lock another thread held.

Loading costs what `sigspec lint` of the project costs (100 files of 1,000 signatures: about
1 s on a quiet machine, `bench/lint_scale.py`; an edit re-parses the edited file only), the
index a tenth more; a hover, a definition or a rename on a loaded project takes milliseconds
(`bench/lsp_navigate.py`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sigspec.commands.lsp.check import project_root, project_sources
from sigspec.commands.lsp.project import View, load_view, view_of
from sigspec.commands.lsp.symbols import Index, Key
from sigspec.compiler.project import Parses, load
from sigspec.diagnostics.source import SourceFile
from sigspec.semantics import ir
from sigspec.syntax import ast
from sigspec.syntax.parser import parse_module

if TYPE_CHECKING:
    from sigspec.lower.views import Lowered

_Stamp = tuple[int, int] | None  # a file's modification time and size; None: unreadable
_Buffers = frozenset[tuple[Path, str]]


class Loaded:
    """A project's view; its index and its lowered views are computed on first use (once,
    whichever thread asks first)."""

    def __init__(self, view: View) -> None:
        self.view = view
        self._lock = threading.Lock()
        self._index: Index | None = None

    @property
    def index(self) -> Index:
        with self._lock:
            if self._index is None:
                self._index = Index(self.view.files, import_targets(self.view))
            return self._index

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


@dataclass(frozen=True, slots=True)
class _Entry:
    generation: int
    stamps: dict[Path, _Stamp]  # the files read from disk and their folders
    loaded: Loaded

    def fresh(self, generation: int) -> bool:
        return generation == self.generation and all(
            _stamp(path) == stamp for path, stamp in self.stamps.items()
        )


class Views:
    """Loaded projects by (project root, buffers), the few most recent; per document, the
    latest in which it parsed. One per server session."""

    KEEP = 8  # projects kept: a few roots, each with its buffers and a blanked line's

    def __init__(self, parses: dict[Path, Parses] | None = None) -> None:
        self.generation = 0
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[Path, _Buffers], _Entry] = OrderedDict()
        self._parsed: dict[Path, Loaded] = {}
        # By project root. Shared with the checks of importers, which may load the same root
        # on another thread at the same time: safe, as a load only gets, clears and updates
        # this dict (each one call, atomic under the GIL) and keys a parse by the file's
        # name and text; a load racing another's clear misses and parses again, no more.
        self.parses = {} if parses is None else parses

    def changed_on_disk(self) -> None:
        """Files changed on disk (the client said): every entry is stale."""
        with self._lock:
            self.generation += 1

    def get(self, path: Path, overlay: Mapping[Path, str], workspace: Path | None) -> Loaded:
        """The project of the document at `path` (resolved), buffers over the disk."""
        root = project_root(path, workspace)
        return self._cached(
            root, overlay, [path], lambda: load_view(path, overlay, workspace, self._parses(root))
        )

    def of_workspace(self, workspace: Path, overlay: Mapping[Path, str]) -> Loaded:
        """The project of a workspace folder (its configuration's, else every file in it),
        with the open documents below its root."""
        probe = workspace / "workspace.sig"  # a file there: its configuration is found
        root = project_root(probe, workspace)
        opened = sorted(p for p in overlay if p.is_relative_to(root))

        def load_all() -> View:
            result = load(
                [*project_sources(probe, root), *opened],
                root=root,
                overlay=overlay,
                parses=self._parses(root),
                parallel=False,
            )
            return view_of(root, result)

        return self._cached(root, overlay, opened, load_all)

    def for_completion(
        self, path: Path, overlay: Mapping[Path, str], workspace: Path | None, offset: int
    ) -> View:
        """The view completion reads at `offset` of the document: of its text when that
        parses; else of its text with the cursor's line blanked (the half-written part);
        else the last in which it parsed; else the project without it."""
        text = overlay.get(path)
        known = self._known(path, overlay, workspace)
        if known is not None and known.view.file_at(path) is not None:
            return self.get(path, overlay, workspace).view  # (its files on disk are checked)
        if text is None or parse_module(SourceFile(path.name, text))[0] is not None:
            return self.get(path, overlay, workspace).view
        start = text.rfind("\n", 0, offset) + 1
        end = text.find("\n", offset)
        end = len(text) if end < 0 else end
        blanked = self.get(path, {**overlay, path: text[:start] + text[end:]}, workspace)
        if blanked.view.file_at(path) is not None:
            return blanked.view
        with self._lock:
            last = self._parsed.get(path)
        return last.view if last is not None else self.get(path, overlay, workspace).view

    def _parses(self, root: Path) -> Parses:
        with self._lock:
            return self.parses.setdefault(root, {})

    def _known(
        self, path: Path, overlay: Mapping[Path, str], workspace: Path | None
    ) -> Loaded | None:
        """The kept project of these buffers holding the document, whether fresh or not."""
        key = (project_root(path, workspace), frozenset(overlay.items()))
        with self._lock:
            entry = self._entries.get(key)
        return entry.loaded if entry is not None and path in entry.loaded.view.read else None

    def _cached(
        self,
        root: Path,
        overlay: Mapping[Path, str],
        needs: Iterable[Path],
        load_view: Callable[[], View],
    ) -> Loaded:
        """The kept project of `root` over these buffers if fresh and it read every file
        `needs` names, else a new load."""
        key = (root, frozenset(overlay.items()))
        with self._lock:
            entry = self._entries.get(key)
            generation = self.generation
        if (
            entry is None
            or not entry.fresh(generation)
            or not all(p in entry.loaded.view.read for p in needs)
        ):
            loaded = Loaded(load_view())
            view = loaded.view
            on_disk = [p for p in sorted(view.read) if p not in overlay]
            folders = {view.root, *(p.parent for p in on_disk)}
            stamps = {p: _stamp(p) for p in [*on_disk, *sorted(folders)]}
            entry = _Entry(generation, stamps, loaded)
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.KEEP:
                self._entries.popitem(last=False)
            for path in needs:
                if entry.loaded.view.file_at(path) is not None:
                    self._parsed[path] = entry.loaded
        return entry.loaded
