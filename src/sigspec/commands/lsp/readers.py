"""Which open documents a change to a file can affect: those whose latest check read it.

A check loads a document's whole import closure, so what it read already holds the files
it imports directly and transitively: no graph walk is needed to find a file's importers.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from sigspec.commands.lsp.check import Checked


class Readers:
    """What each open document's latest finished check read, by document URI."""

    def __init__(self) -> None:
        self._reads: dict[str, frozenset[Path] | None] = {}
        self._unresolved: set[str] = set()

    def record(self, uri: str, checked: Checked) -> None:
        self._reads[uri] = checked.reads
        if checked.unresolved:
            self._unresolved.add(uri)
        else:
            self._unresolved.discard(uri)

    def reads(self, uri: str) -> frozenset[Path] | None:
        """What the document's latest check read; None when not known (not checked yet, or
        its check failed)."""
        return self._reads.get(uri)

    def forget(self, uri: str) -> None:
        self._reads.pop(uri, None)
        self._unresolved.discard(uri)

    def of(self, path: Path, documents: Iterable[str], *, on_disk: bool = False) -> list[str]:
        """The documents among `documents` whose findings a change to `path` can change:
        those whose latest check read it, and those whose latest check failed (what it read
        is not known). With `on_disk` (the file was saved or opened, so it may exist now where
        it did not) also those with an import that named no existing file. Documents not
        checked yet are left out: their check reads the texts as they are when it starts
        (and one already running is judged when it ends, see `server.py`)."""
        found = []
        for uri in documents:
            if uri not in self._reads:
                continue
            reads = self._reads[uri]
            if reads is None or path in reads or (on_disk and uri in self._unresolved):
                found.append(uri)
        return found
