"""`sigspec lsp` over stdio with 300 (or `argv[1]`) files importing one common file, none of
them open: the time from an edit of the open common file to its own publication and to the
publication of every importer, edits alternately breaking all of them and fixing them.

Wall time on a shared machine, 200 ms of it the server's pause for typing (`DELAY`); the
first edit parses every file, the later ones only the edited one.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from importers_scale import COMMON, write

from lsp_client import Client, is_publish, server_process


def one_edit(client: Client, uri: str, text: str, version: int, files: int) -> tuple[float, float]:
    """Seconds from the edit to its document's publication and to every importer's."""
    start = time.perf_counter()
    client.change(uri, text, version)
    own: list[float] = []
    seen: set[str] = set()

    def every(message: Any) -> bool:
        if is_publish(message, uri, version):
            own.append(time.perf_counter() - start)
        elif is_publish(message):
            seen.add(message["params"]["uri"])
        return len(seen) == files

    client.collect(every)
    return own[0], time.perf_counter() - start


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve() / "project"
        common = write(root, files)
        with server_process(root) as client:
            uri = client.open(common, COMMON)
            client.wait(lambda m: is_publish(m, uri))
            for version in range(2, 8):
                broken = version % 2 == 0
                text = COMMON.replace("Sent", "Feel") if broken else COMMON
                own, every = one_edit(client, uri, text, version, files)
                what = "breaks" if broken else "fixes"
                print(
                    f"edit {version} ({what} {files} importers): own publication "
                    f"{own * 1000:.0f} ms, every importer's {every * 1000:.0f} ms"
                )


if __name__ == "__main__":
    main()
