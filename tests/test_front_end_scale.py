"""The front end stays linear in fields, suppressions, declarations and unknown names.

Each test bounds a count (allocations, calls) that grew quadratically before, or runs an
input that took minutes to the end under a generous timeout; none asserts a wall-clock time.
"""

from __future__ import annotations

import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from sigspec import load
from sigspec.diagnostics.source import SourceFile
from sigspec.semantics import ir
from sigspec.semantics.resolve import MAX_SUGGESTIONS
from sigspec.semantics.types import inhabited_types
from sigspec.syntax import ast
from sigspec.syntax.parser import parse_module


def fields_text(n: int) -> str:
    fields = ",\n".join(f"  f{i} :int" for i in range(n))
    return f"signature f() -> {{\n{fields}\n}}\n"


def test_fields_of_one_signature_take_linear_memory() -> None:
    parse_module(SourceFile("warm.sig", fields_text(10)))  # the parser loads once
    n = 10_000
    source = SourceFile("f.sig", fields_text(n))
    tracemalloc.start()
    try:
        module, diags = parse_module(source)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert module is not None and diags == ()
    # Copying the prefix at each `field_list` node kept n * n / 2 references alive (400 MB
    # here); the parse tree and the AST of 10,000 fields take a few tens of MB.
    assert peak < 100 * 1024 * 1024, peak
    (decl,) = module.decls
    assert isinstance(decl, ast.SignatureDecl) and isinstance(decl.output, ast.MapType)
    assert [f.name for f in decl.output.fields] == [f"f{i}" for i in range(n)]


def test_consecutive_suppressions_read_each_line_a_bounded_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    n = 2_000
    lines = ["# sigspec: ignore[unused-param] the prompt is generic"] * n
    text = "\n".join(lines) + '\n@prompt("hi")\nsignature f(a :int) -> :int\n'
    (tmp_path / "s.sig").write_text(text, encoding="utf-8")
    calls = 0
    original = SourceFile.line_text

    def counting(self: SourceFile, line: int) -> str:
        nonlocal calls
        calls += 1
        return original(self, line)

    monkeypatch.setattr(SourceFile, "line_text", counting)
    result = load([tmp_path / "s.sig"])
    # All of them cover the signature's line: one uses the finding, the rest are unused.
    assert [d.code for d in result.diagnostics] == ["unused-suppression"] * (n - 1)
    assert calls < 10 * n, calls  # walking forward from each comment read n * n / 2 lines


def test_a_chain_of_required_fields_is_settled_in_one_pass() -> None:
    n = 20_000
    types = {
        f"T{i}": ir.TypeDef(f"T{i}", ir.MapOf((ir.Field("b", ir.Ref(f"T{i + 1}")),)))
        for i in range(n)
    }
    types[f"T{n}"] = ir.TypeDef(f"T{n}", ir.Prim("int"))
    types["Loop"] = ir.TypeDef("Loop", ir.MapOf((ir.Field("x", ir.Ref("Loop")),)))
    types["Empty"] = ir.TypeDef("Empty", ir.Union(()))
    types["Either"] = ir.TypeDef("Either", ir.Union((ir.Ref("Loop"), ir.Ref("T0"))))
    good = inhabited_types(types)
    assert good == set(types) - {"Loop", "Empty"}


def test_a_chain_of_required_fields_lints_to_the_end(tmp_path: Path) -> None:
    n = 9_000  # within the declarations limit
    text = "".join(f"type T{i} = {{b T{i + 1}}}\n" for i in range(n)) + f"type T{n} = :int\n"
    (tmp_path / "r.sig").write_text(text, encoding="utf-8")
    # Re-scanning every type until nothing changed took 238 s for 10,000.
    done = subprocess.run(
        [sys.executable, "-m", "sigspec", "lint", str(tmp_path / "r.sig")],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    # The chain is far past the depth limit: one `type-too-deep` at T0, found in linear time.
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.count("error[") == 1 and "error[type-too-deep]" in done.stderr
    assert "Traceback" not in done.stderr


def test_hints_for_unknown_names_are_bounded_per_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sigspec.diagnostics import suggest

    n = 1_000
    text = "".join(f"type T{i} = :int\n" for i in range(n))
    text += "".join(f"type U{i} = X{i}\n" for i in range(n))
    (tmp_path / "u.sig").write_text(text, encoding="utf-8")
    calls = 0
    original = suggest._distance

    def counting(a: str, b: str, limit: int) -> int:
        nonlocal calls
        calls += 1
        return original(a, b, limit)

    monkeypatch.setattr(suggest, "_distance", counting)
    result = load([tmp_path / "u.sig"])
    unknown = [d for d in result.diagnostics if d.code == "unknown-type"]
    assert len(unknown) == n
    assert unknown[0].hints == ("did you mean `T0` or `U0`?",)
    assert unknown[-1].hints == ()  # past the first MAX_SUGGESTIONS
    assert calls <= MAX_SUGGESTIONS * 2 * n  # each hint compares with every declaration
