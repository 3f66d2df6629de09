"""The project views completion reads, built once per state of the files: a `View` is kept
per document and reused while every buffer and every file it read from disk is unchanged.

Also kept per document: the last view in which the document itself parsed, for while it is
being typed (a half-written declaration does not parse; the names it could use do not change
with it). Free of pygls; `get` runs off the server's event loop.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sigspec.commands.lsp.project import View, load_view
from sigspec.diagnostics.source import SourceFile
from sigspec.syntax.parser import parse_module

Stamp = tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class _Entry:
    buffers: frozenset[tuple[Path, str]]
    disk: Stamp
    view: View


def _disk(view: View, overlay: Mapping[Path, str]) -> Stamp:
    """When each file the view read from disk was last changed (-1: gone)."""
    out = []
    for file in view.files:
        path = view.path_of(file)
        if path not in overlay:
            try:
                out.append((str(path), os.stat(path).st_mtime_ns))
            except OSError:
                out.append((str(path), -1))
    return tuple(out)


class Views:
    """Recent views by (document, buffers), and per document the latest in which it parsed."""

    KEEP = 8  # views kept: a few documents, each with its text and its text minus a line

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._recent: OrderedDict[tuple[Path, frozenset[tuple[Path, str]]], _Entry] = OrderedDict()
        self._parsed: dict[Path, View] = {}

    def get(self, path: Path, overlay: Mapping[Path, str], workspace: Path | None) -> View:
        """The view of the document at `path` over these buffers, reused while the files it
        read from disk are unchanged."""
        key = (path, frozenset(overlay.items()))
        with self._lock:
            entry = self._recent.get(key)
        if entry is None or entry.disk != _disk(entry.view, overlay):
            view = load_view(path, overlay, workspace)
            entry = _Entry(key[1], _disk(view, overlay), view)
        with self._lock:
            self._recent[key] = entry
            self._recent.move_to_end(key)
            while len(self._recent) > self.KEEP:
                self._recent.popitem(last=False)
            if entry.view.file_at(path) is not None:
                self._parsed[path] = entry.view
        return entry.view

    def for_completion(
        self, path: Path, overlay: Mapping[Path, str], workspace: Path | None, offset: int
    ) -> View:
        """The view completion reads at `offset` of the document: of its text when that
        parses; else of its text with the cursor's line blanked (the half-written part);
        else the last in which it parsed; else the project without it."""
        text = overlay.get(path)
        with self._lock:
            hit = self._recent.get((path, frozenset(overlay.items())))
        if hit is not None and hit.view.file_at(path) is not None:
            return self.get(path, overlay, workspace)  # (its files on disk are checked)
        if text is None or parse_module(SourceFile(path.name, text))[0] is not None:
            return self.get(path, overlay, workspace)
        start = text.rfind("\n", 0, offset) + 1
        end = text.find("\n", offset)
        end = len(text) if end < 0 else end
        blanked = self.get(path, {**overlay, path: text[:start] + text[end:]}, workspace)
        if blanked.file_at(path) is not None:
            return blanked
        with self._lock:
            last = self._parsed.get(path)
        return last if last is not None else self.get(path, overlay, workspace)
