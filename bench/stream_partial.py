"""Streaming partial objects side by side (issue 25): sigspec's partial reader, instructor's
partial streaming and BAML's stream parser, fed the same chunked replies in one process.

The replies: JSON answers of `read_catalog` (corpus/stream/catalog.sig: strings, a float with
bounds, an enum, a list of objects holding a nullable float, an int, a bool and a list of
strings), of about 1 KB, 10 KB and 100 KB (the number of items grows), generated with a fixed
seed and written as a model writes them (`json.dumps`, `", "` and `": "`), then cut into
chunks of 4, 16 and 64 characters. Each peer gets the chunks one by one, as from a stream:

- sigspec, reader: `PartialReader(strings=...)` (`sigspec.runtime.stream`, shipped in every
  generated package as `_stream.py`) fed each chunk; a partial is a `feed` that returned
  true (the value changed), its `value` read then. Strings `complete` (a string shows once
  closed) and `growing` (as instructor's and BAML's partials show them).
- sigspec, stream: the generated `read_catalog_stream` (strings growing) on a streaming
  callback yielding the chunks: the reader plus what the stream driver does around it (the
  generated `partial_NAME` field checks and copy of each partial, the final parse and
  validation of the joined reply into the Pydantic model). Left out when the generated
  package has no streaming form yet.
- instructor: `Partial[ReadCatalogOutput].model_from_chunks(chunks)`, the function each
  provider's handler hands its stream's text deltas to (`instructor.v2.dsl.partial`): on every
  chunk it appends to the buffer and re-reads all of it with jiter's partial mode (two or
  three jiter parses for its completeness tracker), builds the partial model
  (`model_construct`, complete items validated), and validates the original model when the
  JSON is complete. The model is the one sigspec generates from catalog.sig.
- BAML: the client baml-py's own `baml-cli` generates from corpus/stream/catalog.baml, in a
  temporary folder; per chunk `b.parse_stream.ReadCatalog(buffer)` on everything received so
  far, then `b.parse.ReadCatalog(reply)` once. That is what BAML's runtime does on a live
  stream: `orchestrate_stream` (engine/baml-runtime/.../orchestrator/stream.rs) calls its
  partial parser on the accumulated content of every stream event and the full parser once
  at the end, and the Python client casts each event to the `stream_types` partial class.

Per peer, size and chunk size: the total time over all chunks (median of N runs; the runs
interleaved, peer order rotating each round, so that the machine's noise falls on all
alike), the time of one parse of the whole reply by the same code fed it as a single chunk
(in the same rounds), their ratio, the ratio to `json.loads` of the whole reply, and the
number of partials produced. Times are CPU seconds of the process (`time.process_time`):
on a shared machine wall time is mostly waiting for a core. The final values must agree:
each peer's last value (as JSON) equals the generated answer, or the bench stops.

A peer that re-reads its buffer on every chunk (instructor, BAML) and whose run would last
past `--budget` seconds (estimated as half a whole parse a chunk) is not run in full: its
total is estimated from its work on every n-th buffer, counted n times, plus its final
step; those figures are marked `~`, with one partial counted per chunk (as both emit).

    python bench/stream_partial.py [--quick] [--runs N] [--budget SECONDS]
        [--sizes "1 KB,10 KB"] [--chunks 4,16]

`--quick`: 1 KB and 10 KB in 4-character chunks, 3 runs, a 3 s budget (under a minute);
the full run (5 runs, a 20 s budget) takes about 4 minutes of CPU. Needs the bench extra
(`pip install -e '.[bench]'`: instructor, baml-py); a peer that is not installed (or a
sigspec without the streaming reader) is left out, with a line saying so.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SIG = HERE / "corpus" / "stream" / "catalog.sig"
BAML_SOURCE = HERE / "corpus" / "stream" / "catalog.baml"
PACKAGE = "streambench"
SIZES = {"1 KB": 1_000, "10 KB": 10_000, "100 KB": 100_000}
CHUNK_SIZES = (4, 16, 64)
SEED = 25
# CPU seconds of this process, not wall time: the machine is shared (2 cores, often a load of
# 8 or more), where wall time is mostly waiting for a core. On an idle machine they agree.
clock = time.process_time

# --- the replies ------------------------------------------------------------------------

VOCABULARY = (
    "steel kettle garden hose wireless charger board game paperback lamp oak desk ceramic mug "
    "solar light puzzle novel blender trowel speaker notebook cable drone atlas teapot rake "
    "robot poster whisk fern headphones cookbook"
)
WORDS = tuple(VOCABULARY.split())
ACCENTED = ("café", "naïve", "über", "crème", "señor", "zoë")
CATEGORIES = ("electronics", "kitchen", "garden", "toys", "books")


def _phrase(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words)), rng.choice(ACCENTED))
    if rng.random() < 0.1:
        words.append('(the "deluxe" one)')
    return " ".join(words)


def _item(rng: random.Random) -> dict[str, Any]:
    return {
        "name": _phrase(rng, 2, 4).title(),
        "description": _phrase(rng, 8, 20).capitalize() + ".",
        "category": rng.choice(CATEGORIES),
        "price": None if rng.random() < 0.15 else round(rng.uniform(0.5, 900), 2),
        "quantity": rng.randint(0, 500),
        "in_stock": rng.random() < 0.8,
        "tags": [rng.choice(WORDS) for _ in range(rng.randint(0, 5))],
    }


def answer(size: int, seed: int = SEED) -> dict[str, Any]:
    """A `read_catalog` answer whose JSON is about `size` characters (items added until it
    reaches it)."""
    rng = random.Random(seed)
    value: dict[str, Any] = {
        "title": _phrase(rng, 3, 6).title(),
        "summary": " ".join(_phrase(rng, 8, 14).capitalize() + "." for _ in range(3)),
        "currency": rng.choice(("USD", "EUR", "GBP")),
        "rating": round(rng.uniform(0, 5), 1),
        "items": [],
    }
    while len(json.dumps(value, ensure_ascii=False)) < size:
        value["items"].append(_item(rng))
    return value


def chunked(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# --- the peers --------------------------------------------------------------------------


@dataclass
class Run:
    """One pass of a peer over a reply's chunks: how many partials, and the final value as
    JSON (plain dicts and lists)."""

    partials: int
    final: Any


Feed = Callable[[list[str]], Run]


@dataclass
class Peer:
    """`feed` takes the chunks one by one. A peer that re-reads its whole buffer on every
    chunk also has `per_chunk` (that work, on the text received so far) and `finish` (what
    it does once at the end): where a full run would take too long, its total is estimated
    from them (`estimate`)."""

    name: str
    feed: Feed
    per_chunk: Callable[[str], object] | None = None
    finish: Callable[[str], object] | None = None


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if dump is not None else value


def reader_peer(strings: str) -> Peer | None:
    try:
        from sigspec.runtime.stream import PartialReader
    except ImportError:
        return None

    def feed(chunks: list[str]) -> Run:
        reader = PartialReader(strings=strings)
        partials, value = 0, None
        for chunk in chunks:
            if reader.feed(chunk):
                partials += 1
                value = reader.value
        return Run(partials, value)

    return Peer(f"sigspec reader, strings {strings}", feed)


def driver_peer(client: Any) -> Peer | None:
    stream = getattr(client, "read_catalog_stream", None)
    if stream is None:
        return None

    def feed(chunks: list[str]) -> Run:
        def llm(request: Any) -> Iterator[str]:
            return iter(chunks)

        partials = 0
        run = stream(page="the page", llm=llm, strings="growing")
        for _ in run:
            partials += 1
        return Run(partials, _plain(run.result().return_))

    return Peer("sigspec read_catalog_stream, growing", feed)


def instructor_peer(model: type[Any]) -> Peer | None:
    try:
        from instructor import Partial
        from instructor.v2.dsl.json_tracker import is_json_complete
        from jiter import from_json
    except ImportError:
        return None
    partial = Partial[model]

    def feed(chunks: list[str]) -> Run:
        partials, value = 0, None
        for found in partial.model_from_chunks(iter(chunks)):
            partials, value = partials + 1, found
        return Run(partials, _plain(value))

    def per_chunk(buffer: str) -> object:
        # The generator's first step: its work on one chunk, the whole buffer re-read.
        return next(iter(partial.model_from_chunks([buffer])))

    def finish(text: str) -> object:
        # After the last chunk: the joined JSON validated against the original model.
        return is_json_complete(text) and model.model_validate(from_json(text.encode()))

    return Peer("instructor", feed, per_chunk, finish)


def baml_peer() -> Peer | None:
    client = _baml_client()
    if client is None:
        return None
    parse_stream, parse = client.parse_stream.ReadCatalog, client.parse.ReadCatalog

    def feed(chunks: list[str]) -> Run:
        buffer, partials = "", 0
        for chunk in chunks:
            buffer += chunk
            try:
                parse_stream(buffer)
            except Exception:  # BAML's parse error: this event carries no value
                continue
            partials += 1
        return Run(partials, _plain(parse(buffer)))

    def per_chunk(buffer: str) -> object:
        try:
            return parse_stream(buffer)
        except Exception:  # as above
            return None

    return Peer("BAML", feed, per_chunk, parse)


def _baml_client() -> Any:
    """The client baml-py's own `baml-cli` generates from catalog.baml, now, locally."""
    try:
        from importlib.metadata import version

        installed = version("baml-py")
    except Exception:  # not installed: the peer is left out
        return None
    root = Path(tempfile.mkdtemp(prefix="stream-baml-"))
    (root / "baml_src").mkdir()
    generator = (
        'generator target {\n  output_type "python/pydantic"\n  output_dir "../"\n'
        f'  version "{installed}"\n  default_client_mode sync\n}}\n\n'
    )
    source = generator + BAML_SOURCE.read_text("utf-8")
    (root / "baml_src" / "main.baml").write_text(source, "utf-8")
    cli = shutil.which("baml-cli", path=str(Path(sys.executable).parent)) or "baml-cli"
    command = [cli, "generate", "--from", str(root / "baml_src")]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"baml-cli generate failed:\n{done.stdout}{done.stderr}")
    sys.path.insert(0, str(root))
    return importlib.import_module("baml_client").b


def generated() -> tuple[Any, Any]:
    """catalog.sig compiled by the sigspec under test: its client and models modules."""
    from sigspec import load
    from sigspec.compiler.generate import compile_project

    root = Path(tempfile.mkdtemp(prefix="stream-sig-"))
    loaded = load([SIG])
    assert not loaded.has_errors, loaded.diagnostics
    out = compile_project(loaded.project, ["python"], {"python": {"package": PACKAGE}}, inputs={})
    for artifact in out.files:
        path = root / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text, "utf-8")
    sys.path.insert(0, str(root / "python"))
    client = importlib.import_module(f"{PACKAGE}.client.catalog")
    models = importlib.import_module(f"{PACKAGE}.models.catalog")
    return client, models


def peers() -> list[Peer]:
    client, models = generated()
    found: list[Peer] = []
    for name, peer in (
        ("sigspec's PartialReader (sigspec.runtime.stream)", reader_peer("complete")),
        ("sigspec's PartialReader, growing strings", reader_peer("growing")),
        ("the generated read_catalog_stream", driver_peer(client)),
        ("instructor (pip install instructor)", instructor_peer(models.ReadCatalogOutput)),
        ("BAML (pip install baml-py)", baml_peer()),
    ):
        if peer is None:
            print(f"not available, left out: {name}")
        else:
            found.append(peer)
    return found


# --- measuring --------------------------------------------------------------------------


def timed(feed: Feed, chunks: list[str]) -> tuple[float, Run]:
    start = clock()
    run = feed(chunks)
    return clock() - start, run


def seconds_of(work: Callable[[], object], least: float) -> float:
    """Median seconds of `work`, repeated until the repeats last `least` (3 to 31 times)."""
    samples: list[float] = []
    while len(samples) < 3 or (len(samples) < 31 and sum(samples) < least):
        start = clock()
        work()
        samples.append(clock() - start)
    return statistics.median(samples)


def estimate(peer: Peer, text: str, chunks: list[str], budget: float, one: float) -> float:
    """A re-reader's total over all chunks, from its work on every `step`-th buffer (the
    middle one of each group of `step` chunks, counted `step` times) and its finish."""
    assert peer.per_chunk is not None and peer.finish is not None
    step = max(1, round(len(chunks) * one / 2 / budget))
    ends = [len("".join(chunks[: i + 1])) for i in range(len(chunks))]
    total = 0.0
    for first in range(0, len(chunks), step):
        group = ends[first : first + step]
        buffer = text[: group[len(group) // 2]]
        start = clock()
        peer.per_chunk(buffer)
        total += (clock() - start) * len(group)
    finish = peer.finish
    return total + seconds_of(lambda: finish(text), 0.0)


@dataclass
class Cell:
    """One peer's figures on one reply and chunk size."""

    samples: list[float] = field(default_factory=list)
    ones: list[float] = field(default_factory=list)  # one parse of the whole reply
    partials: int = 0
    estimated: bool = False


def measure(
    found: list[Peer], text: str, chunk: int, *, runs: int, budget: float, ones: dict[str, float]
) -> dict[str, Cell]:
    """Each peer's cell: N runs interleaved (the order rotating each round); a re-reader
    whose run would last past `budget` (half a whole parse per chunk) is estimated."""
    chunks = chunked(text, chunk)
    expected = json.loads(text)
    cells = {peer.name: Cell() for peer in found}
    slow = {p.name for p in found if p.per_chunk and len(chunks) * ones[p.name] / 2 > budget}
    running = [peer for peer in found if peer.name not in slow]
    for round_ in range(runs):
        shift = round_ % max(1, len(running))
        for peer in running[shift:] + running[:shift]:
            seconds, run = timed(peer.feed, chunks)
            if run.final != expected:
                sys.exit(f"{peer.name} ends with another value ({len(text)}, {chunk})")
            cell = cells[peer.name]
            cell.samples.append(seconds)
            cell.partials = run.partials
            # The whole reply as one chunk, in the same round, so the ratio shares its noise.
            cell.ones.append(seconds_of(lambda p=peer: p.feed([text]), min(seconds, 0.05)))
    for peer in found:
        if peer.name in slow:
            total = estimate(peer, text, chunks, budget, ones[peer.name])
            cells[peer.name] = Cell([total], [ones[peer.name]], len(chunks), estimated=True)
    return cells


def whole(found: list[Peer], text: str) -> dict[str, float]:
    """Each peer fed the whole reply as one chunk: its seconds (the final value checked)."""
    expected = json.loads(text)
    ones = {}
    for peer in found:
        if peer.feed([text]).final != expected:
            sys.exit(f"{peer.name} reads the whole reply ({len(text)}) as another value")
        ones[peer.name] = seconds_of(lambda p=peer: p.feed([text]), 0.5)
    ones["json.loads"] = seconds_of(lambda: json.loads(text), 0.1)
    return ones


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.1f}" if ms >= 10 else f"{ms:.2f}"


def row(peer: str, size: str, chunk: int, cell: Cell, loads: float) -> str:
    total, one = statistics.median(cell.samples), statistics.median(cell.ones)
    mark = "~" if cell.estimated else ""
    return (
        f"| {peer} | {size} | {chunk} | {mark}{cell.partials:,} | {mark}{_ms(total)} "
        f"| {_ms(one)} | {mark}{total / one:,.1f} | {mark}{total / loads:,.0f} |"
    )


HEADER = (
    "| peer | reply | chunk | partials | total ms | one parse ms | total / one parse "
    "| total / json.loads |\n|---|---|---:|---:|---:|---:|---:|---:|"
)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--quick", action="store_true", help="1 KB and 10 KB, 4 chars, 3 runs")
    options.add_argument("--runs", type=int, help="runs per cell (default 5; quick 3)")
    options.add_argument("--budget", type=float, help="seconds a run may last (20; quick 3)")
    options.add_argument("--sizes", help="of " + ", ".join(SIZES) + " (comma-separated)")
    options.add_argument("--chunks", help="chunk sizes, comma-separated (default 4,16,64)")
    args = options.parse_args()
    sizes = args.sizes.split(",") if args.sizes else ["1 KB", "10 KB"] if args.quick else SIZES
    chunk_sizes = [int(c) for c in args.chunks.split(",")] if args.chunks else CHUNK_SIZES
    if args.quick and not args.chunks:
        chunk_sizes = [4]
    runs = args.runs or (3 if args.quick else 5)
    budget = args.budget or (3.0 if args.quick else 20.0)
    found = peers()
    print(HEADER)
    lines = []
    for size in sizes:
        text = json.dumps(answer(SIZES[size.strip()]), ensure_ascii=False)
        label = f"{size.strip()} ({len(text):,} chars)"
        ones = whole(found, text)
        for chunk in chunk_sizes:
            cells = measure(found, text, chunk, runs=runs, budget=budget, ones=ones)
            for peer in found:
                lines.append(row(peer.name, label, chunk, cells[peer.name], ones["json.loads"]))
                print(lines[-1], flush=True)
    print(
        f"\nMedians of {runs} interleaved runs; ~ estimated (a full run would last past "
        f"{budget:.0f} s: every n-th buffer re-read, counted n times, partials = chunks).\n"
    )
    print(HEADER)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
