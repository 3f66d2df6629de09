"""Generated validators: they agree with the runtime (the reference semantics) and with
`jsonschema` under the emitted schema, and hostile .sig content never runs as code."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sigspec import load
from sigspec.compiler import compile_project
from sigspec.emit.jsonschema import output_schema
from sigspec.emit.python.descriptors import output_descriptor, type_descriptors
from sigspec.runtime import check


def generate(root: Path, text: str, package: str) -> tuple[ModuleType, Any]:
    (root / "p.sig").write_text(text, encoding="utf-8")
    loaded = load([root / "p.sig"])
    assert not loaded.has_errors, loaded.diagnostics
    result = compile_project(
        loaded.project, ["python"], {"python": {"package": package}}, inputs={}
    )
    for artifact in result.files:
        path = root / "out" / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text, encoding="utf-8")
    sys.path.insert(0, str(root / "out" / "python"))
    try:
        return importlib.import_module(f"{package}.p"), loaded.project
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
    assert module._fast_s(value) is value  # valid and complete: returned as it is
    assert module.validate_s(value) is value
    partial = {k: v for k, v in value.items() if k != "note"}
    assert module.validate_s(partial) == partial  # an absent optional field stays absent
    assert module.validate_s(partial) is not partial
    assert repr(value) == snapshot  # never mutated


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
