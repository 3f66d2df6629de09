"""What the pre-commit hook's `sigspec lint --project` costs on a 500-file project, against
linting the staged file alone: the whole command (subprocess), median of 3, wall and CPU."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import generate


def timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU of the child) seconds of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def main() -> None:
    for per_file in (2, 10):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "project"
            generate(root, files=500, per_file=per_file)
            (root / "sigspec.toml").write_text("")
            base = [sys.executable, "-m", "sigspec", "lint", "-q"]
            for label, args in (
                ("the staged file alone", ["file_007.sig"]),
                ("--project (the hook)", ["--project", "file_007.sig"]),
            ):
                runs = [timed([*base, *args], root) for _ in range(3)]
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                print(
                    f"500 files x {per_file} signatures, {label}: "
                    f"{wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU"
                )


if __name__ == "__main__":
    main()
