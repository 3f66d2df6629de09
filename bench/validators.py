"""Generated validators vs fastjsonschema and msgspec (issue 5), interleaved in one process.

Four workloads, closed maps: a flat sentiment object; an extraction object with 10 products;
seed 003's agent step; an array of 1,000 small objects. For each, valid documents and invalid
ones (one wrong value deep inside). Figures are documents per second, median of rounds.
Column `bare x fjs`: a function that checks nothing (for an invalid document it only raises
the `ValidationError` that `validate_NAME` must raise), the ceiling any validator has here.
msgspec runs `msgspec.convert(doc, Struct, strict=True)` with forbid_unknown_fields.
"""

from __future__ import annotations

import importlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import fastjsonschema
import msgspec

from sigspec import load
from sigspec.compiler.generate import compile_project
from sigspec.lower.schema import output_schema

SPEC = """
signature sentiment() -> {
  sentiment "positive" | "negative" | "neutral", score :float @min(0) @max(1)
}
signature extraction() -> {
  products [{name :string, price :float, tags [:string]}], main_topic :string
}
signature agent() -> {
  reasoning :string = "", conclusion :string, confidence :float = 0.8 @min(0) @max(1),
  files [:string] = [], sub_tasks [{query :string, priority :int = 999}] = [],
  needs_more_info :bool = false, next_action "continue" | "finalize" | "ask_user" = "finalize",
  error :string?
}
signature results() -> [{title :string, url :string, score :float}]
"""


class Sentiment(msgspec.Struct, forbid_unknown_fields=True):
    sentiment: Literal["positive", "negative", "neutral"]
    score: Annotated[float, msgspec.Meta(ge=0, le=1)]


class Product(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    price: float
    tags: list[str]


class Extraction(msgspec.Struct, forbid_unknown_fields=True):
    products: list[Product]
    main_topic: str


class SubTask(msgspec.Struct, forbid_unknown_fields=True):
    query: str
    priority: int = 999


class Agent(msgspec.Struct, forbid_unknown_fields=True):
    conclusion: str
    reasoning: str = ""
    confidence: Annotated[float, msgspec.Meta(ge=0, le=1)] = 0.8
    files: list[str] = []
    sub_tasks: list[SubTask] = []
    needs_more_info: bool = False
    next_action: Literal["continue", "finalize", "ask_user"] = "finalize"
    error: str | None = None


class Result(msgspec.Struct, forbid_unknown_fields=True):
    title: str
    url: str
    score: float


VALID: dict[str, Any] = {
    "sentiment": {"sentiment": "positive", "score": 0.93},
    "extraction": {
        "products": [
            {"name": f"Widget {i}", "price": 9.5 + i, "tags": ["tools", "home", "sale"]}
            for i in range(10)
        ],
        "main_topic": "hardware",
    },
    "agent": {
        "reasoning": "Looked at the files.",
        "conclusion": "Done.",
        "confidence": 0.7,
        "files": ["a.py", "b.py"],
        "sub_tasks": [{"query": "check b", "priority": 2}],
        "needs_more_info": False,
        "next_action": "finalize",
        "error": None,
    },
    "results": [
        {"title": f"Page {i}", "url": f"https://example.com/{i}", "score": 0.5} for i in range(1000)
    ],
    # Not a workload the issue names: an agent step whose model left out most defaulted
    # fields (the validators fill them in), to watch that path too.
    "agent_absent": {"conclusion": "Done.", "confidence": 0.7, "files": ["a.py", "b.py"]},
}
# The signature a workload validates against, where its name is not one.
SIGNATURE = {"agent_absent": "agent"}


def invalid(name: str) -> Any:
    import copy

    doc = copy.deepcopy(VALID[name])
    if name == "sentiment":
        doc["score"] = 1.5
    elif name == "extraction":
        doc["products"][7]["tags"][1] = 3
    elif name == "agent":
        doc["sub_tasks"][0]["priority"] = "high"
    elif name == "agent_absent":
        doc["files"][1] = 3
    else:
        doc[900]["score"] = "0.5"
    return doc


STRUCTS: dict[str, Any] = {
    "sentiment": Sentiment,
    "extraction": Extraction,
    "agent": Agent,
    "results": list[Result],
}


def generated() -> tuple[Any, Any]:
    root = Path(tempfile.mkdtemp())
    (root / "bench.sig").write_text(SPEC)
    loaded = load([root / "bench.sig"])
    assert not loaded.has_errors, loaded.diagnostics
    out = compile_project(
        loaded.project, ["python"], {"python": {"package": "benchgen"}}, inputs={}
    )
    for artifact in out.files:
        path = root / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text)
    sys.path.insert(0, str(root / "python"))
    return importlib.import_module("benchgen.bench"), loaded.project


def validators(module: Any, project: Any, workload: str) -> dict[str, Callable[[Any], Any]]:
    name = SIGNATURE.get(workload, workload)
    sig = project.signature(name)
    fjs = fastjsonschema.compile(output_schema(sig, project))
    struct = STRUCTS[name]
    ours = getattr(module, f"validate_{name}")

    def ours_read(doc: Any) -> Any:
        """Reading `.errors` too: messages are formatted on first read, so this is the cost
        of a caller that looks at them (fastjsonschema formats its one message eagerly)."""
        try:
            return ours(doc)
        except module.ValidationError as exc:
            return exc.errors

    # The same signature with the python option `validators = "compact"`: the runtime's
    # validator bound to the module's descriptor.
    descriptor = getattr(module, f"{name.upper()}_OUTPUT")
    compact = module._rt.Validator(descriptor, module.TYPES)
    valid = VALID[workload]

    def bare(doc: Any) -> Any:
        """No checks at all: the call, and for an invalid document the exception
        `validate_NAME` must raise. No validator can beat it: the ceiling of the figures."""
        if doc is not valid:
            raise module.ValidationError(descriptor, doc, module.TYPES)
        return doc

    return {
        "sigspec": ours,
        "sigspec, errors read": ours_read,
        "sigspec compact": compact,
        "bare": bare,
        "fastjsonschema": fjs,
        "msgspec": lambda doc: msgspec.convert(doc, struct, strict=True),
    }


def rate(fn: Callable[[Any], Any], doc: Any, budget: float) -> float:
    """Documents per second, calling for about `budget` seconds."""
    count, start = 0, time.perf_counter()
    while True:
        for _ in range(50):
            # try/except, not contextlib.suppress: a context manager per call would add
            # several hundred nanoseconds to every library and hide the differences.
            try:  # noqa: SIM105
                fn(doc)
            except Exception:  # invalid documents: each library raises its own error
                pass
        count += 50
        elapsed = time.perf_counter() - start
        if elapsed > budget:
            return count / elapsed


def main() -> None:
    module, project = generated()
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    print(
        f"{'workload':<24}{'sigspec/s':>12}{'fastjsonschema/s':>18}{'msgspec/s':>12}"
        f"{'x fjs':>8}{'x msgspec':>11}{'x fjs, errors read':>20}{'compact x fjs':>15}"
        f"{'bare x fjs':>12}"
    )
    for name, valid in VALID.items():
        fns = validators(module, project, name)
        for label, doc in (("valid", valid), ("invalid", invalid(name))):
            samples: dict[str, list[float]] = {k: [] for k in fns}
            for _ in range(rounds):  # interleaved: the machine's noise hits all three alike
                for key, fn in fns.items():
                    samples[key].append(rate(fn, doc, 0.05))
            med = {k: statistics.median(v) for k, v in samples.items()}
            print(
                f"{name + ' ' + label:<24}{med['sigspec']:>12,.0f}{med['fastjsonschema']:>18,.0f}"
                f"{med['msgspec']:>12,.0f}{med['sigspec'] / med['fastjsonschema']:>8.1f}"
                f"{med['sigspec'] / med['msgspec']:>11.2f}"
                f"{med['sigspec, errors read'] / med['fastjsonschema']:>20.1f}"
                f"{med['sigspec compact'] / med['fastjsonschema']:>15.2f}"
                f"{med['bare'] / med['fastjsonschema']:>12.1f}"
            )


if __name__ == "__main__":
    main()
