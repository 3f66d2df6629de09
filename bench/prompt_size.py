"""Characters of output instructions per example, against BAML's `ctx.output_format`.

The five schemas and BAML's figures (baml-py 0.226.3) are the table in
tests/unit/test_prompts.py, so the test and this report cannot drift apart. Counted: the
"Answer in JSON of this form:" block sigspec puts in the user message (the Response Format
block is excluded, as in the issue).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "unit"))

from test_prompts import BAML, EMPTY  # noqa: E402

from sigspec import parse_signature  # noqa: E402
from sigspec.lower.prompts.shape import output_instructions  # noqa: E402


def main() -> None:
    print(f"{'schema':<16}{'sigspec':>9}{'BAML':>7}{'ratio':>8}")
    for name, (text, baml) in BAML.items():
        ours = len(output_instructions(parse_signature(text), EMPTY))
        print(f"{name:<16}{ours:>9}{baml:>7}{ours / baml:>8.2f}")


if __name__ == "__main__":
    main()
