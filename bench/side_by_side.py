"""Two builds of sigspec side by side in one run: the figures a change must not make worse.

Each build is an interpreter with sigspec installed (`--old`, `--new`; e.g. two virtual
environments with `pip install .` of two checkouts). Runs alternate between the builds, the
order flipping every round, so both meet the same machine; medians are printed with the ratio.

- lint start-up: `sigspec lint` on one small file (parser cache warm);
- compile, 1,000 signatures in 100 files, JSON Schema and providers: cold (new output folder)
  and unchanged (the same command again);
- the Python target on the same project: cold with a warm model cache, and cold with an empty
  cache (a fresh cache folder whose parser cache is warmed by an untimed lint).

    python bench/side_by_side.py --old /tmp/old/bin/python --new /tmp/new/bin/python --runs 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sentiment.sig"


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, (cmd, result.stderr.decode()[-2000:])
    return elapsed


def settle() -> None:
    """Let the disk write what earlier runs left in the page cache (not timed)."""
    os.sync()
    time.sleep(1)


Measure = Callable[[str, Path, str], dict[str, float]]


def lint(python: str, root: Path, tag: str) -> dict[str, float]:
    return {"lint start-up": timed([python, "-m", "sigspec", "lint", str(EXAMPLE)], root)}


def compile_scale(python: str, root: Path, tag: str) -> dict[str, float]:
    cmd = [python, "-m", "sigspec", "compile", "proj", "-o", f"out-{tag}"]
    cmd += ["--target", "jsonschema", "--target", "providers"]
    settle()
    cold = timed(cmd, root)
    return {"compile 1,000, cold": cold, "compile 1,000, unchanged": timed(cmd, root)}


def python_target(python: str, root: Path, tag: str) -> dict[str, float]:
    cmd = [python, "-m", "sigspec", "compile", "proj", "--target", "python"]
    fresh = {**os.environ, "XDG_CACHE_HOME": str(root / f"cache-{tag}")}
    timed([python, "-m", "sigspec", "lint", str(EXAMPLE)], root, fresh)  # the parser only
    settle()
    empty = timed([*cmd, "-o", f"py-empty-{tag}"], root, fresh)
    settle()
    warm = timed([*cmd, "-o", f"py-warm-{tag}"], root, fresh)
    return {"python target, empty model cache": empty, "python target, warm model cache": warm}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", required=True, help="interpreter with the old sigspec")
    parser.add_argument("--new", required=True, help="interpreter with the new sigspec")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--lint-runs", type=int, default=30)
    parser.add_argument(
        "--only", choices=("lint", "compile", "python"), help="one group of figures only"
    )
    args = parser.parse_args()
    builds = {"old": args.old, "new": args.new}
    found: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if args.only != "lint":
            generate(root / "proj", files=100, per_file=10)
        for name, python in builds.items():
            timed([python, "-m", "sigspec", "lint", str(EXAMPLE)], root)  # warm the parser
            found[name] = {}
        groups: dict[str, tuple[Measure, int]] = {
            "lint": (lint, args.lint_runs),
            "compile": (compile_scale, args.runs),
            "python": (python_target, args.runs),
        }
        plan = [groups[args.only]] if args.only else list(groups.values())
        for measure, runs in plan:
            for run in range(runs):
                order = ["old", "new"] if run % 2 == 0 else ["new", "old"]
                for name in order:
                    for label, seconds in measure(builds[name], root, f"{name}{run}").items():
                        found[name].setdefault(label, []).append(seconds)
    print(f"{'what':<36} {'old (ms)':>9} {'new (ms)':>9} {'new/old':>8}")
    for label in found["old"]:
        old = statistics.median(found["old"][label]) * 1000
        new = statistics.median(found["new"][label]) * 1000
        print(f"{label:<36} {old:>9.0f} {new:>9.0f} {new / old:>8.2f}")


if __name__ == "__main__":
    main()
