"""`fmt` is a proven round trip: its output parses to the same checked IR (schemas, prompts,
doc comments, diagnostics) with every comment kept, and a second pass changes nothing.

Held over the examples, the check and fmt cases, the shared (PtcRunner) signature cases,
every one of those with CRLF line ends, tab indents and a comment between every two tokens,
and generated files (a hypothesis strategy built from the grammar's constructs with random
comments and layout); plus one regression case for each reprint that used not to parse.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ptc_compat import ACCEPTED

from sigspec.compiler.meaning import difference, meanings
from sigspec.compiler.project import load
from sigspec.diagnostics.source import SourceFile
from sigspec.syntax.fmt.run import format_source, strip_spans
from sigspec.syntax.parser import parse_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.sig"))
CASES = sorted((ROOT / "tests" / "cases").glob("*/*.sig"))
# Never written: files are loaded from their texts (the loader's overlay).
NOWHERE = Path(tempfile.gettempdir()) / "sigspec-fmt-roundtrip-never-written"


def fmt(text: str) -> str:
    result = format_source(SourceFile("case.sig", text))
    assert result.refused is None, result.refused
    assert result.text is not None, [d.message for d in result.diagnostics]
    return result.text


def comments(text: str) -> Counter[str]:
    module, _ = parse_module(SourceFile("case.sig", text))
    assert module is not None
    return Counter(c.text.rstrip() for c in module.comments)


def assert_round_trip(texts: Mapping[Path, str]) -> None:
    """Each text formats to one that parses to the same AST, doc comments and comments,
    formats to itself, and loads (with its imports) to the same meaning, lowered views too."""
    formatted: dict[Path, str] = {}
    for path, text in texts.items():
        out = fmt(text)
        assert fmt(out) == out, "not idempotent"
        before, _ = parse_module(SourceFile(path.name, text))
        after, _ = parse_module(SourceFile(path.name, out))
        assert strip_spans(before) == strip_spans(after)
        assert comments(text) == comments(out)
        formatted[path] = out
    paths = sorted(texts)
    old = meanings(load(paths, overlay=texts), lowered=True)
    new = meanings(load(paths, overlay=formatted), lowered=True)
    changes = {p: difference(old.get(p), new.get(p)) for p in {*old, *new}}
    assert not any(changes.values()), changes
    assert old == new


# ---- the corpus, and the same files laid out in other ways ----------------------------------


def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def _tabs(text: str) -> str:
    return re.sub(r"(?m)^( +)", lambda m: "\t" * len(m.group(1)), text)


_TOKEN = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n\r]|\\.)*"|#[^\n]*|->|\|>|\.\.\.|[=!<>]='
    r"|[:@]?[A-Za-z_][A-Za-z0-9_-]*|-?[0-9][0-9.eE+-]*|\S",
    re.DOTALL,
)


def _commented(text: str) -> str:
    """A comment after every token but a comment (and before `?`, which must stay glued)."""
    tokens = list(_TOKEN.finditer(text))
    out: list[str] = []
    for index, token in enumerate(tokens):
        out.append(token.group())
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        end = following.start() if following else len(text)
        gap = text[token.end() : end]
        glued = following is not None and following.group() == "?"
        if token.group().startswith("#") or glued:
            out.append(gap)
        else:
            out.append(f"{gap} # c{index}\n")
    return text[: tokens[0].start()] + "".join(out) if tokens else text


LAYOUTS = {"as-is": lambda t: t, "crlf": _crlf, "tabs": _tabs, "commented": _commented}


def _parses(text: str) -> bool:
    module, diags = parse_module(SourceFile("case.sig", text))
    return module is not None and not any(d.is_error for d in diags)


def _corpus_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.parent.name == "fmt":
        text = text.partition("# output\n")[0]
    return text


@pytest.mark.parametrize("layout", LAYOUTS)
def test_examples_round_trip(layout: str) -> None:
    """Together, since they import each other."""
    assert_round_trip({p: LAYOUTS[layout](p.read_text(encoding="utf-8")) for p in EXAMPLES})


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cases_round_trip(path: Path, layout: str) -> None:
    text = LAYOUTS[layout](_corpus_text(path))
    if not _parses(text):  # the syntax-error cases: fmt leaves them alone
        assert format_source(SourceFile(path.name, text)).text is None
        return
    assert_round_trip({NOWHERE / path.name: text})


def test_ptc_runner_cases_round_trip() -> None:
    """PtcRunner's accepted signature strings, each as a signature of one file."""
    lines = []
    for index, (text, _) in enumerate(ACCEPTED):
        body = text.strip() if text.strip().startswith("(") else f"() -> {text.strip()}"
        lines.append(f"signature ptc{index}{body}")
    for layout in LAYOUTS.values():
        assert_round_trip({NOWHERE / "ptc.sig": layout("\n".join(lines) + "\n")})


# ---- regressions: reprints that did not parse, or meant something else ---------------------

REGRESSIONS = [
    # `?` binds to an atom: an optional of an optional (or of a union) keeps its parentheses.
    ("type A = (:int?)?", "type A = (:int?)?\n"),
    ("type A = ((:int | :string)?)?", "type A = ((:int | :string)?)?\n"),
    ("type A = {a (:int?)? = 1}", "type A = {a (:int?)? = 1}\n"),
    ("type A = [(:int?)?]", "type A = [(:int?)?]\n"),
    # A triple-quoted string ending in an escaped quote: the escape is one backslash.
    ('type A = {a :string = """ends with \\""""}', 'type A = {a :string = """ends with \\""""}\n'),
    ('@prompt("""say \\"hi\\"""") signature f() -> :int', None),
    ('type A = {a :string = """a\\"\\"\\"b"""}', 'type A = {a :string = """a\\"\\""b"""}\n'),
    ('type A = {a :string = """x\\\\"""}', 'type A = {a :string = """x\\\\"""}\n'),
    # A `##` comment that is not a doc comment does not become one above its declaration.
    ("@a\n## not a doc\ntype A = :int", "## not a doc\n\n@a\ntype A = :int\n"),
    ("type A =\n## not a doc\n:int", "## not a doc\n\ntype A = :int\n"),
    ("## doc\n@a\n## not a doc\ntype A = :int", "## not a doc\n\n## doc\n@a\ntype A = :int\n"),
]


@pytest.mark.parametrize(("source", "expected"), REGRESSIONS)
def test_regression(source: str, expected: str | None) -> None:
    out = fmt(source)
    if expected is not None:
        assert out == expected
    assert_round_trip({NOWHERE / "case.sig": source})


HIDDEN = ["\\u202e", "\\u2028", "\\u2029", "\\u0085", "\\u007f", "\\ufeff", "\\u200b", "\\u001b"]


@pytest.mark.parametrize("escape", HIDDEN)
@pytest.mark.parametrize("quotes", ['"', '"""'])
def test_hidden_characters_stay_escaped(escape: str, quotes: str) -> None:
    """A character that hides or reorders text is never written raw (a bidi override that a
    source spelled `\\u202e` stays visible as that escape)."""
    out = fmt(f"type A = {{a :string = {quotes}x{escape}y{quotes}}}")
    assert escape.encode().decode("unicode_escape") not in out
    assert escape in out


def test_printable_unicode_and_joiners_are_written_as_they_are() -> None:
    out = fmt('type A = {a :string = "\\u00e9\\ud83d\\udc68\\u200d\\ud83d\\udc69"}')
    assert '"é👨\u200d👩"' in out


def test_control_characters_in_triple_strings() -> None:
    out = fmt('type A = {a :string = """tab\\tcr\\r\\nnul\\u0000"""}')
    assert '"""\ntab\tcr\\r\nnul\\u0000"""' in out


# ---- generated files ---------------------------------------------------------------------

Tok = tuple[str, bool]  # the token's text, and whether it is glued to the one before
GLUE = True
PRIMS = [":string", ":int", ":float", ":bool", ":boolean", ":keyword", ":datetime", ":map", ":any"]
FIELD_NAMES = ["a", "b", "c-d", "e_f", "type", "signature", "true", "null", "x1", "Y"]
SEPARATORS = [" ", " ", " ", "  ", "\t", "\n", "\r\n", "\n\n", "\n    ", ""]
COMMENTS = [
    "# a comment",
    "#",
    "## looks like a doc",
    "# sigspec: ignore[unknown-type] a reason",
    '#{{ not a template }} "quoted" \\',
    "# trailing spaces   ",
]
PUNCT = {"(", ")", "[", "]", "{", "}", ",", "=", "|", "->", "|>", "..."}
AFTER_WORD = {")", "]", "}", ",", "=", "|", "..."}


def _tok(*texts: str) -> list[Tok]:
    return [(t, False) for t in texts]


STRING_CHARS = st.characters(
    codec="utf-8", exclude_categories=("Cs",), include_characters='"\\\n\t\r{}#'
)


@st.composite
def strings(draw: st.DrawFn) -> str:
    value = draw(st.text(STRING_CHARS, max_size=12))
    if draw(st.booleans()):
        return json.dumps(value, ensure_ascii=draw(st.booleans()))
    body = "".join(_triple_char(c) for c in value)
    lead = "\n" if value.startswith(("\n", "\r")) or draw(st.booleans()) else ""
    return f'"""{lead}{body}"""'


def _triple_char(char: str) -> str:
    if char in '\\"':
        return "\\" + char
    if ord(char) < 32 and char not in "\n\t":
        return f"\\u{ord(char):04x}"
    return char


NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["-0", "-0.0", "1E5", "1.50", "0.0e0", "1e308", "2e-308", "1e-400"]),
)
SCALARS = st.one_of(strings(), NUMBERS, st.sampled_from(["true", "false", "null"]))


def values(depth: int = 2) -> st.SearchStrategy[list[Tok]]:
    scalar = SCALARS.map(_tok)
    if depth == 0:
        return scalar
    inner = values(depth - 1)
    lists = st.lists(inner, max_size=3).map(lambda xs: _join("[", xs, "]"))
    pairs = st.lists(st.tuples(strings(), inner), max_size=3).map(
        lambda ps: _join("{", [[(k, False), (":", False), *v] for k, v in ps], "}")
    )
    return st.one_of(scalar, lists, pairs)


def _join(open_: str, items: list[list[Tok]], close: str) -> list[Tok]:
    out: list[Tok] = [(open_, False)]
    for index, item in enumerate(items):
        if index:
            out.append((",", False))
        out += item
    return [*out, (close, False)]


def _split_attr(text: str) -> list[Tok]:
    """`@name(a, b)` as tokens; arguments hold no commas of their own."""
    name, paren, rest = text.partition("(")
    if not paren:
        return _tok(name)
    args = [a.strip() for a in rest[:-1].split(",") if a.strip()]
    return [(name, False), *_join("(", [_tok(a) for a in args], ")")]


FIELD_ATTRS = st.sampled_from(
    [
        "@min(0)",
        "@max(10.5)",
        "@min_length(1)",
        "@max_length(20)",
        "@min_items(0)",
        "@max_items(3)",
        '@pattern("^[a-z]+$")',
        "@format(email)",
        "@clamp(0, 1)",
        "@fallback",
        "@deprecated",
        '@deprecated("use b")',
        "@deprecated()",
    ]
).map(_split_attr)


@st.composite
def types(draw: st.DrawFn, named: tuple[str, ...], depth: int = 3) -> tuple[list[Tok], str]:
    """A type's tokens and its binding: "atom", "optional" or "union"."""
    kinds = ["prim", "literal", "named"] if named else ["prim", "literal"]
    if depth > 0:
        kinds += ["list", "map", "optional", "union", "group"]
    kind = draw(st.sampled_from(kinds))
    if kind == "prim":
        return _tok(draw(st.sampled_from(PRIMS))), "atom"
    if kind == "named":
        return _tok(draw(st.sampled_from(named))), "atom"
    if kind == "literal":
        return _tok(draw(SCALARS)), "atom"
    inner, binding = draw(types(named, depth - 1))
    if kind == "list":
        return [("[", False), *inner, ("]", False)], "atom"
    if kind == "map":
        return draw(maps(named, depth - 1)), "atom"
    if kind == "group":
        return [("(", False), *inner, (")", False)], "atom"
    if kind == "optional":
        atom = inner if binding == "atom" else [("(", False), *inner, (")", False)]
        return [*atom, ("?", GLUE)], "optional"
    members = [(inner, binding), *draw(st.lists(types(named, depth - 1), min_size=1, max_size=3))]
    out: list[Tok] = []
    for index, (tokens, member_binding) in enumerate(members):
        if index:
            out.append(("|", False))
        out += [("(", False), *tokens, (")", False)] if member_binding == "union" else tokens
    return out, "union"


@st.composite
def fields(draw: st.DrawFn, named: tuple[str, ...], depth: int) -> list[Tok]:
    names = draw(
        st.lists(st.sampled_from(FIELD_NAMES), max_size=4, unique_by=lambda n: n.replace("-", "_"))
    )
    out: list[list[Tok]] = []
    for name in names:
        tokens, _ = draw(types(named, depth))
        field = [(name, False), *tokens]
        if draw(st.booleans()):
            field += [("=", False), *draw(values())]
        for attr in draw(st.lists(FIELD_ATTRS, max_size=2)):
            field += attr
        if draw(st.booleans()):
            field.append((draw(strings()), False))
        out.append(field)
    return _join("(", out, ")")[1:-1]


@st.composite
def maps(draw: st.DrawFn, named: tuple[str, ...], depth: int) -> list[Tok]:
    body = draw(fields(named, depth))
    if draw(st.integers(0, 3)) == 0:
        body = [*body, (",", False), ("...", False)] if body else [("...", False)]
    return [("{", False), *body, ("}", False)]


SIGNATURE_ATTRS = [
    '@prompt("Use {{a}} and {{b}}")',
    '@prompt("""\nLine {{a}}.\n  Indented "quoted" {{#b}}x{{/b}}\n""")',
    '@system("Be brief.")',
    "@output(json)",
    "@output(text)",
    "@max_turns(3)",
    "@allow_extra_keys",
    "@no_output_instructions",
    "@compression",
    "@deprecated",
    '@unknown(a, 1, [1], {"k": null})',
]


@st.composite
def declarations(draw: st.DrawFn, index: int, named: tuple[str, ...]) -> tuple[list[Tok], str]:
    kind = draw(st.sampled_from(["type", "type", "signature", "signature", "tool", "other"]))
    attrs: list[Tok] = []
    if kind == "type":
        tokens, _ = draw(types(named))
        if draw(st.booleans()):
            attrs = _split_attr("@deprecated")
        return [*attrs, *_tok("type", f"T{index}", "="), *tokens], f"T{index}"
    if kind in ("signature", "tool"):
        if kind == "signature":
            for attr in draw(st.lists(st.sampled_from(SIGNATURE_ATTRS), max_size=2, unique=True)):
                attrs += _split_attr(attr)
        params = draw(fields(named, 2))
        output, _ = draw(types(named))
        head = _tok(kind, f"{kind[0]}{index}", "(")
        return [*attrs, *head, *params, *_tok(")", "->"), *output], ""
    if kind == "other" and draw(st.booleans()):
        return draw(declared_tests(index)), ""
    if draw(st.booleans()):
        return _tok("import", draw(strings())), ""
    return _tok("pipeline", f"p{index}", "=", "s1", "|>", "s2"), ""


SUBJECTS = ["$", "a", "c-d", "a.b", "a[0]", "$[1].e_f", "type.in", "valid", "len"]
OPERATORS = ["==", "!=", "<", "<=", ">", ">=", "in", "~"]


@st.composite
def declared_tests(draw: st.DrawFn, index: int) -> list[Tok]:
    """`test tN = s1(a = value, ...) -> valid | value | {checks}`, with test attributes."""
    attrs: list[Tok] = []
    for attr in draw(st.lists(st.sampled_from(["@repeat(3)", "@min_pass_rate(0.5)"]), max_size=2)):
        attrs += _split_attr(attr)
    names = draw(st.lists(st.sampled_from(FIELD_NAMES), max_size=3, unique=True))
    args = [[(name, False), ("=", False), *draw(values())] for name in names]
    head = [*attrs, *_tok("test", f"t{index}", "=", "s1"), *_join("(", args, ")"), *_tok("->")]
    shape = draw(st.sampled_from(["valid", "value", "checks"]))
    if shape == "valid":
        return [*head, *_tok("valid")]
    if shape == "value":
        return [*head, *draw(values())]
    checks: list[list[Tok]] = []
    for _ in range(draw(st.integers(1, 3))):
        subject = _tok(draw(st.sampled_from(SUBJECTS)))
        operators = OPERATORS
        if draw(st.booleans()):  # `len(...)` compares: no `in`, no `~`
            subject = [("len", False), ("(", False), *subject, (")", False)]
            operators = OPERATORS[:6]
        checks.append([*subject, (draw(st.sampled_from(operators)), False), *draw(values())])
    return [*head, *_join("{", checks, "}")]


@st.composite
def sig_files(draw: st.DrawFn) -> str:
    tokens: list[Tok] = []
    named: tuple[str, ...] = ()
    for index in range(draw(st.integers(0, 4))):
        decl, name = draw(declarations(index, named))
        tokens += decl
        named += (name,) if name else ()
    return _layout(draw, tokens)


def _layout(draw: st.DrawFn, tokens: list[Tok]) -> str:
    out: list[str] = []
    previous = ""
    for text, glued in tokens:
        if previous and not glued:
            out.append(_separator(draw, previous, text))
        out.append(text)
        previous = text
    if draw(st.booleans()):
        out.append("\n" + draw(st.sampled_from(COMMENTS)))
    return draw(st.sampled_from(["", "# header\n\n", "## doc\n"])) + "".join(out)


def _separator(draw: st.DrawFn, left: str, right: str) -> str:
    if draw(st.integers(0, 5)) == 0:
        comment = draw(st.sampled_from(COMMENTS))
        return (
            draw(st.sampled_from([" ", "\n", ""]))
            + comment
            + draw(st.sampled_from(["\n", "\r\n", "\n\n"]))
        )
    sep = draw(st.sampled_from(SEPARATORS))
    if sep == "" and not (left in PUNCT or (right in AFTER_WORD and not _is_string(left))):
        sep = " "
    if sep == "" and _is_string(left) and _is_string(right):
        sep = " "
    return sep


def _is_string(token: str) -> bool:
    return token.startswith('"')


GENERATED = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@GENERATED
@given(sig_files())
def test_generated_files_round_trip(text: str) -> None:
    assert _parses(text), text
    assert_round_trip({NOWHERE / "generated.sig": text})
