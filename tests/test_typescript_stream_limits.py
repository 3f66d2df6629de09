"""TypeScript streaming within the call's `limits` (`typescript/_stream.ts`, compiled by
`tsc --strict` and run in Node), as the Python stream forms (tests/test_stream_limits.py): a
turn whose answer text (content, tool arguments, refusal) passes `replyChars` code points is
read no further (the callback's iterator returned, its `finally` run) and fails with the plain
call's error, a retry may follow, a reply exactly at the limit passes, reasoning past the limit
is cut there with a note and the turn read on (the plain call's Step), and `limits.depth`
bounds the partial reader."""

from __future__ import annotations

import json
from typing import Any

import pytest

from test_typescript import compile_and_run

SIG = """\
type Mood = "happy" | "sad"

@output(json)
@max_turns(2)
signature rate(text :string) -> {mood Mood, score :int}

@output(json)
signature extract(text :string) -> {products [{name :string, tags [:string]}], topic :string}
"""

PROGRAM = r"""
import { rate, rateStream, extractStream } from "./s.js";
import { JsonEnforcementError, RefusalError, type Step } from "./_runtime.js";
import { PartialReader, type Chunk, type StreamLlm } from "./_stream.js";

declare const console: { log(text: string): void };

const out: Record<string, unknown> = {};
const LIMIT = 1000;
const limits = { replyChars: LIMIT };
const GOOD = '{"mood": "happy", "score": 7}';

/** A streaming model: each turn a list of chunks, or (null) `start` then `piece` forever;
 * counts what each turn yielded and whether its generator was closed. */
function endless(
  turns: (Chunk[] | null)[],
  start: Chunk = '{"mood": "',
  piece: Chunk = "la ",
  sync = false,
): StreamLlm & { yielded: number[]; closed: boolean[] } {
  const yielded: number[] = [];
  const closed: boolean[] = [];
  function* chunks(): Generator<Chunk> {
    const given = turns.length > 0 ? (turns.shift() as Chunk[] | null) : [];
    const n = yielded.length;
    yielded.push(0);
    closed.push(false);
    try {
      if (given !== null)
        for (const c of given) {
          yielded[n] = (yielded[n] ?? 0) + 1;
          yield c;
        }
      else {
        yielded[n] = 1;
        yield start;
        for (;;) {
          yielded[n] = (yielded[n] ?? 0) + 1;
          yield piece;
        }
      }
    } finally {
      closed[n] = true;
    }
  }
  async function* achunks(): AsyncGenerator<Chunk> {
    yield* chunks();
  }
  const llm: StreamLlm = () => (sync ? chunks() : achunks());
  return Object.assign(llm, { yielded, closed });
}

async function outcome(
  s: AsyncIterable<unknown> & { result(): Promise<Step<unknown>> },
): Promise<Record<string, unknown>> {
  const partials: unknown[] = [];
  try {
    for await (const p of s) partials.push(p);
    return { partials, step: await s.result() };
  } catch (e) {
    const step = e instanceof JsonEnforcementError ? e.step : null;
    const name = e instanceof RefusalError ? "RefusalError" : (e as Error).name;
    const refusal = e instanceof RefusalError ? e.refusal : null;
    return { partials, error: name, step, refusal };
  }
}

const pieces = (text: string, size: number): string[] => {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
};

// Endless, async and sync: stopped and closed at the limit, each turn.
for (const sync of [false, true]) {
  const llm = endless([null, null], '{"mood": "', "la ", sync);
  const got = await outcome(rateStream({ text: "t" }, llm, { limits }));
  out[sync ? "endlessSync" : "endless"] = { ...got, yielded: llm.yielded, closed: llm.closed };
}

// The plain call's error on the same over-long text.
const long = '{"mood": "' + "la ".repeat(600) + '", "score": 1}';
out["plainLong"] = await rate({ text: "t" }, () => ({ content: long }), {
  limits,
  maxTurns: 1,
}).then(
  () => null,
  (e: unknown) => (e as JsonEnforcementError).step,
);
out["streamLong"] = await outcome(
  rateStream({ text: "t" }, endless([pieces(long, 7)]), { limits, maxTurns: 1 }),
);

// A retry after an over-long turn.
out["retry"] = await outcome(
  rateStream({ text: "t" }, endless([null, pieces(GOOD, 4)]), { limits }),
);

// Exactly at the limit passes, in pieces of any size; one under fails, with no partial past it.
const at = { replyChars: GOOD.length };
out["at"] = await Promise.all(
  [1, 5, GOOD.length].map(async (size) =>
    outcome(rateStream({ text: "t" }, endless([pieces(GOOD, size)]), { limits: at })),
  ),
);
const split = (): Chunk[] => [GOOD.slice(0, -5), GOOD.slice(-5)];
out["atSplit"] = await outcome(rateStream({ text: "t" }, endless([split()]), { limits: at }));
out["under"] = await outcome(
  rateStream({ text: "t" }, endless([split()]), {
    limits: { replyChars: GOOD.length - 1 },
    maxTurns: 1,
  }),
);

// Code points: two emoji (four UTF-16 units) count two, even cut between a pair's halves.
const emoji = "\u{1F600}\u{1F600} " + GOOD;
const points = Array.from(emoji).length;
out["points"] = await Promise.all(
  [points, points - 1].map(async (replyChars) =>
    outcome(
      rateStream({ text: "t" }, endless([pieces(emoji, 1)]), {
        limits: { replyChars },
        maxTurns: 1,
      }),
    ),
  ),
);

// One huge chunk: kept to one code point past the limit.
out["huge"] = await outcome(
  rateStream({ text: "t" }, endless([["x".repeat(50 * LIMIT)], [GOOD]]), { limits }),
);

// Tool arguments, a refusal past the limit.
const toolLlm = endless([null, [{ arguments: GOOD }]], { tool: "respond" }, { arguments: "la " });
out["tool"] = {
  ...(await outcome(rateStream({ text: "t" }, toolLlm, { limits, structured: "tool" }))),
  closed: toolLlm.closed,
};
const refusing = endless([null], { refusal: "No. " }, { refusal: "No. " });
out["refusal"] = {
  ...(await outcome(rateStream({ text: "t" }, refusing, { limits }))),
  closed: refusing.closed,
};

// Reasoning past the limit: cut there with a note, the turn read on, as the plain call cuts it.
// Emoji split between their halves: the limit counts code points.
const thoughts = "hmm \u{1F914}".repeat(250); // LIMIT + 250 code points
const thinkingChunks: Chunk[] = [
  { notes: ["sent again"] },
  ...pieces(thoughts, 5).map((reasoning) => ({ reasoning })),
  { content: GOOD.slice(0, 9), reasoning: "and more" },
  GOOD.slice(9),
];
for (const sync of [false, true]) {
  const thinking = endless([thinkingChunks], undefined, undefined, sync);
  out[sync ? "reasoningSync" : "reasoning"] = {
    ...(await outcome(rateStream({ text: "t" }, thinking, { limits, maxTurns: 1 }))),
    yielded: thinking.yielded,
    chunks: thinkingChunks.length,
  };
}
const wholeThoughts = {
  content: GOOD,
  reasoning: thoughts + "and more",
  notes: ["sent again"],
};
out["plainReasoning"] = await rate({ text: "t" }, () => wholeThoughts, { limits, maxTurns: 1 });
out["kept"] = Array.from(thoughts).slice(0, LIMIT).join("");
// At the limit: kept whole, no note (a plain reply one longer is cut).
const atLimit = "\u{1F914}".repeat(LIMIT);
out["reasoningAt"] = await outcome(
  rateStream(
    { text: "t" },
    endless([[{ reasoning: atLimit.slice(0, 301) }, { reasoning: atLimit.slice(301) }, GOOD]]),
    { limits, maxTurns: 1 },
  ),
);
out["plainAt"] = await Promise.all(
  ["", "!"].map((more) =>
    rate({ text: "t" }, () => ({ content: GOOD, reasoning: atLimit + more }), {
      limits,
      maxTurns: 1,
    }),
  ),
);
// A model that never stops thinking is read on (only a deadline stops it), keeping the limit;
// here it stops after 100 * LIMIT characters, then answers. An over-long answer still fails.
const pondering = endless(
  [[...Array.from({ length: 25 * LIMIT }, () => ({ reasoning: "hmm " })), GOOD]],
);
out["pondering"] = {
  ...(await outcome(rateStream({ text: "t" }, pondering, { limits, maxTurns: 1 }))),
  yielded: pondering.yielded,
};
const rambling = endless([null, [GOOD]], { reasoning: "x".repeat(50 * LIMIT) }, "la ");
out["rambling"] = {
  ...(await outcome(rateStream({ text: "t" }, rambling, { limits }))),
  closed: rambling.closed,
};

// Depth: the products' items open a third level.
const products = JSON.stringify({ products: [{ name: "Lamp", tags: ["a"] }], topic: "Lights" });
out["deep"] = await outcome(extractStream({ text: "t" }, endless([pieces(products, 4)])));
out["shallow"] = await outcome(
  extractStream({ text: "t" }, endless([pieces(products, 4)]), {
    limits: { depth: 2 },
    maxTurns: 1,
  }),
);
const NESTED = '{"a": 1, "b": [[2]], "c": {"x": [1]}, "d": 4}';
const readers = [undefined, 3, 2].map((depth) => {
  const reader = new PartialReader({ depth });
  for (const piece of pieces(NESTED, 3)) reader.feed(piece);
  return [reader.snapshot(), reader.done];
});
out["readers"] = readers;

console.log(JSON.stringify(out));
"""

TOO_LONG = "the reply is longer than 1000 characters (the reply-size limit)"
GOOD = {"mood": "happy", "score": 7}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return compile_and_run(tmp_path_factory.mktemp("stream-limits"), SIG, PROGRAM)


def _errors(step: dict[str, Any]) -> list[Any]:
    return [turn["errors"] for turn in step["turns"]]


@pytest.mark.parametrize("case", ["endless", "endlessSync"])
def test_an_endless_stream_is_stopped_and_closed_at_the_limit(
    results: dict[str, Any], case: str
) -> None:
    got = results[case]
    assert got["error"] == "JsonEnforcementError"
    assert _errors(got["step"]) == [[["root", TOO_LONG]]] * 2
    assert got["closed"] == [True, True]
    start, piece = len('{"mood": "'), len("la ")
    assert got["yielded"] == [1 + (1000 - start) // piece + 1] * 2
    assert {len(t["reply"]["content"]) for t in got["step"]["turns"]} == {1001}


def test_the_error_is_the_plain_calls_and_pythons(results: dict[str, Any]) -> None:
    plain, streamed = results["plainLong"], results["streamLong"]["step"]
    assert _errors(streamed) == _errors(plain) == [[["root", TOO_LONG]]]
    assert streamed["fail"] == plain["fail"]


def test_a_retry_after_an_oversized_turn_succeeds(results: dict[str, Any]) -> None:
    step = results["retry"]["step"]
    assert step["return"] == GOOD
    assert _errors(step) == [[["root", TOO_LONG]], []]
    assert results["retry"]["partials"][-1] == GOOD


def test_a_reply_exactly_at_the_limit_passes(results: dict[str, Any]) -> None:
    for got in results["at"]:
        assert got["step"]["return"] == GOOD and got["partials"][-1] == GOOD
    assert results["atSplit"]["partials"] == [{"mood": "happy"}, GOOD]
    under = results["under"]
    too_long = f"the reply is longer than {len(json.dumps(GOOD)) - 1} characters"
    assert under["error"] == "JsonEnforcementError"
    assert _errors(under["step"]) == [[["root", too_long + " (the reply-size limit)"]]]
    assert under["partials"] == [{"mood": "happy"}]  # the score came in the chunk past it


def test_characters_are_code_points(results: dict[str, Any]) -> None:
    at, under = results["points"]
    assert at["step"]["return"] == GOOD
    assert under["error"] == "JsonEnforcementError"
    assert "(the reply-size limit)" in _errors(under["step"])[0][0][1]


def test_one_huge_chunk_is_kept_to_the_limit(results: dict[str, Any]) -> None:
    step = results["huge"]["step"]
    assert _errors(step) == [[["root", TOO_LONG]], []]
    assert len(step["turns"][0]["reply"]["content"]) == 1001
    assert step["return"] == GOOD


def test_tool_arguments_and_refusal_past_the_limit(results: dict[str, Any]) -> None:
    tool, refusal = results["tool"], results["refusal"]
    assert _errors(tool["step"]) == [[["root", TOO_LONG]], []]
    assert tool["step"]["return"] == GOOD and tool["closed"] == [True, True]
    assert refusal["error"] == "RefusalError" and refusal["closed"] == [True]
    assert refusal["refusal"] == ("No. " * 300)[:1001]


NOTE = "the reasoning was longer than 1000 characters (the reply-size limit): kept its first 1000"


@pytest.mark.parametrize("case", ["reasoning", "reasoningSync"])
def test_reasoning_past_the_limit_is_cut_and_the_turn_goes_on(
    results: dict[str, Any], case: str
) -> None:
    got = results[case]
    assert got["yielded"] == [got["chunks"]]  # read to its end
    step = got["step"]
    assert step["return"] == GOOD and _errors(step) == [[]]
    reply = step["turns"][0]["reply"]
    assert reply["reasoning"] == results["kept"] and len(reply["reasoning"]) == 1000
    assert reply["notes"] == ["sent again", NOTE]
    assert step == results["plainReasoning"]  # the plain call's Step on the same reply


def test_reasoning_at_the_limit_is_kept_whole(results: dict[str, Any]) -> None:
    at = "\U0001f914" * 1000
    step = results["reasoningAt"]["step"]
    assert step["turns"][0]["reply"]["reasoning"] == at
    assert step["turns"][0]["reply"]["notes"] == []
    same, longer = results["plainAt"]
    assert step == same
    assert longer["turns"][0]["reply"]["reasoning"] == at
    assert longer["turns"][0]["reply"]["notes"] == [NOTE]


def test_long_reasoning_is_read_on_and_an_over_long_answer_still_fails(
    results: dict[str, Any],
) -> None:
    pondering = results["pondering"]
    assert pondering["yielded"] == [25 * 1000 + 1] and pondering["step"]["return"] == GOOD
    assert pondering["step"]["turns"][0]["reply"]["reasoning"] == "hmm " * 250
    rambling = results["rambling"]
    first = rambling["step"]["turns"][0]
    assert _errors(rambling["step"]) == [[["root", TOO_LONG]], []]
    assert rambling["closed"] == [True, True] and len(first["reply"]["content"]) == 1001
    assert first["reply"]["reasoning"] == "x" * 1000 and first["reply"]["notes"] == [NOTE]


def test_depth_bounds_the_partial_reader(results: dict[str, Any]) -> None:
    assert results["deep"]["partials"][-1]["products"] == [{"name": "Lamp", "tags": ["a"]}]
    shallow = results["shallow"]
    assert shallow["partials"] == [{}, {"products": []}]
    assert shallow["error"] == "JsonEnforcementError"
    assert "nested more than 2 levels deep" in json.dumps(shallow["step"]["fail"])
    default, three, two = results["readers"]
    assert default == three == [{"a": 1, "b": [[2]], "c": {"x": [1]}, "d": 4}, True]
    assert two == [{"a": 1, "b": []}, False]  # `b`'s item opens a third level: it stops there
