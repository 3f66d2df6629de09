"""The stream forms within the call's `Limits`: a turn whose answer text (content, tool
arguments, refusal) passes `reply_chars` is read no further (the callback's iterator closed)
and fails as the plain call fails on the same over-long reply, one failed turn that a retry may
follow; a reply exactly at the limit passes; reasoning past the limit is cut there with a note,
the turn read on, as the plain call cuts it; `limits.depth` bounds the partial reader. Each
scenario runs sync and async."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import itertools
import json
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import examples_package

GOOD = '{"sentiment": "positive", "score": 0.9}'
LIMIT = 1000
TOO_LONG = f"the reply is longer than {LIMIT} characters (the reply-size limit)"


@pytest.fixture(scope="module")
def pkg(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    with examples_package(examples_output) as modules:
        yield modules


class Endless:
    """A streaming model whose turns are chunk lists, or endless: `start`, then `piece`
    forever. Counts what it yielded and whether each turn's generator was closed."""

    def __init__(
        self, *turns: list[Any] | None, start: Any = '{"sentiment": "', piece: Any = "la "
    ) -> None:
        self.turns = list(turns)
        self.start, self.piece = start, piece
        self.yielded: list[int] = []
        self.closed: list[bool] = []

    def chunks(self) -> Iterator[Any]:
        given = self.turns.pop(0)
        number = len(self.yielded)
        self.yielded.append(0)
        self.closed.append(False)
        source = (
            itertools.chain([self.start], itertools.repeat(self.piece)) if given is None else given
        )
        try:
            for chunk in source:
                self.yielded[number] += 1
                yield chunk
        finally:
            self.closed[number] = True

    def __call__(self, request: dict[str, Any]) -> Iterator[Any]:
        return self.chunks()

    async def astream(self, request: dict[str, Any]) -> AsyncIterator[Any]:
        chunks = self.chunks()
        try:
            for chunk in chunks:
                await asyncio.sleep(0)
                yield chunk
        finally:
            chunks.close()


Run = Callable[..., tuple[list[Any], Any]]


def _sync(function: Callable[..., Any], model: Endless, **kwargs: Any) -> tuple[list[Any], Any]:
    stream = getattr(_module(function), f"{function.__name__}_stream")(**kwargs, llm=model)
    seen = list(stream)
    return seen, stream.step


def _async(function: Callable[..., Any], model: Endless, **kwargs: Any) -> tuple[list[Any], Any]:
    make = getattr(_module(function), f"a{function.__name__}_stream")

    async def run() -> tuple[list[Any], Any]:
        stream = make(**kwargs, llm=model.astream)
        seen = [partial async for partial in stream]
        return seen, await stream.result()

    return asyncio.run(run())


def _module(function: Callable[..., Any]) -> ModuleType:
    return sys.modules[function.__module__]


@pytest.fixture(params=["sync", "async"])
def run(request: pytest.FixtureRequest) -> Run:
    return {"sync": _sync, "async": _async}[request.param]


def _limits(pkg: dict[str, ModuleType], **given: int) -> Any:
    return pkg["_common"].Limits(**given)


def _replies(*replies: Any) -> Callable[[dict[str, Any]], Any]:
    """A plain callback answering each turn with the next of `replies`."""
    answers = iter(replies)
    return lambda request: next(answers)


def _failed(pkg: dict[str, ModuleType], call: Callable[[], Any]) -> Any:
    """The step of a call that ends in JsonEnforcementError."""
    with pytest.raises(pkg["_client"].JsonEnforcementError) as caught:
        call()
    return caught.value.step


def test_an_endless_stream_is_stopped_and_closed_at_the_limit(
    pkg: dict[str, ModuleType], run: Run
) -> None:
    classify = pkg["sentiment"].classify
    model = Endless(None, None)
    limits = _limits(pkg, reply_chars=LIMIT)
    step = _failed(pkg, lambda: run(classify, model, text="x", max_turns=2, limits=limits))
    assert [t.errors for t in step.turns] == [[("root", TOO_LONG)]] * 2
    assert model.closed == [True, True]  # each turn's generator: its `finally` ran
    # Read no further than the chunk that passed the limit.
    assert model.yielded == [1 + (LIMIT - len(model.start)) // len(model.piece) + 1] * 2
    # What a turn holds: the text to one character past the limit.
    assert {len(t.reply.content) for t in step.turns} == {LIMIT + 1}


def test_the_error_is_the_plain_calls_on_the_same_text(
    pkg: dict[str, ModuleType], run: Run
) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    text = '{"sentiment": "' + "la " * 600 + '", "score": 0.5}'
    plain = _failed(pkg, lambda: classify(text="x", llm=lambda r: text, max_turns=1, limits=limits))
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    streamed = _failed(
        pkg, lambda: run(classify, Endless(pieces), text="x", max_turns=1, limits=limits)
    )
    assert streamed.turns[0].errors == plain.turns[0].errors == [("root", TOO_LONG)]
    assert streamed.fail == plain.fail
    assert text.startswith(streamed.turns[0].reply.content)


def test_a_retry_after_an_oversized_turn_succeeds(pkg: dict[str, ModuleType], run: Run) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    model = Endless(None, [GOOD[:10], GOOD[10:]])
    seen, step = run(classify, model, text="x", max_turns=2, limits=limits)
    assert step.return_.sentiment == "positive" and len(step.turns) == 2
    assert step.turns[0].errors == [("root", TOO_LONG)] and step.turns[1].errors == []
    assert seen[-1] == {"sentiment": "positive", "score": 0.9}
    # The retry's feedback is the plain call's on the same over-long reply.
    long = model.start + "la " * 1000
    plain = classify(text="x", llm=_replies(long, GOOD), max_turns=2, limits=limits)
    assert step.turns[1].request["messages"][-1] == plain.turns[1].request["messages"][-1]


def test_a_reply_exactly_at_the_limit_passes(pkg: dict[str, ModuleType], run: Run) -> None:
    classify = pkg["sentiment"].classify
    at = _limits(pkg, reply_chars=len(GOOD))
    for size in (1, 5, len(GOOD)):
        pieces = [GOOD[i : i + size] for i in range(0, len(GOOD), size)]
        seen, step = run(classify, Endless(pieces), text="x", max_turns=1, limits=at)
        assert step.return_.score == 0.9 and seen[-1]["score"] == 0.9
    under = _limits(pkg, reply_chars=len(GOOD) - 1)
    too_long = f"the reply is longer than {len(GOOD) - 1} characters (the reply-size limit)"
    plain = _failed(pkg, lambda: classify(text="x", llm=lambda r: GOOD, max_turns=1, limits=under))
    assert plain.turns[0].errors == [("root", too_long)]
    streamed = _failed(
        pkg,
        lambda: run(classify, Endless([GOOD[:-5], GOOD[-5:]]), text="x", max_turns=1, limits=under),
    )
    assert streamed.turns[0].errors == [("root", too_long)]


def test_no_partial_shows_past_the_limit(pkg: dict[str, ModuleType], run: Run) -> None:
    classify = pkg["sentiment"].classify
    chunks = [GOOD[:-5], GOOD[-5:]]
    at = _limits(pkg, reply_chars=len(GOOD))
    shown = _partials_until_failure(classify, run, chunks, at, text="x")
    assert shown == [{"sentiment": "positive"}, {"sentiment": "positive", "score": 0.9}]
    under = _limits(pkg, reply_chars=len(GOOD) - 1)
    shown = _partials_until_failure(classify, run, chunks, under, text="x")
    assert shown == [{"sentiment": "positive"}]  # the score came in the chunk past it


def _partials_until_failure(
    function: Callable[..., Any], run: Run, chunks: list[str], limits: Any, **kwargs: Any
) -> list[Any]:
    """The partials a stream showed before it ended, failed or not."""
    module = _module(function)
    name = function.__name__
    seen: list[Any] = []
    if run is _sync:
        stream = getattr(module, f"{name}_stream")(
            **kwargs, llm=Endless(chunks), max_turns=1, limits=limits
        )
        with contextlib.suppress(module.JsonEnforcementError):
            seen.extend(stream)
        return seen

    async def go() -> None:
        stream = getattr(module, f"a{name}_stream")(
            **kwargs, llm=Endless(chunks).astream, max_turns=1, limits=limits
        )
        with contextlib.suppress(module.JsonEnforcementError):
            async for partial in stream:
                seen.append(partial)

    asyncio.run(go())
    return seen


def test_one_huge_chunk_is_kept_to_the_limit(pkg: dict[str, ModuleType], run: Run) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    model = Endless(["x" * (50 * LIMIT)], [GOOD])
    _, step = run(classify, model, text="x", max_turns=2, limits=limits)
    assert step.turns[0].errors == [("root", TOO_LONG)]
    assert len(step.turns[0].reply.content) == LIMIT + 1
    assert step.return_.sentiment == "positive"


def test_characters_are_code_points(pkg: dict[str, ModuleType], run: Run) -> None:
    classify = pkg["sentiment"].classify
    reply = "\U0001f600\U0001f600 " + GOOD
    at = _limits(pkg, reply_chars=len(reply))  # code points: each emoji is one
    _, step = run(classify, Endless(list(reply)), text="x", max_turns=1, limits=at)
    assert step.return_.score == 0.9


def test_tool_arguments_past_the_limit_fail_as_the_plain_call(
    pkg: dict[str, ModuleType], run: Run
) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    model = Endless(
        None, [{"arguments": GOOD}], start={"tool": "respond"}, piece={"arguments": "la "}
    )
    _, step = run(classify, model, text="x", max_turns=2, structured="tool", limits=limits)
    assert step.turns[0].errors == [("root", TOO_LONG)] and model.closed[0]
    long = {
        "content": None,
        "tool_calls": [{"id": None, "name": "respond", "arguments": "la " * 400}],
    }
    plain = _failed(
        pkg,
        lambda: classify(
            text="x", llm=lambda r: long, max_turns=1, structured="tool", limits=limits
        ),
    )
    assert plain.turns[0].errors == step.turns[0].errors


def _note(limit: int) -> str:
    return (
        f"the reasoning was longer than {limit} characters (the reply-size limit):"
        f" kept its first {limit}"
    )


def test_reasoning_past_the_limit_is_cut_and_the_turn_goes_on(
    pkg: dict[str, ModuleType], run: Run
) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    thoughts = "hmm " * 300  # LIMIT + 200 characters
    chunks: list[Any] = [{"notes": ["sent again"]}]
    chunks += [{"reasoning": thoughts[i : i + 7]} for i in range(0, len(thoughts), 7)]
    chunks += [{"content": GOOD[:9], "reasoning": "and more"}, GOOD[9:]]
    model = Endless(chunks)
    seen, step = run(classify, model, text="x", max_turns=1, limits=limits)
    assert model.yielded == [len(chunks)]  # read to its end: reasoning does not stop a turn
    assert seen[-1] == {"sentiment": "positive", "score": 0.9}
    (turn,) = step.turns
    assert turn.errors == [] and step.return_.sentiment == "positive"
    assert turn.reply.reasoning == thoughts[:LIMIT]
    assert turn.reply.notes == ("sent again", _note(LIMIT))
    # The plain call on the same reply ends with the same Step.
    whole = {"content": GOOD, "reasoning": thoughts + "and more", "notes": ["sent again"]}
    plain = classify(text="x", llm=lambda r: whole, max_turns=1, limits=limits)
    assert step == plain


def test_reasoning_at_the_limit_is_kept_whole_without_a_note(
    pkg: dict[str, ModuleType], run: Run
) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    thoughts = "\U0001f914" * LIMIT  # code points: each emoji is one
    chunks = [{"reasoning": thoughts[:300]}, {"reasoning": thoughts[300:]}, GOOD]
    _, step = run(classify, Endless(chunks), text="x", max_turns=1, limits=limits)
    assert step.turns[0].reply.reasoning == thoughts and step.turns[0].reply.notes == ()
    whole = {"content": GOOD, "reasoning": thoughts}
    assert step == classify(text="x", llm=lambda r: whole, max_turns=1, limits=limits)
    longer = {"content": GOOD, "reasoning": thoughts + "!"}
    plain = classify(text="x", llm=lambda r: longer, max_turns=1, limits=limits)
    assert plain.turns[0].reply.reasoning == thoughts
    assert plain.turns[0].reply.notes == (_note(LIMIT),)


def test_a_plain_replys_reasoning_is_cut_at_the_default_limit(
    pkg: dict[str, ModuleType],
) -> None:
    classify = pkg["sentiment"].classify
    most = pkg["_common"].LIMITS.reply_chars
    reply = {"content": GOOD, "reasoning": "r" * (most + 5)}
    step = classify(text="x", llm=lambda r: reply, max_turns=1)
    assert len(step.turns[0].reply.reasoning) == most
    assert step.turns[0].reply.notes == (_note(most),)


def test_long_reasoning_in_tool_mode_and_in_a_failed_turn(
    pkg: dict[str, ModuleType], run: Run
) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    thoughts = "x" * (50 * LIMIT)  # one huge chunk: kept to the limit
    tool = [{"tool": "respond", "reasoning": thoughts}, {"arguments": GOOD}]
    _, step = run(classify, Endless(tool), text="x", structured="tool", limits=limits)
    assert step.turns[0].reply.reasoning == "x" * LIMIT and step.return_.score == 0.9
    whole = {
        "content": None,
        "reasoning": thoughts,
        "tool_calls": [{"id": None, "name": "respond", "arguments": GOOD}],
    }
    plain = classify(text="x", llm=lambda r: whole, structured="tool", limits=limits)
    assert step == plain
    # An over-long answer still fails its turn; the reasoning beside it is cut, as plain.
    model = Endless(None, [GOOD], start={"reasoning": thoughts}, piece="la ")
    _, step = run(classify, model, text="x", max_turns=2, limits=limits)
    first = step.turns[0]
    assert first.errors == [("root", TOO_LONG)] and model.closed == [True, True]
    assert first.reply.reasoning == "x" * LIMIT and first.reply.notes == (_note(LIMIT),)
    assert len(first.reply.content) == LIMIT + 1 and step.return_.sentiment == "positive"


def test_endless_reasoning_is_read_on_in_bounded_memory(pkg: dict[str, ModuleType]) -> None:
    # Only the transport's deadline stops a model that never stops thinking (docs/client.md);
    # what the turn keeps stays at the limit however long it reads.
    chunks = pkg["_stream"]._Chunks(LIMIT)
    for _ in range(100_000):
        assert chunks.add({"reasoning": "hmm "}) == ("", "")
    assert chunks.over is None and chunks.cut
    assert sum(map(len, chunks.texts["reasoning"])) == LIMIT
    assert len(chunks.texts["reasoning"]) == LIMIT // 4  # no empty pieces kept
    reply = chunks.reply()
    assert reply["reasoning"] == ("hmm " * 250) and reply["notes"] == [_note(LIMIT)]


def test_a_refusal_past_the_limit_is_a_refusal(pkg: dict[str, ModuleType], run: Run) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    model = Endless(None, start={"refusal": "No. "}, piece={"refusal": "No. "})
    with pytest.raises(pkg["_client"].RefusalError) as caught:
        run(classify, model, text="x", limits=limits)
    assert caught.value.refusal == ("No. " * 300)[: LIMIT + 1] and model.closed == [True]


def test_depth_bounds_the_partial_reader(pkg: dict[str, ModuleType], run: Run) -> None:
    extract = pkg["extraction"].extract_products
    reply = json.dumps(
        {"products": [{"name": "Lamp", "price": 10, "tags": ["a"]}], "main_topic": "Lights"}
    )
    pieces = [reply[i : i + 4] for i in range(0, len(reply), 4)]
    seen = _partials_until_failure(extract, run, pieces, None, article="a")
    assert seen[-1]["products"][0]["name"] == "Lamp"  # the default depth reads the products
    # Its items open a third level: with depth 2 the reader stops, and the reply is too deep.
    shallow = _limits(pkg, depth=2)
    seen = _partials_until_failure(extract, run, pieces, shallow, article="a")
    assert seen == [{}, {"products": []}]
    with pytest.raises(pkg["_client"].JsonEnforcementError) as caught:
        run(extract, Endless(pieces), article="a", max_turns=1, limits=shallow)
    assert "nested more than 2 levels deep" in str(caught.value)


def test_stream_json_takes_limits(pkg: dict[str, ModuleType]) -> None:
    client, stream_module = pkg["_client"], pkg["_stream"]
    validators = importlib.import_module("signatures.sentiment")
    spec = pkg["sentiment"].CLASSIFY_SPEC
    reply = '{"sentiment": "positive", "deep": [[[1]]], "score": 0.9}'
    pieces = [reply[i : i + 3] for i in range(0, len(reply), 3)]

    def partials(limits: Any) -> list[Any]:
        turns = client.json_turns(spec, {"text": "x"}, validators.parse_classify, dict, max_turns=1)
        stream = stream_module.stream_json(turns, Endless(pieces), limits=limits)
        seen: list[Any] = []
        with contextlib.suppress(client.JsonEnforcementError):
            seen.extend(stream)
        return seen

    assert partials(None)[-1] == {"sentiment": "positive", "deep": [[[1]]], "score": 0.9}
    # Three levels below the root's: past depth 3 the reader stops before `deep` shows.
    assert partials(_limits(pkg, depth=3)) == [
        {},
        {"sentiment": "positive"},
        {"sentiment": "positive", "deep": []},
    ]


def test_a_stream_object_and_its_iterator_are_both_closed(
    pkg: dict[str, ModuleType],
) -> None:
    classify = pkg["sentiment"].classify
    limits = _limits(pkg, reply_chars=LIMIT)
    closed: list[str] = []

    class SdkStream:
        """An SDK's stream: iterated through a generator of its own, closed by `close()`."""

        def __iter__(self) -> Iterator[str]:
            try:
                while True:
                    yield "la "
            finally:
                closed.append("iterator")

        def close(self) -> None:
            closed.append("stream")

    class AsyncSdkStream:
        async def _events(self) -> AsyncIterator[str]:
            try:
                while True:
                    yield "la "
            finally:
                closed.append("aiterator")

        def __aiter__(self) -> AsyncIterator[str]:
            return self._events()

        async def close(self) -> None:  # as openai's AsyncStream: a coroutine
            closed.append("astream")

    _failed(
        pkg,
        lambda: classify.__globals__["classify_stream"](
            text="x", llm=lambda r: SdkStream(), max_turns=1, limits=limits
        ).result(),
    )

    async def go() -> None:
        await classify.__globals__["aclassify_stream"](
            text="x", llm=lambda r: AsyncSdkStream(), max_turns=1, limits=limits
        ).result()

    _failed(pkg, lambda: asyncio.run(go()))
    assert closed == ["iterator", "stream", "aiterator", "astream"]


def test_the_reader_stops_past_its_depth(pkg: dict[str, ModuleType]) -> None:
    reader_of = pkg["_stream"].PartialReader
    nested = '{"a": 1, "b": [[2]], "c": {"x": [1]}, "d": 4}'
    for depth, value, failed in (
        (None, {"a": 1, "b": [[2]], "c": {"x": [1]}, "d": 4}, False),
        (3, {"a": 1, "b": [[2]], "c": {"x": [1]}, "d": 4}, False),
        (2, {"a": 1, "b": []}, True),  # `b`'s item opens a third level: it stops there
    ):
        reader = reader_of(depth=depth)
        for i in range(0, len(nested), 3):
            reader.feed(nested[i : i + 3])
        assert (reader.value, reader.failed) == (value, failed)
