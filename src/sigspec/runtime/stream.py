"""Streaming: an incremental reader of partial JSON, and the stream drivers of the client
loop. Standard library only; copied into every generated Python package as `_stream.py`.

A streaming callback takes the same request as a plain one and returns an iterable (async
iterable, for the async form) of chunks: strings (the next piece of the answer) or dicts
with any of `content`, `arguments`, `tool`, `refusal`, `reasoning` (pieces of text),
`tokens` (usage counts, a later count replacing an earlier one) and `notes`. The drivers
feed each turn's answer to a fresh `PartialReader`, yield the partial value whenever it
changes, and send the turn's chunks joined into the plain callback's reply dict to the
one call loop (`json_turns`), so a streamed call's `Step` is the plain call's.

A turn is bounded by the call's `Limits`: each of its answer texts (content, arguments,
refusal) holds at most `reply_chars` characters. Past that the drivers stop reading, close
the callback's iterator, and send the loop the text cut to one character past the limit,
as the answer: the loop rejects it as it rejects an over-long plain reply, a failed turn
(a refusal stays a refusal). Reasoning is never parsed: past `reply_chars` it is cut there,
with a note, and the turn is read on, as the loop cuts a plain reply's reasoning
(`kept_reasoning`). The reader nests at most `depth` levels.
"""

from __future__ import annotations

import contextvars
import json
import re
import types
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
)
from typing import Any, Generic, TypeVar

from .client import (
    RESPOND_TOOL,
    CallbackError,
    Request,
    Spec,
    Step,
    Turns,
    answer_keys,
    as_array,
    as_object,
    awaitable,
    generated,
    json_call,
    reasoning_note,
)
from .common import LIMITS, Limits, shown

P = TypeVar("P")
T = TypeVar("T")
# A streaming callback: a request in, an iterable of chunks out (an async iterable, async).
StreamLlm = Callable[[Request], Iterable[Any]]
AsyncStreamLlm = Callable[[Request], AsyncIterable[Any]]

_SPACE = re.compile(r"[ \t\r\n]*")
_ROOT = re.compile(r"[{\[]")
_PLAIN = re.compile(r'[^"\\]*')  # a string's characters up to a quote or a backslash
_ATOM = re.compile(r"[-+0-9.eEa-z]*")  # a number, true, false or null
_DECODER = json.JSONDecoder(strict=False)
# What a frame expects next.
_KEY, _COLON, _VALUE, _COMMA, _FIRST = range(5)


def _check_strings(strings: str) -> None:
    if strings not in ("complete", "growing"):
        raise ValueError(
            f'strings must be "complete" or "growing", not {shown(strings)}'
        )


class _Frame:
    """An open object or list: its container, the key of the value being read, what comes
    next, and whether the container is already part of the partial value."""

    __slots__ = ("container", "expect", "key", "shown")

    def __init__(self, container: Any, shown: bool) -> None:
        self.container = container
        self.key: str | None = None
        self.expect = _FIRST
        self.shown = shown


class PartialReader:
    """An incremental reader of one JSON answer, fed text as it arrives (`feed`).

    Text before the first `{` or `[` (prose, a ```json fence) is skipped, and so is what
    follows the value. Each character is read once. `value` holds what is complete: the
    top-level object's members (a nested object, a number, a boolean, null only once
    complete; a string once complete, or growing when `strings="growing"`; a list growing by
    each item once that item is complete), or a top-level list's complete items. `growing`
    is the key of the member being read when it is a growing string. Text that is no JSON
    stops the reader: `value` stays as it was and `failed` is true. Nesting past `depth`
    stops it too.
    """

    def __init__(self, strings: str = "complete", depth: int | None = None) -> None:
        _check_strings(strings)
        self._growing_strings = strings == "growing"
        self._depth = depth if depth is not None else LIMITS.depth  # containers deep
        self._fed: list[str] = []
        self._stack: list[_Frame] = []
        self._root: Any = None
        self._state = "prose"  # prose, json, string, atom, done, failed
        self._raw: list[str] = []  # the string or atom being read, as written
        # A growing string's decoded text so far, in pieces (joined when `value` is read:
        # a string added to piece by piece would be copied whole each time).
        self._grown: list[str] = []
        self._is_key = False
        self._escaped = False
        self.growing: str | None = None
        self._changed = False

    @property
    def text(self) -> str:
        """Everything fed."""
        return "".join(self._fed)

    @property
    def failed(self) -> bool:
        return self._state == "failed"

    @property
    def value(self) -> Any:
        """The partial value: a dict, a list, or None before the value starts."""
        if self.growing is not None and self._root is not None:
            self._root[self.growing] = self._grown_text()
        return self._root

    def _grown_text(self) -> str:
        text = "".join(self._grown)
        self._grown = [text]
        return text

    def feed(self, text: str) -> bool:
        """Read `text`, the next piece of the answer; whether the partial value changed."""
        self._fed.append(text)
        self._changed = False
        if (
            self._state == "string"
            and not self._escaped
            and '"' not in text
            and "\\" not in text
        ):  # inside a string, and it goes on: the commonest chunk, taken whole
            self._raw.append(text)
            if self.growing is not None:
                self._grow()
            return self._changed
        i, end = 0, len(text)
        while i < end and self._state not in ("done", "failed"):
            i = self._step(text, i, end)
        if self._state == "string" and self.growing is not None:
            self._grow()
        return self._changed

    def _step(self, text: str, i: int, end: int) -> int:
        state = self._state
        if state == "string":
            return self._string(text, i, end)
        if state == "atom":
            return self._atom(text, i)
        if state == "prose":
            found = _ROOT.search(text, i)
            if found is None:
                return end
            self._open(text[found.start()])
            return found.end()
        i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
        if i < end:
            self._token(text[i])
            i += 0 if self._state == "atom" else 1
        return i

    def _token(self, char: str) -> None:
        frame = self._stack[-1]
        expect = frame.expect
        is_map = isinstance(frame.container, dict)
        if char == '"' and (expect == _VALUE or (expect == _FIRST and not is_map)):
            self._start_string(False)
        elif char == '"' and expect in (_KEY, _FIRST) and is_map:
            self._start_string(True)
        elif char == ":" and expect == _COLON:
            frame.expect = _VALUE
        elif char == "," and expect == _COMMA:
            frame.expect = _KEY if is_map else _VALUE
        elif char in "}]" and (expect in (_COMMA, _FIRST)) and is_map == (char == "}"):
            self._close()
        elif char in "{[" and (expect == _VALUE or (expect == _FIRST and not is_map)):
            self._open(char)
        elif expect == _VALUE or (expect == _FIRST and not is_map):
            self._state = "atom"
        else:
            self._fail()

    def _fail(self) -> None:
        self._state = "failed"
        self.growing = None

    def _open(self, char: str) -> None:
        container: Any = {} if char == "{" else []
        depth = len(self._stack)
        if depth >= self._depth:
            return self._fail()
        # The root, and a list member of a root object, are shown as they fill.
        shown = depth == 0 or (
            depth == 1 and char == "[" and isinstance(self._root, dict)
        )
        if depth == 0:
            self._root = container
            self._changed = True
        elif shown:
            self._put(container)
        self._stack.append(_Frame(container, shown))
        self._state = "json"
        return None

    def _close(self) -> None:
        frame = self._stack.pop()
        if not self._stack:
            self._state = "done"
        elif not frame.shown:
            self._put(frame.container)
        else:
            self._after_value()

    def _put(self, value: Any) -> None:
        """A complete value into the open container (a list member of the root object
        is put there when it opens)."""
        frame = self._stack[-1]
        container: Any = frame.container
        if isinstance(container, dict):
            container[frame.key] = value
        else:
            container.append(value)
        if frame.shown:
            self._changed = True
        self._after_value()

    def _after_value(self) -> None:
        self._stack[-1].expect = _COMMA

    def _start_string(self, is_key: bool) -> None:
        self._state = "string"
        self._is_key = is_key
        self._raw = []
        frame = self._stack[-1]
        if (
            self._growing_strings
            and not is_key
            and len(self._stack) == 1
            and isinstance(frame.container, dict)
        ):
            self._grown = []
            self.growing = frame.key

    def _string(self, text: str, i: int, end: int) -> int:
        """The rest of a string in `text` from `i`; its end, or the end of `text`."""
        raw = self._raw
        while i < end:
            if self._escaped:  # the character after a backslash, whatever it is
                raw.append(text[i])
                self._escaped = False
                i += 1
                continue
            j = _PLAIN.match(text, i).end()  # type: ignore[union-attr]
            if j > i:
                raw.append(text[i:j])
            if j >= end:
                return end
            if text[j] == '"':
                self._end_string()
                return j + 1
            raw.append("\\")
            self._escaped = True
            i = j + 1
        return end

    def _grow(self) -> None:
        """A growing string's decoded text extended by what of its raw text is whole
        (`_whole`)."""
        pending = "".join(self._raw)
        if "\\" not in pending:  # no escape: the raw text is the text
            self._raw = []
            if pending:
                self._grown.append(pending)
                self._changed = True
            return
        cut = _whole(pending)
        try:
            text = _decoded(pending[:cut])
        except ValueError:  # an escape JSON has not
            return self._fail()
        if text:
            self._grown.append(text)
            self._changed = True
        self._raw = [pending[cut:]] if cut < len(pending) else []
        return None

    def _end_string(self) -> None:
        try:
            text = _decoded("".join(self._raw))
        except ValueError:
            return self._fail()
        if self.growing is not None:
            text = self._grown_text() + text
        self._raw, self._grown = [], []
        self._state = "json"
        frame = self._stack[-1]
        if self._is_key:
            frame.key = text
            frame.expect = _COLON
            return
        self.growing = None
        self._put(text)

    def _atom(self, text: str, i: int) -> int:
        j = _ATOM.match(text, i).end()  # type: ignore[union-attr]
        self._raw.append(text[i:j])
        if j == len(text):
            return j
        raw = "".join(self._raw)
        self._raw = []
        self._state = "json"
        try:
            value = json.loads(raw)
        except ValueError:
            self._fail()
            return j
        self._put(value)
        return j


def _whole(raw: str) -> int:
    """How much of a string's raw text (as written, escapes and all) decodes on its own:
    all of it, less an escape cut short or a `\\u` high surrogate whose low half may
    follow."""
    end = len(raw)
    start = _last_escape(raw, end)
    if start >= 0 and (end - start < 2 or (raw[start + 1] == "u" and end - start < 6)):
        end = start
        start = _last_escape(raw, end)
    if (
        start >= 0
        and end - start == 6
        and raw[start + 1] == "u"
        and raw[start + 2] in "dD"
        and raw[start + 3] in "89abAB"
    ):
        end = start
    return end


def _last_escape(raw: str, end: int) -> int:
    """Where the escape that may reach `end` starts (escapes are at most six characters
    long), or -1: a backslash in reach that is not the second of a `\\\\` pair."""
    at = raw.rfind("\\", max(0, end - 6), end)
    if at < 0:
        return -1
    first = at
    while first > 0 and raw[first - 1] == "\\":
        first -= 1
    return at if (at - first) % 2 == 0 else -1


def _decoded(raw: str) -> str:
    value, _ = _DECODER.raw_decode(f'"{raw}"')
    return str(value)


# -- one turn's chunks, joined into the reply a plain callback returns ------------------


class _Chunks:
    """A turn's chunks as they arrive; `reply()` is the plain callback's reply dict. Each
    answer text keeps at most `limit + 1` characters: `over` names the first to pass
    `limit`. The reasoning keeps at most `limit` (`cut` when it had more), and reading
    goes on."""

    __slots__ = ("cut", "limit", "notes", "over", "sizes", "texts", "tokens", "tool")

    def __init__(self, limit: int) -> None:
        self.texts: dict[str, list[str]] = {
            "content": [],
            "arguments": [],
            "refusal": [],
            "reasoning": [],
        }
        self.sizes = dict.fromkeys(self.texts, 0)
        self.limit = limit
        self.over: str | None = None
        self.cut = False
        self.tool: str | None = None
        self.tokens: dict[str, Any] = {}
        self.notes: list[str] = []

    def add(self, chunk: Any) -> tuple[str, str]:
        """Takes one chunk; its (content, arguments) pieces, for the reader (none once a
        text is past the limit)."""
        if isinstance(chunk, str):
            self._keep("content", chunk)
            return ("", "") if self.over else (chunk, "")
        if not isinstance(chunk, dict):
            raise CallbackError(
                f"a streaming llm callback yielded {type(chunk).__name__},"
                " not str or dict"
            )
        fields = as_object(chunk)
        for key in self.texts:
            piece = fields.get(key)
            if piece is not None and not isinstance(piece, str):
                raise CallbackError(f"a chunk's `{key}` must be a string")
            if piece:
                self._keep(key, piece)
        tool, notes = fields.get("tool"), fields.get("notes")
        if isinstance(tool, str) and tool:
            self.tool = tool
        self.tokens.update(as_object(fields.get("tokens")))
        self.notes += [str(n) for n in as_array(notes)]
        if self.over:
            return "", ""
        return fields.get("content") or "", fields.get("arguments") or ""

    def _keep(self, key: str, piece: str) -> None:
        if key == "reasoning":  # cut at the limit; the turn goes on
            room = self.limit - self.sizes[key]
            if len(piece) > room:
                piece = piece[:room]
                self.cut = True
        elif len(piece) >= (room := self.limit + 1 - self.sizes[key]):
            piece = piece[:room]  # past the limit: kept to one character past it
            self.over = self.over or key
        if piece:
            self.texts[key].append(piece)
            self.sizes[key] += len(piece)

    def reply(self) -> dict[str, Any]:
        def joined(key: str) -> str | None:
            pieces = self.texts[key]
            return "".join(pieces) if pieces else None

        arguments = joined("arguments")
        calls: list[dict[str, Any]] = []
        if arguments is not None:
            name = self.tool or RESPOND_TOOL
            calls.append({"id": None, "name": name, "arguments": arguments})
        return {
            "content": joined("content"),
            "tool_calls": calls,
            "refusal": joined("refusal"),
            "reasoning": joined("reasoning"),
            "tokens": dict(self.tokens),
            "notes": [*self.notes, *([reasoning_note(self.limit)] if self.cut else [])],
        }


def _over_limit(reply: dict[str, Any], over: str, tool: bool) -> dict[str, Any]:
    """The reply of a turn stopped at the limit, `over` the text that passed it: that text
    as the answer the loop reads (content, or the forced tool's arguments), so the loop
    rejects it as an over-long reply; a refusal is left as it is, a refusal."""
    calls = reply["tool_calls"]
    answers = bool(tool and calls and calls[0]["name"] == RESPOND_TOOL)
    answer = "arguments" if answers else "content"
    if over in ("refusal", answer):
        return reply
    text = calls[0]["arguments"] if over == "arguments" else reply[over]
    if over == "arguments":
        reply["tool_calls"] = []
    else:
        reply[over] = None
    if answer == "arguments":
        calls[0]["arguments"] = text
    else:
        reply["content"] = text
    return reply


class _Turn:
    """One turn being read: its chunks, its reader, and the last partial shown."""

    __slots__ = ("chunks", "memo", "reader", "shown", "view")

    def __init__(self, view: _View) -> None:
        self.chunks = _Chunks(view.limits.reply_chars)
        self.reader = PartialReader(view.strings, view.limits.depth)
        self.shown: Any = None
        self.memo: dict[Any, Any] = {}
        self.view = view

    def take(self, chunk: Any) -> bool:
        """Takes one chunk; whether the partial changed (then `shown` holds it)."""
        content, arguments = self.chunks.add(chunk)
        piece = arguments if self.view.tool else content
        if not piece or not self.reader.feed(piece):
            return False
        found = self.view.partial(self.reader, self.memo)
        if found is None or found == self.shown:
            return False
        self.shown = found
        return True

    @property
    def over(self) -> bool:
        """Whether a text passed the reply-size limit: the turn is read no further."""
        return self.chunks.over is not None

    def reply(self) -> dict[str, Any]:
        """The reply dict the loop is sent for this turn."""
        reply = self.chunks.reply()
        over = self.chunks.over
        return reply if over is None else _over_limit(reply, over, self.view.tool)


class _View:
    """How a call's partials are read: from the text or the tool's arguments, strings
    complete or growing, checked by the signature's generated `partial_NAME`, within the
    call's limits (a turn's size, the reader's depth)."""

    __slots__ = ("check", "keys", "limits", "strings", "tool")

    def __init__(
        self,
        check: Callable[..., Any],
        tool: bool,
        strings: str,
        keys: set[str],
        limits: Limits | None = None,
    ) -> None:
        self.check = check
        self.tool = tool
        self.strings = strings
        self.keys = keys  # the keys a provider wraps an output that is no map under
        self.limits = limits or LIMITS

    def partial(self, reader: PartialReader, memo: dict[Any, Any]) -> Any:
        value = reader.value
        fields = as_object(value)
        if self.keys and len(fields) == 1:
            ((key, inner),) = fields.items()
            if key in self.keys:
                return self.check(inner, None, memo)
        return self.check(value, reader.growing, memo)


class Stream(Generic[P, T]):
    """A streamed call: iterate it for the partial answers (each only when it changed),
    then `step` holds the finished `Step` (`result()` drains the stream and returns it).
    `turn` is the turn being read (1-based): a turn that fails validation is followed by
    a new one, whose partials start again from nothing. A failed call raises from the
    iteration, as the plain call raises."""

    def __init__(
        self, turns: Turns[T], llm: StreamLlm, forms: tuple[str, str], view: _View
    ) -> None:
        self.step: Step[T] | None = None
        self.turn = 0
        self._run = self._partials(turns, llm, forms, view)
        # The call runs in a context of its own: what it makes current (the call's span)
        # is current for the callback, and never in the caller's loop between partials.
        self._context = contextvars.copy_context()

    def __iter__(self) -> Iterator[P]:
        return self

    def __next__(self) -> P:
        return self._context.run(next, self._run)

    def close(self) -> None:
        """Stops the call (the callback's stream is closed): for a stream left unread."""
        self._context.run(self._run.close)

    def __del__(self) -> None:
        self.close()

    def result(self) -> Step[T]:
        """The finished `Step`, once the stream is read to its end."""
        for _ in self:
            pass
        return _finished(self.step)

    def _partials(
        self, turns: Turns[T], llm: StreamLlm, forms: tuple[str, str], view: _View
    ) -> Generator[P, None, None]:
        try:
            request = next(turns)
            while True:
                self.turn += 1
                chunks = llm(request)
                if awaitable(chunks) or isinstance(chunks, AsyncIterable):
                    raise CallbackError(_async_given(chunks, forms))
                if isinstance(chunks, str | dict) or not _iterable(chunks):
                    raise CallbackError(_not_chunks(chunks, forms[0]))
                turn = _Turn(view)
                iterator = iter(chunks)
                for chunk in iterator:
                    if turn.take(chunk):
                        yield turn.shown
                    if turn.over:
                        _stop(iterator, chunks)
                        break
                try:
                    request = turns.send(turn.reply())
                except StopIteration as done:
                    self.step = done.value
                    return
        finally:
            turns.close()


class AsyncStream(Generic[P, T]):
    """`Stream`, the async form: `async for` the partials, `await result()` the `Step`."""

    def __init__(
        self,
        turns: Turns[T],
        llm: AsyncStreamLlm,
        forms: tuple[str, str],
        view: _View,
    ) -> None:
        self.step: Step[T] | None = None
        self.turn = 0
        self._run = self._partials(turns, llm, forms, view)
        self._context = contextvars.copy_context()  # as `Stream`'s

    def __aiter__(self) -> AsyncIterator[P]:
        return self

    async def __anext__(self) -> P:
        partial: P = await _in_context(self._context, self._run.__anext__())
        return partial

    async def aclose(self) -> None:
        """Stops the call (the callback's stream is closed): for a stream left unread."""
        await _in_context(self._context, self._run.aclose())

    async def result(self) -> Step[T]:
        """The finished `Step`, once the stream is read to its end."""
        async for _ in self:
            pass
        return _finished(self.step)

    async def _partials(
        self,
        turns: Turns[T],
        llm: AsyncStreamLlm,
        forms: tuple[str, str],
        view: _View,
    ) -> AsyncGenerator[P, None]:
        try:
            request = next(turns)
            while True:
                self.turn += 1
                chunks: Any = llm(request)
                if awaitable(chunks):  # `async def` returning chunks: awaited
                    chunks = await chunks
                if not _async_iterable(chunks):
                    raise CallbackError(_sync_given(chunks, forms))
                turn = _Turn(view)
                iterator = aiter(chunks)
                async for chunk in iterator:
                    if turn.take(chunk):
                        yield turn.shown
                    if turn.over:
                        await _astop(iterator, chunks)
                        break
                try:
                    request = turns.send(turn.reply())
                except StopIteration as done:
                    self.step = done.value
                    return
        finally:
            turns.close()


def _stop(iterator: Iterator[Any], chunks: Iterable[Any]) -> None:
    """Closes a turn's chunks read no further (a generator's `finally` runs, an SDK's
    stream releases its response): the iterator, and the iterable when it is another."""
    for source in (iterator, chunks) if chunks is not iterator else (iterator,):
        close = getattr(source, "close", None)
        if callable(close):
            close()


async def _astop(iterator: AsyncIterator[Any], chunks: AsyncIterable[Any]) -> None:
    """`_stop`, async: `aclose()`, or a `close()` awaited when it returns an awaitable."""
    for source in (iterator, chunks) if chunks is not iterator else (iterator,):
        close = getattr(source, "aclose", None) or getattr(source, "close", None)
        if callable(close):
            done: Any = close()
            if awaitable(done):
                await done


@types.coroutine
def _in_context(context: contextvars.Context, awaited: Any) -> Generator[Any, Any, Any]:
    """Awaits `awaited` (a coroutine) with each of its steps run in `context`, as a task
    runs its coroutine in the task's context; what the event loop is given passes
    through, so it works under any event loop."""
    sent: Any = None
    thrown: BaseException | None = None
    while True:
        try:
            if thrown is None:
                given = context.run(awaited.send, sent)
            else:
                given = context.run(awaited.throw, thrown)
        except StopIteration as done:
            return done.value
        try:
            received: Any = yield given
            sent, thrown = received, None
        except BaseException as exc:  # handed to the coroutine
            sent, thrown = None, exc


def _async_given(raw: Any, forms: tuple[str, str]) -> str:
    for name in ("close", "aclose"):  # never awaited: it would warn when collected
        close = getattr(raw, name, None)
        if callable(close) and name == "close":
            close()
    sync, async_ = forms
    return (
        f"`{sync}` takes a sync streaming llm callback (one returning an iterable of"
        f" chunks), and this one returned {type(raw).__name__}: iterate"
        f" `{async_}(...)` with `async for`, the async form, with an async one"
    )


def _sync_given(raw: Any, forms: tuple[str, str]) -> str:
    sync, async_ = forms
    return (
        f"`{async_}` takes an async streaming llm callback (an `async def` generator"
        f" yielding chunks), and this one returned {type(raw).__name__}: iterate"
        f" `{sync}(...)`, the sync form, with a sync one"
    )


def _not_chunks(raw: Any, name: str) -> str:
    return (
        f"`{name}` takes a streaming llm callback returning an iterable of chunks (str"
        f" or dict), and this one returned {type(raw).__name__}"
    )


def _finished(step: Step[T] | None) -> Step[T]:
    if step is None:  # the iteration raised, and that was the call's end
        raise RuntimeError("this stream failed: its error was raised by the iteration")
    return step


def _iterable(value: object) -> bool:
    return isinstance(value, Iterable)


def _async_iterable(value: object) -> bool:
    return isinstance(value, AsyncIterable)


def stream_json(
    turns: Turns[T],
    llm: StreamLlm,
    *,
    check: Callable[..., Any] | None = None,
    tool: bool = False,
    strings: str = "complete",
    keys: Iterable[str] = (),
    forms: tuple[str, str] = ("stream_json", "astream_json"),
    limits: Limits | None = None,
) -> Stream[Any, T]:
    """Drives `turns` (`json_turns`) with a streaming callback: a `Stream` of partials.
    Each turn's text (the forced tool's arguments, when `tool`) goes to a fresh
    `PartialReader`; `check(value, growing, memo)` (a generated `partial_NAME`) makes the
    partial shown of its value, or the reader's value is shown as it is. `keys` are the
    keys a provider wraps an output that is no map under (unwrapped before `check`).
    `limits` (give `json_turns` the same) bound each turn's texts and the reader's depth."""
    view = _View(check or _as_read, tool, strings, set(keys), limits)
    return Stream(turns, llm, forms, view)


def astream_json(
    turns: Turns[T],
    llm: AsyncStreamLlm,
    *,
    check: Callable[..., Any] | None = None,
    tool: bool = False,
    strings: str = "complete",
    keys: Iterable[str] = (),
    forms: tuple[str, str] = ("stream_json", "astream_json"),
    limits: Limits | None = None,
) -> AsyncStream[Any, T]:
    """`stream_json` with an async streaming callback: an `AsyncStream`."""
    view = _View(check or _as_read, tool, strings, set(keys), limits)
    return AsyncStream(turns, llm, forms, view)


def _as_read(value: Any, growing: str | None, memo: dict[Any, Any]) -> Any:
    """The reader's value as a partial, copied: the reader goes on filling its own."""
    if isinstance(value, dict):
        fields = as_object(value)
        return {k: as_array(v) if isinstance(v, list) else v for k, v in fields.items()}
    return as_array(value) if isinstance(value, list) else None


def call_json_stream(
    spec: Spec,
    values: dict[str, Any],
    llm: StreamLlm,
    *,
    strings: str,
    names: tuple[str, str],
    **options: Any,
) -> Stream[Any, Any]:
    """A generated `NAME_stream` function: `call_json`, streamed, with the same `options`
    (`max_turns`, `structured`, `described`, `limits`, `budget`, `hooks`). `names` are its
    own and its async form's, which a callback of the wrong kind is told of."""
    turns, view = _streamed(spec, values, strings, options)
    return Stream(turns, llm, names, view)


def acall_json_stream(
    spec: Spec,
    values: dict[str, Any],
    llm: AsyncStreamLlm,
    *,
    strings: str,
    names: tuple[str, str],
    **options: Any,
) -> AsyncStream[Any, Any]:
    """A generated `aNAME_stream` function: `acall_json`, streamed."""
    turns, view = _streamed(spec, values, strings, options)
    return AsyncStream(turns, llm, names, view)


def _streamed(
    spec: Spec, values: dict[str, Any], strings: str, options: dict[str, Any]
) -> tuple[Turns[Any], _View]:
    """The turns `call_json` runs (the arguments checked first), and how its partials are
    read: the generated `partial_NAME` checks them, within the call's `limits`."""
    _check_strings(strings)  # before any request
    turns = json_call(spec, values, **options)
    check = getattr(generated(spec, ""), f"partial_{spec.key}")
    structured = options.get("structured", "prompt")
    keys = answer_keys(spec, structured)
    view = _View(check, structured == "tool", strings, keys, options.get("limits"))
    return turns, view


__all__ = [
    "AsyncStream",
    "AsyncStreamLlm",
    "PartialReader",
    "Stream",
    "StreamLlm",
    "acall_json_stream",
    "astream_json",
    "call_json_stream",
    "stream_json",
]
