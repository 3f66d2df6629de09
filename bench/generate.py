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


def signature(rng: random.Random, file_index: int, index: int, distinct: bool = False) -> str:
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
    if distinct:  # every output its own shape: its fields named after the signature
        fields = [f"{f.split(' ', 1)[0]}_{file_index}_{index} {f.split(' ', 1)[1]}" for f in fields]
    body = ",\n  ".join(fields)
    param_text = ", ".join(f"{n} {t}" for n, t in params)
    return (
        f"## Generated signature {index} of file {file_index}.\n"
        f'@prompt("{prompt}")\n'
        f"signature {name}({param_text}) -> {{\n  {body}\n}}\n"
    )


def generate(
    root: Path, files: int, per_file: int, seed: int = 7, distinct: bool = False
) -> list[Path]:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    (root / "common.sig").write_text(COMMON, encoding="utf-8")
    paths = []
    for f in range(files):
        parts = ['import "common.sig"\n'] + [
            signature(rng, f, i, distinct) for i in range(per_file)
        ]
        path = root / f"file_{f:03d}.sig"
        path.write_text("\n".join(parts), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--per-file", type=int, default=10)
    parser.add_argument(
        "--distinct", action="store_true", help="no two signatures with the same output shape"
    )
    args = parser.parse_args()
    generate(args.out, args.files, args.per_file, distinct=args.distinct)


if __name__ == "__main__":
    main()
