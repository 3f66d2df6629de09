"""The TypeScript runtime under hostile replies and values (issue 22), as the Python one
(tests/unit/test_reply_limits.py): nesting past the engine's stack, 260k tags, huge replies;
each a clear error naming its limit, and limits given per call."""

from __future__ import annotations

from typing import Any

import pytest

from test_typescript import compile_and_run

SPEC = """
type Tree = {value :int, children [Tree] = []}
signature raw() -> {data :map, anything :any}
signature whatever() -> :any
signature tree() -> Tree
signature name() -> {name :string}
"""

PROGRAM = """\
import * as m from "./limits.js";
import { JsonEnforcementError, ReplyError, ValidationError, LIMITS } from "./_runtime.js";
import type { Limits } from "./_runtime.js";

declare const console: { log(text: string): void };

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};
const deepMap = (depth: number): unknown => {
  let value: unknown = {};
  for (let i = 1; i < depth; i++) value = { k: value };
  return value;
};
const tree = (depth: number): unknown => {
  let value: unknown = { value: 1, children: [] };
  for (let i = 0; i < depth; i++) value = { value: 1, children: [value] };
  return value;
};

function outcome(run: () => unknown): unknown {
  try {
    const value = run();
    return { ok: JSON.stringify(value).length };
  } catch (e) {
    if (e instanceof ValidationError) return { errors: e.errors };
    if (e instanceof ReplyError) return { reason: e.reason, errors: e.errors };
    return { threw: String(e) };
  }
}

const out: Record<string, unknown> = { limits: LIMITS };
for (const depth of [129, 500, 990, 20000]) {
  out[`any${depth}`] = outcome(() => m.validateRaw({ data: {}, anything: nested(depth) }));
  out[`map${depth}`] = outcome(() => m.validateRaw({ data: deepMap(depth), anything: 1 }));
  out[`tree${depth}`] = outcome(() => m.validateTree(tree(depth)));
  const text = '{"data": {}, "anything": ' + "[".repeat(depth) + "]".repeat(depth) + "}";
  out[`reply${depth}`] = outcome(() => m.parseRaw(text));
  out[`open${depth}`] = outcome(() => m.parseRaw("[".repeat(depth)));
  out[`prose${depth}`] = outcome(() =>
    m.parseRaw("Here: {data: {}, anything: " + "[".repeat(depth) + "]".repeat(depth) + "}"),
  );
}
out["atLimit"] = outcome(() => m.validateRaw({ data: {}, anything: nested(127) }));
out["deepest"] = outcome(() => m.parseRaw("[".repeat(100000)));
const inside = '{"data": {}, "anything": 1}';
out["inner"] = outcome(() => m.parseRaw("Here: " + "[".repeat(200) + inside + "]".repeat(200)));
out["innerAny"] = outcome(() => m.parseWhatever("[".repeat(200) + inside + "]".repeat(200)));
const few: Partial<Limits> = { depth: 3 };
out["given"] = outcome(() => m.validateRaw({ data: {}, anything: nested(3) }, few));
out["givenReply"] = outcome(() => m.parseRaw('{"data": {}, "anything": [[[1]]]}', few));
out["raised"] = outcome(() => m.validateRaw({ data: {}, anything: nested(200) }, { depth: 250 }));
out["size"] = outcome(() => m.parseName('{"name": "a long enough name"}', { replyChars: 10 }));
out["badLimit"] = outcome(() => m.parseName('{"name": "x"}', { depth: 0 }));
out["tooDeepLimit"] = outcome(() => m.parseName('{"name": "x"}', { depth: 257 }));
// 260,002 tags: a spread of their 130,001 bodies overflowed the stack (RangeError).
const tags = "<b>x</b>".repeat(130000) + '<answer>{"name": "x"}</answer>';
out["tags"] = outcome(() => m.parseName(tags));
out["tagsAllowed"] = outcome(() => m.parseName(tags, { tags: 300000 }));
const nestedTags = "<a>".repeat(30000) + '{"name": "x"}' + "</a>".repeat(30000);
out["nestedTags"] = outcome(() => m.parseName(nestedTags, { tags: 60000 }));
const big = '{"name": "' + "a".repeat(LIMITS.replyChars) + '"}';
out["big"] = outcome(() => m.parseName(big));
out["bigAllowed"] = outcome(() => m.parseName(big, { replyChars: big.length }));
// Code points, as Python counts: an emoji is two UTF-16 units and one character.
const emoji = '{"name": "' + "\\u{1F600}".repeat(6) + '"}';
out["emoji"] = outcome(() => m.parseName(emoji, { replyChars: 20 }));
try {
  await m.name({}, () => '{"name": "a name"}', { limits: { replyChars: 5 }, maxTurns: 1 });
} catch (e) {
  if (e instanceof JsonEnforcementError) out["client"] = e.errors;
}
console.log(JSON.stringify(out));
"""

DEPTH = "nested more than 128 levels deep (the nesting-depth limit)"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return compile_and_run(tmp_path_factory.mktemp("ts_limits"), SPEC, PROGRAM, name="limits")


def test_the_defaults_are_pythons(results: dict[str, Any]) -> None:
    from sigspec.runtime.common import LIMITS

    assert results["limits"] == {
        "replyChars": LIMITS.reply_chars,
        "depth": LIMITS.depth,
        "tags": LIMITS.tags,
    }


@pytest.mark.parametrize("depth", [129, 500, 990, 20000])
def test_deep_values_and_replies_name_the_limit(results: dict[str, Any], depth: int) -> None:
    for kind in ("any", "map", "tree"):
        assert results[f"{kind}{depth}"] == {"errors": [["root", DEPTH]]}
    for kind in ("reply", "open", "prose"):
        assert results[f"{kind}{depth}"] == {"reason": f"the reply's JSON is {DEPTH}", "errors": []}
    assert results["deepest"] == {"reason": f"the reply's JSON is {DEPTH}", "errors": []}
    # An answer-shaped object inside a value past the limit is part of it, not the answer.
    assert results["inner"] == {"reason": f"the reply's JSON is {DEPTH}", "errors": []}
    assert results["innerAny"] == {"reason": f"the reply's JSON is {DEPTH}", "errors": []}
    assert "ok" in results["atLimit"]


def test_limits_given_per_call(results: dict[str, Any]) -> None:
    three = "nested more than 3 levels deep (the nesting-depth limit)"
    assert results["given"] == {"errors": [["root", three]]}
    assert results["givenReply"] == {"reason": f"the reply's JSON is {three}", "errors": []}
    assert "ok" in results["raised"]
    assert results["size"]["reason"] == (
        "the reply is longer than 10 characters (the reply-size limit)"
    )
    assert results["badLimit"] == {
        "threw": "RangeError: the limit depth must be a positive integer"
    }
    assert results["tooDeepLimit"] == {
        "threw": "RangeError: the limit depth can be at most 256, not 257"
    }
    assert "ok" in results["emoji"]


def test_many_tags_are_a_limit_not_a_crash(results: dict[str, Any]) -> None:
    assert results["tags"] == {
        "reason": "the reply holds more than 10000 tags (the tag limit)",
        "errors": [],
    }
    assert "ok" in results["tagsAllowed"]  # was RangeError: a spread of every tag's body
    assert "ok" in results["nestedTags"]


def test_size_limit(results: dict[str, Any]) -> None:
    assert results["big"]["reason"] == (
        "the reply is longer than 1048576 characters (the reply-size limit)"
    )
    assert "ok" in results["bigAllowed"]


def test_the_client_passes_limits_to_the_parser(results: dict[str, Any]) -> None:
    assert results["client"] == [
        ["root", "the reply is longer than 5 characters (the reply-size limit)"]
    ]
