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

from sigspec.commands.lsp.check import Snapshot, lint_document
from sigspec.commands.lsp.importers import check_importers
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


def median_ms(work: Callable[[], object]) -> float:
    runs = []
    for _ in range(7):
        start = time.perf_counter()
        work()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs) * 1000


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve() / "project"
        common = write(root, files)
        for label, text in (("clean", COMMON), ("all broken", COMMON.replace("Sent", "Feel"))):
            snapshot = Snapshot(common, text, {common: text}, root)
            found = check_importers(snapshot)
            broken = sum(1 for i in found.found if i.diagnostics)
            cold = median_ms(partial(check_importers, snapshot))
            parses: dict[Path, Parses] = {}
            ms = median_ms(partial(check_importers, snapshot, parses))
            own = median_ms(partial(lint_document, snapshot))
            print(
                f"{files} importers ({label}: {broken} with findings): importers {ms:.0f} ms "
                f"({cold:.0f} ms parsing every file), "
                f"the document's own check {own:.1f} ms"
            )


if __name__ == "__main__":
    main()
