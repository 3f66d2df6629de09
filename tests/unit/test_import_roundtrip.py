"""`sigspec import` round trip: a signature's output schema, imported and compiled again, is
the same schema.

"The same" is exact JSON equality (`==` on the parsed values, so key order aside), `$defs`
names included: the importer keeps each named type's name, and the root is declared as a type
of its own (`ROOT`) whose schema is built as a signature's output is (`builder.type` of its
type plus the `$defs` it reaches). Besides equality, the import must report nothing at all.

One spelling is compared up to equivalence (`plain_nullable`): `anyOf: [X, {"type": "null"}]`
(either order) with `X` a plain typed schema, which sigspec writes only for a degenerate union
such as `:string | null?`, imports as the readable `:string?` (what Pydantic's
`Optional[str]` needs), which compiles to `{"type": ["string", "null"]}`: the same values.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, assume, given, settings

from sigspec.compiler.project import load
from sigspec.importer import import_schema
from sigspec.lower.schema import JsonSchema, SchemaBuilder, nullable
from sigspec.lower.views import Lowered

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.sig"))
ROOT = "ImportRoot"


def schema_of_type(text: str, name: str) -> JsonSchema:
    """Type `name` of the `.sig` text `text`, compiled as a signature's output would be."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "imported.sig"
        path.write_text(text, encoding="utf-8")
        loaded = load([path], root=Path(folder), parallel=False)
    assert not loaded.has_errors, [d.message for d in loaded.diagnostics if d.is_error]
    builder = SchemaBuilder(loaded.project)
    schema = builder.type(loaded.project.types[name].type)
    defs = builder.definitions()
    return {**schema, "$defs": defs} if defs else schema


def plain_nullable(value: Any) -> Any:
    """`anyOf: [X, {"type": "null"}]` (either order), `X` plain typed, as `nullable(X)`
    writes it."""
    if isinstance(value, list):
        return [plain_nullable(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: plain_nullable(v) for k, v in value.items()}
    branches = out.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        first = branches[1] if branches[0] == {"type": "null"} else branches[0]
        if isinstance(first.get("type"), str) and "$ref" not in first and "anyOf" not in first:
            rest = {k: v for k, v in out.items() if k != "anyOf"}
            return {**rest, **nullable(first)}
    return out


def assert_round_trip(schema: JsonSchema) -> None:
    imported = import_schema(schema, path="schema.json", stem="schema", name=ROOT)
    assert [(d.code, d.message) for d in imported.diagnostics] == []
    again = schema_of_type(imported.text, ROOT)
    assert plain_nullable(again) == plain_nullable(schema), imported.text


def test_the_one_equivalent_spelling() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    imported = import_schema(schema, path="schema.json", stem="schema", name=ROOT)
    assert imported.text == f"type {ROOT} = :string?\n"
    assert schema_of_type(imported.text, ROOT) == {"type": ["string", "null"]}


def test_every_example_output_round_trips() -> None:
    loaded = load(EXAMPLES, root=EXAMPLES[0].parent, parallel=False)
    assert not loaded.has_errors
    lowered = Lowered(loaded.project)
    signatures = [*loaded.project.signatures, *loaded.project.tools]
    assert signatures
    for sig in signatures:
        assert_round_trip(lowered.output_schema(sig))


GOLDEN_SCHEMAS = sorted(
    (Path(__file__).parents[1] / "golden" / "examples" / "jsonschema").glob("*.output.json")
)


@pytest.mark.parametrize("path", GOLDEN_SCHEMAS, ids=lambda p: p.name)
def test_the_jsonschema_targets_files_round_trip(path: Path) -> None:
    """The target's files as written (`$comment` and `$schema` are imported without a word
    and are the target's own header, not the signature's schema)."""
    schema = json.loads(path.read_text(encoding="utf-8"))
    assert schema.pop("$schema") and schema.pop("$comment")
    assert_round_trip(schema)


# ---- random signatures -------------------------------------------------------------------------

NAMES = ["a", "b-c", "d_e", "type", "null", "id", "items"]
ATTRS: dict[str, list[str]] = {
    ":int": ["@min(0)", "@max(10)", "@clamp(-1, 1)"],
    ":float": ["@min(0.5)", "@max(1e3)", "@clamp(0, 1)"],
    ":string": ["@min_length(1)", "@max_length(20)", '@pattern("^[a-z]+$")', "@format(email)"],
    "list": ["@min_items(1)", "@max_items(3)"],
}
DEFAULTS = {
    ":int": "= 1",
    ":float": "= 0.5",
    ":string": '= "x"',
    ":bool": "= true",
    "list": "= []",
    ":any": '= {"k": [1, null]}',
}
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=8)


def quoted(value: str) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


@st.composite
def types(draw: st.DrawFn, named: tuple[str, ...], depth: int) -> tuple[str, str]:
    """A type's text and its kind, for the attributes that fit it."""
    kinds = ["prim", "literals"] + (["named"] if named else [])
    if depth > 0:
        kinds += ["list", "map", "optional", "union"]
    kind = draw(st.sampled_from(kinds))
    if kind == "prim":
        prim = draw(
            st.sampled_from(
                [":string", ":int", ":float", ":bool", ":datetime", ":any", ":map", ":keyword"]
            )
        )
        return prim, prim
    if kind == "named":
        return draw(st.sampled_from(named)), "named"
    if kind == "literals":
        values = draw(
            st.lists(
                st.one_of(
                    TEXT.map(quoted),
                    st.integers(-5, 5).map(str),
                    st.sampled_from(["true", "null", "1.5"]),
                ),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
        return " | ".join(values), "literals"
    inner, inner_kind = draw(types(named, depth - 1))
    grouped = f"({inner})" if inner_kind in ("literals", "union", "optional") else inner
    if kind == "list":
        return f"[{inner}]", "list"
    if kind == "map":
        return draw(maps(named, depth - 1)), "map"
    if kind == "optional":
        return f"{grouped}?", "optional"
    other, other_kind = draw(types(named, depth - 1))
    other = f"({other})" if other_kind in ("union", "optional") else other
    return f"{grouped} | {other}", "union"


@st.composite
def maps(draw: st.DrawFn, named: tuple[str, ...], depth: int) -> str:
    names = draw(
        st.lists(st.sampled_from(NAMES), max_size=4, unique_by=lambda n: n.replace("-", "_"))
    )
    fields = []
    for name in names:
        text, kind = draw(types(named, depth))
        attrs = draw(
            st.lists(st.sampled_from(ATTRS.get(kind, ["@deprecated"])), max_size=2, unique=True)
        )
        if draw(st.booleans()) and kind not in ("optional",):
            text = f"({text})?" if kind in ("literals", "union") else f"{text}?"
        default = [DEFAULTS[kind]] if kind in DEFAULTS and draw(st.booleans()) else []
        if default and draw(st.booleans()):
            attrs.append("@fallback")
        desc = [quoted(draw(TEXT))] if draw(st.booleans()) else []
        fields.append(" ".join([name, text, *default, *attrs, *desc]))
    if draw(st.booleans()):
        fields.append("...")
    return "{" + ", ".join(fields) + "}"


@st.composite
def projects(draw: st.DrawFn) -> str:
    lines = []
    named: tuple[str, ...] = ()
    if draw(st.booleans()):
        lines.append("type Tree = {label :string, children [Tree]}")
        named += ("Tree",)
    for index in range(draw(st.integers(0, 2))):
        text, _ = draw(types(named, 2))
        doc = draw(TEXT.filter(lambda t: "\n" not in t and t == t.strip()))
        lines.append((f"## {doc}\n" if doc else "") + f"type T{index} = {text}")
        named += (f"T{index}",)
    output, _ = draw(types(named, 3))
    extra = "@allow_extra_keys\n" if draw(st.booleans()) else ""
    lines.append(f'{extra}@prompt("{{{{x}}}}")\nsignature f(x :string) -> {output}')
    return "\n".join(lines) + "\n"


def output_schema(text: str) -> Any:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.sig"
        path.write_text(text, encoding="utf-8")
        loaded = load([path], root=Path(folder), parallel=False)
    if loaded.has_errors:
        return None
    sig = loaded.project.signature("f")
    assert sig is not None
    return Lowered(loaded.project).output_schema(sig)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(projects())
def test_random_signatures_round_trip(text: str) -> None:
    schema = output_schema(text)
    assume(schema is not None)  # the checker refused it (a default, a literal it disallows)
    assert_round_trip(schema)
