"""The generated TypeScript meets the standard hand-written TypeScript is held to: ESLint with
typescript-eslint's recommended rules (tests/node/eslint.config.mjs, nothing disabled),
Prettier's layout with its defaults (`prettier --check`), and `tsc --strict`.

The emitter is its own formatter (users do not need Prettier): these tests run Prettier over
many outputs to prove the two agree: the examples, hostile names and text, a project written
to push every construct past 80 columns, projects from bench/generate.py, random projects of
random names and shapes, and random literals through the printer alone.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, run_cli
from sigspec.emit.typescript import doc, tssource
from test_shared_cases import compile_typescript
from test_typescript import HOSTILE

NODE = ROOT / "tests" / "node"
BIN = NODE / "node_modules" / ".bin"
PRETTIER = [str(BIN / "prettier"), "--config", str(NODE / ".prettierrc.json"), "--no-editorconfig"]
ESLINT = [str(BIN / "eslint"), "--config", str(NODE / "eslint.config.mjs"), "--max-warnings", "0"]

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None
    or not (BIN / "eslint").exists()
    or not (BIN / "prettier").exists(),
    reason="Node and tests/node's packages are needed: npm ci --prefix tests/node",
)

# Every construct the emitter lays out, each pushed past 80 columns somewhere: long type,
# signature and field names; unions that fit after `=`, that break, inside lists, hugged
# with null; quotes of both kinds; multi-line descriptions ending in spaces; pipelines.
LONG_TYPE = "AnExtraordinarilyLongTypeNameThatKeepsGoingAndGoingForeverAndEver"
LONG_SIGNATURE = (
    "a_signature_with_an_extremely_long_name_that_never_ends_and_keeps_on_going_further"
)
STRESS = r"""
## A type with a very very long name that goes on and on to push lines past eighty columns.
type LT = "alpha" | "beta" | "gamma" | "delta" | "epsilon" | "zeta"

type Quoted = "it's" | "say \"hi\"" | "both ' and \"\"" | "ünïcödé" | 1.5 | 2 | -3 | true

type Nested = {
  a_field_with_a_rather_long_name_for_testing [{x :int, y [LT]}]?,
  choices ["one" | "two" | "three" | "four" | "five" | "six" | "seven" | "eight" | "nine"],
  maybe {inner :string, deeper {deepest :int?}}?,
  anything :any,
  open_map :map,
  list_of_maps [:map]?,
  quoted-key :string "A description\nwith two lines   ",
  named_or_null Quoted?,
  last :int
}

## A signature whose name is long enough to push the validator's declaration past eighty.
@prompt("Do {{a_rather_long_parameter_name}} {{another_long_parameter_name}} {{third}}")
signature LS(
  a_rather_long_parameter_name :string,
  another_long_parameter_name :int = 3,
  third :string?
) -> {
  result LT,
  nested Nested,
  numbers [:float] = [1.0, 2.5, 3]
}

@prompt("Next {{result}} {{nested}}")
signature second_step_with_a_long_name(result LT, nested Nested?) -> :string

@prompt("Short {{x}}")
signature s(x :string) -> {y Quoted}

pipeline a_pipeline_with_a_long_name_as_well = LS |> second_step_with_a_long_name
"""
STRESS = STRESS.replace("LT", LONG_TYPE).replace("LS", LONG_SIGNATURE)

_WORDS = ["a", "id", "name", "score", "label", "value", "x", "items", "description"]


def _name(rng: random.Random) -> str:
    """A .sig name of 1 to about 70 characters."""
    parts = [rng.choice(_WORDS) for _ in range(rng.choice([1, 1, 2, 3, 6, 10]))]
    return "_".join(parts) + str(rng.randrange(100))


def _text(rng: random.Random) -> str:
    pieces = ["it's", 'say "hi"', "a*/b", "tab\there", "ünï", "x" * rng.randrange(90), "  "]
    return " ".join(rng.choice(pieces) for _ in range(rng.randrange(1, 5))).strip() or "t"


def _type(rng: random.Random, named: list[str], depth: int = 0) -> str:
    roll = rng.randrange(10 if depth < 2 else 6)
    if roll < 3:
        return rng.choice([":string", ":int", ":float", ":bool", ":any", ":map"])
    if roll < 4 and named:
        return rng.choice(named)
    if roll < 5:
        members = {json.dumps(_text(rng)[:20]) for _ in range(rng.randrange(1, 12))}
        return " | ".join(sorted(members))
    if roll < 6:
        return " | ".join(str(rng.randrange(-5, 500)) for _ in range(rng.randrange(2, 30)))
    if roll < 8:
        return f"[{_type(rng, named, depth + 1)}]"
    return "{" + ", ".join(_fields(rng, named, depth + 1)) + "}"


def _fields(rng: random.Random, named: list[str], depth: int) -> list[str]:
    out: dict[str, str] = {}
    for _ in range(rng.randrange(1, 6)):
        name = _name(rng)
        optional = "?" if rng.random() < 0.3 else ""
        doc = f" {json.dumps(_text(rng))}" if rng.random() < 0.4 else ""
        out[name] = f"{name} {_type(rng, named, depth)}{optional}{doc}"
    return list(out.values())


def random_project(rng: random.Random) -> str:
    """A .sig file of random named types and signatures (names, shapes and texts)."""
    named: list[str] = []
    parts: list[str] = []
    for _ in range(rng.randrange(1, 4)):
        name = "T" + _name(rng).title().replace("_", "")
        parts.append(f"## {_text(rng)}\ntype {name} = {_type(rng, named)}\n")
        named.append(name)
    for _ in range(rng.randrange(1, 4)):
        name = _name(rng)
        count = rng.randrange(0, 3)
        params = ", ".join(f"p{i} {_type(rng, named, 1)}" for i in range(count))
        prompt = _text(rng) + "".join(f" {{{{p{i}}}}}" for i in range(count))
        output = _type(rng, named) if rng.random() < 0.8 else ":string"
        mode = rng.choice(["", "", "@output(text)\n"]) if output == ":string" else ""
        parts.append(
            f"## {_text(rng)}\n@prompt({json.dumps(prompt)})\n{mode}"
            f"signature {name}({params}) -> {output}\n"
        )
    return "\n".join(parts)


def _bench_generate() -> Callable[..., list[Path]]:
    spec = importlib.util.spec_from_file_location("bench_generate", ROOT / "bench" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    generate: Callable[..., list[Path]] = module.generate
    return generate


def _compile(source: Path, out: Path) -> Path:
    result = run_cli("compile", str(source), "-o", str(out), "--target", "typescript")
    assert result.returncode == 0, result.stdout + result.stderr
    return out


def check_style(folders: list[Path]) -> None:
    """ESLint and Prettier over every folder's `typescript/` tree, in one run each."""
    trees = [str(f / "typescript") for f in folders]
    lint = subprocess.run(  # run where the folders are: ESLint ignores files outside its cwd
        [*ESLINT, *trees],
        cwd=os.path.commonpath(folders),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    listed = subprocess.run(
        [*PRETTIER, "--list-different", *trees], capture_output=True, text=True, check=False
    )
    different = listed.stdout.split()
    assert listed.returncode in (0, 1) and not listed.stderr, listed.stderr
    if different:  # show how the first one differs
        path = Path(different[0])
        expected = subprocess.run(
            [*PRETTIER, str(path)], capture_output=True, text=True, check=True
        ).stdout
        diff = difflib.unified_diff(
            path.read_text("utf-8").splitlines(), expected.splitlines(), "ours", "prettier"
        )
        pytest.fail(f"not as Prettier prints them: {different}\n" + "\n".join(list(diff)[:60]))


def test_examples_pass_eslint_prettier_and_tsc(tmp_path: Path, examples_output: Path) -> None:
    shutil.copytree(examples_output / "typescript", tmp_path / "typescript")
    check_style([tmp_path])
    compile_typescript(tmp_path)


def test_goldens_are_prettier_clean() -> None:
    golden = ROOT / "tests" / "golden" / "examples" / "typescript"
    run = subprocess.run(
        [*PRETTIER, "--check", str(golden)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_hostile_stress_and_generated_projects(tmp_path: Path) -> None:
    (tmp_path / "hostile.sig").write_text(HOSTILE, "utf-8")
    (tmp_path / "stress.sig").write_text(STRESS, "utf-8")
    folders = [
        _compile(tmp_path / "hostile.sig", tmp_path / "out-hostile"),
        _compile(tmp_path / "stress.sig", tmp_path / "out-stress"),
    ]
    generate = _bench_generate()
    for seed, distinct in [(1, False), (2, True)]:
        generate(tmp_path / f"bench{seed}", 3, 4, seed=seed, distinct=distinct)
        folders.append(_compile(tmp_path / f"bench{seed}", tmp_path / f"out-bench{seed}"))
    check_style(folders)
    for folder in folders:
        compile_typescript(folder)


@pytest.mark.parametrize("seed", range(3))
def test_random_projects(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    project = tmp_path / "project"
    project.mkdir()
    for i in range(6):
        (project / f"random{i}.sig").write_text(random_project(rng), "utf-8")
    out = _compile(project, tmp_path / "out")
    check_style([out])
    compile_typescript(out)


def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.randrange(12 if depth < 3 else 7)
    if roll == 0:
        return rng.choice([None, True, False])
    if roll < 3:
        return rng.choice([0, 1, -7, 2.5, 1e21, 1.5e-7, 123456789, -0.25, 3.0])
    if roll < 6:
        return _text(rng)
    if roll < 7:
        return [rng.randrange(-999, 99999) for _ in range(rng.randrange(0, 40))]
    if roll < 9:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    keys = ["a", "__proto__", "a-b", "1", "ünï", "class", "it's", "longer_key_name", "x"]
    return {rng.choice(keys) + str(i): _value(rng, depth + 1) for i in range(rng.randrange(4))}


def test_printer_lays_out_literals_as_prettier_does(tmp_path: Path) -> None:
    """Objects, arrays (numbers packed), strings, numbers and calls, through the printer
    alone: one file of random statements, checked by Prettier. (A call's last argument is
    never an object or array here: Prettier hugs those, which `tssource.call` does not
    do, as generated code never passes one.)"""
    rng = random.Random(23)
    statements = []
    for i in range(300):
        raw = _value(rng)
        value, layout = tssource.literal(raw), tssource.layout(raw)
        if i % 3 == 0:
            layout = "fluid"
            last = tssource.scalar(rng.choice([_text(rng), 12, None]))  # `call` never hugs
            value = tssource.call("$rt.someFunction", [value, last])
        name = "v" + "_long" * rng.randrange(12) + str(i)
        statements.append(
            tssource.statement(tssource.const(name, value, layout=layout, exported=True))
        )
    source = "\n".join(statements) + "\n"
    formatted = subprocess.run(
        [*PRETTIER, "--stdin-filepath", "literals.ts"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert formatted.returncode == 0, formatted.stderr
    (tmp_path / "ours.ts").write_text(source, "utf-8")
    (tmp_path / "prettier.ts").write_text(formatted.stdout, "utf-8")
    assert source == formatted.stdout, f"diff {tmp_path}/ours.ts {tmp_path}/prettier.ts"


def test_strings_take_prettiers_quotes_and_stay_escaped() -> None:
    assert tssource.string("plain") == '"plain"'
    assert tssource.string('say "hi"') == "'say \"hi\"'"
    assert tssource.string("it's \"x") == '"it\'s \\"x"'  # a tie keeps double quotes
    assert tssource.string('a\\"b"') == "'a\\\\\"b\"'"
    assert tssource.string('it\'s "a" "b"') == '\'it\\\'s "a" "b"\''
    assert tssource.string("\u2028ü\n") == '"\\u2028\\u00fc\\n"'
    assert tssource.key("plain_$1") == "plain_$1" and tssource.key("a-b") == '"a-b"'
    assert tssource.key("ünï") == '"\\u00fcn\\u00ef"' and tssource.key("1") == '"1"'
    assert [tssource.number(v) for v in (1.0, 1e21, 1.5e-7, -0.25)] == [
        "1.0",
        "1e21",
        "1.5e-7",
        "-0.25",
    ]
    assert doc.render(tssource.literal({"__proto__": 1})) == '{ ["__proto__"]: 1 }'
