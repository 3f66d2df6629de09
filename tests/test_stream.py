"""The generated stream forms (`classify_stream`, `aclassify_stream`) over the examples'
package: partials in order and only on change, what shows when, tool mode, retries,
refusals, usage, wrong callbacks, and the property that every partial is a prefix of the
final answer. Each scenario runs sync and async; both must give what the plain call gives."""

from __future__ import annotations

import asyncio
import importlib
import itertools
import json
import random
import sys
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import write_python_package

GOOD = '{"sentiment": "positive", "score": 0.9}'


@pytest.fixture(scope="module")
def pkg(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    sys.dont_write_bytecode, before = True, sys.dont_write_bytecode
    folder = str(examples_output / "python")
    sys.path.insert(0, folder)
    try:
        names = ["sentiment", "research", "agent", "extraction"]
        modules = {n: importlib.import_module(f"signatures.client.{n}") for n in names}
        modules["_client"] = importlib.import_module("signatures._client")
        yield modules
    finally:
        sys.path.remove(folder)
        sys.dont_write_bytecode = before
        for name in [m for m in sys.modules if m == "signatures" or m.startswith("signatures.")]:
            del sys.modules[name]


def pieces(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


class Script:
    """A streaming model answering each turn from a list of chunk lists."""

    def __init__(self, *turns: Iterable[Any]) -> None:
        self.turns = [list(t) for t in turns]
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> Iterator[Any]:
        self.requests.append(json.loads(json.dumps(request)))
        yield from self.turns.pop(0)

    def plain(self, request: dict[str, Any]) -> Any:
        """The same answers, joined, as a plain callback returns them."""
        self.requests.append(json.loads(json.dumps(request)))
        chunks = self.turns.pop(0)
        if all(isinstance(c, str) for c in chunks):
            return "".join(chunks)
        return _joined(chunks)


def _joined(chunks: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"content": None, "tool_calls": [], "tokens": {}}
    for given in chunks:
        chunk = {"content": given} if isinstance(given, str) else given
        for key in ("content", "refusal"):
            if key in chunk:
                out[key] = (out.get(key) or "") + chunk[key]
        out["tokens"].update(chunk.get("tokens", {}))
        if "arguments" in chunk:
            calls = out["tool_calls"] or [{"id": None, "name": "respond", "arguments": ""}]
            calls[0]["arguments"] += chunk["arguments"]
            out["tool_calls"] = calls
    return out


Run = Callable[..., tuple[list[Any], Any, list[int]]]


def _sync(function: Callable[..., Any], script: Script, **kwargs: Any) -> Any:
    module = sys.modules[function.__module__]
    stream = getattr(module, f"{function.__name__}_stream")(**kwargs, llm=script)
    seen, turns = [], []
    for partial in stream:
        seen.append(partial)
        turns.append(stream.turn)
    return seen, stream.step, turns


def _async(function: Callable[..., Any], script: Script, **kwargs: Any) -> Any:
    module = sys.modules[function.__module__]
    make = getattr(module, f"a{function.__name__}_stream")

    async def llm(request: dict[str, Any]) -> AsyncIterator[Any]:
        for chunk in script(request):
            await asyncio.sleep(0)
            yield chunk

    async def run() -> Any:
        stream = make(**kwargs, llm=llm)
        seen, turns = [], []
        async for partial in stream:
            seen.append(partial)
            turns.append(stream.turn)
        return seen, await stream.result(), turns

    return asyncio.run(run())


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Run:
    return {"sync": _sync, "async": _async}[request.param]


def test_partials_arrive_in_order_only_on_change_and_scalars_only_complete(
    pkg: dict[str, ModuleType], run: Run
) -> None:
    classify = pkg["sentiment"].classify
    seen, step, _ = run(classify, Script(pieces(GOOD, 2)), text="great")
    assert seen == [{}, {"sentiment": "positive"}, {"sentiment": "positive", "score": 0.9}]
    assert step.return_.score == 0.9
    plain = classify(text="great", llm=Script([GOOD]).plain)
    assert step.usage == plain.usage and len(step.turns) == len(plain.turns)


def test_an_invalid_enum_value_is_left_out_of_the_partial(
    pkg: dict[str, ModuleType], run: Run
) -> None:
    bad = '{"sentiment": "meh", "score": 0.5}'
    script = Script(pieces(bad), pieces(GOOD))
    seen, step, turns = run(pkg["sentiment"].classify, script, text="x")
    assert {"sentiment": "meh"} not in seen
    assert seen[:2] == [{}, {"score": 0.5}]
    assert turns[0] == 1 and turns[-1] == 2  # the retry turn starts again
    assert step.return_.sentiment == "positive" and len(step.turns) == 2


def test_a_retry_gives_the_plain_calls_step(pkg: dict[str, ModuleType], run: Run) -> None:
    classify = pkg["sentiment"].classify
    turns = ['{"sentiment": "positive", "score": 7}', GOOD]
    _, streamed, _ = run(classify, Script(pieces(turns[0]), pieces(turns[1])), text="x")
    plain = classify(text="x", llm=Script([turns[0]], [turns[1]]).plain)
    assert [t.errors for t in streamed.turns] == [t.errors for t in plain.turns]
    assert [t.request for t in streamed.turns] == [t.request for t in plain.turns]
    assert streamed.return_ == plain.return_ and streamed.usage == plain.usage


def test_growing_strings_and_list_items(pkg: dict[str, ModuleType], run: Run) -> None:
    reply = json.dumps(
        {
            "products": [
                {"name": "Lamp", "price": 10, "tags": ["a"]},
                {"name": "Desk", "price": None, "tags": []},
            ],
            "main_topic": "Furniture and lights",
        }
    )
    extract = pkg["extraction"].extract_products
    seen, step, _ = run(extract, Script(pieces(reply, 4)), article="a", strings="growing")
    lists = [len(p["products"]) for p in seen if "products" in p]
    assert lists == sorted(lists) and lists[-1] == 2 and 1 in lists
    topics = [p["main_topic"] for p in seen if "main_topic" in p]
    assert len(topics) > 2 and all("Furniture and lights".startswith(t) for t in topics)
    assert seen[-1]["main_topic"] == step.return_.main_topic
    complete, _, _ = run(extract, Script(pieces(reply, 4)), article="a")
    assert [p["main_topic"] for p in complete if "main_topic" in p] == ["Furniture and lights"]


def test_prose_and_a_fence_before_the_json(pkg: dict[str, ModuleType], run: Run) -> None:
    reply = f"Sure, here you are:\n```json\n{GOOD}\n```\nAnything else?"
    seen, step, _ = run(pkg["sentiment"].classify, Script(pieces(reply, 5)), text="x")
    assert seen[-1] == {"sentiment": "positive", "score": 0.9}
    assert step.return_.sentiment == "positive"


def test_tool_mode_reads_the_arguments(pkg: dict[str, ModuleType], run: Run) -> None:
    chunks = [{"tool": "respond"}, *({"arguments": p} for p in pieces(GOOD, 4))]
    chunks.append({"content": "ignored prose {", "tokens": {"input": 3, "output": 9}})
    script = Script(chunks)
    seen, step, _ = run(pkg["sentiment"].classify, script, text="x", structured="tool")
    assert seen[-1] == {"sentiment": "positive", "score": 0.9}
    assert step.turns[0].reply.tool_calls == [{"id": None, "name": "respond", "arguments": GOOD}]
    assert script.requests[0]["tool_choice"] == {"tool": "respond"}


def test_a_wrapped_list_output_in_tool_mode(pkg: dict[str, ModuleType], run: Run) -> None:
    items = [{"title": "A", "url": "https://a.example", "score": 0.5}] * 2
    chunks = [{"arguments": p} for p in pieces(json.dumps({"items": items}), 5)]
    rank = pkg["research"].rank_results
    seen, step, _ = run(rank, Script(chunks), query="q", results=[], structured="tool")
    assert seen == [[], items[:1], items]
    assert [r.title for r in step.return_.root] == ["A", "A"]


def test_a_list_output_shows_its_valid_items(pkg: dict[str, ModuleType], run: Run) -> None:
    good = {"title": "A", "url": "https://a.example", "score": 0.5}
    bad = {"title": "B", "url": "https://b.example", "score": "high"}
    reply = "Ranked:\n" + json.dumps([good, bad, good])
    rank = pkg["research"].rank_results
    script = Script(pieces(reply, 6), pieces(json.dumps([good])))
    seen, step, _ = run(rank, script, query="q", results=[])
    assert seen[:2] == [[], [good]]  # the invalid item, and all after it, left out
    assert all(p in ([], [good]) for p in seen)
    assert len(step.turns) == 2


def test_usage_chunks_replace_and_sum_per_turn(pkg: dict[str, ModuleType], run: Run) -> None:
    turn = [
        {"content": GOOD[:10], "tokens": {"input": 5}},
        {"content": GOOD[10:], "tokens": {"input": 5, "output": 3}},
        {"tokens": {"output": 7}, "notes": ["retried once"], "reasoning": "hm"},
    ]
    _, step, _ = run(pkg["sentiment"].classify, Script(turn), text="x")
    assert step.usage == {"input": 5, "output": 7}
    assert step.turns[0].reply.notes == ("retried once",)
    assert step.turns[0].reply.reasoning == "hm"


def test_refusal_chunks_raise_refusal_error(pkg: dict[str, ModuleType], run: Run) -> None:
    client = pkg["_client"]
    turn = [{"refusal": "I can"}, {"refusal": "not."}]
    with pytest.raises(client.RefusalError) as caught:
        run(pkg["sentiment"].classify, Script(turn), text="x")
    assert caught.value.refusal == "I cannot."


def test_the_last_failure_raises_from_the_iteration(pkg: dict[str, ModuleType], run: Run) -> None:
    client = pkg["_client"]
    script = Script(*(["not json"] for _ in range(3)))
    with pytest.raises(client.JsonEnforcementError) as caught:
        run(pkg["sentiment"].classify, script, text="x")
    assert len(caught.value.step.turns) == 3


def test_a_callback_of_the_wrong_kind_names_the_right_function(
    pkg: dict[str, ModuleType],
) -> None:
    client, sentiment = pkg["_client"], pkg["sentiment"]

    async def agen(request: dict[str, Any]) -> AsyncIterator[str]:
        yield GOOD

    with pytest.raises(client.CallbackError, match="aclassify_stream"):
        list(sentiment.classify_stream(text="x", llm=agen))

    async def run() -> None:
        async for _ in sentiment.aclassify_stream(text="x", llm=lambda r: iter([GOOD])):
            pass

    with pytest.raises(
        client.CallbackError,
        match=r"`aclassify_stream` takes an async.*`classify_stream\(\.\.\.\)`",
    ):
        asyncio.run(run())


# -- the property: every partial is a prefix of the final answer --------------------------

WORDS = ["lamp", "desk", "é", "😀", 'q"uote', "back\\slash", "line\nbreak", ""]


def _text(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))


def _extraction(rng: random.Random) -> dict[str, Any]:
    products = [
        {
            "name": _text(rng),
            "price": rng.choice([None, rng.randint(0, 99), rng.uniform(0, 50)]),
            "tags": [rng.choice(WORDS) for _ in range(rng.randint(0, 3))],
        }
        for _ in range(rng.randint(0, 4))
    ]
    return {"products": products, "main_topic": _text(rng)}


def _agent(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {"conclusion": _text(rng)}
    if rng.random() < 0.7:
        value["reasoning"] = _text(rng)
    if rng.random() < 0.7:
        value["confidence"] = rng.random()
    if rng.random() < 0.7:
        value["files"] = [_text(rng) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.7:
        value["next_action"] = rng.choice(["continue", "finalize", "ask_user"])
    if rng.random() < 0.5:
        value["sub_tasks"] = [{"query": _text(rng)} for _ in range(rng.randint(0, 2))]
    keys = list(value)
    rng.shuffle(keys)
    return {k: value[k] for k in keys}


def _is_prefix(partial: dict[str, Any], final: dict[str, Any], growing: bool) -> bool:
    for key, value in partial.items():
        if key not in final:
            return False
        if isinstance(value, list):
            if value != final[key][: len(value)]:
                return False
        elif isinstance(value, str) and growing:
            if not final[key].startswith(value):
                return False
        elif value != final[key]:
            return False
    return True


@pytest.mark.parametrize("seed", range(40))
def test_every_partial_is_a_prefix_of_the_final_answer(
    pkg: dict[str, ModuleType], run: Run, seed: int
) -> None:
    rng = random.Random(seed)
    client = pkg["_client"]
    function, make, kwargs = rng.choice(
        [
            (pkg["extraction"].extract_products, _extraction, {"article": "a"}),
            (pkg["agent"].agent_step, _agent, {"query": "q"}),
        ]
    )
    text = json.dumps(make(rng), ensure_ascii=rng.random() < 0.5)
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 40))))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    growing = rng.random() < 0.5
    strings = "growing" if growing else "complete"
    seen, step, _ = run(function, Script(chunks), **kwargs, strings=strings)
    final = client.plain(step.return_)
    assert all(_is_prefix(p, final, growing) for p in seen)
    assert seen[-1] == {k: v for k, v in final.items() if k in seen[-1]}
    assert all(a != b for a, b in itertools.pairwise(seen))


# -- names: a signature `x_stream` beside `x`, a map default, a list output -------------

CLASHES = """\
signature x(text :string) -> {n :int}
signature x_stream(text :string) -> {m :int}
signature Stream(text :string) -> {n :int}
signature opts(options :map = {}, tags [:string] = []) -> {n :int}
@output(text)
signature wait(text :string) -> :string
"""


@pytest.fixture
def clashes(tmp_path: Path) -> Iterator[ModuleType]:
    folder, _ = write_python_package(tmp_path, CLASHES, "streampkg")
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("streampkg.client.p")
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == "streampkg" or m.startswith("streampkg.")]:
            del sys.modules[name]


def test_a_signature_named_like_a_stream_form_keeps_its_name(clashes: ModuleType) -> None:
    assert not hasattr(clashes, "wait_stream")  # text signatures have no stream form
    plain = clashes.x_stream(text="t", llm=lambda request: '{"m": 1}')
    assert plain.return_.m == 1  # the signature's own function
    stream = clashes.x_stream_2(text="t", llm=Script(pieces('{"n": 2}')))
    assert list(stream) == [{}, {"n": 2}]
    assert stream.result().return_.n == 2
    nested = clashes.x_stream_stream(text="t", llm=Script(pieces('{"m": 3}')))
    assert nested.result().return_.m == 3
    assert {"ax_stream_2", "ax_stream_stream", "Stream_stream"} <= set(clashes.__all__)
    assert clashes.Stream_stream(text="t", llm=Script(['{"n": 4}'])).result().return_.n == 4


def test_map_and_list_defaults_stream_as_the_plain_call_sends_them(
    clashes: ModuleType,
) -> None:
    script = Script(['{"n": 5}'])
    step = clashes.opts_stream(llm=script).result()
    plain = Script(['{"n": 5}'])
    assert step.return_ == clashes.opts(llm=plain.plain).return_
    assert script.requests == plain.requests


def test_stream_json_drives_json_turns_with_any_check(pkg: dict[str, ModuleType]) -> None:
    client = pkg["_client"]
    stream_module = importlib.import_module("signatures._stream")
    validators = importlib.import_module("signatures.sentiment")
    spec = pkg["sentiment"].CLASSIFY_SPEC

    def turns() -> Any:
        parse = validators.parse_classify
        return client.json_turns(spec, {"text": "x"}, parse, dict, max_turns=1)

    checked = stream_module.stream_json(
        turns(), Script(pieces(GOOD)), check=validators.partial_classify
    )
    assert list(checked)[-1] == {"sentiment": "positive", "score": 0.9}
    assert checked.result().return_ == {"sentiment": "positive", "score": 0.9}
    raw = stream_module.stream_json(turns(), Script(pieces('{"sentiment": "meh"')))
    seen = []
    with pytest.raises(client.JsonEnforcementError):
        seen.extend(raw)
    assert seen == [{}, {"sentiment": "meh"}]  # no check: the reader's value
    with pytest.raises(RuntimeError, match="failed"):
        raw.result()


def test_bad_chunks_and_options_are_refused(pkg: dict[str, ModuleType]) -> None:
    client, sentiment = pkg["_client"], pkg["sentiment"]
    with pytest.raises(client.CallbackError, match="int"):
        list(sentiment.classify_stream(text="x", llm=Script([7])))
    with pytest.raises(client.CallbackError, match="`arguments` must be a string"):
        list(sentiment.classify_stream(text="x", llm=Script([{"arguments": 1}])))
    with pytest.raises(client.CallbackError, match="returned str"):
        list(sentiment.classify_stream(text="x", llm=lambda request: GOOD))
    with pytest.raises(ValueError, match="strings"):
        sentiment.classify_stream(text="x", llm=Script([GOOD]), strings="some")
