"""PtcRunner compatibility: every inline string it accepts means the same here and renders
to the same canonical text; every string it rejects is rejected with a diagnostic.

Facts from `reference/ptc-signatures.md` (PtcRunner 0.13.0). Where PtcRunner renders zero
params as `-> T`, sigspec renders `() -> T` so that the text parses back (issue 2).
"""

from __future__ import annotations

import pytest

from sigspec import SignatureError, parse_signature

ACCEPTED = [
    # (input, canonical rendering)
    ("(a :int, b [:string]) -> {x :int?}", "(a :int, b [:string]) -> {x :int?}"),
    ("(a:int)->:int", "(a :int) -> :int"),
    ("{a:int}", "() -> {a :int}"),
    (":int", "() -> :int"),
    (":boolean", "() -> :bool"),
    (":bool", "() -> :bool"),
    ("  :string  ", "() -> :string"),
    ("\t(a :int)\n->\r\n:int", "(a :int) -> :int"),
    (":keyword", "() -> :keyword"),
    (":datetime", "() -> :datetime"),
    (":map", "() -> :map"),
    (":any", "() -> :any"),
    ("{}", "() -> {}"),
    ("[{}]", "() -> [{}]"),
    ("[:int?]", "() -> [:int?]"),
    ("[[:string]]", "() -> [[:string]]"),
    ("{a-:int}", "() -> {a- :int}"),
    ("{a_ :int}", "() -> {a_ :int}"),
    ("{a :int, A :int}", "() -> {a :int, A :int}"),
    ("{_a :int, a :int}", "() -> {_a :int, a :int}"),
    ("(a :int) -> {a :int}", "(a :int) -> {a :int}"),
    ("() -> :int", "() -> :int"),
    (
        "{user-id :string, items [{sku :string, qty :int}]}",
        "() -> {user-id :string, items [{sku :string, qty :int}]}",
    ),
    ("{a {b {c :float?}}}", "() -> {a {b {c :float?}}}"),
    (
        "{type :string, signature :int, tool :bool, true :any}",
        "() -> {type :string, signature :int, tool :bool, true :any}",
    ),
    ("(x :any) -> :any", "(x :any) -> :any"),
]

REJECTED = [
    # (input, diagnostic code)
    (":integer", "unknown-primitive"),
    (":strings", "unknown-primitive"),
    (":list", "unknown-primitive"),
    (":array", "unknown-primitive"),
    (":object", "unknown-primitive"),
    (":number", "unknown-primitive"),
    (":Int", "unknown-primitive"),
    (": int", "syntax-error"),
    (":int ?", "space-before-optional"),
    ("(a :int) - > :int", "syntax-error"),
    (":int -> :string", "syntax-error"),
    ("-> :int", "syntax-error"),
    ("[]", "syntax-error"),
    ("[:int, :string]", "syntax-error"),
    ("{a :int,}", "syntax-error"),
    ("(a :int,) -> :int", "syntax-error"),
    ("{a :int,, b :int}", "syntax-error"),
    ("{a :int b :int}", "syntax-error"),
    (":int :string", "syntax-error"),
    ("", "syntax-error"),
    ("{:a :int}", "syntax-error"),
    ("{a.b :int}", "syntax-error"),
    ("{a? :int}", "syntax-error"),
    ("{é :int}", "syntax-error"),
    ("{a\u00a0:int}", "syntax-error"),
    ("{1a :int}", "syntax-error"),
    ("(a-b :int, a_b :int) -> :int", "duplicate-param"),
    ("{a_ :int, a- :int}", "duplicate-field"),
    ("{x {a-b :int, a_b :string}}", "duplicate-field"),
    ("[{a :int, a :int}]", "duplicate-field"),
    ("(a :int) -> {b [:int", "syntax-error"),
    ("# comment\n:int", "comment-in-inline"),
    (":int??", "syntax-error"),
]


@pytest.mark.parametrize(("text", "rendered"), ACCEPTED)
def test_accepted_strings_render_canonically(text: str, rendered: str) -> None:
    sig = parse_signature(text)
    assert sig.render() == rendered
    # The canonical form parses back to the same signature.
    assert parse_signature(rendered) == parse_signature(sig.render())
    assert parse_signature(rendered).render() == rendered


@pytest.mark.parametrize(("text", "code"), REJECTED)
def test_rejected_strings_give_a_diagnostic(text: str, code: str) -> None:
    with pytest.raises(SignatureError) as info:
        parse_signature(text)
    codes = [d.code for d in info.value.diagnostics]
    assert code in codes, codes
    assert str(info.value).startswith("invalid signature")


def test_shorthand_means_no_params() -> None:
    short = parse_signature("{a :int}")
    full = parse_signature("() -> {a :int}")
    assert short.params == full.params == ()
    assert short.output == full.output
    assert short.shorthand and not full.shorthand


def test_names_keep_their_spelling() -> None:
    sig = parse_signature("(user-id :string) -> {first-name :string}")
    assert [p.name for p in sig.params] == ["user-id"]
    assert sig.render() == "(user-id :string) -> {first-name :string}"


def test_optional_binds_to_primitives_and_extensions() -> None:
    # PtcRunner rejects `[:int]?` and `{a :int}?`; sigspec accepts them as an extension
    # (DESIGN 1.2), with the same meaning as an optional primitive.
    assert parse_signature("{a [:int]?}").render() == "() -> {a [:int]?}"
    assert parse_signature("{a {b :int}?}").render() == "() -> {a {b :int}?}"


def test_params_and_fields_are_separate_namespaces() -> None:
    assert parse_signature("(a :int) -> {a :int}").render() == "(a :int) -> {a :int}"


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ('{s "a" | "b"}', '() -> {s "a" | "b"}'),
        ("{n 1 | 2}", "() -> {n 1 | 2}"),
        ("{x :string | :int}", "() -> {x :string | :int}"),
        ('{x ("a" | "b")?}', '() -> {x ("a" | "b")?}'),
        ("{id :int, ...}", "() -> {id :int, ...}"),
        ("{...}", "() -> {...}"),
        ("{flag true, nothing null}", "() -> {flag true, nothing null}"),
        ('(n :int = 3 @min(1) "count") -> {a :float = 0.5 @clamp(0, 1)}', "(n :int) -> {a :float}"),
    ],
)
def test_extensions(text: str, rendered: str) -> None:
    assert parse_signature(text).render() == rendered
