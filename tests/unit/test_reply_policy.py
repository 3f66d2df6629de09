"""reference/reply-policy.md as a table: what the reply parser accepts (with which repairs)
and what it rejects. Every row is one rule of the policy."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sigspec import parse_signature
from sigspec.runtime import parse
from sigspec.runtime.common import ReplyError
from sigspec.semantics.descriptors import output_descriptor

SENTIMENT = parse_signature('{sentiment "positive" | "negative" | "neutral", score :float}')
COUNT = parse_signature("{count :int, ok :bool}")
ITEMS = parse_signature("[{t :string}]")
NESTED = parse_signature("{a {b :int, c :int}, d :string?}")
ARGS = parse_signature("{tool :string, args {q :int}}")
OPEN = parse_signature("{a :int, ...}")
GOOD = {"sentiment": "positive", "score": 0.9}


def run(sig: Any, text: str) -> Any:
    return parse(text, output_descriptor(sig), {})


ACCEPT = [
    # (signature, reply, value, a repair that must be reported or None)
    (SENTIMENT, '{"sentiment": "positive", "score": 0.9}', GOOD, None),
    (SENTIMENT, '```json\n{"sentiment": "positive", "score": 0.9}\n```', GOOD, None),
    (SENTIMENT, '```\n{"sentiment": "positive", "score": 0.9}\n```', GOOD, None),
    (SENTIMENT, '~~~js\n{"sentiment": "positive", "score": 0.9}\n~~~', GOOD, None),
    (SENTIMENT, '````json\n{"sentiment": "positive", "score": 0.9}\n````', GOOD, None),
    (SENTIMENT, 'Result:\n```json\n{"sentiment": "positive", "score": 0.9}', GOOD, None),
    (SENTIMENT, '<answer>{"sentiment": "positive", "score": 0.9}</answer>', GOOD, None),
    (SENTIMENT, 'It is `{"sentiment": "positive", "score": 0.9}`.', GOOD, None),
    (SENTIMENT, 'Use {x} or [1]. {"sentiment": "positive", "score": 0.9} Thanks!', GOOD, None),
    (
        SENTIMENT,
        '<think>{"sentiment": "negative", "score": 0.1}</think>'
        '{"sentiment": "positive", "score": 0.9}',
        GOOD,
        None,
    ),
    (
        SENTIMENT,
        'maybe {"sentiment": "negative", "score": 0.1}</think>'
        '{"sentiment": "positive", "score": 0.9}',
        GOOD,
        None,
    ),
    (SENTIMENT, '{"sentiment": "positive", "score": 0.9,}', GOOD, "trailing comma"),
    # The balanced span leaves the comma out: the value is untouched, nothing to report.
    (SENTIMENT, '{"sentiment": "positive", "score": 0.9},', GOOD, None),
    (SENTIMENT, "{'sentiment': 'positive', 'score': 0.9}", GOOD, "single-quoted"),
    (SENTIMENT, '{sentiment: "positive", score: 0.9}', GOOD, "bare key"),
    (SENTIMENT, '{"sentiment": "positive", // why\n "score": 0.9 /* c */}', GOOD, "comments"),
    (SENTIMENT, '{"sentiment": "positive", # note\n "score": 0.9}', GOOD, "comments"),
    (COUNT, "{'count': 3, 'ok': True}", {"count": 3, "ok": True}, "Python"),
    (
        SENTIMENT,
        "{\u201csentiment\u201d: \u201cpositive\u201d, \u201cscore\u201d: 0.9}",
        GOOD,
        "curly quotes",
    ),
    (SENTIMENT, '{"sentiment": "positive"\n "score": 0.9}', GOOD, "missing comma"),
    (parse_signature("{s :string}"), '{"s": "a\nb"}', {"s": "a\nb"}, "raw line breaks"),
    (SENTIMENT, '\ufeff  {"sentiment": "positive",\r\n "score": 0.9}  ', GOOD, None),
    (SENTIMENT, '"{\\"sentiment\\": \\"positive\\", \\"score\\": 0.9}"', GOOD, "decoded"),
    (ARGS, '{"tool": "s", "args": "{\\"q\\": 1}"}', {"tool": "s", "args": {"q": 1}}, "decoded"),
    (NESTED, '{"a": {"b": 1, "c": 2}, "d": "x"', {"d": "x", "a": {"b": 1, "c": 2}}, "closed"),
    (SENTIMENT, '{"sentiment": "positive", "score": "0.9"}', GOOD, "coerced string"),
    (COUNT, '{"count": "42", "ok": "true"}', {"count": 42, "ok": True}, "coerced string"),
    (COUNT, '{"count": 42.0, "ok": false}', {"count": 42, "ok": False}, "integer"),
    (SENTIMENT, '{"sentiment": "Positive", "score": 1}', {**GOOD, "score": 1}, "enum value"),
    (ITEMS, '{"items": [{"t": "a"}]}', [{"t": "a"}], "unwrapped"),
    (ITEMS, '{"results": [{"t": "a"}]}', [{"t": "a"}], "unwrapped"),
    (NESTED, '{"a": {"b": 1, "c": 2}}', {"a": {"b": 1, "c": 2}}, None),  # d stays absent
    (NESTED, '{"a": {"b": 1, "c": 2}, "d": null}', {"a": {"b": 1, "c": 2}, "d": None}, None),
    (OPEN, '{"a": 1, "Extra": [1]}', {"a": 1, "Extra": [1]}, None),
    (
        SENTIMENT,
        '{"sentiment": "positive", "score": 0.9} again: {"sentiment": "positive", "score": 0.9}',
        GOOD,
        None,
    ),
    (
        parse_signature("{s :string}"),
        '{"s": "a } ``` </answer> // /* None True \u201c"}',
        {"s": "a } ``` </answer> // /* None True \u201c"},
        None,
    ),
    # A whole reply that is `null` answers an output that admits null, as `3` answers :int.
    (parse_signature(":int?"), "null", None, None),
    (parse_signature(":any"), " null\n", None, None),
]


@pytest.mark.parametrize(
    ("sig", "text", "value", "repair"), ACCEPT, ids=[repr(a[1][:40]) for a in ACCEPT]
)
def test_accepted(sig: Any, text: str, value: Any, repair: str | None) -> None:
    result = run(sig, text)
    assert result.value == value
    messages = " | ".join(m for _, m in result.repairs)
    if repair is None:
        assert all("coerced" not in m and "matched" not in m for _, m in result.repairs)
    else:
        assert repair in messages, messages


REJECT = [
    (SENTIMENT, "", "empty"),
    (SENTIMENT, "   \n ", "empty"),
    (SENTIMENT, "```json\n```", "no JSON"),
    (SENTIMENT, "null", "does not match"),  # a null is an answer only where one is valid
    (SENTIMENT, "I cannot help with that.", "no JSON"),
    # Cut off while reasoning: a draft inside a block never closed is no answer.
    (SENTIMENT, '<think>Unhappy? {"sentiment": "negative", "score": 0.1}', "no JSON"),
    (SENTIMENT, '<Reasoning>{"sentiment": "negative", "score": 0.1}\n```', "no JSON"),
    (
        SENTIMENT,
        '{"sentiment": "positive", "score": 0.',
        "cut off inside an object at line 1, column 38",
    ),
    (NESTED, '{"a": {"b": 1, "c": 2}', "does not match"),  # `d` could still follow
    # A number at the very end may be cut short (`0.9` of `0.95`): never a forced close (a
    # candidate is stripped, so a line break after it does not count either).
    (SENTIMENT, '{"sentiment": "positive", "score": 0.9', "cut off inside an object at line 1"),
    (NESTED, '{"d": "x", "a": {"b": 1, "c": 2', "cut off inside an object at line 1, column 32"),
    (NESTED, '{"a": {"b": 1, "c": 2}, "d": "x', "cut off inside a string at line 1, column 32"),
    (
        SENTIMENT,
        '{"sentiment": "positive", "score": 0.9, ...}',
        "elided content ... at line 1, column 41",
    ),
    (SENTIMENT, '{"sentiment": "pos\u2026", "score": 0.9}', "does not match"),
    (
        SENTIMENT,
        '{"sentiment": "positive "quoted"", "score": 0.9}',
        "unescaped quote inside a string at line 1, column 25",
    ),
    (SENTIMENT, '{"sentiment": positive, "score": 0.9}', "bare word positive at line 1, column 15"),
    # Text between two comments is no comment (a lazy pattern once stretched the first over it).
    (
        SENTIMENT,
        '{"sentiment": "positive", "score": 0.9 /* a */ @@ "x": 1 /* b */}',
        'unexpected character "@" at line 1, column 48',
    ),
    (
        SENTIMENT,
        '{"sentiment": "positive", "score": NaN}',
        "NaN is not a JSON number at line 1, column 36",
    ),
    (
        SENTIMENT,
        '{"sentiment": "positive", "score": Infinity}',
        "Infinity is not a JSON number at line 1, column 36",
    ),
    (
        SENTIMENT,
        '{"sentiment": "positive", "score": 1, "score": 2}',
        'the key "score" is given twice with different values at line 1, column 39',
    ),
    (SENTIMENT, '{"sentiment": "positive", "score": "92%"}', "does not match"),
    (SENTIMENT, '{"sentiment": "positive", "score": "five"}', "does not match"),
    (COUNT, '{"count": 42.5, "ok": true}', "does not match"),
    (COUNT, '{"count": "42.5", "ok": true}', "does not match"),
    (COUNT, '{"count": 1, "ok": "yes"}', "does not match"),
    (COUNT, '{"count": 1, "ok": 1}', "does not match"),
    (COUNT, '{"count": true, "ok": true}', "does not match"),
    (parse_signature("{s :string}"), '{"s": 5}', "does not match"),
    (parse_signature("{xs [:string]}"), '{"xs": "a, b"}', "does not match"),
    (parse_signature("{xs [:string]}"), '{"xs": "a"}', "does not match"),
    (SENTIMENT, '{"sentiment": "positive"}', "does not match"),
    (SENTIMENT, '{"sentiment": null, "score": 0.9}', "does not match"),
    (SENTIMENT, '{"Sentiment": "positive", "score": 0.9}', "does not match"),
    (SENTIMENT, '{"sentiment": "very positive", "score": 0.9}', "does not match"),
    (SENTIMENT, '{"sentiment": "**positive**", "score": 0.9}', "does not match"),
    (SENTIMENT, '{"sentiment": "pos", "score": 0.9}', "does not match"),
    (SENTIMENT, '[{"sentiment": "positive", "score": 0.9}]', "does not match"),
    (ITEMS, '{"t": "a"}', "does not match"),
    (SENTIMENT, '{"result": {"sentiment": "positive", "score": 0.9}}', "does not match"),
    (SENTIMENT, '{"sentiment": "positive", "score": 0.9, "extra": 1}', "does not match"),
    (
        SENTIMENT,
        'Option A: {"sentiment": "positive", "score": 0.9} '
        'Option B: {"sentiment": "negative", "score": 0.9}',
        "several",
    ),
]


@pytest.mark.parametrize(("sig", "text", "reason"), REJECT, ids=[repr(r[1][:40]) for r in REJECT])
def test_rejected(sig: Any, text: str, reason: str) -> None:
    with pytest.raises(ReplyError) as info:
        run(sig, text)
    assert reason in info.value.reason


def test_errors_come_from_the_best_candidate() -> None:
    with pytest.raises(ReplyError) as info:
        run(SENTIMENT, '{"sentiment": "positive", "score": "high"}')
    assert info.value.errors == [("score", "expected float, got string")]


def test_hostile_replies_do_not_hang() -> None:
    import time

    text = "prose { [ ' \" " * 200_000 + '{"sentiment": "positive", "score": 0.5}'
    start = time.perf_counter()
    with pytest.raises(ReplyError):
        run(SENTIMENT, text + "{" * 100_000)
    assert time.perf_counter() - start < 10  # generous: linear, not quadratic (bench: <2 s)


# Texts that made a pattern rescan the rest of the reply from each repetition of a unit: an
# opener that nothing closes (a think tag, a fence marker run, a comment, a string) is tried
# again at every later one. Each took quadratic time: 200 KB of them, 1 s to 30 s.
HOSTILE = [
    "<think></x>" * 40_000,
    "<think></think" * 30_000,
    "`" * 400_000,
    "~" * 400_000,
    "{" + "/* " * 130_000,
    "[" + "/* " * 130_000,
    "[" + "\u201c" * 400_000,
    "[" + "\u2018" * 400_000,
    '"\\' * 200_000,
    "[" + '"\\' * 200_000,
    "[" + "'\\" * 200_000,
    "[a" + "'\\" * 200_000,
    # Not an opener: whitespace runs and no line break to find after them (a search per run
    # for the next line break would rescan the rest each time).
    "[" + "1, " * 300_000,
    "{" + "'a': 1,\ufeff " * 100_000,
    # Spans a wrong closer ends: each could be read to name its fault.
    "[}" * 200_000,
    '{"a": [1}' * 45_000,
]


@pytest.mark.parametrize("text", HOSTILE, ids=[repr(t[:12]) for t in HOSTILE])
def test_openers_nothing_closes_take_linear_time(text: str) -> None:
    import time

    start = time.perf_counter()
    with pytest.raises(ReplyError):
        run(SENTIMENT, text)
    assert time.perf_counter() - start < 5  # linear: ~0.1 s; the quadratic scans took minutes


def reference_spans(text: str) -> list[tuple[int, int]]:
    """The bracket scan as its rule reads, one character at a time: inside brackets a quote
    that opens a whole string (a double-quoted one anywhere, a single-quoted one on its line)
    is skipped with its string, any other quote is a plain character; a closer of the wrong
    kind ends the outermost span there (kept if longer than every span so ended before).
    Quadratic on hostile text; the real scan must find the same spans in linear time."""
    import re

    strings = {
        '"': re.compile(r'"(?:[^"\\]|\\.)*"', re.S),
        "'": re.compile(r"'(?:[^'\\\n]|\\[^\n])*'"),
    }
    stack: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    broken = 0
    pos = 0
    while pos < len(text):
        char = text[pos]
        if stack and char in strings and (string := strings[char].match(text, pos)):
            pos = string.end()
            continue
        pos += 1
        if char in "{[":
            stack.append((pos - 1, char))
        elif stack and char in "}]":
            if stack[-1][1] == ("{" if char == "}" else "["):
                spans.append((stack.pop()[0], pos))
            else:
                if pos - stack[0][0] > broken:
                    broken = pos - stack[0][0]
                    spans.append((stack[0][0], pos))
                stack.clear()
    if stack:
        spans.append((stack[0][0], len(text)))
    return sorted(spans)


# The bracket scan's alphabet, with strings holding what the scan looks for (a quote, a closer).
SCAN_PARTS = ["{", "}", "[", "]", '"', "'", "\\", "\n", " ", "a", ",", '"x"', "'y'", '\\"']
SCAN_PARTS += ["']'", '"}"', "'\"'", '"\'"']


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.sampled_from(SCAN_PARTS),
        max_size=40,
    )
)
def test_bracket_scan_finds_the_spans_its_rule_gives(parts: list[str]) -> None:
    from sigspec.runtime.reply import raw_spans

    text = "".join(parts)
    assert raw_spans(text) == reference_spans(text)


CUT = parse_signature(
    '{sentiment "positive" | "negative" | "neutral", score :float, note :string?}'
)
CUT_NESTED = parse_signature("{a {b :int, c :string}, d [:string]}")


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.fixed_dictionaries(
            {
                "sentiment": st.sampled_from(["positive", "negative", "neutral"]),
                "score": st.floats(0, 100, allow_nan=False),
            },
            optional={"note": st.text(alphabet='ab }]",\\\n', max_size=6)},
        ).map(lambda v: (CUT, v)),
        st.fixed_dictionaries(
            {
                "a": st.fixed_dictionaries(
                    {"b": st.integers(-999, 99_999), "c": st.text(alphabet='x"}', max_size=3)}
                ),
                "d": st.lists(st.sampled_from(["p", "]", ""]), max_size=3),
            }
        ).map(lambda v: (CUT_NESTED, v)),
    ),
    st.sampled_from([None, 2]),
    st.sampled_from(["{}", "```json\n{}\n```", "Here: {}"]),
)
def test_a_reply_cut_anywhere_is_rejected_or_exact(
    case: tuple[Any, Any], indent: int | None, frame: str
) -> None:
    """Only a forced close repairs truncation: every prefix of a reply is either rejected or
    read as exactly the value the whole reply holds (never a number cut short, a string cut
    short, or a member dropped)."""
    import json

    sig, value = case
    text = frame.replace("{}", json.dumps(value, indent=indent))
    for cut in range(1, len(text) + 1):
        try:
            got = run(sig, text[:cut]).value
        except ReplyError:
            continue
        assert got == value, text[:cut]


def test_tag_bodies_pair_each_closer_with_its_nearest_opener() -> None:
    """Tags nest (the innermost body is its own candidate too), names match in any case,
    a closer with no opener and an opener never closed give nothing; bodies in text order."""
    from sigspec.runtime.reply import explicit_candidates

    text = "<Answer>x<answer>y</ANSWER>z</answer> </b> <c>"
    assert explicit_candidates(text) == ["x<answer>y</ANSWER>z", "y"]
