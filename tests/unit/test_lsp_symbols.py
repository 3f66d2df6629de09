"""The editor's index of names (`commands/lsp/symbols.py`) and what navigation, rename,
outline and hover read from it, over the examples and small projects."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from sigspec import load
from sigspec.commands.lsp import hover, navigate, outline
from sigspec.commands.lsp.project import load_view
from sigspec.commands.lsp.symbols import ImportPath, PrimitiveUse, Reference
from sigspec.commands.lsp.views import Loaded, Views
from sigspec.lower.views import Lowered
from sigspec.semantics import ir
from sigspec.semantics.ir import fold

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SUFFIX = "987"  # a fresh name: every name with it; no example name holds it


def _examples(tmp_path: Path) -> Path:
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root)
    return root


def _loaded(root: Path, name: str = "sentiment.sig") -> Loaded:
    return Loaded(load_view((root / name).resolve(), {}, root.resolve()))


def _schemas(root: Path) -> dict[str, str]:
    """Every signature's output schema and every tool's argument schema, as JSON text."""
    result = load([root])
    lowered = Lowered(result.project)
    out = {sig.name: json.dumps(lowered.output_schema(sig)) for sig in result.project.signatures}
    out |= {tool.name: json.dumps(lowered.input_schema(tool)) for tool in result.project.tools}
    return out


def _findings(root: Path) -> list[tuple[str, str | None, int | None]]:
    found = load([root]).diagnostics
    return sorted((d.code, d.path, d.span.start if d.span else None) for d in found)


def test_every_reference_in_the_examples_resolves_to_a_declaration_of_its_name(
    tmp_path: Path,
) -> None:
    loaded = _loaded(_examples(tmp_path))
    references = list(loaded.index.references())
    assert len(references) > 20
    for reference in references:
        assert reference.target is not None, reference
        found = loaded.index.declarations[reference.target]
        assert fold(found.name) == fold(reference.name), reference
        text = loaded.index.files[reference.path].source.text
        assert text[reference.span.start : reference.span.end] == reference.name


def test_every_declaration_renamed_at_once_keeps_the_examples_clean(tmp_path: Path) -> None:
    """Renaming each declaration (types, signatures, tools, pipelines, params and fields)
    to a fresh name, applied as text edits, changes no finding, and the JSON Schemas only
    by the names."""
    root = _examples(tmp_path)
    before, findings = _schemas(root), _findings(root)
    loaded = _loaded(root)
    index = loaded.index
    edits: dict[str, list[tuple[int, int, str]]] = {}
    for declaration in index.declarations.values():
        offset = declaration.span.start
        found = navigate.rename(index, declaration.path, offset, declaration.name + SUFFIX)
        assert not isinstance(found, navigate.Refusal), found
        for path, renamed in found.items():
            edits.setdefault(path, []).extend((s.start, s.end, t) for s, t in renamed)
    assert {"common.sig", "sentiment.sig", "research.sig"} <= set(edits)
    for path, spans in edits.items():
        text = index.files[path].source.text
        assert len({start for start, _, _ in spans}) == len(spans)  # no span renamed twice
        for start, end, new in sorted(spans, reverse=True):
            text = text[:start] + new + text[end:]
        (root / path).write_text(text, encoding="utf-8")
    assert "type Sentiment987 =" in (root / "common.sig").read_text("utf-8")
    assert "{{text987}}" in (root / "sentiment.sig").read_text("utf-8")
    assert [(c, p) for c, p, _ in _findings(root)] == [(c, p) for c, p, _ in findings]
    after = _schemas(root)
    assert {name.replace(SUFFIX, ""): s.replace(SUFFIX, "") for name, s in after.items()} == before


# Tests of the examples' signatures, in a file of their own beside them.
TESTS = """\
import "sentiment.sig"

## A clearly positive review.
@repeat(2)
test positive = classify(text = "I love it") -> {sentiment == "positive", score >= 0.5}
test follow-up = act_on_sentiment(sentiment = "negative", score = 0.9) -> {
  action in ["escalate", "ignore"],
  len(note) > 0,
  priority <= 3
}
test exact = classify(text = "meh") -> {"sentiment": "neutral", "score": 0.5}
"""


def test_renaming_everything_keeps_the_tests(tmp_path: Path) -> None:
    """With tests beside the examples, renaming every declaration (the tests' too) keeps
    each test as it was but for the names: its call, arguments and checks follow."""
    root = _examples(tmp_path)
    (root / "tests.sig").write_text(TESTS, encoding="utf-8")
    before = load([root])
    mine = [
        t.name for t in before.project.tests if t.origin and t.origin.source.path == "tests.sig"
    ]
    assert mine == ["positive", "follow-up", "exact"]
    index = _loaded(root, "tests.sig").index
    edits: dict[str, list[tuple[int, int, str]]] = {}
    for declaration in index.declarations.values():
        found = navigate.rename(
            index, declaration.path, declaration.span.start, declaration.name + SUFFIX
        )
        assert not isinstance(found, navigate.Refusal), found
        for path, renamed in found.items():
            edits.setdefault(path, []).extend((s.start, s.end, t) for s, t in renamed)
    for path, spans in edits.items():
        text = index.files[path].source.text
        assert len({start for start, _, _ in spans}) == len(spans)
        for start, end, new in sorted(spans, reverse=True):
            text = text[:start] + new + text[end:]
        (root / path).write_text(text, encoding="utf-8")
    written = (root / "tests.sig").read_text("utf-8")
    assert f"test positive{SUFFIX} = classify{SUFFIX}(text{SUFFIX} = " in written
    assert f"len(note{SUFFIX}) > 0" in written
    after = load([root])
    assert [(d.code, d.path) for d in after.diagnostics] == [
        (d.code, d.path) for d in before.diagnostics
    ]

    def unnamed(test: ir.Test) -> str:
        if isinstance(test.expect, ir.Exact):
            expect: object = test.expect
        else:
            expect = [(c.path, c.op, c.value, c.length) for c in test.expect]
        seen = (test.name, test.signature, test.args, expect, test.repeat, test.min_pass_rate)
        return repr(seen).replace(SUFFIX, "")

    assert [unnamed(t) for t in after.project.tests] == [unnamed(t) for t in before.project.tests]


def test_rename_refusals(tmp_path: Path) -> None:
    index = _loaded(_examples(tmp_path)).index
    at = index.files["common.sig"].source.text.index("Sentiment")
    for bad, why in [
        ("", "not a valid name"),
        ("9lives", "not a valid name"),
        ("a.b", "not a valid name"),
        ("null", "keyword"),
        ("Priority", "the type `Priority` has that name"),
        ("agent-step", "the signature `agent_step` in agent.sig has that name (`-` and `_`"),
    ]:
        found = navigate.rename(index, "common.sig", at, bad)
        assert isinstance(found, navigate.Refusal) and why in found.message, (bad, found)


def test_sites_of_a_small_file(tmp_path: Path) -> None:
    (tmp_path / "a.sig").write_text(
        'import "b.sig"\n@prompt("{{x.y}}")\nsignature f(x B) -> :int\n', encoding="utf-8"
    )
    (tmp_path / "b.sig").write_text("type B = {y :string}\n", encoding="utf-8")
    loaded = Loaded(load_view((tmp_path / "a.sig").resolve(), {}, tmp_path.resolve()))
    index = loaded.index
    kinds = [(type(s).__name__, s.span.start) for s in index.sites["a.sig"]]
    text = index.files["a.sig"].source.text
    assert kinds == [
        ("ImportPath", text.index('"b.sig"')),
        ("Reference", text.index("x.y")),
        ("Reference", text.index("y}}")),
        ("Declaration", text.index("f(")),
        ("Declaration", text.index("x B")),
        ("Reference", text.index("B)")),
        ("PrimitiveUse", text.index(":int")),
    ]
    [tag_x, tag_y] = [s for s in index.sites["a.sig"] if isinstance(s, Reference)][:2]
    assert index.declarations[tag_x.target or ("", 0)].kind == "param"
    field = index.declarations[tag_y.target or ("", 0)]
    assert (field.kind, field.path, field.name) == ("field", "b.sig", "y")
    [imported] = [s for s in index.sites["a.sig"] if isinstance(s, ImportPath)]
    assert imported.target == "b.sig"
    assert isinstance(index.at("a.sig", text.index(":int") + 2), PrimitiveUse)
    assert index.at("a.sig", text.index("signature")) is None


def test_a_name_not_visible_resolves_to_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.sig").write_text("type A = B\n", encoding="utf-8")  # no import of b.sig
    (tmp_path / "b.sig").write_text("type B = :int\n", encoding="utf-8")
    index = Loaded(load_view((tmp_path / "a.sig").resolve(), {}, tmp_path.resolve())).index
    [reference] = [s for s in index.sites["a.sig"] if isinstance(s, Reference)]
    assert reference.target is None
    assert navigate.definition(index, "a.sig", reference.span.start) == []
    assert navigate.renameable(index, "a.sig", reference.span.start) is None


def test_the_section_names_refer_to_the_elements_fields(tmp_path: Path) -> None:
    text = (
        "type Item = {name :string, tags [:string]}\n"
        '@prompt("{{#items}}{{name}}{{#tags}}{{.}}{{/tags}}{{/items}}{{^items}}none{{/items}}")\n'
        "signature f(items [Item]) -> :string\n"
    )
    (tmp_path / "a.sig").write_text(text, encoding="utf-8")
    index = Loaded(load_view((tmp_path / "a.sig").resolve(), {}, tmp_path.resolve())).index
    name = index.declarations[("a.sig", text.index("name"))]
    uses = index.references_to(name.key)
    assert [r.span.start for r in uses] == [text.index("{{name}}") + 2]
    items = index.references_to(("a.sig", text.index("items [")))
    assert len(items) == 4  # `{{#items}}`, `{{^items}}` and their closing tags
    assert all(text[r.span.start : r.span.end] == "items" for r in items)


def test_outline_and_search(tmp_path: Path) -> None:
    index = _loaded(_examples(tmp_path)).index
    [classify, _, triage, *tests] = outline.outline(index, "sentiment.sig")
    assert tests and all(t.kind == "test" for t in tests)
    assert tests[0].detail == "test of classify"
    assert (classify.name, classify.kind) == ("classify", "signature")
    assert [c.name for c in classify.children] == ["text", "sentiment", "score"]
    assert (triage.kind, triage.detail) == ("pipeline", "classify |> act_on_sentiment")
    assert [d.name for d in outline.search(index, "SENT")][:1] == ["Sentiment"]
    assert outline.match_rank("act_on_sentiment", "aos") == 3
    assert outline.match_rank("act", "xyz") is None


def test_hover_texts(tmp_path: Path) -> None:
    loaded = _loaded(_examples(tmp_path))
    text = loaded.index.files["sentiment.sig"].source.text

    def shown(needle: str, offset: int = 0) -> str | None:
        found = hover.hover(
            loaded.index,
            loaded.view.project,
            loaded.schema,
            "sentiment.sig",
            text.index(needle) + offset,
        )
        return found.markdown if found is not None else None

    assert (shown("Priority") or "").startswith("**type** `Priority` — common.sig")
    assert "How urgent a piece of work is" in (shown("Priority") or "")
    assert shown(":float", 1) == hover.PRIMITIVE_HELP["float"]
    assert shown("# Classify a review") is None  # a comment has no hover
    assert "- default: `3`" in (shown("priority Priority") or "")


def test_views_are_kept_until_something_changes(tmp_path: Path) -> None:
    root = _examples(tmp_path).resolve()
    views = Views()
    path = root / "sentiment.sig"
    first = views.get(path, {}, root)
    assert views.get(path, {}, root) is first
    buffer = {path: path.read_text("utf-8") + "\ntype Extra = :int\n"}
    second = views.get(path, buffer, root)
    assert second is not first
    assert any(d.name == "Extra" for d in second.index.top_level("sentiment.sig"))
    assert views.get(path, buffer, root) is second
    (root / "common.sig").write_text("type Other = :int\n", encoding="utf-8")  # on disk
    third = views.get(path, buffer, root)
    assert third is not second
    views.changed_on_disk()
    assert views.get(path, buffer, root) is not third
    (root / "new.sig").write_text("type Brand_new = :int\n", encoding="utf-8")
    workspace = views.of_workspace(root, {})
    assert any(d.name == "Brand_new" for d in outline.search(workspace.index, "brand"))


def test_a_rename_for_a_client_without_document_changes(tmp_path: Path) -> None:
    from lsprotocol import types as lsp
    from pygls.workspace import PositionCodec

    from sigspec.commands.lsp.navigation import _Client, _Files, _workspace_edit

    root = _examples(tmp_path).resolve()
    loaded = _loaded(root)
    at = loaded.index.files["common.sig"].source.text.index("Priority")
    edits = navigate.rename(loaded.index, "common.sig", at, "Urgency")
    assert not isinstance(edits, navigate.Refusal)
    opened = {root / "common.sig": "file:///opened/common.sig"}
    for changes_only in (True, False):
        client = _Client(PositionCodec(lsp.PositionEncodingKind.Utf16), {}, changes_only)
        edit = _workspace_edit(_Files(loaded, client, opened), edits)
        if changes_only:
            assert edit.document_changes is None and edit.changes is not None
            assert sorted(edit.changes) == [
                "file:///opened/common.sig",
                (root / "sentiment.sig").as_uri(),
            ]
        else:
            assert edit.changes is None and edit.document_changes is not None
            assert len(edit.document_changes) == 2


def test_a_condition_section_keeps_the_names_outside(tmp_path: Path) -> None:
    text = (
        '@prompt("{{#urgent}}{{topic}}{{/urgent}}{{#missing}}{{topic}}{{/missing}}")\n'
        "signature f(urgent :bool, topic :string) -> :string\n"
    )
    (tmp_path / "a.sig").write_text(text, encoding="utf-8")
    index = Loaded(load_view((tmp_path / "a.sig").resolve(), {}, tmp_path.resolve())).index
    topic = index.references_to(("a.sig", text.index("topic :string")))
    assert [r.span.start for r in topic] == [
        text.index("{{topic}}") + 2,
        text.index("{{topic}}", text.index("missing")) + 2,
    ]


def test_the_names_a_test_uses(tmp_path: Path) -> None:
    """A test's signature, its arguments, the keys of a map it passes or expects, its
    subjects' steps through lists and unions; not a key written with an escape."""
    (tmp_path / "a.sig").write_text(
        "type T = {in [{n :int}], m :int}\n"
        "signature f(x T, y :int?) -> T | [:int]\n"
        'test t = f(x = {"in": [{"n": 1}], "\\u006d": 2}) -> {in[0].n == 1, $[0] > 2}\n'
        'test u = f(x = {"in": [], "m": 1}) -> {"in": [{"n": 3}], "m": 4}\n',
        encoding="utf-8",
    )
    loaded = Loaded(load_view((tmp_path / "a.sig").resolve(), {}, tmp_path.resolve()))
    index = loaded.index
    text = index.files["a.sig"].source.text
    found = []
    for site in index.sites["a.sig"]:
        if isinstance(site, Reference) and site.span.start > text.index("test t"):
            target = index.declarations[site.target] if site.target else None
            found.append((site.name, target.kind if target else None))
    assert found == [
        ("f", "signature"),
        ("x", "param"),
        ("in", "field"),
        ("n", "field"),
        ("in", "field"),
        ("n", "field"),
        ("f", "signature"),
        ("x", "param"),
        ("in", "field"),
        ("m", "field"),
        ("in", "field"),
        ("n", "field"),
        ("m", "field"),
    ]
    [t, u] = [d for d in index.declarations.values() if d.kind == "test"]
    assert (t.name, u.name) == ("t", "u")
    assert [o.name for o in outline.outline(index, "a.sig")] == ["T", "f", "t", "u"]
