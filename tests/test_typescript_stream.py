"""TypeScript streaming: `NAMEStream` over a streaming callback and the partial reader
(`typescript/_stream.ts`), compiled by `tsc --strict` and run in Node: partials in order and
only on change, what shows when, the same turns, usage and errors as the plain call, and a
property test of the reader over random JSON values cut into random chunks."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from test_shared_cases import compile_typescript
from test_typescript import compile_and_run, tsc_and_run

SIG = """\
type Mood = "happy" | "sad"

## Rate a text.
@output(json)
@max_turns(2)
signature rate(text :string) -> {
  mood Mood,
  score :int @min(0) @max(10),
  title :string,
  tags [:string] @max_items(3),
  detail {a :int, b :string},
  code :string = "zz" @pattern("^[a-z]+$") @fallback
}

## People in a text.
@output(json)
signature people(text :string) -> [{name :string, age :int @min(0)}]

@output(text)
signature say(text :string) -> :string
"""

PROGRAM = r"""
import { rate, rateStream, peopleStream, type RatePartial, type PeoplePartial } from "./s.js";
import {
  JsonEnforcementError,
  RefusalError,
  type Llm,
  type Step,
} from "./_runtime.js";
import { PartialReader, type Chunk, type StreamLlm } from "./_stream.js";

declare const console: { log(text: string): void };

const out: Record<string, unknown> = {};

/** A streaming callback answering each turn with the next list of chunks. */
function scripted(turns: Chunk[][]): StreamLlm {
  return async function* () {
    for (const chunk of turns.shift() ?? []) yield chunk;
  };
}

/** The plain callback answering each turn with the joined text of the same chunks. */
function plain(turns: Chunk[][], structured = "prompt"): Llm {
  return () => {
    const chunks = turns.shift() ?? [];
    const text = chunks.map((c) => (typeof c === "string" ? c : (c.content ?? ""))).join("");
    const args = chunks.map((c) => (typeof c === "string" ? "" : (c.arguments ?? ""))).join("");
    const tokens: Record<string, number> = {};
    const notes: string[] = [];
    for (const c of chunks) if (typeof c !== "string") Object.assign(tokens, c.tokens ?? {});
    for (const c of chunks) if (typeof c !== "string") notes.push(...(c.notes ?? []));
    const call = { id: null, name: "respond", arguments: args };
    return structured === "tool"
      ? { content: null, tool_calls: [call], tokens, notes }
      : { content: text, tokens, notes };
  };
}

const pieces = (text: string, size: number): string[] => {
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
  return parts;
};

async function collect<P>(
  s: AsyncIterable<P> & { turn: number; result(): Promise<Step<unknown>> },
): Promise<Record<string, unknown>> {
  const partials: [number, P][] = [];
  try {
    for await (const p of s) partials.push([s.turn, p]);
  } catch (e) {
    const again = await s.result().then(
      () => "resolved",
      (f: unknown) => (f === e ? "same" : "other"),
    );
    const name = e instanceof RefusalError ? "RefusalError" : (e as Error).name;
    const step = e instanceof JsonEnforcementError ? e.step : null;
    return { partials, error: name, again, turns: step?.turns.length, step };
  }
  const step = await s.result();
  return { partials, step };
}

const GOOD =
  'Here you go:\n```json\n{"mood": "Happy", "score": 10, "title": "A \\"good\\" day", ' +
  '"tags": ["sun", "sea"], "detail": {"a": 1, "b": "x"}, "code": "abc"}\n```\nEnjoy!';

// In order, only on change; enums and numbers only once complete; prose and a fence.
out["complete"] = await collect(rateStream({ text: "t" }, scripted([pieces(GOOD, 3)])));
out["growing"] = await collect(
  rateStream({ text: "t" }, scripted([pieces(GOOD, 2)]), { strings: "growing" }),
);
// The same chunks, plain: the same step.
out["plain"] = await rate({ text: "t" }, plain([pieces(GOOD, 3)]));

// A retry: the first answer's score is out of range (left out of its partials), its code
// falls back; tokens per turn, a later count replacing an earlier one.
const BAD = '{"score": 99, "mood": "sad", "code": "A1"}';
const retryTurns = (): Chunk[][] => [
  [...pieces(BAD, 5), { tokens: { input: 5 } }, { tokens: { input: 7, output: 2 } }],
  [...pieces(GOOD, 7), { tokens: { input: 9, output: 3 }, notes: ["retried once"] }],
];
out["retry"] = await collect(rateStream({ text: "t" }, scripted(retryTurns())));
out["retryPlain"] = await rate({ text: "t" }, plain(retryTurns()));

// Tool mode: the arguments of the forced tool, in pieces.
const args = '{"mood": "sad", "score": 3, "title": "t", "tags": [], "detail": {"a": 2, "b": ""}}';
const toolTurns = (): Chunk[][] => [
  [{ tool: "respond" }, ...pieces(args, 4).map((a) => ({ arguments: a }))],
];
out["tool"] = await collect(
  rateStream({ text: "t" }, scripted(toolTurns()), { structured: "tool" }),
);
out["toolPlain"] = await rate({ text: "t" }, plain(toolTurns(), "tool"), { structured: "tool" });

// A refusal ends the call; so does a budget of bad answers, as the plain call ends.
out["refusal"] = await collect(
  rateStream({ text: "t" }, scripted([[{ refusal: "I can" }, { refusal: "not." }]])),
);
out["failed"] = await collect(rateStream({ text: "t" }, scripted([["{}"], ["no"]])));

// A list output: its complete, valid items; a plain iterable of chunks works too.
const list = '[{"name": "Ann", "age": 3}, {"name": "Bob", "age": -1}, {"name": "Cy", "age": 5}]';
out["list"] = await collect(peopleStream({ text: "t" }, () => pieces(list, 4)));
out["listTool"] = await collect(
  peopleStream(
    { text: "t" },
    () => pieces(`{"items": ${list}}`, 6).map((a) => ({ arguments: a })),
    { structured: "tool" },
  ),
);

// A chunk that is no chunk, a callback returning no iterable: CallbackError, as the plain
// call's callback errors.
const bad = async (llm: StreamLlm): Promise<string> =>
  rateStream({ text: "t" }, llm).result().then(
    () => "resolved",
    (e: unknown) => (e as Error).name,
  );
out["badChunk"] = await bad(() => ["{", 5 as unknown as Chunk]);
out["notIterable"] = await bad(() => 5 as unknown as Chunk[]);

// Leaving the loop early, then result(): the call goes on from where the partials stopped.
const early = rateStream({ text: "t" }, scripted([pieces(GOOD, 5)]));
const firstSeen: unknown[] = [];
for await (const partial of early) {
  firstSeen.push(partial);
  if (firstSeen.length === 2) break;
}
out["early"] = [firstSeen, (await early.result()).return];

// result() alone runs the whole call.
out["resultOnly"] = (await rateStream({ text: "t" }, scripted([[GOOD]])).result()).return;

// The partial types are the output's, all optional.
const p: RatePartial = { mood: "happy" };
const q: PeoplePartial = [{ name: "a", age: 1 }];
out["types"] = [p, q];

// The reader alone: a 10 KB object read in one piece and in 4-character pieces.
const reader = new PartialReader();
const big = JSON.stringify({ xs: Array.from({ length: 400 }, (_, i) => ({ i, s: "ab\\c" })) });
for (const piece of pieces(big, 4)) reader.feed(piece);
out["big"] = JSON.stringify(reader.value) === big && reader.done;

console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return compile_and_run(tmp_path_factory.mktemp("stream"), SIG, PROGRAM)


def _values(partials: list[list[Any]]) -> list[Any]:
    return [p for _, p in partials]


FINAL = {
    "mood": "happy",
    "score": 10,
    "title": 'A "good" day',
    "tags": ["sun", "sea"],
    "detail": {"a": 1, "b": "x"},
    "code": "abc",
}


def test_partials_come_in_order_and_only_on_change(results: dict[str, Any]) -> None:
    got = _values(results["complete"]["partials"])
    assert got == [
        {},  # the answer has begun
        {"mood": "happy"},  # "Happy" matched to the enum, as the final parse does
        {"mood": "happy", "score": 10},  # never 1: a number shows once complete
        {"mood": "happy", "score": 10, "title": 'A "good" day'},
        {"mood": "happy", "score": 10, "title": 'A "good" day', "tags": []},
        {"mood": "happy", "score": 10, "title": 'A "good" day', "tags": ["sun"]},
        {"mood": "happy", "score": 10, "title": 'A "good" day', "tags": ["sun", "sea"]},
        {k: v for k, v in FINAL.items() if k != "code"},
        FINAL,
    ]
    assert results["complete"]["step"]["return"] == FINAL
    assert all(turn == 1 for turn, _ in results["complete"]["partials"])


def test_growing_strings_show_as_they_grow(results: dict[str, Any]) -> None:
    got = _values(results["growing"]["partials"])
    titles = [p["title"] for p in got if "title" in p]
    assert titles[-1] == 'A "good" day' and len(titles) > 3
    assert all('A "good" day'.startswith(t) for t in titles)
    assert all(b.startswith(a) for a, b in itertools.pairwise(titles))  # it only grows
    assert len(set(titles)) > 3
    assert all(p.get("mood") in (None, "happy") for p in got)  # an enum never grows
    codes = [p["code"] for p in got if "code" in p]
    assert codes and all("abc".startswith(c) for c in codes)
    assert got[-1] == FINAL
    for before, after in itertools.pairwise(got):
        assert before != after


def test_a_streamed_call_is_the_plain_call(results: dict[str, Any]) -> None:
    assert results["complete"]["step"] == results["plain"]
    assert results["retry"]["step"] == results["retryPlain"]
    assert results["tool"]["step"] == results["toolPlain"]


def test_a_retry_starts_afresh_and_usage_adds_up(results: dict[str, Any]) -> None:
    retry = results["retry"]
    first = [p for turn, p in retry["partials"] if turn == 1]
    second = [p for turn, p in retry["partials"] if turn == 2]
    # The out-of-range score is left out; the invalid code shows as its @fallback default.
    assert first == [{}, {"mood": "sad"}, {"mood": "sad", "code": "zz"}]
    assert second[:2] == [{}, {"mood": "happy"}] and second[-1] == FINAL
    step = retry["step"]
    assert len(step["turns"]) == 2 and step["turns"][0]["errors"]
    assert step["usage"] == {"input": 16, "output": 5}
    assert step["turns"][0]["reply"]["tokens"] == {"input": 7, "output": 2}


def test_tool_mode_reads_the_arguments(results: dict[str, Any]) -> None:
    tool = results["tool"]
    assert _values(tool["partials"])[-1] == {
        "mood": "sad",
        "score": 3,
        "title": "t",
        "tags": [],
        "detail": {"a": 2, "b": ""},
    }
    reply = tool["step"]["turns"][0]["reply"]
    assert reply["content"] is None
    assert reply["tool_calls"] == [
        {"id": None, "name": "respond", "arguments": reply["tool_calls"][0]["arguments"]}
    ]
    assert json.loads(reply["tool_calls"][0]["arguments"])["score"] == 3


def test_refusal_and_failure_end_the_call_as_the_plain_call_does(
    results: dict[str, Any],
) -> None:
    refusal = results["refusal"]
    assert refusal["error"] == "RefusalError" and refusal["again"] == "same"
    assert refusal["turns"] == 1 and refusal["partials"] == []
    assert refusal["step"]["turns"][0]["reply"]["refusal"] == "I cannot."
    failed = results["failed"]
    assert failed["error"] == "JsonEnforcementError" and failed["again"] == "same"
    assert failed["turns"] == 2


def test_list_outputs_show_complete_valid_items(results: dict[str, Any]) -> None:
    ann, cy = {"name": "Ann", "age": 3}, {"name": "Cy", "age": 5}
    for case in ("list", "listTool"):
        first = [p for turn, p in results[case]["partials"] if turn == 1]
        assert first == [[], [ann], [ann, cy]], case
        # Bob's age: no valid answer in any turn, each turn's partials from its own reply.
        assert results[case]["error"] == "JsonEnforcementError"
        assert len(results[case]["partials"]) == 3 * results[case]["turns"]


def test_callback_errors_and_leaving_early(results: dict[str, Any]) -> None:
    assert results["badChunk"] == "CallbackError"
    assert results["notIterable"] == "CallbackError"
    assert results["early"] == [[{}, {"mood": "happy"}], FINAL]


def test_result_alone_types_and_the_reader(results: dict[str, Any]) -> None:
    assert results["resultOnly"] == FINAL
    assert results["types"] == [{"mood": "happy"}, [{"name": "a", "age": 1}]]
    assert results["big"] is True


def test_the_generated_names_stay_clear(tmp_path: Path) -> None:
    """A named type already called `RatePartial` and a signature `rate_stream`: the streaming
    forms take other names; text signatures get none."""
    (tmp_path / "n.sig").write_text(
        "type RatePartial = {x :int}\n"
        "signature rate(t :string) -> {p RatePartial}\n"
        "signature rate_stream(t :string) -> {n :int}\n"
        "@output(text)\nsignature say(t :string) -> :string\n"
        "signature maybe(t :string) -> RatePartial?\n"
        "signature count(t :string) -> :int\n",
        "utf-8",
    )
    result = run_cli("compile", "n.sig", "-o", "out", "--target", "typescript", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "out" / "typescript" / "n.ts").read_text("utf-8")
    assert "export type RatePartial_ = Partial<RateOutput>;" in text
    assert "export function rateStream_(" in text and "export async function rateStream(" in text
    assert "sayStream" not in text and "SayPartial" not in text
    # A partial is never the null answer; an output neither map nor list has none.
    assert "export type MaybePartial = Partial<NonNullable<MaybeOutput>>;" in text
    assert "export type CountPartial = never;" in text
    program = 'import * as m from "./n.js";\nconsole.log(typeof m.rateStream_);\n'
    program = "declare const console: { log(text: string): void };\n" + program
    run = tsc_and_run(tmp_path / "out", program)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "function"


# ---- the reader over random JSON in random pieces ----------------------------------------

READER = """
import { PartialReader } from "./_stream.js";
declare const console: { log(text: string): void };
declare const process: { stdin: AsyncIterable<Uint8Array> };
declare const Buffer: { concat(b: Uint8Array[]): { toString(e: string): string } };
const input: Uint8Array[] = [];
for await (const b of process.stdin) input.push(b);
const cases = JSON.parse(Buffer.concat(input).toString("utf8")) as [string, string[]][];
const out = cases.map(([strings, chunks]) => {
  const reader = new PartialReader({ strings: strings as "growing" | "complete" });
  const partials: unknown[] = [];
  for (const chunk of chunks) if (reader.feed(chunk)) partials.push(reader.snapshot());
  return { partials, value: reader.value, done: reader.done };
});
console.log(JSON.stringify(out));
"""

KEYS = ["a", "b", "__proto__", "constructor", "k-1", "é", '"q"', "x\\\\y", ""]
TEXTS = ["", "plain", 'say "hi"', "back\\slash", "tab\t", "nl\n", "é✓", "😀", "{[,]}:", "\u2028"]


def _json(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.choice(
        ["str", "int", "float", "bool", "null", "list", "map"]
        if depth < 3
        else ["str", "int", "null"]
    )
    if kind == "str":
        return "".join(rng.choice(TEXTS) for _ in range(rng.randint(0, 3)))
    if kind == "int":
        return rng.randint(-(10**6), 10**6)
    if kind == "float":
        return rng.choice([0.5, -2.25, 1e21, 3.0e-7, 12.0])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [_json(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(KEYS): _json(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def _case(rng: random.Random) -> tuple[Any, str, list[str]]:
    value = _json(rng, 1)
    if not isinstance(value, dict | list):
        value = {"v": value}
    text = json.dumps(
        value,
        ensure_ascii=rng.random() < 0.5,
        indent=rng.choice([None, 1]),
    )
    if rng.random() < 0.5:
        text = "Sure, here it is:\n```json\n" + text + "\n```\nanything [after] {it}"
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 12))))
    if rng.random() < 0.3:
        cuts = list(range(1, len(text)))  # one character at a time
    bounds = [0, *cuts, len(text)]
    return value, text, [text[a:b] for a, b in itertools.pairwise(bounds)]


def _consistent(partial: Any, final: Any) -> bool:
    """A partial holds some of the final value: members whole, or (strings, lists) a prefix."""
    if isinstance(final, list):
        return isinstance(partial, list) and partial == final[: len(partial)]
    if not isinstance(partial, dict):
        return False
    for key, value in partial.items():
        if key not in final:
            return False
        whole = final[key]
        if isinstance(whole, str) and isinstance(value, str):
            ok = whole.startswith(value)
        elif isinstance(whole, list) and isinstance(value, list):
            ok = value == whole[: len(value)]
        else:
            ok = value == whole
        if not ok:
            return False
    return True


def test_the_reader_reads_random_json_in_random_pieces(tmp_path: Path) -> None:
    rng = random.Random(25)
    cases = [_case(rng) for _ in range(300)]
    (tmp_path / "r.sig").write_text("signature f(t :string) -> {n :int}\n", "utf-8")
    result = run_cli("compile", "r.sig", "-o", "out", "--target", "typescript", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (tmp_path / "out" / "typescript" / "main.ts").write_text(READER, "utf-8")
    js = compile_typescript(tmp_path / "out") / "main.js"
    for strings in ("complete", "growing"):
        payload = json.dumps([[strings, chunks] for _, _, chunks in cases])
        run = subprocess.run(
            ["node", str(js)],
            input=payload,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        for (value, text, chunks), got in zip(cases, json.loads(run.stdout), strict=True):
            where = f"{strings} {text!r} {chunks!r}"
            assert got["value"] == value and got["done"], where
            partials = got["partials"]
            assert all(_consistent(p, value) for p in partials), where
            assert all(a != b for a, b in itertools.pairwise(partials)), where
            if partials:
                assert partials[-1] == value, where
