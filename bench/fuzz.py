"""A longer fuzz run than the test suite's: mutate the examples and feed every front-end entry.

Each input goes through `load` (read, parse, resolve, check), `fmt` and `parse_signature`.
Any exception, and any input that takes longer than --limit seconds (a hang), is a failure,
saved under --out for replay. Deterministic for a given --seed.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import signal
import tempfile
import time
import traceback
from pathlib import Path
from types import FrameType

from sigspec import SignatureError, load, parse_signature
from sigspec.diagnostics.source import SourceFile
from sigspec.syntax.fmt.run import format_source

ROOT = Path(__file__).resolve().parents[1]
PIECES = [
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
    b"@min(1)",
    b"@fallback",
    b'"x"',
    b'"""',
    b"#",
    b"##",
    b"\n",
    b"\xff",
    b"\x00",
    b"\xc2\xa0",
    b"type",
    b"signature",
    b"import",
    b'"{{',
    b"}}",
    b"[" * 70,
    b"{a " * 40,
]


class Hang(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang


def mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        pos = rng.randint(0, len(out))
        if op < 0.3 and out:
            del out[pos : pos + rng.randint(1, 12)]
        elif op < 0.6:
            out[pos:pos] = rng.choice(PIECES)
        elif op < 0.8 and out:
            out[min(pos, len(out) - 1)] = rng.randrange(256)
        else:
            start = rng.randint(0, len(out))
            out[pos:pos] = out[start : start + rng.randint(1, 40)]
    return bytes(out)


def run_one(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    load([path])
    text = data.decode("utf-8", "replace")
    format_source(SourceFile("fuzz.sig", text))
    with contextlib.suppress(SignatureError):
        parse_signature(text[:400])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=int, default=5, help="seconds before an input is a hang")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    corpus = [p.read_bytes() for p in sorted((ROOT / "examples").glob("*.sig"))]
    corpus += [p.read_bytes() for p in sorted((ROOT / "tests" / "cases").rglob("*.sig"))]
    signal.signal(signal.SIGALRM, _alarm)
    runs = failures = 0
    deadline = time.monotonic() + args.seconds
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.sig"
        while time.monotonic() < deadline:
            data = mutate(rng, rng.choice(corpus))
            runs += 1
            signal.alarm(args.limit)
            try:
                run_one(path, data)
            except Exception as exc:  # every escape is a finding, whatever its type
                failures += 1
                args.out.mkdir(exist_ok=True)
                (args.out / f"case-{runs}.sig").write_bytes(data)
                kind = "hang" if isinstance(exc, Hang) else "".join(traceback.format_exception(exc))
                (args.out / f"case-{runs}.txt").write_text(kind)
            finally:
                signal.alarm(0)
    print(f"{runs} inputs in {args.seconds:.0f} s, {failures} failures (seed {args.seed})")
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
