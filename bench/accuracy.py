"""Reply-parsing accuracy (issue 5): sigspec's reply parser against `json.loads`, json_repair
and BAML's parser on a corpus of replies whose answers are labelled.

    python bench/accuracy.py [--corpus FILE.jsonl] [--sig FILE.sig] [--baml FILE.baml]

A corpus line is `{"id", "signature", "text", "accept", "expected", "why"}`, and `"strict":
true` where a rejection is the reply policy's choice rather than a matter of fact (an unknown
field in a closed map, a number for a string, a string for a list, a currency sign or a
number in prose): lenient parsers take those on purpose. `accept` false means no answer may
be taken from the reply (nothing to find, two answers, a reply cut short, a value that does
not fit). The bundled sample (bench/corpus/) is ours; a held-out corpus in the same form
measures what the sample cannot. Each parser's outcome on a reply is one of:
- correct: the expected value, or a rejection where none may be taken;
- false accept: a value that is not the expected one, or any value where none may be taken;
- lenient: a value taken where only the policy's strictness says none may be;
- missed: a rejection where there was an answer.
json_repair has no schema, so its output is checked by sigspec's validator (strict, and with
the reply policy's coercions, to credit it with those) before it counts as accepted. BAML
(baml-py, when installed) parses with its own schema-aligned parser (`b.parse.NAME`, the
client generated from FILE.baml, whose function NAME is the signature's name in PascalCase);
BAML has no defaults and fills absent optional fields with null, so its value loses its nulls
and gets sigspec's defaults (strict validation), and is compared with the expected value less
its nulls: BAML cannot tell an absent field from a null one.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from sigspec import load
from sigspec.runtime import parse
from sigspec.runtime.common import ReplyError
from sigspec.runtime.validate import ValidationError, check, validate
from sigspec.semantics.descriptors import output_descriptor, type_descriptors

HERE = Path(__file__).resolve().parent
REJECTED = object()  # a parser's outcome when it takes no answer from the reply
# A parser: (signature name, reply, its output descriptor, named types) -> value or REJECTED.
Parser = Callable[[str, str, Any, Any], Any]
BAML = "BAML (b.parse)"


def signatures(sig_file: Path) -> dict[str, tuple[Any, Any]]:
    loaded = load([sig_file])
    if loaded.has_errors:
        _give_up(f"{sig_file}: has errors; run sigspec lint")
    project = loaded.project
    types = type_descriptors(project, list(project.types))
    return {sig.name: (output_descriptor(sig), types) for sig in project.signatures}


def _give_up(message: str) -> NoReturn:
    """A bad input file: its problem, and exit code 2 (usage or config), as sigspec's CLI."""
    print(message, file=sys.stderr)
    sys.exit(2)


def ours(name: str, text: str, descriptor: Any, types: Any) -> Any:
    try:
        return parse(text, descriptor, types).value
    except ReplyError:
        return REJECTED


def checked(load_json: Callable[[str], Any], *, lenient: bool) -> Parser:
    def run(name: str, text: str, descriptor: Any, types: Any) -> Any:
        try:
            value = load_json(text)
        except Exception:  # each library fails in its own way
            return REJECTED
        if lenient:
            result, errors, _ = check(descriptor, value, types, lenient=True)
            return REJECTED if errors else result
        try:
            return validate(descriptor, value, types)
        except ValidationError:
            return REJECTED

    return run


def same(a: Any, b: Any) -> bool:
    """JSON equality: 7 and 7.0 are one number; a NaN equals nothing."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return not (isinstance(a, float) and math.isnan(a)) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def outcome(case: dict[str, Any], got: Any, *, nulls: bool = True) -> str:
    """`nulls` false: the parser cannot tell null from absent, so nulls are not compared."""
    if got is REJECTED:
        return "missed" if case["accept"] else "correct"
    expected = case["expected"] if nulls else _without_nulls(case["expected"])
    if case["accept"] and same(got, expected):
        return "correct"
    return "lenient" if case.get("strict") and not case["accept"] else "false accept"


def baml(baml_file: Path) -> Parser | None:
    """BAML's parser, from a client generated now (locally, by baml-py's own `baml-cli`)."""
    try:
        from importlib.metadata import version

        installed = version("baml-py")
    except Exception:  # not installed: the peer is left out
        return None
    root = Path(tempfile.mkdtemp(prefix="baml-"))
    (root / "baml_src").mkdir()
    generator = (
        'generator target {\n  output_type "python/pydantic"\n  output_dir "../"\n'
        f'  version "{installed}"\n  default_client_mode sync\n}}\n\n'
    )
    source = generator + baml_file.read_text("utf-8")
    (root / "baml_src" / "main.baml").write_text(source, "utf-8")
    cli = shutil.which("baml-cli", path=str(Path(sys.executable).parent)) or "baml-cli"
    command = [cli, "generate", "--from", str(root / "baml_src")]
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    if done.returncode:
        _give_up(f"{baml_file}: baml-cli generate failed:\n{done.stdout}{done.stderr}")
    sys.path.insert(0, str(root))
    client = importlib.import_module("baml_client").b

    def run(name: str, text: str, descriptor: Any, types: Any) -> Any:
        function = getattr(client.parse, "".join(part.title() for part in name.split("_")))
        try:
            value = function(text)
        except Exception:  # BAML's parse error
            return REJECTED
        try:
            return validate(descriptor, _without_nulls(_plain(value)), types)
        except ValidationError:
            return REJECTED

    return run


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if dump is not None else value


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def parsers(baml_file: Path) -> dict[str, Parser]:
    found: dict[str, Parser] = {
        "sigspec": ours,
        "json.loads + validate": checked(json.loads, lenient=False),
    }
    try:
        import json_repair
    except ImportError:
        print("json_repair is not installed (pip install -e '.[bench]'): left out\n")
    else:
        found["json_repair + validate"] = checked(json_repair.loads, lenient=False)
        found["json_repair + coercions"] = checked(json_repair.loads, lenient=True)
    peer = baml(baml_file)
    if peer is None:
        print("baml-py is not installed (pip install baml-py pydantic): BAML left out\n")
    else:
        found[BAML] = peer
    return found


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--corpus", type=Path, default=HERE / "corpus" / "replies.jsonl")
    options.add_argument("--sig", type=Path, default=HERE / "corpus" / "corpus.sig")
    options.add_argument("--baml", type=Path, default=HERE / "corpus" / "corpus.baml")
    args = options.parse_args()
    for path in (args.corpus, args.sig, args.baml):
        if not path.is_file():
            options.error(f"{path}: no such file")
    sigs = signatures(args.sig)
    cases = [json.loads(line) for line in args.corpus.read_text("utf-8").splitlines() if line]
    accepting = sum(case["accept"] for case in cases)
    print(f"{len(cases)} replies ({accepting} with an answer, {len(cases) - accepting} without)\n")
    print(f"{'parser':<26}{'correct':>9}{'false accepts':>15}{'lenient':>9}{'missed':>8}")
    details: dict[str, list[str]] = {}
    for name, run in parsers(args.baml).items():
        counts = {"correct": 0, "false accept": 0, "lenient": 0, "missed": 0}
        for case in cases:
            descriptor, types = sigs[case["signature"]]
            got = run(case["signature"], case["text"], descriptor, types)
            result = outcome(case, got, nulls=name != BAML)
            counts[result] += 1
            if result != "correct":
                details.setdefault(name, []).append(f"{result}: #{case['id']} {case['why']}")
        print(
            f"{name:<26}{counts['correct']:>9}{counts['false accept']:>15}"
            f"{counts['lenient']:>9}{counts['missed']:>8}"
        )
    for name, lines in details.items():
        print(f"\n{name}:")
        for line in lines:
            print(f"  {line}")


if __name__ == "__main__":
    main()
