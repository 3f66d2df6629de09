"""`sigspec compile` of 1,000 signatures in 100 files: cold (empty output folder) and
unchanged (a second compile with nothing changed). Whole commands, medians."""

from __future__ import annotations

import argparse
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
        cold, warm = [], []
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
            cold.append(timed(cmd, root))
            warm.append(timed(cmd, root))
        files = sum(1 for p in (root / "out0").rglob("*") if p.is_file())
    which = " ".join(args.targets[1::2]) or "all targets"
    print(f"1,000 signatures, 100 files, {which} -> {files} files, {args.runs} runs each")
    print(f"cold compile:      median {statistics.median(cold) * 1000:.0f} ms (budget 1000 ms)")
    print(f"nothing changed:   median {statistics.median(warm) * 1000:.0f} ms (budget 200 ms)")


if __name__ == "__main__":
    main()
