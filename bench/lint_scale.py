"""Lint 100 files holding 1,000 signatures: whole command (subprocess) and in-process load."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        generate(root, files=100, per_file=10)
        cmd = [sys.executable, "-m", "sigspec", "lint", str(root)]
        first = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert first.returncode == 0, first.stdout + first.stderr
        runs = []
        for _ in range(7):
            start = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=False)
            runs.append(time.perf_counter() - start)
        from sigspec import load

        inproc = []
        for _ in range(7):
            start = time.perf_counter()
            result = load([root])
            inproc.append(time.perf_counter() - start)
        count = len(result.project.signatures)
        print(f"signatures: {count} in {len(result.sources)} files")
        print(f"sigspec lint (whole command): median {statistics.median(runs) * 1000:.0f} ms")
        print(f"load() in process: median {statistics.median(inproc) * 1000:.0f} ms (budget 1 s)")


if __name__ == "__main__":
    main()
