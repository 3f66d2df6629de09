"""Linearity of the stream's partial JSON reader (`runtime/stream.py`, `PartialReader`): a
reply of about 10 KB fed in 4-character chunks against the same reply fed at once (issue 25).

    python bench/stream_reader.py [--size 10000] [--chunk 4] [--runs 31]

Prints, for each reply shape and string mode, the median seconds of both ways and their
ratio; the budget is 3x. "each change" reads `value` after every feed that changed it, as
the stream driver does; with growing strings that is a copy of the string so far each time
(the partials themselves add up to the square of the string's length), so "at the end"
shows the reader's own cost.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from sigspec.runtime.stream import PartialReader


def _items(size: int) -> str:
    """A list of small objects, as an extraction returns."""
    item = {"name": "Lamp é", "price": 12.5, "tags": ["home", "light"], "ok": True}
    count = max(1, size // len(json.dumps(item)))
    return json.dumps({"products": [item] * count, "main_topic": "furniture"})


def _long_string(size: int) -> str:
    """One long string member with escapes, as a summary returns."""
    text = ('A line of prose with a "quote" and a \\ backslash.\n' * size)[:size]
    return "Sure:\n```json\n" + json.dumps({"summary": text, "n": 1}) + "\n```"


SHAPES: dict[str, Callable[[int], str]] = {"items": _items, "long_string": _long_string}


def _read(text: str, chunk: int, strings: str, look: bool) -> float:
    """Seconds to feed `text` in pieces of `chunk`, reading `value` after each change when
    `look` (as the stream driver does: with growing strings, a copy of the string so far)."""
    pieces = [text[i : i + chunk] for i in range(0, len(text), chunk)]
    start = time.perf_counter()
    reader = PartialReader(strings)
    for piece in pieces:
        if reader.feed(piece) and look:
            _ = reader.value
    _ = reader.value
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--chunk", type=int, default=4)
    parser.add_argument("--runs", type=int, default=31)
    args = parser.parse_args()
    head = f"{'shape':<12} {'strings':<9} {'value read':<11} {'chars':>7}"
    print(f"{head} {'whole s':>9} {'chunks s':>9} ratio")
    for name, make in SHAPES.items():
        text = make(args.size)
        for strings, look in (("complete", True), ("growing", False), ("growing", True)):
            runs = range(args.runs)
            whole = statistics.median(_read(text, len(text), strings, look) for _ in runs)
            chunked = statistics.median(_read(text, args.chunk, strings, look) for _ in runs)
            seen = "each change" if look else "at the end"
            print(
                f"{name:<12} {strings:<9} {seen:<11} {len(text):>7} {whole:>9.5f}"
                f" {chunked:>9.5f} {chunked / whole:.2f}x"
            )


if __name__ == "__main__":
    main()
