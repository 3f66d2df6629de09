"""`sigspec breaking` rules: each one fires on a breaking change and stays quiet otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigspec import load
from sigspec.compiler.breaking import compare


def findings(tmp_path: Path, old: str, new: str, moved: str = "main.sig") -> list[str]:
    """The codes `old` (at old/main.sig) and `new` (at new/`moved`) give."""
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "main.sig").write_text(old)
    (tmp_path / "new" / moved).parent.mkdir(parents=True)
    (tmp_path / "new" / moved).write_text(new)
    before = load([tmp_path / "old"], root=tmp_path / "old")
    after = load([tmp_path / "new"], root=tmp_path / "new")
    assert not before.has_errors and not after.has_errors
    return sorted(d.code for d in compare(before.project, after.project))


BREAKS = [
    ("signature a() -> :int\nsignature b() -> :int", "signature a() -> :int", "removed-signature"),
    ("signature a() -> :string", "@output(text)\nsignature a() -> :string", "changed-mode"),
    ("signature a() -> :int", "signature a(x :int) -> :int", "added-required-param"),
    ("signature a(x :int = 1) -> :int", "signature a(x :int) -> :int", "added-required-param"),
    ("signature a(x :int) -> :int", "signature a() -> :int", "removed-param"),
    ("signature a(x :float) -> :int", "signature a(x :int) -> :int", "narrowed-param-type"),
    ('signature a(x "a" | "b") -> :int', 'signature a(x "a") -> :int', "narrowed-param-type"),
    ("signature a(x :int?) -> :int", "signature a(x :int) -> :int", "added-required-param"),
    ("signature a() -> {x :int, y :int}", "signature a() -> {x :int}", "removed-output-field"),
    ("signature a() -> {x {y :int}}", "signature a() -> {x {}}", "removed-output-field"),
    ("signature a() -> {x :int}", "signature a() -> {z :int}", "renamed-output-field"),
    ("signature a() -> {x :int}", "signature a() -> {x :int?}", "output-field-made-optional"),
    (
        'signature a() -> {x "a" | "b"}',
        'signature a() -> {x "a" | "b" | "c"}',
        "widened-output-type",
    ),
    ("signature a() -> {x :int}", "signature a() -> {x :float}", "widened-output-type"),
    ("signature a() -> [{x :int}]", "signature a() -> [{x :string}]", "widened-output-type"),
]


@pytest.mark.parametrize(
    ("old", "new", "code"), BREAKS, ids=[b[2] + str(i) for i, b in enumerate(BREAKS)]
)
def test_breaking_change_is_reported(tmp_path: Path, old: str, new: str, code: str) -> None:
    assert code in findings(tmp_path, old, new)


SAFE = [
    ("signature a() -> :int", "signature a() -> :int\nsignature b() -> :int"),  # added signature
    ("signature a() -> :int", "signature a(x :int?) -> :int"),  # added optional param
    ("signature a() -> :int", "signature a(x :int = 3) -> :int"),  # added param with default
    ("signature a(x :int) -> :int", "signature a(x :float) -> :int"),  # param widened
    ('signature a(x "a") -> :int', 'signature a(x "a" | "b") -> :int'),  # enum grew for input
    ("signature a(x :int) -> :int", "signature a(x :int?) -> :int"),  # param made optional
    ("signature a() -> {x :int}", "signature a() -> {x :int, y :int}"),  # output field added
    ('signature a() -> {x "a" | "b"}', 'signature a() -> {x "a"}'),  # output narrowed
    ("signature a() -> {x :int?}", "signature a() -> {x :int}"),  # output made required
    ("signature a() -> {x :float}", "signature a() -> {x :int}"),  # int still fits float
    ("type T = {x :int}\nsignature a() -> T", "type U = {x :int}\nsignature a() -> U"),  # renamed
    ("signature a() -> {x :int}", "signature a() -> {x :int = 1}"),  # default: still present
]


@pytest.mark.parametrize(("old", "new"), SAFE)
def test_compatible_change_is_quiet(tmp_path: Path, old: str, new: str) -> None:
    assert findings(tmp_path, old, new) == []


def test_a_moved_file_renames_its_module(tmp_path: Path) -> None:
    """Generated modules are named after their file's path below the project root: moving
    the file breaks whoever imports them, and `breaking` says so, once per module."""
    text = "signature a() -> :int\nsignature b() -> :int"
    assert findings(tmp_path, text, text, moved="billing/types.sig") == ["renamed-module"]
    (tmp_path / "old" / "main.sig").write_text(text)
    after = load([tmp_path / "new"], root=tmp_path / "new")
    before = load([tmp_path / "old"], root=tmp_path / "old")
    (found,) = compare(before.project, after.project)
    assert "`main` is now `billing.types`" in found.message and "`a`, `b`" in found.message
