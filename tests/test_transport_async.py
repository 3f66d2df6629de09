"""`AsyncOpenAICompatible` against a scripted Chat Completions server on 127.0.0.1, driven
through the generated `aclassify`: the sync callback's retries, deadline, redirects and
negotiation, with its waits awaited, several calls at once over one client, the event loop
never blocked, and a cancelled call sending nothing more."""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
import threading
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sigspec.runtime.transport import AsyncOpenAICompatible, LlmHttpError, Retry, _in_thread
from test_transport import (
    GOOD,
    KEY,
    LLAMA_CPP_PYTHON_500,
    TEXT_REQUEST,
    Answer,
    Server,
    Waits,
    completion,
)
from test_transport_stream import acallback, delta, sse


@pytest.fixture(scope="module")
def sentiment(examples_output: Path) -> Iterator[ModuleType]:
    sys.dont_write_bytecode, before = True, sys.dont_write_bytecode
    folder = str(examples_output / "python")
    sys.path.insert(0, folder)
    try:
        yield importlib.import_module("signatures.client.sentiment")
    finally:
        sys.path.remove(folder)
        sys.dont_write_bytecode = before
        for name in [m for m in sys.modules if m == "signatures" or m.startswith("signatures.")]:
            del sys.modules[name]


def run(awaitable: Awaitable[Any]) -> Any:
    async def main() -> Any:
        return await awaitable

    return asyncio.run(main())


class Ticker:
    """Counts the event loop's turns while it runs: a blocked loop does not tick."""

    def __init__(self) -> None:
        self.ticks = 0

    async def __call__(self, until: asyncio.Future[Any]) -> None:
        while not until.done():
            self.ticks += 1
            await asyncio.sleep(0.01)


async def ticking(call: Awaitable[Any], ticker: Ticker) -> Any:
    task = asyncio.ensure_future(call)
    await asyncio.gather(task, ticker(task), return_exceptions=True)
    return task.result()


# -- retries, through aclassify ---------------------------------------------------------------


def test_aclassify_waits_as_retry_after_says(sentiment: ModuleType) -> None:
    waits = Waits()
    with Server(
        Answer({"error": "slow down"}, 429, {"Retry-After": "7"}), Answer(completion(GOOD))
    ) as server:
        step = run(sentiment.aclassify(text="Nice", llm=acallback(server.url, waits)))
    assert step.return_.sentiment == "positive" and len(server.seen) == 2
    assert waits.waits == [7]
    [turn] = step.turns
    assert "HTTP 429" in turn.reply.notes[0] and step.usage == {"input": 2, "output": 3}


def test_the_waits_are_awaited_not_slept() -> None:
    """Real time, no injection: the backoff is an `asyncio.sleep`, and the loop runs on."""
    ticker = Ticker()
    with Server(Answer({"error": "busy"}, 503), Answer(completion("ok"))) as server:
        retry = Retry(base=0.6, cap=0.6)
        llm = AsyncOpenAICompatible(server.url, "m", retry=retry, random=lambda: 1.0)
        began = time.monotonic()
        answer = run(ticking(llm(TEXT_REQUEST), ticker))
        took = time.monotonic() - began
    assert answer["content"] == "ok" and 0.6 <= took < 2, took
    assert ticker.ticks >= 20, ticker.ticks  # a loop blocked for the 0.6 s wait: a few


def test_a_reset_connection_is_sent_again(sentiment: ModuleType) -> None:
    with Server(Answer(reset=True), Answer(completion(GOOD))) as server:
        step = run(sentiment.aclassify(text="Nice", llm=acallback(server.url)))
    assert len(server.seen) == 2 and step.return_.score == 0.9
    assert "attempt 1 failed" in step.turns[0].reply.notes[0]


def test_a_slow_response_past_the_deadline_ends_the_call_in_time() -> None:
    """Real time: the server answers after 3 s, the deadline is 0.4 s."""
    with Server(Answer(completion("late"), delay=3), Answer(completion("late"))) as server:
        llm = acallback(server.url, retry=Retry(attempts=5, base=0.1, deadline=0.4))
        began = time.monotonic()
        with pytest.raises(LlmHttpError, match=r"timed out.*past the retry deadline of 0\.4 s"):
            run(llm(TEXT_REQUEST))
        took = time.monotonic() - began
    assert took < 1.5, took


@pytest.mark.parametrize("status", [302, 307, 308])
def test_a_redirect_to_another_host_is_not_followed(status: int) -> None:
    with Server(Answer(completion("elsewhere")), host="localhost") as other:
        target = other.url + "/chat/completions?key=" + KEY
        with (
            Server(Answer({}, status, {"Location": target})) as server,
            pytest.raises(LlmHttpError, match=f"HTTP {status} redirect to") as caught,
        ):
            run(acallback(server.url)(TEXT_REQUEST))
    assert not other.seen and KEY not in str(caught.value)


def test_the_key_shows_in_no_repr() -> None:
    llm = AsyncOpenAICompatible("http://127.0.0.1:9/v1?key=" + KEY, "m", api_key=KEY)
    assert KEY not in repr(llm) and repr(llm).startswith("AsyncOpenAICompatible(")


# -- negotiation, once per client -------------------------------------------------------------


def test_a_fallback_is_kept_for_the_client(
    sentiment: ModuleType, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="sigspec.client")
    with Server(
        Answer(LLAMA_CPP_PYTHON_500, 500), Answer(completion(GOOD)), Answer(completion(GOOD))
    ) as server:
        llm = acallback(server.url)
        first = run(sentiment.aclassify(text="Nice", llm=llm))
        second = run(sentiment.aclassify(text="Fine", llm=llm))
    kinds = [form["type"] for form in server.formats()]
    assert kinds == ["json_schema", "json_object", "json_object"]
    assert server.formats()[1]["schema"] == server.formats()[0]["json_schema"]["schema"]
    assert llm.form == "json_object" and len(caplog.records) == 1
    assert first.turns[0].reply.notes[0].startswith("the server rejected response_format")
    assert not second.turns[0].reply.notes


# -- several calls at once, and cancellation --------------------------------------------------


def test_gathered_calls_over_one_client_run_at_once(sentiment: ModuleType) -> None:
    """Real time: 4 answers of 0.5 s each come in about 0.5 s, not 2 s, and the loop ticks."""
    ticker = Ticker()
    with Server(*[Answer(completion(GOOD), delay=0.5)] * 4) as server:
        llm = acallback(server.url)

        async def four() -> list[Any]:
            calls = [sentiment.aclassify(text=f"t{n}", llm=llm) for n in range(4)]
            return list(await asyncio.gather(*calls))

        began = time.monotonic()
        steps = run(ticking(four(), ticker))
        took = time.monotonic() - began
    assert [s.return_.sentiment for s in steps] == ["positive"] * 4
    assert (
        sorted(body["messages"][-1]["content"][-2:] for _, _, body in server.seen)
        == [
            "t0",
            "t1",
            "t2",
            "t3",
        ]
        or len(server.seen) == 4
    )
    assert took < 1.5, took
    assert ticker.ticks >= 10


def test_a_cancelled_call_sends_nothing_more() -> None:
    """Real time: a server that always asks to wait 0.2 s; the call is cut at 0.5 s by
    `asyncio.wait_for`, and no request follows."""
    with Server(*[Answer({"error": "busy"}, 503, {"Retry-After": "0.2"})] * 20) as server:
        llm = AsyncOpenAICompatible(server.url, "m", retry=Retry(attempts=20))
        with pytest.raises(TimeoutError):
            run(asyncio.wait_for(llm(TEXT_REQUEST), 0.5))
        sent = len(server.seen)
        time.sleep(0.8)
        assert len(server.seen) == sent and 1 <= sent <= 4


def test_a_call_cancelled_in_flight_is_not_sent_again() -> None:
    """Real time: the request in its thread runs to its end; nothing retries it."""
    with Server(Answer(reset=True, delay=0.5), Answer(completion("again"))) as server:
        llm = AsyncOpenAICompatible(server.url, "m")
        with pytest.raises(TimeoutError):
            run(asyncio.wait_for(llm(TEXT_REQUEST), 0.1))
        time.sleep(1.0)
    assert len(server.seen) == 1


def test_a_cancelled_stream_sends_nothing_more() -> None:
    """Real time: a stream cut by `asyncio.wait_for` while it waits for its second chunk."""
    raw = sse(*[delta(content=str(n)) for n in range(3)])
    pieces = [raw[: raw.index(b"data:", 1)], raw[raw.index(b"data:", 1) :]]
    with Server(Answer(pieces=pieces, pause=0.6), Answer(completion("again"))) as server:
        llm = acallback(server.url)
        got: list[Any] = []

        async def read() -> None:
            async for chunk in llm.stream(TEXT_REQUEST):
                got.append(chunk)

        with pytest.raises(TimeoutError):
            run(asyncio.wait_for(read(), 0.3))
        time.sleep(0.5)
    assert got == [{"content": "0"}] and len(server.seen) == 1


class Opened:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("owned", [False, True])
@pytest.mark.parametrize("fails", [False, True])
def test_what_a_cancelled_thread_opened_is_closed(owned: bool, fails: bool) -> None:
    """The thread runs on after the cancel; at its end it closes what nobody will read:
    what it returned, or the object given as owned (also when the call fails)."""
    given, made = Opened(), Opened()

    def call() -> Opened:
        time.sleep(0.3)
        if fails:
            raise OSError("reset")
        return made

    async def cut() -> None:
        task = asyncio.ensure_future(_in_thread(call, given if owned else None))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not given.closed and not made.closed  # the thread is still in its call

    asyncio.run(cut())  # waits for the worker thread, as it shuts its executor down
    assert given.closed == owned
    assert made.closed == (not owned and not fails)


def test_a_result_come_back_just_as_the_call_is_cancelled_is_closed() -> None:
    """The thread is done, and the task cancelled before it reads the result: the task
    closes it."""
    made, returned = Opened(), threading.Event()

    def call() -> Opened:
        returned.set()
        return made

    async def cut() -> None:
        task = asyncio.ensure_future(_in_thread(call))
        await asyncio.sleep(0)  # the task starts its thread
        returned.wait(5)
        time.sleep(0.1)  # the loop blocked: the result has come, the task has not run
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert made.closed

    asyncio.run(cut())
