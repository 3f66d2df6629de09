"""Hostile replies and values (issue 22): nesting past the interpreter's stack, huge replies,
many tags. Each is a clear error naming its limit, from the runtime and from generated
validators of both layouts, and the parser's work stays linear in the reply."""

from __future__ import annotations

import copy
import importlib
import json
import pickle
import sys
from types import ModuleType
from typing import Any

import pytest

from conftest import write_python_package
from sigspec.runtime import parse
from sigspec.runtime import reply as reply_module
from sigspec.runtime.common import LIMITS, Limits, ReplyError, too_deep
from sigspec.runtime.reply import explicit_candidates, read_json
from sigspec.runtime.validate import ValidationError, check, validate

SPEC = """
type Tree = {value :int, children [Tree] = []}
signature raw() -> {data :map, anything :any}
signature whatever() -> :any
signature tree() -> Tree
signature name() -> {name :string}
signature words() -> {words :string}
signature nested() -> {a {b [[:int]]}}
"""
STRING = ("map", (("name", "name", ("str",), True, False, None, False, ()),), False)
ANY = ("map", (("a", "a", ("any",), True, False, None, False, ()),), False)
DEPTH_ERROR = "nested more than 128 levels deep (the nesting-depth limit)"


def nested(depth: int, leaf: Any = 1) -> Any:
    """A list nested `depth` levels around `leaf`, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def deep_map(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


@pytest.fixture(scope="module", params=["fast", "compact"])
def module(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    layout = request.param
    root = tmp_path_factory.mktemp(f"limits_{layout}")
    package = f"limits_{layout}"
    folder, _ = write_python_package(root, SPEC, package, layout)
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(f"{package}.p")
    finally:
        sys.path.pop(0)


# ---- depth ---------------------------------------------------------------------------------


def test_depth_is_counted_without_recursion() -> None:
    assert not too_deep(nested(128), 128)
    assert too_deep(nested(129), 128)
    assert too_deep(nested(100_000), 128)  # far past the interpreter's recursion limit
    assert not too_deep("[[[", 1) and not too_deep(3, 1)
    assert too_deep({"a": [{}]}, 2) and not too_deep({"a": [{}]}, 3)


@pytest.mark.parametrize("depth", [129, 600, 990, 5000])
def test_runtime_validator_rejects_deep_values_by_name(depth: int) -> None:
    for value in ({"a": nested(depth)}, {"a": deep_map(depth)}):
        _, errors, _ = check(ANY, value, {})
        assert errors == [("root", DEPTH_ERROR)]
        with pytest.raises(ValidationError) as caught:
            validate(ANY, value, {})
        assert caught.value.errors == [("root", DEPTH_ERROR)]


def test_values_at_the_limit_stay_valid() -> None:
    value = {"a": nested(127)}  # the map is level 1: 128 levels in all
    assert validate(ANY, value, {}) == value


@pytest.mark.parametrize("depth", [500, 990, 20_000])
def test_generated_validators_reject_deep_values(module: ModuleType, depth: int) -> None:
    for value in (
        {"data": {}, "anything": nested(depth)},
        {"data": deep_map(depth), "anything": 1},
    ):
        with pytest.raises(module.ValidationError) as caught:
            module.validate_raw(value)
        assert caught.value.errors == [("root", DEPTH_ERROR)]
    tree: dict[str, Any] = {"value": 1, "children": []}
    for _ in range(depth):
        tree = {"value": 1, "children": [tree]}
    with pytest.raises(module.ValidationError) as caught:
        module.validate_tree(tree)
    assert caught.value.errors == [("root", DEPTH_ERROR)]


def test_a_type_deeper_than_its_values_needs_no_depth_test(module: ModuleType) -> None:
    with pytest.raises(module.ValidationError) as caught:
        module.validate_nested({"a": {"b": nested(5000)}})
    assert caught.value.errors == [("root", DEPTH_ERROR)]


def test_limits_are_a_keyword_argument_of_every_entry_point(module: ModuleType) -> None:
    value = {"data": {}, "anything": nested(3)}
    assert module.validate_raw(value) == value
    with pytest.raises(module.ValidationError) as caught:
        module.validate_raw(value, limits=module.Limits(depth=3))
    assert caught.value.errors == [
        ("root", "nested more than 3 levels deep (the nesting-depth limit)")
    ]
    deeper = {"data": {}, "anything": nested(200)}  # past the default 128
    assert module.validate_raw(deeper, limits=module.Limits(depth=250)) == deeper
    with pytest.raises(module.ReplyError, match="nested more than 3 levels deep"):
        module.parse_raw('{"data": {}, "anything": [[[1]]]}', limits=module.Limits(depth=3))
    assert module.parse_raw('{"data": {}, "anything": [[[1]]]}').value["anything"] == [[[1]]]
    with pytest.raises(module.ReplyError, match="longer than 10 characters"):
        module.parse_name('{"name": "a long enough name"}', limits=module.Limits(reply_chars=10))
    with pytest.raises(module.ValidationError):
        module.validate_raw_input({"x": [[1]]}, limits=module.Limits(depth=1))


@pytest.mark.parametrize("depth", [129, 500, 990, 100_000])
def test_deep_replies_are_a_reply_error_naming_the_limit(module: ModuleType, depth: int) -> None:
    text = '{"data": {}, "anything": ' + "[" * depth + "]" * depth + "}"
    with pytest.raises(module.ReplyError) as caught:
        module.parse_raw(text)
    assert "nested more than 128 levels deep (the nesting-depth limit)" in str(caught.value)
    with pytest.raises(module.ReplyError, match="the nesting-depth limit"):
        module.parse_raw("[" * depth)
    with pytest.raises(module.ReplyError, match="the nesting-depth limit"):
        module.parse_raw("Here: {data: {}, anything: " + "[" * depth + "]" * depth + "}")


def test_no_part_of_a_value_past_the_limit_is_taken_as_the_answer(module: ModuleType) -> None:
    """An answer-shaped object deep inside brackets past the limit is part of that value: the
    reply is rejected by the limit, not answered by a piece of it."""
    inside = '{"data": {}, "anything": 1}'
    for text in ("[" * 200 + inside + "]" * 200, "Here: " + "[" * 129 + inside + "]" * 129):
        with pytest.raises(module.ReplyError, match="the nesting-depth limit"):
            module.parse_raw(text)
        with pytest.raises(module.ReplyError, match="the nesting-depth limit"):
            module.parse_whatever(text)  # any inner list or object would fit `:any`


def test_json_held_in_a_string_is_held_to_the_limit() -> None:
    deep = "[" * 200 + "]" * 200
    descriptor = ("map", (("x", "x", ("list", ("any",)), True, False, None, False, ()),), False)
    _, errors, _ = check(descriptor, {"x": deep}, {}, lenient=True)
    assert errors == [("x", "expected list, got string")]
    value, errors, _ = check(descriptor, {"x": "[[1]]"}, {}, lenient=True)
    assert (value, errors) == ({"x": [[1]]}, [])


def test_the_reader_stops_at_the_limit_without_recursing() -> None:
    with pytest.raises(reply_module._TooDeep):
        read_json("{a: " * 100_000)
    with pytest.raises(reply_module._TooDeep):
        read_json("[" * 100_000 + "]" * 100_000)
    assert read_json("[" * 128 + "]" * 128).value == nested(127, [])


# ---- size and tags -----------------------------------------------------------------------


def test_a_reply_past_the_size_limit_is_rejected_by_name() -> None:
    text = '{"name": "' + "a" * LIMITS.reply_chars + '"}'
    with pytest.raises(ReplyError) as caught:
        parse(text, STRING, {})
    assert caught.value.reason == (
        f"the reply is longer than {LIMITS.reply_chars} characters (the reply-size limit)"
    )
    assert parse(text, STRING, {}, Limits(reply_chars=len(text))).value["name"].startswith("a")


def test_a_reply_with_too_many_tags_is_rejected_by_name() -> None:
    text = "<b>x</b>" * 5001 + '<answer>{"name": "x"}</answer>'
    with pytest.raises(ReplyError) as caught:
        parse(text, STRING, {})
    assert caught.value.reason == "the reply holds more than 10000 tags (the tag limit)"
    assert parse(text, STRING, {}, Limits(tags=20_000)).value == {"name": "x"}
    assert parse("<b>x</b>" * 4000 + '{"name": "x"}', STRING, {}).value == {"name": "x"}


def test_limits_are_frozen_and_checked() -> None:
    limits = Limits(depth=5)
    assert (limits.depth, limits.tags, limits.reply_chars) == (5, 10_000, 1024 * 1024)
    assert limits == Limits(depth=5) and hash(limits) == hash(Limits(depth=5))
    with pytest.raises(AttributeError):
        limits.depth = 6  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(limits)) == limits and copy.deepcopy(limits) == limits
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="positive integer"):
            Limits(depth=bad)  # type: ignore[arg-type]


def test_the_deepest_limit_still_validates_without_exhausting_the_stack(module: ModuleType) -> None:
    """A limit deeper than the validators' own stack allows would bring RecursionError back;
    the deepest allowed one validates a value at its own depth."""
    with pytest.raises(ValueError, match="at most 256"):
        Limits(depth=257)
    deepest = module.Limits(depth=256)
    value: Any = 1
    for _ in range(255):
        value = [value]
    assert module.validate_raw({"data": {}, "anything": value}, limits=deepest)["anything"]
    assert module.parse_raw(json.dumps({"data": {}, "anything": value}), limits=deepest).value


# ---- linear work -------------------------------------------------------------------------


def test_nested_tag_bodies_are_sliced_within_the_budget() -> None:
    """12k nested tags made 6,000 overlapping bodies of up to the whole reply, each sliced:
    quadratic. Now the candidates taken are at most the budget in characters."""
    text = "<a>" * 6000 + '{"name": "x"}' + "</a>" * 6000
    budget = 8 * len(text) + 4096
    found = explicit_candidates(text, budget)
    assert sum(map(len, found)) <= budget
    assert found[0].startswith("<a><a>")


def test_nested_tags_parse_within_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[int] = []
    real = reply_module.read_json

    def counted(text: str, depth: int = LIMITS.depth) -> Any:
        read.append(len(text))
        return real(text, depth)

    monkeypatch.setattr(reply_module, "read_json", counted)
    for count in (3000, 30_000):
        read.clear()
        text = "<a>" * count + '{"name": "x"}' + "</a>" * count
        assert parse(text, STRING, {}, Limits(tags=2 * count)).value == {"name": "x"}
        assert sum(read) <= 8 * len(text) + 4096  # characters read in all: linear


def test_spans_know_how_deep_they_nest() -> None:
    assert reply_module.nested_spans('x [1, [2, {"a": []}]] {} [[') == [
        (2, 21, 4, True),
        (6, 20, 3, True),
        (10, 19, 2, True),
        (16, 18, 1, True),
        (22, 24, 1, True),
        (25, 27, 2, False),  # never closed: to the end
    ]


def test_brackets_nested_past_the_limit_are_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each span inside another was read to the limit in turn: most of the text, each time.
    Now neither the span past the limit nor any span inside it is read."""
    read: list[int] = []
    real = reply_module.read_json

    def counted(text: str, depth: int = LIMITS.depth) -> Any:
        read.append(len(text))
        return real(text, depth)

    monkeypatch.setattr(reply_module, "read_json", counted)
    text = "Here: " + "[" * 50_000 + "]" * 50_000
    with pytest.raises(ReplyError, match="the nesting-depth limit"):
        parse(text, STRING, {})
    assert read == []


def test_the_client_passes_limits_to_the_parser(module: ModuleType) -> None:
    from sigspec.runtime.client import JsonEnforcementError, Spec, run_json

    spec = Spec("name", "json", None, "Name it.", "Fix: {{reply}}", None, 1)
    reply = '{"name": "a name"}'
    step = run_json(spec, {}, lambda request: reply, module.parse_name, dict)
    assert step.return_ == {"name": "a name"}
    with pytest.raises(JsonEnforcementError) as caught:
        run_json(
            spec,
            {},
            lambda request: reply,
            module.parse_name,
            dict,
            limits=module.Limits(reply_chars=5),
        )
    assert caught.value.errors == [
        ("root", "the reply is longer than 5 characters (the reply-size limit)")
    ]
