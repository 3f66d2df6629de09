"""Types whose named types, followed, are too deep or too large (issue 22): a chain of types
each holding the next ended in a RecursionError in the emitters, a diamond of types each
holding the next twice kept `compile` running for minutes. Both are now `type-too-deep` and
`type-too-large` in the checker, and everything inside those limits compiles to every target."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

from conftest import run_cli, write_python_package
from sigspec import load
from sigspec.compiler.generate import compile_project
from sigspec.emit.python.validators import nesting
from sigspec.semantics import ir
from sigspec.semantics.graphs import MAX_EXPANDED_NODES, MAX_TYPE_DEPTH, TypeGraph

TARGETS = ("jsonschema", "providers", "prompts", "python", "typescript")


def chain(n: int, field: str = "b T{next}?") -> str:
    """`type T0 = {b T1?}` ... `type Tn = {x :int}`: T0 is 2n + 1 levels deep."""
    lines = [f"type T{i} = {{{field.format(next=i + 1)}}}" for i in range(n)]
    return "\n".join([*lines, f"type T{n} = {{x :int}}", "signature s() -> T0", ""])


def diamond(n: int) -> str:
    """`type T0 = {a T1, b T1}` ...: T0 written out has 3 * 2**n - 1 nodes."""
    lines = [f"type T{i} = {{a T{i + 1}, b T{i + 1}}}" for i in range(n)]
    return "\n".join([*lines, f"type T{n} = {{x :int}}", "signature s(x T0) -> T0", ""])


# The largest of each that the limits let through, and the smallest they refuse.
CHAIN_AT_LIMIT = (MAX_TYPE_DEPTH - 1) // 2  # 31: T0 is 63 levels deep, 32 gives 65
DIAMOND_AT_LIMIT = 11  # 6,143 nodes; 12 gives 12,287
CHAIN_OVER = CHAIN_AT_LIMIT + 1
DIAMOND_OVER = DIAMOND_AT_LIMIT + 1


def project_of(tmp_path: Path, text: str, *, clean: bool = True) -> ir.Project:
    (tmp_path / "p.sig").write_text(text, encoding="utf-8")
    loaded = load([tmp_path / "p.sig"])
    assert not (clean and loaded.has_errors), [d.message for d in loaded.diagnostics]
    return loaded.project


def codes_of(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "p.sig").write_text(text, encoding="utf-8")
    return [d.code for d in load([tmp_path / "p.sig"]).diagnostics]


# --- the measures -------------------------------------------------------------------------


def test_measures_of_a_chain_and_a_diamond(tmp_path: Path) -> None:
    types = {t.name: t for t in project_of(tmp_path, chain(3)).types.values()}
    assert TypeGraph(types).named("T0").depth == 8  # T0 {} T1 {} T2 {} T3 {}
    types = dict(project_of(tmp_path, diamond(DIAMOND_AT_LIMIT)).types)
    graph = TypeGraph(types)
    assert graph.named("T0").size == 3 * 2**DIAMOND_AT_LIMIT - 1
    assert graph.named("T0").depth == 2 * DIAMOND_AT_LIMIT + 2  # with the reference to T0


def test_sizes_are_capped_so_a_long_diamond_is_measured_at_once(tmp_path: Path) -> None:
    graph = TypeGraph(dict(project_of(tmp_path, diamond(25), clean=False).types))
    assert graph.named("T0").size == MAX_EXPANDED_NODES + 1


def test_a_recursive_type_counts_its_way_back_once(tmp_path: Path) -> None:
    text = "type Tree = {value :int, children [Tree]}\nsignature s() -> Tree\n"
    graph = TypeGraph(dict(project_of(tmp_path, text).types))
    # Tree, its map, :int, the list, and Tree again as a name
    assert graph.named("Tree") == graph.named("Tree")
    assert graph.named("Tree").size == 4
    assert graph.named("Tree").depth == 4


def test_a_cyclic_diamond_is_measured_within_the_cap(tmp_path: Path) -> None:
    """Types that all reach one another: writing one out unfolds every path through the
    others once, which the count stops at the cap instead of enumerating."""
    n = 30
    lines = [f"type T{i} = {{a T{i + 1}?, b T{i + 1}?, back [T0]}}" for i in range(n)]
    text = "\n".join([*lines, f"type T{n} = {{x [T0]}}", "signature s() -> T0", ""])
    assert "type-too-large" in codes_of(tmp_path, text)


def test_a_large_ring_of_types_is_measured_within_a_total_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2,000 types that all reach one another (a ring with a second edge each): each was
    unfolded to the cap, copying its path at every step, which took minutes. Unfolding stops
    past the depth limit, and the part shares one budget of visits."""
    from sigspec.semantics import graphs

    n = 2000
    lines = [f"type T{i} = {{next [T{(i + 1) % n}], other [T{(i + 7) % n}]}}" for i in range(n)]
    text = "\n".join([*lines, "signature s() -> T0", ""])
    visits: list[int] = []
    real = graphs.TypeGraph._measure

    def counted(self: graphs.TypeGraph, *args: object) -> graphs.Measure:
        before = self._budget
        found = real(self, *args)  # type: ignore[arg-type]
        visits.append(before - self._budget)
        return found

    monkeypatch.setattr(graphs.TypeGraph, "_measure", counted)
    found = codes_of(tmp_path, text)
    assert "type-too-deep" in found and "type-too-large" in found
    assert sum(visits) <= graphs._BUDGET + len(visits)


def test_a_long_alias_chain_is_measured_without_recursion(tmp_path: Path) -> None:
    n = 5000
    lines = [f"type A{i} = A{i + 1}" for i in range(n)]
    text = "\n".join([*lines, f"type A{n} = :int", "signature s() -> A0", ""])
    assert codes_of(tmp_path, text).count("type-too-deep") == 1


def test_nesting_measures_each_named_type_once(tmp_path: Path) -> None:
    """2**200 paths: without the memo this never returns."""
    project = project_of(tmp_path, diamond(200), clean=False)
    assert nesting(ir.Ref("T0"), project.types) == 201
    recursive = "type A = {b [B]}\ntype B = {a A?}\n"
    assert nesting(ir.Ref("A"), project_of(tmp_path, recursive).types) == -1


# --- the diagnostics ----------------------------------------------------------------------


def test_a_chain_over_the_limit_is_reported_once_at_its_start(tmp_path: Path) -> None:
    (tmp_path / "p.sig").write_text(chain(150), encoding="utf-8")
    found = [d for d in load([tmp_path / "p.sig"]).diagnostics if d.code == "type-too-deep"]
    assert len(found) == 1
    assert found[0].message.startswith("type `T0` nests 301 levels deep")
    assert "T0 -> T1 -> " in found[0].message


def test_limits_let_the_largest_through(tmp_path: Path) -> None:
    assert codes_of(tmp_path, chain(CHAIN_AT_LIMIT)) == []
    assert codes_of(tmp_path, chain(CHAIN_OVER)) == ["type-too-deep"]
    assert codes_of(tmp_path, diamond(DIAMOND_AT_LIMIT)) == []
    # the parameter and the output both write it out
    assert codes_of(tmp_path, diamond(DIAMOND_OVER)) == ["type-too-large"] * 2


def test_a_signature_deep_by_itself_is_reported_there(tmp_path: Path) -> None:
    inner = "[" * 40 + ":int" + "]" * 40
    text = f"type A = {inner}\nsignature s() -> {{x {'[' * 30}A{']' * 30}}}\n"
    (tmp_path / "p.sig").write_text(text, encoding="utf-8")
    found = [d for d in load([tmp_path / "p.sig"]).diagnostics if d.code == "type-too-deep"]
    assert [d.message.split(" nests")[0] for d in found] == ["the output of `s`"]


# --- through the command line -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (chain(150), "type-too-deep"),
        (chain(400), "type-too-deep"),
        (diamond(DIAMOND_OVER), "type-too-large"),
        (diamond(28), "type-too-large"),
    ],
    ids=["chain-150", "chain-400", "diamond-over", "diamond-28"],
)
@pytest.mark.parametrize("target", TARGETS)
def test_compile_refuses_with_a_diagnostic(
    tmp_path: Path, text: str, code: str, target: str
) -> None:
    (tmp_path / "p.sig").write_text(text, encoding="utf-8")
    done = run_cli("compile", str(tmp_path), "-o", str(tmp_path / "out"), "--target", target)
    assert done.returncode == 1
    assert f"error[{code}]" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "manifest.json").exists()


# --- inside the limits, every target works ------------------------------------------------


PROVIDERS = {"providers": ["openai", "gemini", "ollama", "vllm"]}  # anthropic: 24 optionals


@pytest.mark.parametrize(
    "text",
    [chain(CHAIN_AT_LIMIT), chain(CHAIN_AT_LIMIT, "b T{next}"), diamond(DIAMOND_AT_LIMIT)],
    ids=["chain", "required-chain", "diamond"],
)
def test_every_target_compiles_at_the_limit(tmp_path: Path, text: str) -> None:
    project = project_of(tmp_path, text)
    result = compile_project(project, TARGETS, {"providers": PROVIDERS}, inputs={})
    assert result.ok, [d.message for d in result.diagnostics]
    by_path = {a.path: a.text for a in result.files}
    fragment = json.loads(by_path["providers/s.json"])
    assert "openapi_request" in fragment["providers"]["gemini"]  # Gemini's inlined schema
    assert "Answer in JSON of this form" in by_path["prompts/s/user.mustache"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (chain(CHAIN_AT_LIMIT), {"b": {"b": None}}),
        (diamond(DIAMOND_AT_LIMIT), None),
    ],
    ids=["chain", "diamond"],
)
def test_the_generated_package_validates_at_the_limit(
    tmp_path: Path, text: str, value: object
) -> None:
    package = f"deep_{tmp_path.name.replace('-', '_')}"
    folder, _ = write_python_package(tmp_path, text, package)
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module(f"{package}.p")
        if value is None:  # the diamond: a full value, built bottom up
            value = {"x": 1}
            for _ in range(DIAMOND_AT_LIMIT):
                value = {"a": value, "b": value}
        assert module.validate_s(value) == value
        with pytest.raises(module.ValidationError):
            module.validate_s({"b": {"b": 3}})
    finally:
        sys.path.remove(str(folder))
