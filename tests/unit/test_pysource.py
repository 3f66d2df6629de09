"""The Python printer: what it prints means the value it was given, and `ruff format` leaves
it as it is (so generated modules are format-clean without a formatter)."""

from __future__ import annotations

import ast
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sigspec.emit.python import pysource as ps

# Characters that test escaping and ruff's column counting: quotes, backslashes, line and
# paragraph separators, controls, wide and combining characters, an emoji.
_HARD = ['"', "'", "\\", "\n", "\r", "\t", "\x00", "\u2028", "\u200b", "\xa0", "é", "中",
         "\u0301", "😀", '"""', "{", "}"]  # fmt: skip


def _text(r: random.Random) -> str:
    size = r.choice([0, 1, 3, 8, 20, 40, 70, 90])
    plain = "abcdefghij klmnop"
    return "".join(r.choice(_HARD) if r.random() < 0.3 else r.choice(plain) for _ in range(size))


def _value(r: random.Random, depth: int = 0) -> Any:
    k = r.random()
    if depth > 4 or k < 0.35:
        c = r.random()
        if c < 0.5:
            return _text(r)
        if c < 0.7:
            return r.choice([0, 1, -5, 10**20, 1.5, 1e-7, 2.0, -0.0, 1e22])
        return r.choice([True, False, None])
    if k < 0.6:
        return {_text(r)[:12]: _value(r, depth + 1) for _ in range(r.choice([0, 1, 2, 3, 5]))}
    if k < 0.8:
        return [_value(r, depth + 1) for _ in range(r.choice([0, 1, 2, 4, 8]))]
    return tuple(_value(r, depth + 1) for _ in range(r.choice([0, 1, 2, 3])))


def _node(r: random.Random, depth: int = 0) -> ps.Node:
    k = r.random()
    if depth < 3 and k < 0.2:
        args = [_node(r, depth + 1) for _ in range(r.choice([0, 1, 2]))]
        kwargs = {f"k{i}": _node(r, depth + 1) for i in range(r.choice([0, 1, 3]))}
        return ps.call(r.choice(["Field", "_rt.Map", "f"]), *args, **kwargs)
    if depth < 3 and k < 0.3:
        items = [_node(r, depth + 1) for _ in range(r.choice([1, 1, 2]))]
        return ps.subscript(r.choice(["list", "Annotated", "dict"]), *items)
    return ps.lit(_value(r, depth + 1))


def _cases() -> list[tuple[str, Any]]:
    r = random.Random(23)
    return [(f"X_{i}", _value(r)) for i in range(1500)]


def test_literals_mean_their_values() -> None:
    for name, value in _cases():
        text = ps.assign(name, ps.lit(value))
        assert ast.literal_eval(text.split(" = ", 1)[1]) == value, text


def _json(value: Any) -> Any:
    """`value` with its tuples as lists: a JSON value."""
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


def test_json_prints_as_the_literal_tree_does() -> None:
    for name, value in _cases():
        data = _json(value)
        assert ps.assign(name, ps.Json(data)) == ps.assign(name, ps.lit(data)), data
    named = {"a": ps.code("SENTIMENT"), "b": [ps.code("X")] * 30}
    text = ps.assign("S", ps.Json(named))
    assert text.startswith('S = {\n    "a": SENTIMENT,\n    "b": [\n        X,\n')


def test_blocks_mean_their_text() -> None:
    r = random.Random(7)
    texts = ["", '"', '""', '"""', 'a"', "\\", '\\"', "x\\", '""""""', "a\nb\n"]
    texts += [_text(r) + "\n" + _text(r) for _ in range(500)]
    for text in texts:
        assert ast.literal_eval(ps.block(text)) == text, repr(text)


def test_docstrings_keep_the_text_but_its_blank_edges() -> None:
    assert ast.literal_eval(ps.docstring("  One line.  ", 1)) == "One line."
    text = ps.docstring('Says "hi".\n\n  Indented\nback\\slash """ end"', 1)
    assert ast.literal_eval(text) == 'Says "hi".\n\n      Indented\n    back\\slash """ end"\n    '


def _ruff() -> str:
    found = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if found is None:
        pytest.skip("ruff is not installed (it comes with the test extras)")
    return found


def test_ruff_format_keeps_everything_as_printed() -> None:
    r = random.Random(11)
    parts = [ps.assign(name, ps.lit(value)) for name, value in _cases()]
    parts += [ps.assign(f"N_{i}", _node(r)) for i in range(800)]
    parts += [f"B_{i} = {ps.block(_text(r) + chr(10) + _text(r))}\n" for i in range(300)]
    parts += [ps.assign("S", ps.code(ps.string("x" * 83)))]  # wrapped once parenthesised
    for i in range(400):  # docstrings of functions and methods, from texts with blank edges
        text = "\n".join(_text(r) for _ in range(r.choice([1, 1, 2, 5])))
        if r.random() < 0.5:
            parts.append(f"\n\ndef f_{i}() -> None:\n    {ps.docstring(text, 1)}\n")
        else:
            parts.append(f"\n\nclass C_{i}:\n    def f(self) -> None:\n")
            parts.append(f"        {ps.docstring(text, 2)}\n")
    source = "".join(parts)
    out = subprocess.run(
        [_ruff(), "format", "--isolated", "--target-version", "py310", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
    )
    if out.stdout != source:
        import difflib

        diff = difflib.unified_diff(source.splitlines(), out.stdout.splitlines(), lineterm="")
        pytest.fail("\n".join(list(diff)[:60]))
