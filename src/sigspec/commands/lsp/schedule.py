"""Debounced, superseding checks, one at a time, off the server's event loop.

A request for a key starts (or restarts) its delay; when the delay passes without another
request the key joins the queue; the queue is worked off one check at a time in a worker
thread, so the event loop keeps answering the editor (formatting, further changes) while a
check runs. A newer request for a key supersedes its check whether still waiting, queued or
running: a running check cannot be interrupted, but its result is dropped.

Free of pygls: only asyncio and threads. Every method is called on the event loop's thread.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import Future
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
R = TypeVar("R")

logger = logging.getLogger(__name__)


class Scheduler(Generic[K, R]):
    """Checks keyed by document: `start(key)` (on the loop) returns the work to run off it, or
    None when there is nothing to check any more; `finish(key, result)` (on the loop) gets
    the result of the latest request only."""

    def __init__(
        self,
        start: Callable[[K], Callable[[], R] | None],
        finish: Callable[[K, R], None],
        delay: float,
    ) -> None:
        self._start = start
        self._finish = finish
        self._delay = delay
        self._tickets = itertools.count(1)
        self._latest: dict[K, int] = {}  # key -> ticket of its latest request
        self._timers: dict[K, asyncio.TimerHandle] = {}
        self._queue: dict[K, None] = {}  # an ordered set: keys whose delay has passed
        self._wake: asyncio.Event | None = None
        self._runner: asyncio.Task[None] | None = None

    def request(self, keys: Iterable[K]) -> None:
        """Check these keys once no further request has come for them for the delay."""
        loop = asyncio.get_running_loop()
        for key in keys:
            self._drop(key)
            self._latest[key] = next(self._tickets)
            self._timers[key] = loop.call_later(self._delay, self._enqueue, key)
        if self._runner is None:
            self._wake = asyncio.Event()
            self._runner = loop.create_task(self._run(self._wake))

    def cancel(self, key: K) -> None:
        """Forget a key: whatever is waiting, queued or running for it comes to nothing."""
        self._drop(key)
        self._latest.pop(key, None)

    def _drop(self, key: K) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self._queue.pop(key, None)

    def _enqueue(self, key: K) -> None:
        self._timers.pop(key, None)
        self._queue[key] = None
        if self._wake is not None:
            self._wake.set()

    async def _run(self, wake: asyncio.Event) -> None:
        while True:
            await wake.wait()
            wake.clear()
            while self._queue:
                key = next(iter(self._queue))
                del self._queue[key]
                try:
                    await self._check(key)
                except Exception:  # a bug here must not stop the checks of other documents
                    logger.exception("checking a document failed")

    async def _check(self, key: K) -> None:
        ticket = self._latest.get(key)
        work = self._start(key) if ticket is not None else None
        if work is None:
            return
        result = await _in_thread(work)
        if self._latest.get(key) == ticket:
            self._finish(key, result)


async def _in_thread(work: Callable[[], R]) -> R:
    """Run `work` in a daemon thread (one that never holds up the server's exit)."""
    done: Future[R] = Future()

    def run() -> None:
        if not done.set_running_or_notify_cancel():
            return
        try:
            done.set_result(work())
        except BaseException as exc:  # settled whatever happens, or the queue would stall
            done.set_exception(exc)

    threading.Thread(target=run, name="sigspec-check", daemon=True).start()
    return await asyncio.wrap_future(done)
