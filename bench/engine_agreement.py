"""Agreement of the grammar engines with sigspec's validator, per provider and engine.

Needs the `engines` extra and llama.cpp's converter (tests/engines/build_llama_cpp.sh prints
its path):

    SIGSPEC_LLAMA_CPP_CONVERTER=$(bash tests/engines/build_llama_cpp.sh python /tmp/llama) \\
        python bench/engine_agreement.py [--random 40]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.engines.agreement import random_signatures, run, table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=40, help="random signatures to add")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        generated = Path(folder) / "random.sig"
        generated.write_text(random_signatures(args.random), encoding="utf-8")
        for label, paths in [
            ("examples/", sorted((ROOT / "examples").glob("*.sig"))),
            (f"{args.random} random signatures", [generated]),
        ]:
            print(f"\n{label}\n")
            print(table(run(paths, ("vllm", "ollama", "openai"))))


if __name__ == "__main__":
    main()
