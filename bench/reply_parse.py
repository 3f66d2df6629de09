"""`parse_NAME` costs (issue 5): clean replies against `json.loads` + validation, a messy
sentiment-size reply, a 10 MB reply, and the import cost of a generated module."""

from __future__ import annotations

import contextlib
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validators import SIGNATURE, VALID, generated

MESSY = (
    '<think>The review sounds happy, maybe {"sentiment": "neutral"}?</think>\n'
    "Sure! Here is the classification:\n```json\n{\n  sentiment: 'Positive', // clear\n"
    '  "score": "0.93",\n}\n```\nLet me know if you need anything else.'
)


def per_call(fn: Callable[[], object], rounds: int = 9, calls: int = 2000) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def side_by_side(
    ours: Callable[[], object], base: Callable[[], object], rounds: int, calls: int
) -> tuple[float, float]:
    """Median seconds per call of each, measured in alternating rounds, so that a change
    in the machine's load falls on both alike."""
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(rounds):
        for fn, kept in ((ours, samples[0]), (base, samples[1])):
            start = time.perf_counter()
            for _ in range(calls):
                fn()
            kept.append((time.perf_counter() - start) / calls)
    return statistics.median(samples[0]), statistics.median(samples[1])


def main() -> None:
    module, _ = generated()
    print("clean replies: parse_NAME vs json.loads + validate_NAME (medians, alternating rounds)")
    for name, doc in VALID.items():
        text = json.dumps(doc)
        signature = SIGNATURE.get(name, name)  # agent_absent: the agent signature
        parse = getattr(module, f"parse_{signature}")
        validate = getattr(module, f"validate_{signature}")
        calls = 20 if name == "results" else 2000
        ours, base = side_by_side(
            lambda: parse(text),  # noqa: B023
            lambda: validate(json.loads(text)),  # noqa: B023
            rounds=25,
            calls=calls,
        )
        print(
            f"  {name:<13} {ours * 1e6:9.1f} us vs {base * 1e6:9.1f} us  ratio {ours / base:.2f}"
            " (budget 1.3)"
        )
    messy = per_call(lambda: module.parse_sentiment(MESSY))
    print(
        f"messy sentiment reply: median {messy * 1e6:.1f} us (budget 30 us); value "
        f"{module.parse_sentiment(MESSY).value}"
    )
    for label, text in (
        ("10 MB of prose and brackets", "Nothing here { [ ' \" } " * 450_000),
        (
            "10 MB JSON reply",
            json.dumps({"sentiment": "positive", "score": 0.5, "pad": "x" * 10_000_000}),
        ),
        (
            "10 MB single-quoted reply (2 million strings to repair)",
            "{'sentiment': 'positive', 'score': 0.5, 'pad': ["
            + ", ".join(["'x'"] * 2_000_000)
            + "]}",
        ),
        # Hostile shapes: millions of candidates or pieces, each a Python step somewhere.
        ("10 MB of 2.5 million small lists", "[1] " * 2_500_000),
        ("10 MB of 2 million code spans", "`{}` " * 2_000_000),
        ("10 MB of 1.1 million tags", "<a>{}</a>" * 1_111_111),
        ("10 MB of fences", "```json\n{}\n```\n" * 666_666),
        (
            "10 MB object of 670,000 bare keys",
            "{" + ", ".join(f"k{i}: {i}" for i in range(670_000)) + "}",
        ),
    ):
        # Past the default limits (1 Mi characters, 10,000 tags) these are rejected at once;
        # raised, the parser's own work on each shape is what is timed.
        raised = module.Limits(reply_chars=len(text), tags=len(text))
        start = time.perf_counter()
        with contextlib.suppress(module.ReplyError):
            module.parse_sentiment(text, limits=raised)
        print(f"{label}: {time.perf_counter() - start:.2f} s (budget 2 s)")
    package_dir = Path(module.__file__).resolve().parents[1]
    # Bytecode as an installed package has it (pip compiles on install): this machine sets
    # PYTHONDONTWRITEBYTECODE, and without it every import would measure compiling the source.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package_dir)], check=True)
    imports, baseline = [], []
    for _ in range(15):
        for target, cmd in ((imports, "import benchgen.bench"), (baseline, "pass")):
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-S",
                    "-c",
                    f"import sys; sys.path.insert(0, {str(package_dir)!r}); {cmd}",
                ],
                check=True,
            )
            target.append(time.perf_counter() - start)
    extra = (statistics.median(imports) - statistics.median(baseline)) * 1000
    print(f"importing a generated module: {extra:.1f} ms above `python -c pass` (budget 5 ms)")


if __name__ == "__main__":
    main()
