"""Recursion through `?` and `|` only is refused; defaults and patterns never crash the checker."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigspec import load
from sigspec.compiler.generate import compile_project
from sigspec.diagnostics import Diagnostic
from sigspec.semantics import ir
from sigspec.semantics.cycles import render_cycle, unguarded_cycles


def check(tmp_path: Path, text: str) -> list[Diagnostic]:
    (tmp_path / "main.sig").write_text(text, encoding="utf-8")
    return list(load([tmp_path / "main.sig"]).diagnostics)


def found(diags: list[Diagnostic]) -> list[tuple[int, str, str]]:
    out = []
    for d in diags:
        assert d.source is not None and d.span is not None
        out.append((d.source.position(d.span.start).line, d.code, d.message))
    return out


UNGUARDED = [
    ("type U = U?\nsignature f(x U) -> {a :int}\n", [(1, "U -> U")]),
    ("type U = U?\nsignature f() -> {a U}\n", [(1, "U -> U")]),
    ("type U = U?\nsignature f() -> U\n", [(1, "U -> U")]),
    ("type A = B?\ntype B = A?\n", [(1, "A -> B -> A"), (2, "B -> A -> B")]),
    ("type A = B | :int\ntype B = A | null\n", [(1, "A -> B -> A"), (2, "B -> A -> B")]),
    ("type C = C | :int\n", [(1, "C -> C")]),
    ("type C = :int | (C | :string)?\n", [(1, "C -> C")]),
    # a map reached only through the cycle does not guard it
    ("type A = B?\ntype B = A | {x :int}\n", [(1, "A -> B -> A"), (2, "B -> A -> B")]),
]


@pytest.mark.parametrize(("text", "expected"), UNGUARDED)
def test_unguarded_recursion_is_an_error_on_each_declaration(
    tmp_path: Path, text: str, expected: list[tuple[int, str]]
) -> None:
    got = [(line, code, msg) for line, code, msg in found(check(tmp_path, text))]
    assert [(line, code) for line, code, _ in got] == [
        (line, "unguarded-recursion") for line, _ in expected
    ]
    for (_, _, message), (_, cycle) in zip(got, expected, strict=True):
        assert message.endswith(f"no list or map in between: {cycle}")


GUARDED = [
    "type Tree = {value :int, children [Tree]}\nsignature f(t Tree) -> Tree\n",
    "type Chain = {value :int, next Chain?}\nsignature f(c Chain) -> Chain\n",
    "type Json = :string | :float | :bool | null | [Json] | {...}\nsignature f() -> {j Json}\n",
    "type A = {b B?}\ntype B = {a A}\nsignature f(a A) -> B\n",
    "type A = B?\ntype B = {a A}\nsignature f() -> {a A}\n",
    "type Expr = :int | {op :string, args [Expr]}\nsignature f(e Expr) -> Expr\n",
]


@pytest.mark.parametrize("text", GUARDED)
def test_recursion_through_a_list_or_a_map_is_accepted_and_compiles(
    tmp_path: Path, text: str
) -> None:
    (tmp_path / "main.sig").write_text(text, encoding="utf-8")
    result = load([tmp_path / "main.sig"])
    assert result.diagnostics == ()
    targets = ["jsonschema", "prompts", "python", "typescript"]
    compiled = compile_project(result.project, targets, {}, inputs={})
    assert compiled.files


def test_a_loop_with_no_value_stays_infinite_type_only(tmp_path: Path) -> None:
    got = found(check(tmp_path, "type A = B\ntype B = A\n"))
    assert [(line, code) for line, code, _ in got] == [(1, "infinite-type"), (2, "infinite-type")]


def test_a_long_chain_of_aliases_is_found_without_recursion(tmp_path: Path) -> None:
    n = 5_000
    lines = [f"type T{i} = T{(i + 1) % n}?" for i in range(n)]
    diags = check(tmp_path, "\n".join(lines) + "\n")
    assert [d.code for d in diags] == ["unguarded-recursion"] * n
    assert "T0 -> T1 -> T2" in diags[0].message and f"({n - 8} more) -> T0" in diags[0].message


def test_components_and_shortest_cycle() -> None:
    def td(name: str, t: ir.TypeRef) -> ir.TypeDef:
        return ir.TypeDef(name, t)

    types = {
        "A": td("A", ir.Optional(ir.Ref("B"))),
        "B": td("B", ir.Union((ir.Ref("C"), ir.Ref("A")))),
        "C": td("C", ir.Ref("A")),
        "D": td("D", ir.ListOf(ir.Ref("D"))),  # guarded
        "E": td("E", ir.MapOf((ir.Field("e", ir.Ref("E")),))),  # guarded (and infinite)
    }
    cycles = unguarded_cycles(types)
    assert [(c.names, c.path) for c in cycles] == [(("A", "B", "C"), ("A", "B", "A"))]
    assert render_cycle((*"ABCDEFGHIJ", "A")) == (
        "A -> B -> C -> D -> E -> F -> G -> H -> ... (2 more) -> A"
    )


# ---- defaults that used to end in a traceback ---------------------------------------------

DEFAULTS = [
    # an invalid pattern on a field with a default: the default's check compiled it again
    ('signature f() -> {a :string = "x" @pattern("(")}\n', [(1, "invalid-pattern")]),
    ('signature f(p :string = "x" @pattern("[a-")) -> :int\n', [(1, "invalid-pattern")]),
    ('type T = {a :string? = null @pattern("(?P<")}\n', [(1, "unportable-pattern")]),
    ('type T = {a :string? = "x" @pattern("a{,3}")}\n', [(1, "invalid-pattern")]),
    # alias loops with a default: the validator followed the aliases forever
    (
        "type A = B\ntype B = A\nsignature f(b A = 3) -> :int\n",
        [(1, "infinite-type"), (2, "infinite-type")],
    ),
    ("type U = U?\nsignature f(u U = 5) -> :int\n", [(1, "unguarded-recursion")]),
    # the constraint's check unfolded the union forever; the loop now stands for `:any`
    (
        'type C = C | :int\nsignature f() -> {c C = "x" @min(1)}\n',
        [(1, "unguarded-recursion"), (2, "constraint-type-mismatch")],
    ),
    # recursive types with invalid defaults are plain findings
    ("type T = {a :int, kids [T] = [1]}\n", [(1, "invalid-default")]),
    ("type L = {next L? = 5}\n", [(1, "invalid-default")]),
    (
        "type Loop = {next Loop}\nsignature f(l Loop = {}) -> :int\n",
        [(1, "infinite-type"), (2, "invalid-default")],
    ),
    (
        'signature f(p "a" | "b" = "c") -> {d :string = "x" @format("email")}\n',
        [(1, "invalid-default"), (1, "invalid-default")],  # "x" is no email address
    ),
]


@pytest.mark.parametrize(("text", "expected"), DEFAULTS)
def test_defaults_and_patterns_give_diagnostics(
    tmp_path: Path, text: str, expected: list[tuple[int, str]]
) -> None:
    assert [(line, code) for line, code, _ in found(check(tmp_path, text))] == expected
