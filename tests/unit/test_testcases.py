"""What the checker makes of test declarations, beyond the diagnostics of
`tests/cases/check/tests.sig`."""

from __future__ import annotations

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
