"""`sigspec lint` on one small file vs `python -c "import json"`, interleaved, medians.

Both run with the same interpreter (the one running this script, which must have sigspec
installed). The parser cache is warmed first: the figure is for every run after the first.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sentiment.sig"


def wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    baseline = [sys.executable, "-c", "import json"]
    lint = [sys.executable, "-m", "sigspec", "lint", str(EXAMPLE)]
    wall(lint)  # warm the parser cache
    base_times, lint_times = [], []
    for _ in range(args.runs):
        base_times.append(wall(baseline))
        lint_times.append(wall(lint))
    b, s = statistics.median(base_times), statistics.median(lint_times)
    print(f"python -c 'import json': median {b * 1000:.1f} ms over {args.runs} runs")
    print(f"sigspec lint {EXAMPLE.name}: median {s * 1000:.1f} ms over {args.runs} runs")
    print(f"ratio: {s / b:.2f}x (budget 8x)")


if __name__ == "__main__":
    main()
