"""What the checker makes of test declarations, beyond the diagnostics of
`tests/cases/check/tests.sig`."""

from __future__ import annotations

import time
from pathlib import Path

from sigspec.compiler.project import load


def test_a_checks_path_names_fields_as_declared() -> None:
    """`my_name` finds the field `my-name` (`-` and `_` fold), and the IR holds the declared
    name, which is the key the output has."""
    text = "signature f() -> {my-name {the_x :int}}\ntest t = f() -> {my_name.the-x == 1}\n"
    loaded = load([Path("/nowhere/a.sig")], overlay={Path("/nowhere/a.sig"): text})
    assert not loaded.diagnostics
    (test,) = loaded.project.tests
    assert isinstance(test.expect, tuple)
    assert test.expect[0].path == ("my-name", "the_x")


# A path through a recursive union: both members lead back to `T`, so an unguarded walk
# holds 2**n places after n steps (30 steps ran for minutes).
RECURSIVE_UNION = (
    "type T = {a [T]} | {a [T], b :int}\n"
    "signature f() -> T\n"
    "test t = f() -> {" + ".".join(["a[0]"] * 40) + ".b == 1}\n"
)


def test_a_path_through_a_recursive_union_is_checked_in_linear_time() -> None:
    path = Path("/nowhere/u.sig")
    started = time.monotonic()
    loaded = load([path], overlay={path: RECURSIVE_UNION})
    assert time.monotonic() - started < 30  # exponential: hours; linear: well under a second
    assert not loaded.diagnostics
    (test,) = loaded.project.tests
    assert isinstance(test.expect, tuple) and len(test.expect[0].path) == 81


def test_the_editor_reads_the_same_path_in_linear_time(tmp_path: Path) -> None:
    from sigspec.commands.lsp.project import load_view
    from sigspec.commands.lsp.views import Loaded

    (tmp_path / "u.sig").write_text(RECURSIVE_UNION, encoding="utf-8")
    started = time.monotonic()
    index = Loaded(load_view((tmp_path / "u.sig").resolve(), {}, tmp_path.resolve())).index
    assert time.monotonic() - started < 30
    assert index.files["u.sig"] is not None
