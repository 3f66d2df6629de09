"""The stream's incremental JSON reader (`runtime/stream.py`, `PartialReader`): random JSON
cut into random chunks reads as `json.loads` reads it, and every partial value on the way is
a prefix of the final one."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from sigspec.runtime.stream import PartialReader

ALPHABET = 'ab "\\\n\té€😀\u2028/'


def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.choice(["str", "int", "float", "bool", "null", "list", "map"][: 5 + 2 * (depth < 3)])
    if kind == "str":
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 8)))
    if kind == "int":
        return rng.randint(-(10**6), 10**6)
    if kind == "float":
        return rng.uniform(-1e3, 1e3)
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {f"k{i}": _value(rng, depth + 1) for i in range(rng.randint(0, 4))}


def _chunks(rng: random.Random, text: str) -> list[str]:
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, 7)
        out.append(text[i : i + n])
        i += n
    return out


def _prefix(partial: Any, final: Any, growing: str | None) -> bool:
    """Each member of `partial` is the final one (a growing string: a prefix of it); a
    list holds a prefix of the final list's items."""
    if isinstance(partial, list):
        return partial == final[: len(partial)]
    for key, value in partial.items():
        if key == growing and isinstance(value, str):
            if not final[key].startswith(value):
                return False
        elif isinstance(value, list) and isinstance(final[key], list):
            if value != final[key][: len(value)]:
                return False
        elif value != final[key]:
            return False
    return True


@pytest.mark.parametrize("seed", range(300))
@pytest.mark.parametrize("strings", ["complete", "growing"])
def test_random_json_in_random_chunks_reads_as_json_loads(seed: int, strings: str) -> None:
    rng = random.Random(seed)
    final: Any
    if rng.random() < 0.5:
        final = {f"f{i}": _value(rng) for i in range(rng.randint(0, 6))}
    else:
        final = [_value(rng) for _ in range(rng.randint(0, 6))]
    text = json.dumps(final, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 2]))
    if rng.random() < 0.5:
        text = f"Here it is:\n```json\n{text}\n```\nDone."
    reader = PartialReader(strings)
    for chunk in _chunks(rng, text):
        if reader.feed(chunk):
            assert _prefix(reader.value, final, reader.growing)
    assert not reader.failed
    assert reader.value == final
    assert reader.text == text


def test_a_number_shows_only_once_complete() -> None:
    reader = PartialReader()
    assert reader.feed('{"a": 12') is True  # the object opened: {}
    assert reader.value == {}
    assert reader.feed("34") is False
    assert reader.feed(", ") is True
    assert reader.value == {"a": 1234}


def test_a_growing_string_grows_by_whole_characters_only() -> None:
    reader = PartialReader("growing")
    reader.feed('{"s": "ab\\u00')
    assert (reader.value, reader.growing) == ({"s": "ab"}, "s")
    reader.feed("e9\\ud83d")  # a high surrogate waits for its low half
    assert reader.value == {"s": "abé"}
    reader.feed('\\ude00"}')
    assert (reader.value, reader.growing) == ({"s": "abé😀"}, None)


def test_complete_strings_are_held_back_until_closed() -> None:
    reader = PartialReader()
    reader.feed('{"s": "abc')
    assert reader.value == {}
    assert reader.feed('d", "n": null}') is True
    assert reader.value == {"s": "abcd", "n": None}


def test_a_list_member_grows_by_complete_items_and_nested_objects_wait() -> None:
    reader = PartialReader()
    reader.feed('{"l": [{"x": 1}, {"x": [2')
    assert reader.value == {"l": [{"x": 1}]}
    reader.feed("]}]}")
    assert reader.value == {"l": [{"x": 1}, {"x": [2]}]}


def test_a_top_level_list_shows_its_complete_items() -> None:
    reader = PartialReader()
    reader.feed('[1, "two", {"t')
    assert reader.value == [1, "two"]


def test_text_that_is_no_json_stops_the_reader() -> None:
    reader = PartialReader()
    reader.feed('{"a": 1, "b": tru, "c": 2}')
    assert reader.failed
    assert reader.value == {"a": 1}


def test_nesting_past_the_depth_limit_stops_the_reader_without_recursion() -> None:
    reader = PartialReader(depth=50)
    reader.feed("[" * 100_000)
    assert reader.failed
    exact = PartialReader(depth=3)
    exact.feed('{"a": [[1]]}')
    assert not exact.failed and exact.value == {"a": [[1]]}
    past = PartialReader(depth=3)
    past.feed('{"a": [[[1]]]}')
    assert past.failed
    deep = PartialReader(depth=100_000)
    deep.feed("[" * 100_000 + "]" * 100_000)
    assert not deep.failed


def test_strings_must_be_complete_or_growing() -> None:
    with pytest.raises(ValueError, match="strings"):
        PartialReader("partial")
