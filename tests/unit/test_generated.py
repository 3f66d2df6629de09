"""Generated validators: they agree with the runtime (the reference semantics) and with
`jsonschema` under the emitted schema, and hostile .sig content never runs as code."""

from __future__ import annotations

import importlib
import pickle
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import write_python_package
from sigspec.lower.schema import output_schema
from sigspec.runtime.formats import CHECKS
from sigspec.runtime.validate import check
from sigspec.semantics.descriptors import output_descriptor, type_descriptors


def generate(
    root: Path, text: str, package: str, validators: str = "fast"
) -> tuple[ModuleType, Any]:
    folder, project = write_python_package(root, text, package, validators)
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(f"{package}.p"), project
    finally:
        sys.path.pop(0)


SPEC = """
type Item = {name :string, price :float? @min(0), tags [:string] @max_items(3)}
signature s() -> {
  label "a" | "b" | "c",
  n :int @min(0) @max(10),
  items [Item],
  note :string?,
  open {k :int, ...},
  flag :bool,
  u :string | :int,
  lit 1 | 2
}
"""

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.sampled_from(["a", "b", "z"]),
    st.floats(-2, 12, allow_nan=False, allow_infinity=False),
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["k", "name", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)
ITEM = st.fixed_dictionaries(
    {
        "name": st.one_of(st.just("n"), JSON),
        "tags": st.one_of(st.lists(st.just("t"), max_size=4), JSON),
    },
    optional={"price": st.one_of(st.floats(-1, 5, allow_nan=False), st.none(), JSON), "x": JSON},
)
VALUE = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {
            "label": st.one_of(st.sampled_from(["a", "b", "c"]), JSON),
            "n": st.one_of(st.integers(-1, 11), JSON),
            "items": st.one_of(st.lists(ITEM, max_size=3), JSON),
            "open": st.one_of(
                st.fixed_dictionaries({"k": st.integers()}, optional={"extra": JSON}), JSON
            ),
            "flag": st.one_of(st.booleans(), JSON),
            "u": st.one_of(st.sampled_from(["s", 3]), JSON),
            "lit": st.one_of(st.sampled_from([1, 2, 3]), JSON),
        },
        optional={"note": st.one_of(st.none(), st.just("n"), JSON), "zzz": JSON},
    ),
)


def _integral_floats(value: Any) -> bool:
    """1.0 is not an int (DESIGN 2), while JSON Schema's "integer" accepts it: not comparable."""
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_integral_floats(v) for v in value.values())
    if isinstance(value, list):
        return any(_integral_floats(v) for v in value)
    return False


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=VALUE)
def test_generated_runtime_and_jsonschema_agree(tmp_path_factory: Any, value: Any) -> None:
    module, project = _module(tmp_path_factory)
    sig = project.signature("s")
    descriptor = output_descriptor(sig)
    expected, errors, _ = check(descriptor, value, type_descriptors(project, list(project.types)))
    try:
        got = module.validate_s(value)
    except module.ValidationError as exc:  # the generated package's own class
        assert errors, "rejected a value the runtime accepts"
        assert exc.errors == errors
        accepted = False
    else:
        assert not errors and got == expected
        accepted = True
    if not _integral_floats(value):
        schema = output_schema(sig, project)
        assert jsonschema.Draft202012Validator(schema).is_valid(value) == accepted, value


_CACHE: dict[str, Any] = {}


def _module(factory: Any) -> tuple[ModuleType, Any]:
    if "m" not in _CACHE:
        _CACHE["m"] = generate(factory.mktemp("gen"), SPEC, "differential")
    return _CACHE["m"]  # type: ignore[no-any-return]


def test_a_valid_value_takes_the_fast_path(tmp_path: Path) -> None:
    module, _ = generate(tmp_path, SPEC, "fastpath")
    value = {
        "label": "a",
        "n": 3,
        "items": [{"name": "n", "tags": ["t"], "price": None}],
        "note": None,
        "open": {"k": 1},
        "flag": True,
        "u": "s",
        "lit": 2,
    }
    snapshot = repr(value)
    # valid and complete: returned as it is, without asking the runtime
    assert module.validate_s(value, _slow=_refuse) is value
    partial = {k: v for k, v in value.items() if k != "note"}
    assert module.validate_s(partial, _slow=_refuse) is partial  # absent, no default: as is
    assert repr(value) == snapshot  # never mutated
    with pytest.raises(AssertionError, match="the runtime was asked"):
        module.validate_s({**value, "extra": 1}, _slow=_refuse)  # a closed map's extra key


def test_the_runtimes_errors_chain_to_nothing(tmp_path: Path) -> None:
    """A map of the right size with a key misspelt reaches the runtime from the generated
    code's `except KeyError:`; the traceback a user sees shows the errors alone."""
    import traceback

    module, _ = generate(tmp_path, "signature s() -> {a :int, b :int}\n", "chain")
    with pytest.raises(module.ValidationError) as caught:
        module.validate_s({"a": 1, "c": 2})
    assert caught.value.errors == [
        ("b", "missing required field"),
        ("c", "unexpected field (the map is closed)"),
    ]
    shown = "".join(traceback.format_exception(caught.value))
    assert "KeyError" not in shown and "During handling" not in shown


def _refuse(*args: Any) -> Any:
    raise AssertionError("the runtime was asked")


DEFAULTS_SPEC = """
signature d() -> {
  name :string, tags [:string] = [], level :int = 2 @min(0), note :string?, kind "x" | "y" = "x"
}
"""


def test_a_map_with_fields_absent_is_completed_without_the_runtime(tmp_path: Path) -> None:
    """Absent defaulted fields are filled in by the generated code itself, in the runtime's
    order and with a fresh copy of each default; an absent nullable field stays absent; what
    it cannot decide (a key too many, a required field absent) still goes to the runtime."""
    module, project = generate(tmp_path, DEFAULTS_SPEC, "defaults")
    descriptor = output_descriptor(project.signature("d"))

    def runtime(value: Any) -> tuple[Any, list[Any]]:
        expected, errors, _ = check(descriptor, value, {})
        return expected, errors

    for value in ({"name": "a"}, {"level": 0, "name": "a"}, {"name": "a", "note": None}):
        got = module.validate_d(value, _slow=_refuse)
        expected, errors = runtime(value)
        assert not errors and got == expected
        assert list(got) == list(expected)  # the runtime's (declaration) order
    first, second = (module.validate_d({"name": "a"}, _slow=_refuse) for _ in range(2))
    assert first["tags"] == [] and first["tags"] is not second["tags"]
    assert "note" not in first
    bad = {"name": 3, "level": -1}
    with pytest.raises(module.ValidationError) as caught:
        module.validate_d(bad, _slow=_refuse)
    assert caught.value.errors == runtime(bad)[1]
    for odd in ({"name": "a", "extra": 1}, {"level": 1}, {"name": "a", "lev-el": 1}):
        with pytest.raises(AssertionError, match="the runtime was asked"):
            module.validate_d(odd, _slow=_refuse)


# Every way the generated code rejects a value itself (no runtime): inline maps in lists, lists
# of lists, constraints, a named map type below a list, a recursive type, enums, literals,
# date-times, unions of kinds; and what it leaves to the runtime: @fallback, @clamp.
COLLECT_SPEC = """
type Leaf = {id :int, tags [:string]?}
type Tree = {label :string @min_length(2), kids [Tree] = []}
type Score = :float
type Level = "ab" | "c"
signature c() -> {
  points Score = 0 @min(0),
  level_name Level = "ab" @min_length(2),
  rows [{name :string @min_length(2) @pattern("^[a-z]+$"), qty :int = 1 @min(0) @max(9),
         when :datetime?, kind "x" | "y" = "x"}],
  grid [[:int]],
  words [:string] @max_items(3),
  leaves [Leaf]?,
  tree Tree?,
  lit true,
  level :float = 0.5 @clamp(0, 1),
  safe :int = 0 @fallback,
  either :string | :int = 0
}
"""
LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2, 12), st.just("ab"), st.just("A"))
ROW_FIELDS = {
    "name": st.one_of(st.sampled_from(["ab", "a", "B", "Bc", "abc"]), LEAF),
    "qty": st.one_of(st.integers(-1, 10), LEAF),
    "kind": st.one_of(st.sampled_from(["x", "y", "X"]), LEAF),
}
ROW_OPTIONAL = {
    "when": st.one_of(st.just("2024-01-02T03:04:05Z"), st.just("2024-13-01T00:00:00Z"), LEAF),
    "zz": LEAF,
}
# Rows holding every defaulted field are checked by the generated code; others by the runtime.
ROW = st.one_of(
    st.fixed_dictionaries(ROW_FIELDS, optional={"when": ROW_OPTIONAL["when"]}),
    st.fixed_dictionaries(
        {"name": ROW_FIELDS["name"]},
        optional={"qty": ROW_FIELDS["qty"], "kind": ROW_FIELDS["kind"], **ROW_OPTIONAL},
    ),
)
TREE = st.recursive(
    st.fixed_dictionaries({"label": st.one_of(st.sampled_from(["ab", "a"]), LEAF)}),
    lambda inner: st.fixed_dictionaries(
        {"label": st.one_of(st.sampled_from(["ab", "a"]), LEAF)},
        optional={"kids": st.one_of(st.lists(inner, max_size=2), LEAF)},
    ),
    max_leaves=4,
)
COLLECT_VALUE = st.fixed_dictionaries(
    {
        "rows": st.one_of(st.lists(st.one_of(ROW, LEAF), max_size=3), LEAF),
        "grid": st.one_of(st.lists(st.one_of(st.lists(LEAF, max_size=3), LEAF), max_size=3)),
        # mostly valid where the runtime would decide: so most documents stay generated-only
        "words": st.one_of(st.lists(st.just("w"), max_size=3), st.lists(st.just(1)), LEAF),
        "lit": st.one_of(st.just(True), LEAF),
    },
    optional={
        "leaves": st.one_of(
            st.lists(
                st.one_of(
                    st.fixed_dictionaries(
                        {"id": LEAF}, optional={"tags": st.lists(LEAF, max_size=3)}
                    ),
                    LEAF,
                ),
                max_size=3,
            ),
            LEAF,
        ),
        "tree": st.one_of(TREE, LEAF),
        "points": st.one_of(st.floats(-1, 1, allow_nan=False), LEAF),
        "level_name": st.one_of(st.sampled_from(["ab", "c", "z", "zz"]), LEAF),
        "level": st.one_of(st.just(0.5), st.floats(-1, 2, allow_nan=False), LEAF),
        "safe": st.one_of(st.just(1), LEAF),
        "either": st.one_of(st.just("e"), LEAF),
    },
)


@settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=COLLECT_VALUE)
def test_generated_verdicts_are_the_runtimes(tmp_path_factory: Any, value: Any) -> None:
    """The generated code accepts and rejects exactly what the runtime does; an invalid
    value's errors are the runtime's, and its message shows the first."""
    if "c" not in _CACHE:
        _CACHE["c"] = generate(tmp_path_factory.mktemp("gen"), COLLECT_SPEC, "collect")
    module, project = _CACHE["c"]
    descriptor = output_descriptor(project.signature("c"))
    types = type_descriptors(project, list(project.types))
    expected, errors, _ = check(descriptor, value, types)
    try:
        got = module.validate_c(value)
    except module.ValidationError as exc:
        assert errors, "rejected a value the runtime accepts"
        assert exc.errors == errors
        assert str(exc).startswith(f"{errors[0][0]}: {errors[0][1]}")
    else:
        assert not errors and got == expected


def test_invalid_values_are_rejected_without_the_runtime(tmp_path: Path) -> None:
    """The runtime is not asked (`_slow` refuses) to reject a value the generated code can
    tell is invalid: it stops at the first failed check. The errors, read later, are the
    runtime's, every one of them, found once."""
    module, project = generate(tmp_path, COLLECT_SPEC, "collected")
    descriptor = output_descriptor(project.signature("c"))
    types = type_descriptors(project, list(project.types))
    valid = {
        "rows": [{"name": "ab", "qty": 1, "kind": "x"}],
        "grid": [[1, 2]],
        "words": ["w"],
        "leaves": [{"id": 1, "tags": ["t"]}],
        "tree": {"label": "ab", "kids": [{"label": "cd", "kids": []}]},
        "lit": True,
        "points": 0.5,
        "level_name": "ab",
    }
    assert module.validate_c(valid, _slow=_refuse) == check(descriptor, valid, types)[0]
    row = valid["rows"][0]
    broken = {  # one failure each, at every depth and of every kind the generated code names
        "rows": [row, {**row, "name": "a"}],  # too short
        "grid": [[1], [2, "a"]],  # list of lists
        "words": [1],  # a constrained list's item
        "leaves": [{"id": "x"}],  # a named map below a list
        "tree": {"label": "ab", "kids": [{"label": 5, "kids": []}]},  # recursive
        "lit": False,  # a literal
        "points": -1,  # a named type's constraint
        "level_name": "z",  # a named enum
        "either": None,  # a union of kinds
    }
    for key, wrong in broken.items():
        value = {**valid, key: wrong}
        with pytest.raises(module.ValidationError) as caught:
            module.validate_c(value, _slow=_refuse)
        _, errors, _ = check(descriptor, value, types)
        assert errors and caught.value.errors == errors, key
    rows = [{"name": "Bc", "qty": 12, "kind": "z", "when": "2024-13-01T00:00:00Z"}, 3]
    value = {**valid, "rows": rows, "grid": "no"}
    with pytest.raises(module.ValidationError) as caught:
        module.validate_c(value, _slow=_refuse)
    assert caught.value.errors == [  # every error, though the check stopped at the first
        ("rows.0.name", 'does not match the pattern "^[a-z]+$"'),
        ("rows.0.qty", "12 is greater than the maximum 9"),
        ("rows.0.when", "expected " + CHECKS["date-time"][1]),
        ("rows.0.kind", 'expected one of "x", "y", got "z"'),
        ("rows.1", "expected map, got int"),
        ("grid", "expected list, got string"),
    ]
    assert caught.value.errors is caught.value.errors  # found once, when first read
    assert str(caught.value).startswith("rows.0.name: does not match")
    assert repr(caught.value) == f"ValidationError({caught.value.errors!r})"
    fresh = pickle.loads(pickle.dumps(module.ValidationError(descriptor, value, types)))
    assert fresh.errors == caught.value.errors  # as a process pool sends it back
    # Left to the runtime: a value @fallback or @clamp may yet mend.
    for key, wrong in (("safe", "x"), ("level", 2.0)):
        with pytest.raises(AssertionError, match="the runtime was asked"):
            module.validate_c({**valid, key: wrong}, _slow=_refuse)


def test_hostile_sig_content_is_only_data(tmp_path: Path) -> None:
    mark = tmp_path / "PWNED"
    spec = (
        "type list = {x :int}\ntype _rt = :string\n@output(ptc_lisp)\n"
        f'signature class(import :string "q\\" b\\\\ t\\"\\"\\" n\\n z\\u0000 \\u00e9") -> {{\n'
        f"  __class__ :string = \"__import__('os').system('touch {mark}')\",\n"
        "  if [:int] = [],\n"
        "  None :bool?,\n"
        '  try ("a\\"b" | "c\\\\d\\n") = "a\\"b",\n'
        "  def list?,\n"
        '  w :string = "ok" @pattern("^[a-z]+\\"?$")\n'
        "}\n"
    )
    module, _ = generate(tmp_path, spec, "hostile")
    value = module.validate_class({"None": True, "def": {"x": 1}})
    assert value == {
        "__class__": f"__import__('os').system('touch {mark}')",
        "if": [],
        "None": True,
        "try": 'a"b',
        "def": {"x": 1},
        "w": "ok",
    }
    assert module.validate_class({"try": "c\\d\n", "if": [1]})["try"] == "c\\d\n"
    assert module.validate_class_input({"import": "x"}) == {"import": "x"}
    assert not mark.exists()


def test_allow_extra_keys_opens_named_types_too(tmp_path: Path) -> None:
    spec = "type Inner = {a :int}\n@allow_extra_keys\nsignature e() -> {inner Inner}\n"
    module, project = generate(tmp_path, spec, "extras")
    value = {"inner": {"a": 1, "more": True}, "top": 2}
    assert module.validate_e(value) == value
    schema = output_schema(project.signature("e"), project)
    assert jsonschema.Draft202012Validator(schema).is_valid(value)


def test_importing_a_module_loads_no_parser(tmp_path: Path) -> None:
    """The import figure (bench/README.md) rests on this: `json` and the reply parser load
    on the first parse, not with the module. (`typing` does load: the module defines the
    TypedDicts its validators return; a client module loads it with pydantic anyway.)"""
    spec = 'signature s() -> {label "a" | "b", when :datetime?}\n'
    generate(tmp_path, spec, "light")
    script = (
        "import sys\n"
        "import light.p as m\n"
        "heavy = ('json', 'light._reply', 'datetime')\n"
        "print(sorted(n for n in heavy if n in sys.modules))\n"
        "m.validate_s({'label': 'a', 'when': '2024-01-02T03:04:05Z'})\n"
        'print(m.parse_s(\'{"label": "b"}\').value)\n'
        "print(sorted(n for n in ('re', 'json', 'light._reply') if n in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", script],
        cwd=tmp_path / "out" / "python",
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.splitlines() == ["[]", "{'label': 'b'}", "['json', 'light._reply', 're']"]


# ---- random signatures -----------------------------------------------------------------------
# The fixed specs above cover the shapes known to be tricky; these cover the ones nobody thought
# of. A seeded generator writes one file of random signatures (compiled once), and hypothesis
# draws values near each output type: the generated validator must give the runtime's value or
# the runtime's errors, and parsing the value's JSON must give the same answer.

RANDOM_COUNT = 40  # signatures in the random spec
RANDOM_TYPES = """
type Label = "low" | "high"
type Pt = {x :int, y :int = 0}
type Tree = {v :int, kids [Tree] = []}
"""
# (type, what may follow it in a field: defaults and attributes that fit the type)
SCALAR_FIELDS = [
    (":string", ["", ' = "x"', " @min_length(2)", ' @pattern("^[a-z]+$")']),
    (":int", ["", " = 3", " @min(0) @max(9)", " = 1 @fallback", " = 2 @min(0)"]),
    (":float", ["", " = 0.5", " @clamp(0, 1)", " @min(0)"]),
    (":bool", ["", " = false"]),
    ('"a" | "b"', ["", ' = "a"', ' = "b" @fallback']),
    ("1 | 2", [""]),
    (":string | :int", ["", " = 0"]),
    (":datetime", [""]),
    ("Label", ["", ' = "low"']),
    ("Pt", [""]),
    ("Tree", [""]),
]


def _random_type(rng: Any, depth: int) -> str:
    roll = rng.random()
    if depth >= 3 or roll < 0.5:
        return str(rng.choice(SCALAR_FIELDS)[0])
    if roll < 0.75:
        return f"[{_random_type(rng, depth + 1)}]"
    return _random_map(rng, depth + 1)


def _random_field(rng: Any, index: int, depth: int) -> str:
    name = rng.choice(["f", "g", "first-", "h_"]) + str(index)
    if rng.random() < 0.6:
        text, tails = rng.choice(SCALAR_FIELDS)
        return f"{name} {text}{rng.choice(tails)}"
    inner = _random_type(rng, depth)
    tail = rng.choice(["", "?", " = []" if inner.startswith("[") else "", " @max_items(2)"])
    if tail == " @max_items(2)" and not inner.startswith("["):
        tail = ""
    return f"{name} {inner}{tail}"


def _random_map(rng: Any, depth: int) -> str:
    fields = [_random_field(rng, i, depth) for i in range(rng.randint(1, 4))]
    return "{" + ", ".join(fields) + (", ..." if rng.random() < 0.15 else "") + "}"


def random_spec(seed: int, count: int) -> str:
    import random

    rng = random.Random(seed)
    sigs = [f"signature r{i}() -> {_random_map(rng, 0)}" for i in range(count)]
    return RANDOM_TYPES + "\n".join(sigs) + "\n"


NEAR_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 12), st.sampled_from(["a", "ab", "A", "1"])
)


SCALAR_VALUES = {  # the bounds the random specs use, and either side of them
    "str": st.sampled_from(["", "a", "ab", "abc", "A1"]),
    "int": st.one_of(st.sampled_from([-1, 0, 1, 3, 9, 10]), st.integers(-2, 12)),
    "float": st.one_of(
        st.sampled_from([-0.5, 0, 0.0, 0.5, 1, 1.0, 1.5]), st.floats(-1, 2, allow_nan=False)
    ),
    "bool": st.booleans(),
    "datetime": st.sampled_from(["2024-01-02T03:04:05Z", "2024-13-01T00:00:00Z"]),
}


def _near(d: Any, types: dict[str, Any], depth: int = 0) -> Any:
    """Values of descriptor `d`, often valid, sometimes a near miss or anything at all."""
    tag = d[0]
    if tag == "ref":
        base = _near(types[d[1]], types, depth + 1) if depth < 4 else NEAR_LEAF
    elif tag == "opt":
        base = st.one_of(st.none(), _near(d[1], types, depth))
    elif tag == "list":
        base = st.lists(_near(d[1], types, depth + 1), max_size=3) if depth < 4 else st.just([])
    elif tag == "map":
        required = {f[0]: _near(f[2], types, depth + 1) for f in d[1] if f[3]}
        optional = {f[0]: _near(f[2], types, depth + 1) for f in d[1] if not f[3]}
        base = st.fixed_dictionaries(required, optional={**optional, "zz": NEAR_LEAF})
    elif tag == "union":
        base = st.one_of([_near(m, types, depth) for m in d[1]])
    elif tag == "enum":
        base = st.sampled_from([*d[1], d[1][0].upper()])  # a case miss the parser may fold
    elif tag == "lit":
        base = st.just(d[1])
    else:
        base = SCALAR_VALUES.get(tag, NEAR_LEAF)
    return st.one_of(base, base, base, NEAR_LEAF)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
@pytest.mark.parametrize("validators", ["fast", "compact"])
def test_random_signatures_agree_with_the_runtime(
    tmp_path_factory: Any, data: Any, validators: str
) -> None:
    """Both layouts: generated checks (fast), and the runtime bound to descriptors (compact,
    the python option `validators = "compact"`), with the same names."""
    if validators not in _CACHE:
        spec = random_spec(5, RANDOM_COUNT)
        folder = tmp_path_factory.mktemp(validators)
        made = generate(folder, spec, f"random_{validators}", validators)
        assert hasattr(made[0], "_MISS") == (validators == "fast")
        _CACHE[validators] = made
    module, project = _CACHE[validators]
    types = type_descriptors(project, list(project.types))
    for index in range(RANDOM_COUNT):  # every signature in every example
        descriptor = output_descriptor(project.signature(f"r{index}"))
        value = data.draw(_near(descriptor, types), label=f"r{index}")
        _agree(module, index, descriptor, types, value)


def test_a_coercion_comes_before_the_fallback(tmp_path: Path) -> None:
    spec = 'signature s() -> {f "a" | "b" = "b" @fallback, n :int = 0 @fallback}\n'
    module, _ = generate(tmp_path, spec, "fellback")
    assert module.validate_s({"f": "A", "n": "2"}) == {"f": "b", "n": 0}
    parsed = module.parse_s('{"f": "A", "n": "2"}')
    assert parsed.value == {"f": "a", "n": 2}
    assert [path for path, _ in parsed.repairs] == ["f", "n"]
    # What no coercion recovers still falls back.
    assert module.parse_s('{"f": "c", "n": "x"}').value == {"f": "b", "n": 0}


def _agree(module: Any, index: int, descriptor: Any, types: dict[str, Any], value: Any) -> None:
    import json

    expected, errors, repairs = check(descriptor, value, types)
    validate = getattr(module, f"validate_r{index}")
    try:
        got = validate(value)
    except module.ValidationError as exc:
        assert errors, "rejected a value the runtime accepts"
        assert exc.errors == errors
    else:
        assert not errors
        assert got == expected
    try:
        parsed = getattr(module, f"parse_r{index}")(json.dumps(value)).value
    except module.ReplyError:
        parsed = None
    # A valid value parses to itself; an invalid one may be coerced (the reply policy), but
    # what is accepted then must be valid. So may a value valid only by `@fallback`: the
    # parser first recovers what the model meant ("A" for "a"), the default is the last resort.
    fell_back = any("@fallback" in message for _, message in repairs)
    if not errors and not fell_back:
        assert parsed == expected
    elif parsed is not None:
        assert validate(parsed) == parsed


def test_float_bounds_hold_exactly(tmp_path: Path) -> None:
    """A float field's whole-number bound is compared as a float only where that is exact:
    2**64 + 1 and 10**400 are not floats, and the checks keep them as they are."""
    big = 2**64 + 1
    fields = f"x :float @max({big}), y :float @min(0) @max(1), z :float @min(-{10**400})"
    spec = f"signature s() -> {{{fields}}}\n"
    module, project = generate(tmp_path, spec, "bounds")
    descriptor = output_descriptor(project.signature("s"))
    for x in (big, big + 1, float(2**64), 2.0**65):
        for y in (0, 1, 0.0, 1.0, -0.0, 1.5, -1, 2):
            _, errors, _ = check(descriptor, {"x": x, "y": y, "z": 0}, {})
            try:
                module.validate_s({"x": x, "y": y, "z": 0}, _refuse)
            except module.ValidationError as exc:
                assert errors and exc.errors == errors, (x, y)
            else:
                assert not errors, (x, y)
    source = Path(module.__file__).read_text(encoding="utf-8")
    specialised = r"if not y >= 0\.0 or not y <= 1\.0:"  # float with float
    assert re.search(specialised, source)


NON_FINITE_SPEC = """
type Score = :float
type Open = {a :int, ...}
signature n() -> {
  a :float = 0, b :float = 0 @min(0), c :float = 0 @min(0) @max(1), d :float?,
  e :float | :string = 0, f Score = 0, g [:float] = [], h :float = 0.5 @clamp(0, 1),
  i :int = 0 @min(0) @max(5), j :any?, k :map?, l :map | :string = "x", m Open?
}
"""
# How each field holds a bad number: in place, or inside (a list, a map, an extra field).
HOLD = {"g": lambda x: [x], "j": lambda x: [{"y": x}], "k": lambda x: {"y": [x]}}
HOLD |= {"l": lambda x: {"y": x}, "m": lambda x: {"a": 1, "y": x}}


def test_nan_and_infinities_are_no_numbers(tmp_path: Path) -> None:
    """NaN passes every comparison, so it would pass @min and @max; neither it nor an
    infinity is a JSON number. Rejected wherever a number may stand (a float unbounded,
    bounded on one side or both, optional, in a union, a named type, a list; anywhere inside
    `:any`, `:map` and an open map's extra field), by the generated code itself (but under
    @clamp and in an open map's extra field, which are the runtime's), with the runtime's
    errors."""
    module, project = generate(tmp_path, NON_FINITE_SPEC, "finite")
    descriptor = output_descriptor(project.signature("n"))
    types = type_descriptors(project, list(project.types))
    valid = {"a": -0.0, "b": 2, "c": 1.0, "d": None, "e": "x", "f": 3.5, "g": [1, 0.5], "h": 1}
    valid |= {"j": [{"y": 1.5}], "k": {"y": [2.5]}, "l": {"y": 0.5}, "m": {"a": 1, "y": 0.5}}
    assert module.validate_n(valid, module._rt.validate) == check(descriptor, valid, types)[0]
    for bad in (float("nan"), float("inf"), float("-inf")):
        for key in "abcdefghijklm":
            value = {**valid, key: HOLD.get(key, lambda x: x)(bad)}
            runtime = key in "hm"  # @clamp; an open map's extra field
            with pytest.raises(module.ValidationError) as caught:
                module.validate_n(value, module._rt.validate if runtime else _refuse)
            _, errors, _ = check(descriptor, value, types)
            assert errors and caught.value.errors == errors, (key, bad)
    _, errors, _ = check(
        descriptor, {**valid, "c": float("nan"), "k": {"y": [float("inf")]}}, types
    )
    assert errors == [
        ("c", "expected a finite number, got NaN"),
        ("k.y.0", "expected a finite number, got Infinity"),
    ]


def test_lists_of_plain_items_decide_as_item_by_item() -> None:
    """The runtime checks a list of strings, ints, bools or floats at C speed when every item
    is of the kind; what is left (a wrong item, NaN, an overflowing sum, a huge int beside a
    float, coercions in lenient mode) is decided item by item, with paths."""
    cases: list[tuple[str, list[Any], list[Any]]] = [
        ("float", [1e308, 1e308], []),  # the sum overflows; each item is fine
        ("float", [10**400, 1.5], []),  # int satisfies float, however large
        ("float", [0.5, float("nan")], [("1", "expected a finite number, got NaN")]),
        (
            "float",
            [float("inf"), float("-inf")],
            [
                ("0", "expected a finite number, got Infinity"),
                ("1", "expected a finite number, got -Infinity"),
            ],
        ),
        ("int", [1, True], [("1", "expected int, got bool")]),
        ("bool", [True, 1], [("1", "expected bool, got int")]),
        ("str", ["a", 1.5], [("1", "expected string, got float")]),
        ("str", [], []),
    ]
    for kind, items, errors in cases:
        value, found, _ = check(("list", (kind,)), items, {})
        assert found == errors, (kind, items)
        if not errors:
            assert value == items and value is not items  # a copy, as item by item
    value, _, repairs = check(("list", ("int",)), [1, "2"], {}, lenient=True)
    assert value == [1, 2] and repairs == [("1", 'coerced string "2" to a number')]
