"""Exit 0 means the output works: a project of stress declarations (deep nesting of lists,
maps, optionals and unions, zero params, zero fields, many fields, long names, keywords of
Python and TypeScript as names, names with `-`) compiles with every target, and then every
target's output is proven: the Python package imports and validates, passes mypy --strict,
the TypeScript passes tsc --strict, and every JSON Schema is valid against its metaschema.

One compile, shared by the assertions; what a target cannot express is a diagnostic instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import run_cli
from sigspec import load
from test_shared_cases import compile_typescript

DEEP = 60  # lists in lists: CPython refuses 20 nested blocks and 100 indentation levels
MAPS = 8  # maps in maps (OpenAI's strict mode takes 10 levels of objects)
MANY = 300
KEYWORDS = [
    *("class", "def", "return", "None", "True", "False", "import", "from", "lambda", "async"),
    *("await", "yield", "global", "pass", "not", "is", "in", "del", "with", "match", "type"),
    *("function", "interface", "let", "const", "var", "enum", "delete", "new", "this"),
    *("typeof", "void", "constructor", "prototype", "toString", "hasOwnProperty", "string"),
    *("number", "any", "unknown", "never", "object", "self", "cls", "llm", "max_turns", "value"),
]


def deep_list(depth: int, inner: str = ":int") -> str:
    return "[" * depth + inner + "]" * depth


def stress() -> dict[str, str]:
    deep_map = "{a " * MAPS + ":int" + "}" * MAPS
    deep_optional = "{a [" * MAPS + ":int?" + "]?}" * MAPS
    mixed = "[{k :int = 1, v " * 6 + "(:string | :int)?" + "}]" * 6
    many = ", ".join(f"f{i} :int" for i in range(MANY))
    keywords = ", ".join(f"{k} :string" for k in KEYWORDS)
    long_field = "l" + "o" * 299
    long_sig = "s" + "x" * 63  # the providers' limit for a function's name
    deep = deep_list(DEEP)
    named = deep_list(24, '{d :int = 3, e [:string] = ["x"], u :int | :string}')
    main = f"""\
import "other.sig"

## A named type nested deep, with defaults inside the lists.
type Deep = {{q {named}}}

type Dashed-Type = {{first-name :string, first_name2 :int?}}

signature deep_field(a :string) -> {{x {deep}, y {deep_map}, z {mixed}, o {deep_optional}}}
signature deep_io(a {deep}, b {deep_map}, c Deep) -> {deep}
signature deep_type(m Deep) -> Deep
signature deep_optional() -> {deep_list(30, ":int?")}?

@output(text)
signature deep_text(a {deep}) -> :string

signature zero() -> {{}}
signature zero_fields(a :int) -> {{}}

@output(text)
signature zero_text() -> :string

@output(ptc_lisp)
signature zero_ptc() -> {{}}

@output(ptc_lisp)
signature ptc_deep(a {deep}) -> {{x {deep}}}

signature many(a :int) -> {{{many}}}
signature keywords({keywords}) -> {{{keywords}}}
signature {long_sig}({long_field} :string) -> {{{long_field} :int}}
signature do-it(first-name :string, type Dashed-Type) -> {{last-name :string, a-b :int}}
signature unions(a [:int | :string | {{x :int}}]?) -> {{
  u [(:int | :string)?],
  e ("a" | "b")?,
  m {{x :int}} | {{y :string}},
  n [[("a" | 1 | true | null)]]
}}

signature astral(a :string) -> {{e :string @pattern("^\U0001f600+[\U0001f600-\U0001f64f]$")}}

pipeline from_zero = zero_named |> do-it
"""
    other = f"""\
type Other = {deep_list(40)}

signature zero_named() -> {{first-name :string, type {{first-name :string}}}}
signature other_uses(a Other) -> {{o Other}}
"""
    return {"stress.sig": main, "other.sig": other}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("stress")
    for name, text in stress().items():
        (base / name).write_text(text, encoding="utf-8")
    result = run_cli("compile", ".", "-o", "out", cwd=base)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return base / "out"


CHECK = r"""
import importlib, json, pathlib, sys
root = pathlib.Path(sys.argv[1])
sys.path.insert(0, str(root))
for path in sorted(root.rglob("*.py")):
    parts = path.relative_to(root).with_suffix("").parts
    importlib.import_module(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
from signatures import stress, other, _runtime as rt
from signatures.client import stress as client

def deep(depth, leaf):
    for _ in range(depth):
        leaf = [leaf]
    return leaf

def same(validate, descriptor, value):
    # The generated checks and the runtime's validator (the reference) agree.
    try:
        mine = ("ok", validate(value))
    except rt.ValidationError:
        mine = ("error", None)
    try:
        theirs = ("ok", rt.validate(descriptor, value, stress.TYPES))
    except rt.ValidationError:
        theirs = ("error", None)
    assert mine == theirs, (mine, theirs)
    return mine[0]

answers = []
for leaf in (1, "x", 1.5, None, [1]):
    answers.append(same(stress.validate_deep_io, stress.DEEP_IO_OUTPUT, deep(60, leaf)))
answers.append(same(stress.validate_deep_io, stress.DEEP_IO_OUTPUT, deep(59, 1)))
item = {"d": 4, "e": [], "u": "s"}
answers.append(same(stress.validate_deep_type, stress.DEEP_TYPE_OUTPUT, {"q": deep(24, item)}))
answers.append(same(stress.validate_deep_type, stress.DEEP_TYPE_OUTPUT, {"q": deep(24, {"u": 1})}))
answers.append(same(stress.validate_deep_type, stress.DEEP_TYPE_OUTPUT, {"q": deep(24, {})}))
answers.append(same(stress.validate_deep_optional, stress.DEEP_OPTIONAL_OUTPUT, deep(30, None)))
answers.append(same(stress.validate_deep_optional, stress.DEEP_OPTIONAL_OUTPUT, None))
for text in ("\U0001f600\U0001f642", "\ud83d\ude00\ud83d\ude00", "x"):
    answers.append(same(stress.validate_astral, stress.ASTRAL_OUTPUT, {"e": text}))
request = client.build_zero_ptc_request()
print(json.dumps({"answers": answers, "request": sorted(request)}))
"""


def test_the_package_imports_and_validates_as_the_runtime_does(built: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-I", "-c", CHECK, str(built / "python")],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    ok, error = "ok", "error"
    expected = [ok, error, error, error, error, error, ok, ok, error, ok, ok, ok, error, error]
    assert out["answers"] == expected
    assert "messages" in out["request"]


def test_the_package_passes_mypy_strict(built: Path) -> None:
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "signatures"],
        cwd=built / "python",
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert mypy.returncode == 0, mypy.stdout


def test_the_typescript_passes_tsc_strict(built: Path) -> None:
    compile_typescript(built)


def test_every_json_schema_is_valid_against_its_metaschema(built: Path) -> None:
    files = sorted((built / "jsonschema").glob("*.json"))
    assert len(files) > 30
    for path in files:
        schema = json.loads(path.read_text("utf-8"))
        jsonschema.validators.validator_for(schema).check_schema(schema)
    for path in [*(built / "providers").glob("*.json"), built / "manifest.json"]:
        json.loads(path.read_text("utf-8"))


def test_the_compact_validators_import_too(built: Path, tmp_path: Path) -> None:
    from sigspec.compiler.generate import compile_project

    root = built.parent
    loaded = load([root / "stress.sig", root / "other.sig"], root=root)
    options = {"python": {"validators": "compact"}}
    result = compile_project(loaded.project, ["python"], options, inputs={})
    for artifact in result.files:
        path = tmp_path / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text, encoding="utf-8")
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import signatures.stress, signatures.other, signatures.client.stress\n"
    )
    run = subprocess.run(
        [sys.executable, "-I", "-c", script, str(tmp_path / "python")],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (f"signature {'n' * 250}() -> :int\n", "name-too-long"),
        ("signature a-b() -> :int\nsignature a_b() -> :int\n", "duplicate-declaration"),
        ("signature f() -> {a-b :int, a_b :int}\n", "duplicate-field"),
        ("signature f(a-b :int, a_b :int) -> :int\n", "duplicate-param"),
    ],
)
def test_what_cannot_be_generated_is_a_clear_error(tmp_path: Path, text: str, code: str) -> None:
    (tmp_path / "p.sig").write_text(text, encoding="utf-8")
    result = run_cli("compile", "p.sig", "-o", "out", cwd=tmp_path)
    printed = result.stdout + result.stderr
    assert result.returncode == 1, printed
    assert f"error[{code}]" in printed and "Traceback" not in printed
    assert not (tmp_path / "out").exists()
