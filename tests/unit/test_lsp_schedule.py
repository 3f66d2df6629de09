"""The language server's scheduler: debounced, superseding checks run one at a time in a
worker thread. Driven on an event loop of the test's own; no sleeping to synchronise."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

from sigspec.commands.lsp.schedule import Scheduler

TIMEOUT = 30


class Recorder:
    """start/finish for a Scheduler: what was started and finished; `hold` keys wait for
    `release` in the worker thread."""

    def __init__(self, hold: frozenset[str] = frozenset()) -> None:
        self.hold = hold
        self.started: list[str] = []
        self.finished: list[tuple[str, str]] = []
        self.running = threading.Event()
        self.release = threading.Event()
        self.done: asyncio.Queue[str] = asyncio.Queue()

    def start(self, key: str) -> Callable[[], str]:
        self.started.append(key)
        return lambda: self.work(key, len(self.started))

    def work(self, key: str, run: int) -> str:
        if key in self.hold:
            self.running.set()
            assert self.release.wait(TIMEOUT)
        if key == "boom":
            raise RuntimeError("boom")
        return f"{key}#{run}"

    def finish(self, key: str, result: str) -> None:
        self.finished.append((key, result))
        self.done.put_nowait(key)

    async def next_done(self) -> str:
        return await asyncio.wait_for(self.done.get(), TIMEOUT)


def test_a_burst_of_requests_is_one_check() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        scheduler = Scheduler(recorder.start, recorder.finish, delay=0.01)
        for _ in range(10):
            scheduler.request(["a"])
        assert await recorder.next_done() == "a"
        scheduler.request(["b"])  # a later key, checked after: "a" is not checked again
        assert await recorder.next_done() == "b"
        assert recorder.started == ["a", "b"]
        assert recorder.finished == [("a", "a#1"), ("b", "b#2")]

    asyncio.run(scenario())


def test_a_request_during_a_check_drops_its_result_and_checks_again() -> None:
    async def scenario() -> None:
        recorder = Recorder(hold=frozenset({"a"}))
        scheduler = Scheduler(recorder.start, recorder.finish, delay=0.01)
        scheduler.request(["a"])
        assert await asyncio.to_thread(recorder.running.wait, TIMEOUT)
        scheduler.request(["a"])  # supersedes the check now running
        recorder.release.set()
        assert await recorder.next_done() == "a"
        assert recorder.started == ["a", "a"]
        assert recorder.finished == [("a", "a#2")]

    asyncio.run(scenario())


def test_a_cancelled_key_is_not_checked_and_a_running_check_comes_to_nothing() -> None:
    async def scenario() -> None:
        recorder = Recorder(hold=frozenset({"held"}))
        scheduler = Scheduler(recorder.start, recorder.finish, delay=0.01)
        scheduler.request(["held"])
        assert await asyncio.to_thread(recorder.running.wait, TIMEOUT)
        scheduler.request(["waiting"])
        scheduler.cancel("waiting")
        scheduler.cancel("held")
        scheduler.request(["last"])
        recorder.release.set()
        assert await recorder.next_done() == "last"
        assert recorder.started == ["held", "last"]
        assert recorder.finished == [("last", "last#2")]

    asyncio.run(scenario())


def test_a_failing_check_does_not_stop_the_others() -> None:
    async def scenario() -> None:
        recorder = Recorder()
        scheduler = Scheduler(recorder.start, recorder.finish, delay=0.01)
        scheduler.request(["boom", "a"])
        assert await recorder.next_done() == "a"
        assert recorder.started == ["boom", "a"]
        assert recorder.finished == [("a", "a#2")]

    asyncio.run(scenario())


def test_nothing_to_start_is_skipped() -> None:
    async def scenario() -> None:
        recorder = Recorder()

        def start(key: str) -> Callable[[], str] | None:
            return None if key == "closed" else recorder.start(key)

        scheduler = Scheduler(start, recorder.finish, delay=0.01)
        scheduler.request(["closed", "a"])
        assert await recorder.next_done() == "a"
        assert recorder.finished == [("a", "a#1")]

    asyncio.run(scenario())
