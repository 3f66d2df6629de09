"""`sigspec compile` of 1,000 signatures in 100 files: cold (empty output folder) and
unchanged (a second compile with nothing changed). Whole commands, medians.

Beside each cold compile, the same files are written by a bare loop (`os.open`/`os.write`,
the same folders, sizes and bytes) into a new folder: on this machine's shared disk,
creating 3,000 files takes from 0.06 s to 2.5 s depending on the other tenants, so the
baseline shows how much of a run was the disk. Before each timed run the disk is let settle
(`settle`)."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    return elapsed


def settle() -> None:
    """Let the disk finish writing what earlier runs left in the page cache (not timed):
    otherwise each run pays for the previous one's 3,000 files, which measures the order of
    the runs, not the compiler."""
    os.sync()
    time.sleep(1)


def bare_write(files: dict[str, bytes], out: Path) -> float:
    """Seconds to create `files` below `out` with nothing but system calls."""
    start = time.perf_counter()
    for folder in sorted({str(Path(rel).parent) for rel in files}):
        (out / folder).mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        fd = os.open(out / rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        os.write(fd, data)
        os.close(fd)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--all",
        dest="targets",
        action="store_const",
        const=[],
        default=["--target", "jsonschema", "--target", "providers"],
        help="all targets (default: issue 3's jsonschema, providers and manifest)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root / "proj", files=100, per_file=10)
        cold, warm, bare = [], [], []
        files: dict[str, bytes] = {}
        for run in range(args.runs):
            # A new folder each time: deleting the previous 3,000 files first would measure
            # the file system's clean-up (ext4 with `discard` here), not the compiler.
            cmd = [
                sys.executable,
                "-m",
                "sigspec",
                "compile",
                "proj",
                "-o",
                f"out{run}",
                *args.targets,
            ]
            settle()
            cold.append(timed(cmd, root))
            warm.append(timed(cmd, root))
            if not files:
                out = root / "out0"
                written = [p for p in out.rglob("*") if p.is_file()]
                files = {p.relative_to(out).as_posix(): p.read_bytes() for p in written}
            settle()
            bare.append(bare_write(files, root / f"bare{run}"))
    which = " ".join(args.targets[1::2]) or "all targets"
    print(f"1,000 signatures, 100 files, {which} -> {len(files)} files, {args.runs} runs each")
    print(f"cold compile:      median {statistics.median(cold) * 1000:.0f} ms (budget 1000 ms)")
    print(f"  the same files by a bare write loop: median {statistics.median(bare) * 1000:.0f} ms")
    print(f"nothing changed:   median {statistics.median(warm) * 1000:.0f} ms (budget 200 ms)")


if __name__ == "__main__":
    main()
