"""One table of cases (tests/cases/shared/cases.json) against both runtimes.

cases.sig is compiled to the python and typescript targets; every case (a reply to parse, a
value to validate, arguments to check, or a scripted client run) must give the table's
expected value, repairs and errors in the generated Python package and, compiled by `tsc
--strict`, in Node. So the TypeScript output cannot drift from the Python one.
"""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, run_cli
from sigspec import load
from sigspec.lower.names.python import kwarg, suffix
from sigspec.lower.views import Lowered
from sigspec.semantics.ir import fold

SHARED = ROOT / "tests" / "cases" / "shared"
NODE = ROOT / "tests" / "node"
TSC = NODE / "node_modules" / ".bin" / "tsc"
CASES: list[dict[str, Any]] = json.loads((SHARED / "cases.json").read_text("utf-8"))["cases"]
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "es2022",
        "module": "nodenext",
        "moduleResolution": "nodenext",
        "rootDir": "typescript",
        "outDir": "js",
        "noEmitOnError": True,
        "lib": ["es2022"],
        "types": [],
        # What demanding projects turn on; generated code must compile under them too.
        "noUncheckedIndexedAccess": True,
        "exactOptionalPropertyTypes": True,
        "noUnusedLocals": True,
        "noUnusedParameters": True,
        "noImplicitReturns": True,
        "noPropertyAccessFromIndexSignature": True,
        "verbatimModuleSyntax": True,
    },
    "include": ["typescript/**/*.ts"],
}


def _ids() -> list[str]:
    return [f"{i}-{c['kind']}-{c['signature']}-{c['note']}" for i, c in enumerate(CASES)]


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shared") / "build"
    args = ["--target", "python", "--target", "typescript"]
    result = run_cli("compile", "cases.sig", "-o", str(out), *args, cwd=SHARED)
    assert result.returncode == 0, result.stderr
    return out


# ---- Python ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def python_modules(build: Path) -> Iterator[tuple[Any, Any]]:
    sys.path.insert(0, str(build / "python"))
    try:
        yield (
            importlib.import_module("signatures.cases"),
            importlib.import_module("signatures.client.cases"),
        )
    finally:
        sys.path.remove(str(build / "python"))
        for name in [m for m in sys.modules if m == "signatures" or m.startswith("signatures.")]:
            del sys.modules[name]


def _pairs(items: Any) -> list[list[str]]:
    return [list(item) for item in items]


def python_result(case: dict[str, Any], validators: Any, clients: Any) -> dict[str, Any]:
    name = suffix(case["signature"])
    try:
        if case["kind"] == "parse":
            parsed = getattr(validators, f"parse_{name}")(case["input"])
            return {"value": parsed.value, "repairs": _pairs(parsed.repairs)}
        if case["kind"] == "validate":
            return {"value": getattr(validators, f"validate_{name}")(case["input"])}
        if case["kind"] == "validate_input":
            return {"value": getattr(validators, f"validate_{name}_input")(case["input"])}
    except validators.ReplyError as exc:
        return {"error": "ReplyError", "reason": exc.reason, "errors": _pairs(exc.errors)}
    except validators.ValidationError as exc:
        return {"error": "ValidationError", "errors": _pairs(exc.errors)}
    return _python_client(case, clients)


def _turns(turns: Any) -> list[dict[str, Any]]:
    keys = ("system", "messages", "tools", "tool_choice")
    return [
        {
            "request": {k: t.request[k] for k in keys},
            "errors": _pairs(t.errors),
            "repairs": _pairs(t.repairs),
        }
        for t in turns
    ]


def _python_client(case: dict[str, Any], clients: Any) -> dict[str, Any]:
    replies = list(case["replies"])
    function = getattr(clients, kwarg(case["signature"]))
    options = {"max_turns": case["max_turns"]} if "max_turns" in case else {}
    if "structured" in case:
        options["structured"] = case["structured"]
    args = {kwarg(k): v for k, v in case["input"].items()}
    try:
        step = function(**args, llm=lambda request: replies.pop(0), **options)
    except clients.JsonEnforcementError as exc:
        return {
            "error": "JsonEnforcementError",
            "message": str(exc),
            "turns": _turns(exc.step.turns),
        }
    value = step.return_
    if not isinstance(value, str):  # text mode returns the reply as it is
        value = value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return {"value": value, "turns": _turns(step.turns), "usage": step.usage}


@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_python(case: dict[str, Any], python_modules: tuple[Any, Any]) -> None:
    assert python_result(case, *python_modules) == case["expect"]


# ---- TypeScript --------------------------------------------------------------------------


def typescript_names() -> dict[str, dict[str, str]]:
    """Each signature's exported function names, as the emitter decides them."""
    loaded = load([SHARED / "cases.sig"])
    names = Lowered(loaded.project).typescript
    keys = ("client", "validate", "validate_input", "parse")
    return {
        sig.name: {k: getattr(names.sigs[fold(sig.name)], k) for k in keys}
        for sig in loaded.project.signatures
    }


def compile_typescript(folder: Path) -> Path:
    """tsc, with TSCONFIG, over `folder/typescript/*.ts` into `folder/js` (a Node ES module
    folder); fails the test with tsc's messages."""
    if shutil.which("node") is None or not TSC.exists():
        pytest.fail("Node and tests/node's packages are needed: npm ci --prefix tests/node")
    (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG), "utf-8")
    (folder / "package.json").write_text('{"type": "module"}', "utf-8")
    result = subprocess.run(
        [str(TSC), "-p", str(folder)], capture_output=True, text=True, check=False, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return folder / "js"


@pytest.fixture(scope="module")
def compiled(build: Path) -> Path:
    """The TypeScript output compiled by tsc into build/js."""
    return compile_typescript(build)


def run_node(js: Path, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    run = subprocess.run(
        ["node", str(NODE / "shared_cases.mjs"), str(js / "cases.js")],
        input=json.dumps({"cases": cases, "names": typescript_names()}),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    results: list[dict[str, Any]] = json.loads(run.stdout)
    return results


@pytest.fixture(scope="module")
def node_results(compiled: Path) -> list[dict[str, Any]]:
    return run_node(compiled, CASES)


@pytest.mark.parametrize("index", range(len(CASES)), ids=_ids())
def test_typescript(index: int, node_results: list[dict[str, Any]]) -> None:
    assert node_results[index] == CASES[index]["expect"]


def test_table_covers_every_kind_and_outcome() -> None:
    kinds = {c["kind"] for c in CASES}
    assert kinds == {"parse", "validate", "validate_input", "client"}
    outcomes = {c["expect"].get("error", "value") for c in CASES}
    assert outcomes == {"value", "ReplyError", "ValidationError", "JsonEnforcementError"}


# ---- beyond the table: random messy replies, both runtimes must agree ----------------------

PIECES = [
    '{"sentiment": "positive", "score": 0.9}',
    "{'sentiment': 'Negative', 'score': '0.25',}",
    '{sentiment: "neutral", score: 1.5 // sure\n}',
    '[{"name": "a", "price": 1, "tags": ["x"]}]',
    '{"a": {"b": 1, "c": 2}, "d": null',
    '{"count": 2.0, "ok": "true", "ratio": 1e-7}',
    '"{\\"value\\": 3, \\"kind\\": \\"a\\"}"',
]
DECOR = [
    "```json\n",
    "\n```",
    "<answer>",
    "</answer>",
    "<think>",
    "</think>",
    "`",
    "Sure! ",
    " Done.",
    "\n",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    ",",
    "\u201c",
    "\ufeff",
    "\u00e9",
    " /* c */ ",
    "@",
    "# note\n",
]


def messy_replies(seed: int, count: int) -> list[str]:
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        parts = [rng.choice(PIECES) if rng.random() < 0.5 else rng.choice(DECOR) for _ in range(5)]
        text = "".join(parts)
        if rng.random() < 0.3:  # cut it somewhere
            text = text[: rng.randrange(len(text) + 1)]
        out.append(text)
    return out


def test_both_runtimes_agree_on_random_messy_replies(
    compiled: Path, python_modules: tuple[Any, Any]
) -> None:
    signatures = ["sentiment", "counts", "items", "nested", "mixed"]
    cases = [
        {"kind": "parse", "signature": signatures[i % len(signatures)], "input": text, "note": ""}
        for i, text in enumerate(messy_replies(seed=8, count=600))
    ]
    expected = [python_result(c, *python_modules) for c in cases]
    accepted = sum("value" in e for e in expected)
    assert 50 < accepted < 550  # the mix exercises both outcomes
    differ = [
        (c["signature"], c["input"], e, n)
        for c, e, n in zip(cases, expected, run_node(compiled, cases), strict=True)
        if e != n
    ]
    assert differ == []


def test_both_runtimes_reject_hostile_replies_in_linear_time(
    compiled: Path, python_modules: tuple[Any, Any]
) -> None:
    """The texts of the reply-policy tests that were quadratic (openers nothing closes), in
    Node too: the TypeScript runtime had the same scans."""
    import time

    from unit.test_reply_policy import HOSTILE

    cases = [
        {"kind": "parse", "signature": "sentiment", "input": text, "note": ""} for text in HOSTILE
    ]
    expected = [python_result(c, *python_modules) for c in cases]
    assert all(e.get("error") == "ReplyError" for e in expected)
    start = time.perf_counter()
    results = run_node(compiled, cases)
    # Linear: well under a second for these 4 MB; the quadratic scans took minutes.
    assert time.perf_counter() - start < 20
    assert results == expected


# ---- the message notation beyond the table ------------------------------------------------


def test_number_text_writes_numbers_as_javascript_does() -> None:
    """The Python runtime writes a float in messages as `String(x)` does in Node, so that the
    TypeScript runtime needs no formatter: random doubles of every magnitude, the thresholds
    where an exponent starts (1e-7, 1e21), whole floats, -0.0, the extremes."""
    import random
    import struct

    from sigspec.runtime.common import number_text

    rng = random.Random(20)
    numbers = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(20000)]
    numbers = [x for x in numbers if x - x == 0.0]  # JSON carries finite numbers only
    numbers += [m * 10.0**e for e in range(-12, 25) for m in (1.0, -1.5, 9.999999)]
    numbers += [0.0, -0.0, 5e-324, 1.7976931348623157e308, 2.0**53, 0.1 + 0.2, 1e-7, 1e-6, 1e21]
    script = (
        "const xs = JSON.parse(require('fs').readFileSync(0, 'utf-8'));"
        "process.stdout.write(JSON.stringify([...xs, NaN, Infinity, -Infinity].map(String)));"
    )
    run = subprocess.run(
        ["node", "-e", script], input=json.dumps(numbers), capture_output=True, text=True,
        check=False, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    numbers += [float("nan"), float("inf"), float("-inf")]
    differ = [
        (x, number_text(x), js)
        for x, js in zip(numbers, json.loads(run.stdout), strict=True)
        if number_text(x) != js
    ]
    assert differ == []


def test_the_readers_duplicate_key_message_reads_the_same_in_both(compiled: Path) -> None:
    """A key given twice with different values: the strict reader's message (no caller sees
    it, the candidate is dropped) in the notation both runtimes share."""
    from sigspec.runtime.reply import strict_json

    text = '{"k\\"é\\\\": 1, "k\\"é\\\\": 2}'
    with pytest.raises(ValueError, match="given twice") as caught:
        strict_json(text)
    script = (
        "const rt = await import(process.argv[1]);"
        "try { rt.load(process.argv[2]); } catch (e) { process.stdout.write(e.message); }"
    )
    url = (compiled / "_runtime.js").as_uri()
    run = subprocess.run(
        ["node", "--input-type=module", "-e", script, url, text],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout == str(caught.value)
    assert run.stdout == 'the key "k\\"é\\\\" is given twice with different values'


# ---- the formats beyond the table: every value of their own tests, mutations, hostile text --

# cases.sig's signature `formats`: the field of each checked format
FORMAT_FIELDS = {
    "date-time": "date_time",
    "date": "day",
    "time": "clock",
    "duration": "period",
    "email": "email",
    "hostname": "host",
    "ipv4": "address4",
    "ipv6": "address6",
    "uri": "uri",
    "uri-reference": "reference",
    "uuid": "id",
    "json-pointer": "pointer",
    "relative-json-pointer": "relative",
}
# What the formats' patterns and comparisons turn on, and what they must refuse.
MUTATIONS = '0123456789aAfFzZtTvVPDHMSWY:/.@[]%-~#?+_ \n"\\é\u09e8\u017f\u212a\U0001f600'


def _format_case(name: str, value: str) -> dict[str, Any]:
    field = FORMAT_FIELDS[name]
    return {"kind": "validate", "signature": "formats", "input": {field: value}, "note": ""}


def _mutated(value: str, rng: Any) -> str:
    at = rng.randrange(len(value) + 1)
    char = rng.choice(MUTATIONS)
    how = rng.randrange(3)
    if how == 0 or not value:
        return value[:at] + char + value[at:]
    at = min(at, len(value) - 1)
    return value[:at] + (char if how == 1 else "") + value[at + 1 :]


def test_both_runtimes_agree_on_every_format(
    compiled: Path, python_modules: tuple[Any, Any]
) -> None:
    """Every value of the formats' own tests (tests/unit/test_formats.py), each with the verdict
    and message its table gives, and four random mutations of each (a character inserted,
    replaced or removed), with the Python runtime's verdict: the same in Node."""
    import random

    from sigspec.runtime.formats import CHECKS
    from unit.test_formats import CASES as FORMAT_CASES

    assert set(FORMAT_FIELDS) == set(CHECKS) == set(FORMAT_CASES)
    rng = random.Random(24)
    cases, known = [], []
    for name, (good, bad) in FORMAT_CASES.items():
        for value in (*good, *bad):
            cases.append(_format_case(name, value))
            known.append((name, value in good))
            for _ in range(4):
                cases.append(_format_case(name, _mutated(value, rng)))
                known.append(None)
    expected = [python_result(c, *python_modules) for c in cases]
    for case, result, verdict in zip(cases, expected, known, strict=True):
        if verdict is not None:
            name, valid = verdict
            field = FORMAT_FIELDS[name]
            message = "expected " + CHECKS[name][1]
            assert result == (
                {"value": case["input"]}
                if valid
                else {"error": "ValidationError", "errors": [[field, message]]}
            ), case
    assert 0.2 < sum("value" in e for e in expected) / len(expected) < 0.8
    differ = [
        (c["input"], e, n)
        for c, e, n in zip(cases, expected, run_node(compiled, cases), strict=True)
        if e != n
    ]
    assert differ == []


def test_both_runtimes_check_formats_in_linear_time(
    compiled: Path, python_modules: tuple[Any, Any]
) -> None:
    """The formats' hostile texts (long runs a backtracking pattern would retry), in Node."""
    import time

    from sigspec.runtime.formats import CHECKS
    from unit.test_formats import _HOSTILE

    cases = [
        _format_case(name, value + end)
        for name in CHECKS
        for value in _HOSTILE
        for end in ("", "!")
    ]
    expected = [python_result(c, *python_modules) for c in cases]
    start = time.perf_counter()
    results = run_node(compiled, cases)
    # Linear: a few seconds for these 31 MB, most of it reading JSON; a backtracking pattern
    # would take hours.
    assert time.perf_counter() - start < 30
    assert results == expected


def test_both_runtimes_check_the_same_formats(compiled: Path) -> None:
    """The formats the TypeScript runtime checks are runtime/formats.py's, in its order: what
    the `unchecked-format` warning says of the generated code holds for both targets."""
    from sigspec.runtime.formats import CHECKS

    script = (
        "const rt = await import(process.argv[1]);"
        "process.stdout.write(JSON.stringify(rt.CHECKED_FORMATS));"
    )
    url = (compiled / "_runtime.js").as_uri()
    run = subprocess.run(
        ["node", "--input-type=module", "-e", script, url],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == list(CHECKS)
