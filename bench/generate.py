"""Generate a synthetic project: N files of M signatures each, with shared named types.

Deterministic (seeded), realistic in shape: enums, nested lists of maps, defaults,
constraints, prompts that use every param, descriptions, and an import per file.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

COMMON = """\
## Shared label set.
type Label = "low" | "medium" | "high"

## A reference to a document.
type Ref = {id :string, title :string "Document title", score :float @clamp(0, 1)}
"""


def signature(rng: random.Random, file_index: int, index: int) -> str:
    name = f"task_{file_index}_{index}"
    params = [("text", ":string"), ("lang", ':string = "en"')][: rng.randint(1, 2)]
    prompt = "Do {{text}}" + (" in {{lang}}" if len(params) > 1 else "")
    fields = [
        'label Label "The label"',
        "score :float @min(0) @max(1)",
        "refs [Ref] = []",
        f"items [{{name :string, count :int = {rng.randint(0, 9)}, tags [:string]}}]",
        "note :string?",
    ][: rng.randint(2, 5)]
    body = ",\n  ".join(fields)
    param_text = ", ".join(f"{n} {t}" for n, t in params)
    return (
        f"## Generated signature {index} of file {file_index}.\n"
        f'@prompt("{prompt}")\n'
        f"signature {name}({param_text}) -> {{\n  {body}\n}}\n"
    )


def generate(root: Path, files: int, per_file: int, seed: int = 7) -> list[Path]:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "common.sig").write_text(COMMON, encoding="utf-8")
    paths = []
    for f in range(files):
        parts = ['import "common.sig"\n'] + [signature(rng, f, i) for i in range(per_file)]
        path = root / f"file_{f:03d}.sig"
        path.write_text("\n".join(parts), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--per-file", type=int, default=10)
    args = parser.parse_args()
    generate(args.out, args.files, args.per_file)


if __name__ == "__main__":
    main()
