"""The Python targets for 1,000 signatures in 100 files (issue 6): a cold compile with an empty
model cache, a cold compile with a warm cache (new output folder), the generated package's
size, and the time to import every client module above `python -c pass`. Medians."""

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


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--distinct",
        action="store_true",
        help="every signature its own output shape (the default project repeats a few shapes)",
    )
    parser.add_argument(
        "--validators",
        choices=("fast", "compact"),
        default="fast",
        help="the python option `validators` (compact: the runtime's, bound to descriptors)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root / "proj", files=100, per_file=10, distinct=args.distinct)
        (root / "proj" / "sigspec.toml").write_text(
            f'[options.python]\nvalidators = "{args.validators}"\n', encoding="utf-8"
        )
        compile_cmd = [sys.executable, "-m", "sigspec", "compile", ".", "--target", "python"]
        empty, warm = [], []
        for run in range(args.runs):
            env = {**os.environ, "XDG_CACHE_HOME": str(root / f"cache{run}")}
            empty.append(timed([*compile_cmd, "-o", str(root / f"a{run}")], root / "proj", env))
            warm.append(timed([*compile_cmd, "-o", str(root / f"b{run}")], root / "proj", env))
        package = root / "a0" / "python" / "signatures"
        size = sum(p.stat().st_size for p in package.rglob("*") if p.is_file())
        parts = {
            part: sum(p.stat().st_size for p in (package / part).rglob("*.py"))
            for part in ("models", "client")
        }
        modules = sorted(p.stem for p in (package / "client").glob("*.py") if p.stem != "__init__")
        code = "import " + ", ".join(f"signatures.client.{m}" for m in modules)
        base_cmd = [sys.executable, "-I", "-B", "-c", "pass"]
        import_cmd = [
            sys.executable,
            "-I",
            "-B",
            "-c",
            f"import sys; sys.path.insert(0, 'python'); {code}",
        ]
        env = dict(os.environ)
        base = [timed(base_cmd, root / "a0", env) for _ in range(5)]
        imports = [timed(import_cmd, root / "a0", env) for _ in range(5)]
    print(f"compile --target python, empty model cache: {statistics.median(empty):.2f} s")
    print(f"compile --target python, warm model cache:  {statistics.median(warm):.2f} s")
    print(
        f"package: {size / 1e6:.2f} MB (models {parts['models'] / 1e6:.2f} MB, "
        f"client {parts['client'] / 1e6:.2f} MB, validators and runtime the rest)"
    )
    print(
        f"import every client module: {statistics.median(imports) - statistics.median(base):.3f} s "
        "above python -c pass"
    )


if __name__ == "__main__":
    main()
