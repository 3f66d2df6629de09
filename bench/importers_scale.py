"""The language server's check of the importers of an edited file (issue 26): 300 files
importing one common file, the common file edited (unsaved) so that all of them break, and
so that none does. One load of the whole project per change, whatever the importer count.

`python bench/importers_scale.py [files]`: medians of 7 runs, in process, with the document's
own check beside it for scale.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from pygls.workspace import PositionCodec

from sigspec.commands.lsp.check import Snapshot, lint_document
from sigspec.commands.lsp.importers import Importers, check_importers
from sigspec.commands.lsp.server import to_lsp
from sigspec.compiler.project import Parses

COMMON = """type Sentiment = "positive" | "negative" | "neutral"
type Product = {name :string, price :float @min(0), tags [:string] = []}
"""

IMPORTER = """import "common.sig"

# Importer {n}.
signature classify{n}(text :string) -> {{label Sentiment, score :float @min(0) @max(1)}}

signature extract{n}(text :string) -> {{products [Product], currency :string?}}

signature step{n}(task :string) -> {{
  thought :string = "",
  action "search" | "answer",
  query :string?,
  confidence :float = 0.5 @min(0) @max(1)
}}
"""


def write(root: Path, files: int) -> Path:
    root.mkdir()
    (root / "common.sig").write_text(COMMON)
    for n in range(files):
        (root / f"f{n:03}.sig").write_text(IMPORTER.format(n=n))
    return (root / "common.sig").resolve()


def convert(found: Importers) -> None:
    """What the server does with the findings before publishing them (`server.py`)."""
    codec = PositionCodec()
    for importer in found.found:
        uri = importer.path.as_uri()
        to_lsp(importer.diagnostics, found.root, uri, importer.text, codec)


def median_ms(work: Callable[[], object], clock: Callable[[], float] = time.process_time) -> float:
    """Median of 7 runs, by default in CPU time of this process: the machine is shared, and
    wall time says more of the others' load."""
    runs = []
    for _ in range(7):
        start = clock()
        work()
        runs.append(clock() - start)
    return statistics.median(runs) * 1000


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve() / "project"
        common = write(root, files)
        for label, text in (("clean", COMMON), ("all broken", COMMON.replace("Sent", "Feel"))):
            snapshot = Snapshot(common, text, {common: text}, root)
            parses: dict[Path, Parses] = {}
            found = check_importers(snapshot, parses)
            broken = sum(1 for i in found.found if i.diagnostics)
            # Uncached, half of the files are parsed in a forked child: wall time for that one.
            cold = median_ms(partial(check_importers, snapshot), time.perf_counter)
            wall = median_ms(partial(check_importers, snapshot, parses), time.perf_counter)
            cpu = median_ms(partial(check_importers, snapshot, parses))
            sent = median_ms(partial(convert, found))
            own = median_ms(partial(lint_document, snapshot))
            print(
                f"{files} importers, {label} ({broken} with findings): one load {cpu:.0f} ms CPU "
                f"({wall:.0f} ms wall; {cold:.0f} ms wall parsing every file), "
                f"{sent:.0f} ms into LSP diagnostics; the document's own check {own:.1f} ms"
            )


if __name__ == "__main__":
    main()
