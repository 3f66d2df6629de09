"""Fuzz sigspec's untrusted inputs: `.sig` text and LLM replies, generated and mutated.

    python bench/fuzz.py --inputs 1000000 --jobs 2 --seed 1
    python bench/fuzz.py --seconds 60 --only reply

Four targets, taken in turn so that every count splits evenly between them:
- `front`: mutated examples and test cases written to a file and loaded (read, parse,
  resolve, check), formatted, and parsed as an inline signature. No input may raise.
- `fmt`: where a mutated file loads without errors and `fmt` rewrites it, the result must
  load to the same checked signatures and be a fixed point of `fmt`.
- `reply`: mutated and generated replies through the reply parser, both the runtime's and
  the generated package's `parse_NAME` (both validator layouts). Only `ReplyError` may escape.
- `validate`: generated JSON values (deep, wide, odd strings and numbers) through the runtime's
  validator and the generated `validate_NAME`. Only `ValidationError` may escape.

Any other exception, and any input that takes longer than --limit seconds, is a failure,
saved under --out for replay. The slowest input of each target is reported. Deterministic for
a given seed and job count.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import multiprocessing
import random
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from sigspec import SignatureError, load, parse_signature
from sigspec.compiler.generate import compile_project
from sigspec.compiler.meaning import meanings
from sigspec.diagnostics.source import SourceFile
from sigspec.runtime import parse
from sigspec.runtime.common import ReplyError
from sigspec.runtime.validate import ValidationError, validate
from sigspec.semantics.descriptors import output_descriptor, type_descriptors
from sigspec.syntax.fmt.run import format_source

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("front", "fmt", "reply", "validate")

# Signatures whose outputs cover the validators' paths: recursion, open values, maps, deep
# lists, patterns, formats, enums, defaults, optionals and unions.
FUZZ_SIG = """
type Tree = {label :string, children [Tree] = []}
type Shape = {kind "circle", r :float @min(0)} | {kind "square", side :float @min(0)}
signature anything() -> :any
signature mapping() -> :map
signature tree() -> Tree
signature deep() -> [[[[:int]]]]
signature shapes() -> [Shape]
signature strings() -> {
  code :string @pattern("^[A-Z]{3}-[0-9]+$"),
  when :datetime?,
  tags [:string] = [] @max_items(5),
  note :string = "none" @min_length(1) @max_length(40)
}
signature numbers() -> {a :int @min(-5) @max(5), b :float?, c :int | :string}
"""

SIG_PIECES = [
    b"(",
    b")",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b"->",
    b"?",
    b"|",
    b"|>",
    b"=",
    b"...",
    b":int",
    b":string",
    b":any",
    b"@min(1)",
    b"@fallback",
    b'@pattern("(a+)+$")',
    b'"x"',
    b'"""',
    b'\\"',
    b"#",
    b"##",
    b"# sigspec: ignore[unknown-type] reason\n",
    b"\n",
    b"\r\n",
    b"\xff",
    b"\x00",
    b"\xc2\xa0",
    b"\xef\xbb\xbf",
    b"type",
    b"signature",
    b"import",
    b'"{{',
    b"}}",
    b"[" * 70,
    b"{a " * 40,
    b"type U = U?\n",
    # Shapes that once crashed or slowed the targets: a long chain, a diamond.
    b"".join(b"type C%d = {b C%d?}\n" % (i, i + 1) for i in range(120)),
    b"".join(b"type D%d = {a D%d, b D%d}\n" % (i, i + 1, i + 1) for i in range(24)),
]

# Layout only: most files stay valid, so the round trip is checked on many of them.
LAYOUT_PIECES = [b" ", b"  ", b"\n", b"\n\n", b"\t", b"\r\n", b"# note\n", b"## doc\n", b","]

REPLY_PIECES = [
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    ",",
    ":",
    "\\",
    "\\u",
    "\\ud800",
    "```json\n",
    "```",
    "<think>",
    "</think>",
    "<answer>",
    "</answer>",
    "<output>",
    "</output>",
    "// c\n",
    "/*",
    "*/",
    "NaN",
    "-Infinity",
    "1e999",
    "-0",
    "null",
    "true",
    "\ud800",
    "\x00",
    "[" * 200,
    '{"a": ' * 100,
    "<a>" * 100,
    "</a>" * 100,
]


class Hang(BaseException):  # not an Exception: no `except Exception` in sigspec hides it
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


# --- inputs -----------------------------------------------------------------------------


def mutate(rng: random.Random, data: bytes, pieces: list[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        pos = rng.randint(0, len(out))
        if op < 0.3 and out:
            del out[pos : pos + rng.randint(1, 12)]
        elif op < 0.6:
            out[pos:pos] = rng.choice(pieces)
        elif op < 0.8 and out:
            out[min(pos, len(out) - 1)] = rng.randrange(256)
        else:
            start = rng.randint(0, len(out))
            out[pos:pos] = out[start : start + rng.randint(1, 40)]
    return bytes(out)


def mutate_text(rng: random.Random, text: str) -> str:
    out = list(text)
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        pos = rng.randint(0, len(out))
        if op < 0.3 and out:
            del out[pos : pos + rng.randint(1, 8)]
        elif op < 0.7:
            out[pos:pos] = list(rng.choice(REPLY_PIECES))
        else:
            start = rng.randint(0, len(out))
            out[pos:pos] = out[start : start + rng.randint(1, 30)]
    return "".join(out)


ODD_STRINGS = ["", "x", "\ud800", "\x00", "é", "😀", "ABC-12", "2024-01-31T10:00:00Z", "a" * 300]
ODD_NUMBERS: list[Any] = [0, -0.0, 1, -6, 6, 0.5, 10**400, -(10**30), 1e308, float("nan")]


def value(rng: random.Random, depth: int = 0) -> Any:
    """A JSON-like value; now and then a deep one (lists or objects a few thousand deep)."""
    roll = rng.random()
    if depth == 0 and roll < 0.03:
        return deep(rng.choice(("list", "map")), rng.choice((10, 300, 1000, 5000)))
    if depth > 5 or roll < 0.45:
        return rng.choice(
            [None, True, False, rng.choice(ODD_STRINGS), rng.choice(ODD_NUMBERS), rng.random()]
        )
    if roll < 0.7:
        return [value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ["label", "children", "kind", "r", "side", "code", "when", "tags", "note", "a", "b"]
    return {rng.choice(keys): value(rng, depth + 1) for _ in range(rng.randint(0, 5))}


def deep(kind: str, depth: int) -> Any:
    built: Any = 1
    for _ in range(depth):
        built = [built] if kind == "list" else {"label": "x", "children": [built]}
    return built


def reply_text(rng: random.Random, corpus: list[str]) -> str:
    roll = rng.random()
    if roll < 0.5:
        return mutate_text(rng, rng.choice(corpus))
    if roll < 0.8:
        with contextlib.suppress(ValueError, RecursionError):
            text = json.dumps(value(rng))
            return mutate_text(rng, text) if rng.random() < 0.5 else text
        return "{}"
    # Shapes that once cost quadratic time or blew the stack: nesting and repetition.
    n = rng.choice((10, 1000, 20000))
    return rng.choice(
        [
            "<a>" * n + "{}" + "</a>" * n,
            "[" * n,
            "{" * n,
            '{"a": ' * n + "1" + "}" * n,
            "```json\n{}\n```\n" * (n // 10 + 1),
            "<think>" * n,
            '"' + "\\" * n,
            "{}" * n,
        ]
    )


# --- targets ----------------------------------------------------------------------------


@dataclass
class Context:
    """What the targets read: seed corpora, descriptors and the generated packages."""

    tmp: Path
    sig_corpus: list[bytes]
    clean_corpus: list[bytes]  # the files among them that load without errors
    reply_corpus: list[str]
    runtime: dict[str, tuple[Any, Any]]
    generated: list[ModuleType]
    names: list[str]
    checks: dict[str, int] = field(default_factory=dict)


def _signatures(path: Path) -> dict[str, tuple[Any, Any]]:
    loaded = load([path])
    assert not loaded.has_errors, [d.message for d in loaded.diagnostics]
    project = loaded.project
    types = type_descriptors(project, list(project.types))
    return {sig.name: (output_descriptor(sig), types) for sig in project.signatures}


def _generate(tmp: Path, sig: Path, package: str, validators: str) -> ModuleType:
    loaded = load([sig])
    options = {"python": {"package": package, "validators": validators}}
    out = compile_project(loaded.project, ["python"], options, inputs={})
    for artifact in out.files:
        path = tmp / package / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text, encoding="utf-8")
    sys.path.insert(0, str(tmp / package / "python"))
    return importlib.import_module(f"{package}.{sig.stem}")


def context(tmp: Path) -> Context:
    sig_corpus = [p.read_bytes() for p in sorted((ROOT / "examples").glob("*.sig"))]
    sig_corpus += [p.read_bytes() for p in sorted((ROOT / "tests" / "cases").rglob("*.sig"))]
    replies = ROOT / "bench" / "corpus" / "replies.jsonl"
    reply_corpus = [json.loads(line)["text"] for line in replies.read_text().splitlines()]
    sig = tmp / "fuzzsigs.sig"
    sig.write_text(FUZZ_SIG + (ROOT / "bench" / "corpus" / "corpus.sig").read_text())
    runtime = _signatures(sig)
    generated = [
        _generate(tmp, sig, "fuzz_fast", "fast"),
        _generate(tmp, sig, "fuzz_compact", "compact"),
    ]
    clean = [data for data in sig_corpus if _meaning_of(tmp, data) is not None]
    return Context(tmp, sig_corpus, clean, reply_corpus, runtime, generated, sorted(runtime))


def _meaning_of(tmp: Path, data: bytes) -> list[Any] | None:
    path = tmp / "corpus" / "file.sig"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return _meaning(path)


def make_sig(ctx: Context, rng: random.Random) -> bytes:
    return mutate(rng, rng.choice(ctx.sig_corpus), SIG_PIECES)


def front(ctx: Context, data: bytes) -> None:
    path = ctx.tmp / "fuzz.sig"
    path.write_bytes(data)
    load([path])
    text = data.decode("utf-8", "replace")
    format_source(SourceFile("fuzz.sig", text))
    with contextlib.suppress(SignatureError):
        parse_signature(text[:400])


def _meaning(path: Path) -> Any:
    """What a file means, positions aside (the summary `sigspec fmt` proves it keeps), with
    its schemas and prompts; None when it does not check clean."""
    loaded = load([path])
    if loaded.has_errors:
        return None
    return meanings(loaded, lowered=True)


def fmt(ctx: Context, data: bytes) -> None:
    text = data.decode("utf-8", "replace")
    path = ctx.tmp / "fmt" / "fuzz.sig"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    before = _meaning(path)
    if before is None:
        return
    result = format_source(SourceFile("fuzz.sig", text))
    if result.refused is not None:  # a reprint of a clean file the formatter did not trust
        raise AssertionError(f"fmt refused a file that checks clean: {result.refused}")
    if result.text is None:
        return
    path.write_text(result.text, encoding="utf-8")
    if _meaning(path) != before:
        raise AssertionError("fmt changed the meaning of a file that checked clean")
    if format_source(SourceFile("fuzz.sig", result.text)).text != result.text:
        raise AssertionError("fmt is not idempotent on this file")
    ctx.checks["fmt round trips checked"] = ctx.checks.get("fmt round trips checked", 0) + 1


def make_reply(ctx: Context, rng: random.Random) -> tuple[str, str]:
    return rng.choice(ctx.names), reply_text(rng, ctx.reply_corpus)


def reply(ctx: Context, case: tuple[str, str]) -> None:
    name, text = case
    descriptor, types = ctx.runtime[name]
    with contextlib.suppress(ReplyError):
        parse(text, descriptor, types)
    for module in ctx.generated:
        with contextlib.suppress(module.ReplyError):
            getattr(module, f"parse_{name}")(text)


def make_value(ctx: Context, rng: random.Random) -> tuple[str, Any]:
    return rng.choice(ctx.names), value(rng)


def check_value(ctx: Context, case: tuple[str, Any]) -> None:
    name, doc = case
    descriptor, types = ctx.runtime[name]
    with contextlib.suppress(ValidationError):
        validate(descriptor, doc, types)
    for module in ctx.generated:
        with contextlib.suppress(module.ValidationError):
            getattr(module, f"validate_{name}")(doc)


@dataclass(frozen=True)
class Target:
    make: Callable[[Context, random.Random], Any]
    feed: Callable[[Context, Any], None]


def make_layout(ctx: Context, rng: random.Random) -> bytes:
    """Mostly insertions of blanks and comments (the file often stays valid), else mutations."""
    data = rng.choice(ctx.clean_corpus)
    if rng.random() < 0.2:
        return mutate(rng, data, SIG_PIECES)
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        # Next to a blank, where tokens stay whole (inside strings too: a new meaning to keep).
        blanks = [i for i, byte in enumerate(out) if byte in b" \n"] or [0]
        pos = rng.choice(blanks) + rng.randint(0, 1)
        out[pos:pos] = rng.choice(LAYOUT_PIECES)
    return bytes(out)


RUN: dict[str, Target] = {
    "front": Target(make_sig, front),
    "fmt": Target(make_layout, fmt),
    "reply": Target(make_reply, reply),
    "validate": Target(make_value, check_value),
}


# --- the run ----------------------------------------------------------------------------


@dataclass
class Tally:
    inputs: dict[str, int] = field(default_factory=dict)
    slowest: dict[str, float] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    checks: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, other: Tally) -> None:
        for name, count in other.inputs.items():
            self.inputs[name] = self.inputs.get(name, 0) + count
        for name, slowest in other.slowest.items():
            self.slowest[name] = max(self.slowest.get(name, 0.0), slowest)
        for name, count in other.checks.items():
            self.checks[name] = self.checks.get(name, 0) + count
        self.failures += other.failures
        self.seconds = max(self.seconds, other.seconds)


@dataclass(frozen=True)
class Job:
    seed: int
    inputs: int | None
    seconds: float | None
    targets: tuple[str, ...]
    limit: float
    out: Path


def _schedule(job: Job) -> Iterator[str]:
    start, count = time.monotonic(), 0
    while True:
        if job.inputs is not None and count >= job.inputs:
            return
        if job.seconds is not None and time.monotonic() - start >= job.seconds:
            return
        yield job.targets[count % len(job.targets)]
        count += 1


def run_job(job: Job) -> Tally:
    rng = random.Random(job.seed)
    tally = Tally()
    signal.signal(signal.SIGALRM, _alarm)
    started = time.monotonic()
    # Each front-end input is a file: a memory-backed folder keeps the disk out of the figures.
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        ctx = context(Path(tmp))
        for target in _schedule(job):
            case = RUN[target].make(ctx, rng)
            began = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, job.limit)
            error: BaseException | None = None
            try:
                RUN[target].feed(ctx, case)
            except (Exception, Hang) as exc:  # every escape is a finding, whatever its type
                error = exc
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if error is not None:
                tally.failures.append(_save(job, target, case, error, len(tally.failures)))
            took = time.perf_counter() - began
            tally.inputs[target] = tally.inputs.get(target, 0) + 1
            tally.slowest[target] = max(tally.slowest.get(target, 0.0), took)
        tally.checks = ctx.checks
    tally.seconds = time.monotonic() - started
    return tally


def _save(job: Job, target: str, case: Any, exc: BaseException, index: int) -> str:
    """The failing input (its repr, which replays it) and the error."""
    job.out.mkdir(parents=True, exist_ok=True)
    stem = job.out / f"{target}-seed{job.seed}-{index}"
    kind = "hang" if isinstance(exc, Hang) else "".join(traceback.format_exception(exc))
    stem.with_suffix(".txt").write_text(kind, encoding="utf-8")
    try:
        shown = ascii(case)
    except RecursionError:  # a generated value too deep for repr: the seed replays it
        shown = f"(too deep to print; replay with --seed and --jobs of this run, job {job.seed})"
    stem.with_suffix(".input").write_text(shown, encoding="ascii")
    return f"{target}: {kind.strip().splitlines()[-1]} ({stem})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--inputs", type=int, help="inputs in all (default: 10,000)")
    budget.add_argument("--seconds", type=float, help="run for this long instead")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="processes, each its own seed")
    parser.add_argument("--only", choices=TARGETS, action="append", help="a target (repeatable)")
    parser.add_argument("--limit", type=float, default=2.0, help="seconds before a hang")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    args = parser.parse_args(argv)
    total = args.inputs if args.inputs is not None or args.seconds else 10_000
    targets = tuple(args.only or TARGETS)
    jobs = [
        Job(
            seed=args.seed * 1000 + i,
            inputs=None if total is None else total // args.jobs + (i < total % args.jobs),
            seconds=args.seconds,
            targets=targets,
            limit=args.limit,
            out=args.out,
        )
        for i in range(args.jobs)
    ]
    tally = Tally()
    if args.jobs == 1:
        tally.add(run_job(jobs[0]))
    else:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            for part in pool.map(run_job, jobs):
                tally.add(part)
    report(tally, args.seed, args.jobs)
    return 1 if tally.failures else 0


def report(tally: Tally, seed: int, jobs: int) -> None:
    inputs = sum(tally.inputs.values())
    rate = inputs / tally.seconds if tally.seconds else 0.0
    print(f"{inputs:,} inputs in {tally.seconds:.0f} s ({rate:,.0f}/s), seed {seed}, {jobs} job(s)")
    for name in TARGETS:
        if name in tally.inputs:
            print(
                f"  {name:<9} {tally.inputs[name]:>9,} inputs, slowest "
                f"{tally.slowest[name] * 1000:7.1f} ms"
            )
    for name, count in sorted(tally.checks.items()):
        print(f"  {name}: {count:,}")
    print(f"  failures: {len(tally.failures)}")
    for failure in tally.failures[:20]:
        print(f"    {failure}")


if __name__ == "__main__":
    raise SystemExit(main())
