"""The language server's editing logic without a client: the completion context, the items,
the suppression edits, and range formatting's proof (formatting each declaration's range in
turn gives the whole file's format)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_fmt_roundtrip import (
    CASES,
    EXAMPLES,
    GENERATED,
    LAYOUTS,
    Tok,
    _corpus_text,
    _join,
    _layout,
    _parses,
    _split_attr,
    _tok,
    sig_files,
    values,
)

from sigspec.commands.lsp import context
from sigspec.commands.lsp.actions import REASON, read_fixes, suppressible, suppression
from sigspec.commands.lsp.complete import SNIPPETS, complete, import_insertion
from sigspec.commands.lsp.context import Context, context_at
from sigspec.commands.lsp.edit import plain
from sigspec.commands.lsp.ranges import format_range, regions
from sigspec.compiler.project import load
from sigspec.diagnostics.source import SourceFile
from sigspec.semantics.attributes import TABLE
from sigspec.syntax.fmt.run import format_source
from sigspec.syntax.parser import parse_module

NOWHERE = Path(tempfile.gettempdir()) / "sigspec-lsp-edit-never-written"
TAIL = "\nsignature later(q :int) -> :int\n"


# ---- the context -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "kind"),
    [
        ("signature a(x :", "primitive"),
        ("signature a(x :in", "primitive"),
        ("signature a(x ", "type"),
        ("signature a(x Fo", "type"),
        ("signature a(x :int, y ", "type"),
        ("signature a(x :int) -> ", "type"),
        ("signature a(x :int) -> {y ", "type"),
        ("signature a(x :int) -> [", "type"),
        ("type A = ", "type"),
        ("type A = :int | ", "type"),
        ("type A = {b (", "type"),
        ("signature a(x :int) -> {y :int @", "attribute"),
        ("@", "attribute"),
        ("@out", "attribute"),
        ("pipeline p = ", "step"),
        ("pipeline p = a |> ", "step"),
        ("@tools(", "tool"),
        ("@tools(search, ", "tool"),
        ("@output(", "mode"),
        ('@prompt("hello {{', "template"),
        ('@prompt("""\nhello {{#items}}\n{{ti', "template"),
        # Nothing to offer:
        ("# a comment :", "none"),
        ("signature a(x :int) -> :int # @", "none"),
        ('signature a(x :string "some :', "none"),
        ('signature a(x :int = {"a": ', "none"),
        ("signature a(x :int = ", "none"),
        ("signature a(x :int = [", "none"),
        ("signature a(x", "none"),
        ("signature a(x :int) -> {y", "none"),
        ('@prompt("hello")', "none"),
        ('@prompt("hello {{x}} ', "none"),
        ('@system("', "none"),
        ("signature a(x :int ", "none"),
        ("@min(", "none"),
        # Tests, and the keywords that start a declaration:
        ("", "keyword"),
        ("type A = :int\n", "keyword"),
        ("type A = :int\n\nsig", "keyword"),
        ("@deprecated\n", "keyword"),
        ("test t = ", "step"),
        ("test t = cl", "step"),
        ("test t = f(", "argument"),
        ('test t = f(x = "a", ', "argument"),
        ("test t = f(x = 1) -> {", "subject"),
        ("test t = f(x = 1) -> {a == 1, it", "subject"),
        ("test t = f(x = 1) -> {len(", "subject"),
        ("test t = f(x = 1) -> {a.b[0].", "subject"),
        ("test t = f(x = 1) -> {$.", "subject"),
        ("test test = test(test = 1) -> {test.", "subject"),
        ("test t = f(x = 1) -> ", "expectation"),
        ("@repeat(2)\ntest t = f(x = 1)\n  -> va", "expectation"),
        ("test t = f(x = ", "none"),
        ("test t = f(x = [", "none"),
        ("test t = f(x = 1) -> [", "none"),
        ("test t = f(x = 1) -> {a in [", "none"),
        ("test t = f(x = 1) -> {a == ", "none"),
        ('test t = f(x = 1) -> {"a": ', "none"),
        ("test t = f(x = 1) -> {a[", "none"),
        ("type test = ", "type"),
        ("signature test(x ", "type"),
        ("signature f(x :int) -> {test ", "type"),
        ("type A = :int te", "none"),
        ("signature f(x :int) -> {\n  ", "none"),
    ],
)
def test_the_context_before_the_cursor(before: str, kind: str) -> None:
    assert context_at(before + TAIL, len(before)).kind == kind


def test_what_a_test_context_holds() -> None:
    text = 'test t = f(a = 1, , c = {"x": [1]}, d = 2)'
    found = context_at(text, text.index(", ,") + 2)
    assert (found.kind, found.signature, found.given) == ("argument", "f", ("a", "c", "d"))
    text = "test t = f(ab = 1)"  # the word at the cursor is not given yet
    assert context_at(text, text.index("b")).given == ()
    text = "@repeat(2) test t = g() -> {$[1].items[0]. == 1}"
    found = context_at(text, text.index(" =="))
    assert (found.kind, found.signature, found.path) == ("subject", "g", (1, "items", 0))
    text = "test t = g() -> {len(items."
    assert context_at(text, len(text)).path == ("items",)
    assert context_at(text, len("test t = g() -> {len(")).nested
    text = "@\ntest t = f() -> valid"
    assert context_at(text, 1).place == "test"


def test_a_broken_declaration_above_does_not_leak() -> None:
    text = "signature a(x :int -> {\n\ntype B = "
    assert context_at(text, len(text)).kind == "type"
    text = "type A = {x :int\n@"
    assert context_at(text, len(text)) == Context("attribute", len(text), len(text), place=None)


def test_where_an_attribute_stands() -> None:
    for decl in ("signature", "tool", "type", "pipeline"):
        text = f"@\n{decl} x"
        assert context_at(text, 1).place == decl
    text = "type A = {x :int @"
    assert context_at(text, len(text)).place == "field"


def test_a_template_context() -> None:
    before = '@prompt("""{{#items}}{{^done}}{{title}}{{/done}}{{#tags}}{{/tags}}{{#'
    found = context_at(
        before + 'na}}"""\ntool t() -> :int\nsignature s(x :int) -> :int', len(before) + 2
    )
    assert found.kind == "template"
    assert (found.signature, found.sections, found.sigil, found.closed) == (
        "t",
        ("items",),
        "#",
        True,
    )
    assert (found.start, found.end) == (len(before), len(before) + 2)
    text = '@prompt("{{{na'
    found = context_at(text, len(text))
    assert (found.sigil, found.closed, found.start) == ("{", False, len(text) - 2)


TRICKY = '''\
type A = {
type :string,
  b :int @min(1)
}
@prompt("""
@mention {{x}}
type this # not a comment
signature not_one(
""")
signature f(x :string "# not a comment either") -> {
  y [A],
  z :string @format("date")
}
pipeline p = f |> f
'''

TRICKY_TESTS = """\
signature test(test :int, valid :int) -> {in :int, len [{test :int}]}
## doc
@repeat(3) @min_pass_rate(0.5)
test test = test(test = 1, valid = [1, {"a": "test t = f("}]) -> {
  in == 1, len(len) > 2,
  len[0].test in [1, 2], # test x = y(
  $.in ~ "^a"
}
test valid = test(
test = 2) -> valid
test exact = test(test = 3) -> {"in": 1, "len": []}
"""


@pytest.mark.parametrize(
    "path", [*EXAMPLES, None, Path("tests")], ids=lambda p: p.name if p else "tricky"
)
def test_reading_from_the_declaration_is_reading_the_whole(
    path: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scan from the last declaration head reads as the scan of the whole text does,
    at every offset, strings and comments holding what looks like a head included."""
    if path is None or path.suffix != ".sig":
        text = TRICKY if path is None else TRICKY_TESTS
    else:
        text = path.read_text(encoding="utf-8")
    short = [context_at(text, offset) for offset in range(len(text) + 1)]
    monkeypatch.setattr(context, "_scan_start", lambda text, offset: 0)
    whole = [context_at(text, offset) for offset in range(len(text) + 1)]
    assert short == whole
    kinds = {c.kind for c in whole}
    assert kinds >= {"none", "type", "attribute"}
    if path is None:
        assert kinds >= {"template", "primitive", "step"}
    if path == Path("tests"):
        assert kinds >= {"argument", "subject", "keyword", "attribute"}


# ---- the items ---------------------------------------------------------------------------------


# Where each attribute's default form is tried: `{}` stands for the attribute.
HOSTS = {
    "min": "signature f(x :int) -> {y :float {}}",
    "max": "signature f(x :int) -> {y :float {}}",
    "clamp": "signature f(x :int) -> {y :float {}}",
    "fallback": "signature f(x :int) -> {y :float = 0.5 {}}",
    "min_length": "signature f(x :string {}) -> :string",
    "max_length": "signature f(x :string {}) -> :string",
    "pattern": "signature f(x :string {}) -> :string",
    "format": "signature f(x :string {}) -> :string",
    "min_items": "signature f(x [:string] {}) -> :string",
    "max_items": "signature f(x [:string] {}) -> :string",
    "deprecated": "{}\nsignature f(x :int) -> :int",
    "compression": "{}\n@output(ptc_lisp)\nsignature f(x :int) -> :int",
    "repeat": "signature f(x :int) -> :int\n{}\ntest t = f(x = 1) -> valid",
    "min_pass_rate": "signature f(x :int) -> :int\n{}\ntest t = f(x = 1) -> valid",
    "prompt": "{}\nsignature f() -> :string",
    "system": "{}\nsignature f() -> :string",
    "tools": "tool t(q :string) -> :string\n{}\n@output(ptc_lisp)\nsignature f(x :int) -> :int",
}


@pytest.mark.parametrize("name", sorted(TABLE))
def test_each_attribute_as_offered_lints_clean(name: str) -> None:
    """Its snippet with every placeholder at its default (`tools` with a tool's name)."""
    assert set(SNIPPETS) == set(TABLE)
    text = "@" + plain(SNIPPETS[name][0])
    assert "${" not in text
    if name == "tools":
        text = text.replace("()", "(t)")
    host = HOSTS.get(name, "{}\nsignature f(x :int) -> :string")
    assert lint(host.replace("{}", text) + "\n") == []


def test_plain_takes_each_default() -> None:
    assert plain("clamp(${1:0}, ${2:1})") == "clamp(0, 1)"
    assert plain('format("${1|date-time,date|}")') == 'format("date-time")'
    assert plain("tools($1)") == "tools()"
    assert plain("#x}}$0{{/x}}") == "#x}}{{/x}}"


def test_no_view_offers_no_names() -> None:
    assert complete(Context("type", 0, 0), None, Path("/x.sig"), "") != []  # primitives still
    assert all(
        i.kind == "primitive" for i in complete(Context("type", 0, 0), None, Path("/x.sig"), "")
    )
    assert complete(Context("step", 0, 0), None, Path("/x.sig"), "") == []
    assert complete(Context("none", 0, 0), None, Path("/x.sig"), "") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 'import "x.sig"\n'),
        ("# only a comment", '# only a comment\nimport "x.sig"\n'),
        ("type A = :int\n", 'import "x.sig"\n\ntype A = :int\n'),
        ("# head\n\n## doc\n@deprecated\ntype A = :int\n", '# head\n\nimport "x.sig"\n\n## doc\n'),
        ('import "a.sig"\nimport "b.sig"\n\ntype A = :int\n', 'import "b.sig"\nimport "x.sig"\n\n'),
        ('import "a.sig"', 'import "a.sig"\nimport "x.sig"'),
    ],
)
def test_where_an_import_goes(text: str, expected: str) -> None:
    at, line = import_insertion(text, "x.sig")
    edited = text[:at] + line + text[at:]
    assert expected in edited
    if parse_module(SourceFile("a.sig", text))[0] is not None:
        assert parse_module(SourceFile("a.sig", edited))[0] is not None


# ---- fixes the client sends back ---------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        None,
        3,
        "x",
        [],
        {},
        {"sigspec": []},
        {"sigspec": {"fixes": {}}},
        {"sigspec": {"fixes": [1]}},
    ],
)
def test_unreadable_data_has_no_fixes(data: object) -> None:
    assert read_fixes(data) == []


def test_fix_data_reads_back() -> None:
    where = {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}
    data = {
        "sigspec": {"fixes": [{"range": where, "old": ":integer", "new": ":int"}, {"range": {}}]}
    }
    [fix] = read_fixes(data)
    assert (fix.old, fix.new, fix.title) == (":integer", ":int", "Replace with `:int`")


# ---- suppressions ------------------------------------------------------------------------------


def lint(text: str) -> list[tuple[str, int]]:
    """The (code, line) of what `sigspec lint` reports on a one-file project."""
    path = NOWHERE / "a.sig"
    result = load([path], root=NOWHERE, overlay={path: text})
    return [
        (d.code, d.source.position(d.span.start).line)
        for d in result.diagnostics
        if d.source and d.span
    ]


def suppressed(text: str, code: str, line: int) -> str:
    edit = suppression(text, line, code)
    assert edit is not None
    return edit.apply(text)


CASES_SUPPRESSED = [
    # (text, code, line, where the comment goes)
    (
        'signature f(\n  x :string @format("iri"),\n  y :string @format("iri")\n) -> :string\n',
        "unchecked-format",
        2,
        "  # sigspec: ignore[unchecked-format] reason: ...\n  x :string",
    ),
    (
        '@prompt("{{nope}}")\nsignature f(x :string) -> :string\n',
        "unknown-prompt-variable",
        1,
        '@prompt("{{nope}}")  # sigspec: ignore[unknown-prompt-variable] reason: ...\n',
    ),
    (
        'signature f(x :string @format("iri")) -> {y :string @format("iri")}  # note\n',
        "unchecked-format",
        1,
        "# sigspec: ignore[unchecked-format] reason: ...\nsignature",
    ),
    (
        '@prompt("""\nsay {{x}}\n""")\nsignature f(x :string @format("iri"), y :int) -> :string\n',
        "unchecked-format",
        4,
        "# sigspec: ignore[unchecked-format] reason: ...\nsignature",
    ),
]


@pytest.mark.parametrize(("text", "code", "line", "expected"), CASES_SUPPRESSED)
def test_a_suppression_silences_its_diagnostic_and_lints_clean(
    text: str, code: str, line: int, expected: str
) -> None:
    before = lint(text)
    assert (code, line) in before
    after_text = suppressed(text, code, line)
    assert expected in after_text
    after = lint(after_text)
    # That code on that line is gone, and nothing else (the lines below may have moved down).
    others = [c for c, at in before if (c, at) != (code, line)]
    assert sorted(c for c, _ in after) == sorted(others)


def test_a_suppression_keeps_the_line_ends() -> None:
    text = 'signature f(\r\n  x :string @format("iri")\r\n) -> :string\r\n'
    edited = suppressed(text, "unchecked-format", 2)
    assert "\n" not in edited.replace("\r\n", "")
    assert lint(edited) == []


def test_a_second_code_joins_the_suppression_on_the_line() -> None:
    text = (
        'signature f(x :string @format("iri")) -> :string  # sigspec: ignore[reserved-name] why\n'
    )
    assert ("unused-suppression", 1) in lint(text)
    merged = suppressed(text, "unchecked-format", 1)
    assert merged.endswith("# sigspec: ignore[reserved-name, unchecked-format] why\n")
    assert suppression(merged, 1, "unchecked-format") is None  # already there


def test_a_suppression_covering_from_above_is_joined() -> None:
    text = (
        "# sigspec: ignore[reserved-name] why\n@deprecated\n"
        'signature f(x :string @format("iri")) -> :string\n'
    )
    merged = suppressed(text, "unchecked-format", 3)
    assert merged.startswith("# sigspec: ignore[reserved-name, unchecked-format] why\n")
    assert lint(merged.replace("reserved-name, ", "")) == []


def test_inside_a_triple_quoted_prompt_the_comment_goes_above_the_attributes() -> None:
    text = (
        'type T = :int\n\n## Doc.\n@deprecated\n@prompt("""\nsay {{nope}}\n""")\n'
        "signature f(x :string) -> :string\n"
    )
    assert ("unknown-prompt-variable", 6) in lint(text)
    edited = suppressed(text, "unknown-prompt-variable", 6)
    assert "## Doc.\n# sigspec: ignore[unknown-prompt-variable] reason: ...\n@deprecated" in edited
    assert lint(edited) == []
    # A second code on a line it covers joins its brackets.
    assert suppression(edited, 7, "unknown-prompt-variable") is None


def test_no_suppression_in_a_file_that_does_not_parse() -> None:
    assert suppression("signature f(x :int -> :int\n", 1, "unknown-type") is None


def test_what_can_be_suppressed() -> None:
    assert suppressible("unknown-type") and suppressible("unchecked-format")
    assert not suppressible("removed-param")  # breaking: `breaking_ignore` instead
    assert not suppressible("unused-suppression") and not suppressible("internal-error")
    assert REASON.strip()


# ---- range formatting --------------------------------------------------------------------------


def format_each_declaration(text: str, *, own: bool = True) -> str:
    """Range-format every declaration's own span in turn, on the text as it is then. Each
    edit replaces whole regions, its declaration's (only its own, when `own`)."""
    module, _ = parse_module(SourceFile("a.sig", text))
    assert module is not None
    if not module.decls:  # comments only: one region, the whole file
        found = format_range("a.sig", text, 0, 0)
        return text if found is None else found.text
    for index in range(len(module.decls)):
        now, _ = parse_module(SourceFile("a.sig", text))
        assert now is not None
        decl = now.decls[index]
        found = format_range("a.sig", text, decl.span.start, decl.span.end)
        if found is not None:
            bounds = regions(text)
            assert bounds is not None
            assert found.start in bounds and found.end in bounds
            assert found.start <= bounds[index] and found.end >= bounds[index + 1]
            if own:
                assert (found.start, found.end) == (bounds[index], bounds[index + 1])
            text = text[: found.start] + found.text + text[found.end :]
    return text


# Tests laid out as no formatter would, comments inside their calls and checks.
MESSY_TESTS = """\
signature   f(x :int, y :string = "a") -> {a :int, b [{c :string}]}
## doc of t1
@repeat( 3 )   @min_pass_rate(0.5)
test   t1 = f( x = 1 ,y="b" )->{a==1,len( b )>=1 ,
   b[0].c ~ "^x", # why
   $ . a in [1,2]}
test t2 = f(
  # the one argument
  x = 2) -> valid    # trailing
test t3=f(x=3)->{"a": 1, "b": []}
type T = {x :int}
"""


def _corpus() -> list[tuple[str, str]]:
    fmt_cases = [p for p in CASES if p.parent.name == "fmt"]
    texts = [(f"{p.parent.name}/{p.name}", _corpus_text(p)) for p in [*EXAMPLES, *fmt_cases]]
    texts += [("tests/messy", MESSY_TESTS), ("tests/tricky", TRICKY_TESTS)]
    return [
        (f"{name}:{layout}", LAYOUTS[layout](text)) for name, text in texts for layout in LAYOUTS
    ]


@pytest.mark.parametrize(("name", "text"), _corpus(), ids=[n for n, _ in _corpus()])
def test_each_declaration_in_turn_gives_the_whole_format(name: str, text: str) -> None:
    whole = format_source(SourceFile("a.sig", text)).text
    assert whole is not None
    # `sigspec fmt` writes LF; a selection is reprinted in the file's own line ends where
    # that means the same (not in a triple-quoted string holding a CRLF: its value).
    assert _lf(format_each_declaration(text)) == whole


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


@GENERATED
@given(sig_files())
def test_generated_files_by_declaration(text: str) -> None:
    assert _parses(text)
    whole = format_source(SourceFile("a.sig", text)).text
    # A comment the formatter moves out of a declaration widens its edit (below).
    assert _lf(format_each_declaration(text, own=False)) == whole


SUBJECTS = ["$", "a", "a.b", "$[0]", "a[1].b", "$.a"]
OPERATORS = ["==", "!=", "<", "<=", ">", ">=", "in", "~"]


@st.composite
def declared_tests(draw: st.DrawFn, index: int) -> list[Tok]:
    """A test's tokens (it need not check clean: formatting reads its syntax alone)."""
    attrs: list[Tok] = []
    for attr in draw(st.lists(st.sampled_from(["@repeat(3)", "@min_pass_rate(0.5)"]))):
        attrs += _split_attr(attr)
    args = [[(name, False), ("=", False), *draw(values(1))] for name in draw(st.sets(_NAMES))]
    call = _join("(", args, ")")
    kind = draw(st.sampled_from(["valid", "value", "checks"]))
    expect: list[Tok]
    if kind == "valid":
        expect = _tok("valid")
    elif kind == "value":
        expect = draw(values())
    else:
        checks = []
        for _ in range(draw(st.integers(1, 3))):
            subject = draw(st.sampled_from(SUBJECTS))
            operators = OPERATORS
            if draw(st.booleans()):  # a length compares
                subject, operators = f"len({subject})", OPERATORS[:6]
            checks.append([*_tok(subject, draw(st.sampled_from(operators))), *draw(values(1))])
        expect = _join("{", checks, "}")
    return [*attrs, *_tok("test", f"t{index}", "=", "f"), *call, ("->", False), *expect]


_NAMES = st.sampled_from(["x", "y", "test", "valid", "in"])


@st.composite
def files_with_tests(draw: st.DrawFn) -> str:
    tokens: list[Tok] = []
    for index in range(draw(st.integers(1, 3))):
        tokens += draw(declared_tests(index))
    return draw(sig_files()) + "\n" + _layout(draw, tokens)


@GENERATED
@given(files_with_tests())
def test_generated_tests_by_declaration(text: str) -> None:
    assert _parses(text)
    whole = format_source(SourceFile("a.sig", text)).text
    assert whole is not None
    assert _lf(format_each_declaration(text, own=False)) == whole


def test_a_comment_moved_across_declarations_widens_the_edit() -> None:
    text = "type T0 =\n## looks like a doc\n:string type T1 = :string"
    found = format_range("a.sig", text, 0, 3)
    assert found is not None
    assert (found.start, found.end) == (0, len(text))  # both: the comment moves to T1
    assert found.text == format_source(SourceFile("a.sig", text)).text


def test_a_cursor_formats_the_declaration_around_it() -> None:
    text = "type   A = :int\n\n\n\ntype   B = :int\n"
    found = format_range("a.sig", text, 2, 2)
    assert found is not None
    assert (
        text[: found.start] + found.text + text[found.end :]
        == "type A = :int\n\n\n\ntype   B = :int\n"
    )
    found = format_range("a.sig", text, len(text), len(text))
    assert found is not None
    assert (
        text[: found.start] + found.text + text[found.end :] == "type   A = :int\n\ntype B = :int\n"
    )


def test_refused_or_broken_texts_get_nothing() -> None:
    assert format_range("a.sig", "type A = :int -> x\n", 0, 3) is None
    assert format_range("a.sig", "type A = :int\n", 0, 3) is None  # already formatted


def test_a_crlf_file_keeps_its_line_ends() -> None:
    text = 'type   A = :int\r\n\r\n@prompt("x {{y}}")\r\nsignature   f(y :string) -> :string\r\n'
    found = format_range("a.sig", text, text.index("signature"), text.index("signature"))
    assert found is not None
    edited = text[: found.start] + found.text + text[found.end :]
    assert edited.startswith("type   A = :int\r\n")  # untouched
    assert "signature f(y :string) -> :string\r\n" in edited
    assert "\n" not in edited.replace("\r\n", "")  # no bare LF: one style
    lf = format_source(SourceFile("a.sig", text.replace("\r\n", "\n"))).text
    assert lf is not None and edited.replace("\r\n", "\n") == lf.replace("type A", "type   A")
