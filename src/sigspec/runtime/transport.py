"""An OpenAI-compatible HTTP callback over the standard library: `OpenAICompatible` (sync)
and `AsyncOpenAICompatible` (asyncio), each also a streaming callback (`.stream`, server-sent
events), with transport retries (`Retry`), a total deadline, a bound on the response's size,
same-server redirects only, and structured-output negotiation. Standard library only.

Copied into every generated Python package as `_transport.py`. It sends what the client's
payload builder makes of a request and reads the answer with the client's reader; the
call-validate-retry loop (`client.py`) does not know it exists, so a transport failure is
never a validation turn and a reply is never judged here.

A call is written once, as a plan (`_ChatCompletions._exchange`: a generator of the attempts
to send and the waits between them); the sync callback carries it out by sending and
sleeping, the async one by sending in a worker thread and awaiting its waits, and nothing
else differs. The standard library has no async HTTP client, and a hand-written one (TLS,
chunked encoding, proxies) is more code to trust than a thread per request in flight.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import random
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterator,
    Mapping,
)
from contextlib import closing
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from functools import partial
from typing import Any, TypeVar, cast
from urllib.parse import urljoin, urlsplit, urlunsplit

from .client import Request, as_array, as_object, openai_payload, read_openai
from .common import shown

# -- ----------------------------------------------------------
#
# The decisions (which failure is retried, how long to wait, which structured-output form a
# server rejected) are pure functions of what came back; `OpenAICompatible` only sends, sleeps
# and reads the clock. An async callback reuses them as they are.

# Statuses retried: a timeout, a rate limit, the server's own failures (501 "not implemented"
# will not change on the next attempt).
RETRIED_STATUSES = frozenset({408, 429, *range(500, 600)}) - {501}
# The forms of asking for JSON, from the most to the least enforced.
RESPONSE_FORMS = ("json_schema", "json_object", "prompt")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_LINE_END = re.compile(rb"\r\n|\r|\n")
_NAMES_THE_FORM = re.compile(r"response_format|json_schema|json_object", re.IGNORECASE)
_ERROR_BODY_LIMIT = 4096  # bytes of an error response read: enough to name the problem
_REDIRECTS = 5  # same-server redirects followed for one request
_STREAM_READ = (
    65536  # bytes asked of a stream's socket at once (it gives what has come)
)

T = TypeVar("T")


class LlmHttpError(RuntimeError):
    """The endpoint failed: HTTP error status, unreachable, timed out, redirected elsewhere,
    too large, or not JSON. `status` is the HTTP status when there was one; `attempts` how
    many requests were sent. The message never holds the API key or the headers given."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        body: str = "",
        attempts: int = 1,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = body  # the error response's start, secrets redacted
        self.attempts = attempts


@dataclass(frozen=True)
class Retry:
    """When `OpenAICompatible` sends a request again: on HTTP 408, 429 and 5xx (not 501), a
    refused or reset connection and a timeout, up to `attempts` requests in all, waiting
    with exponential backoff and full jitter (a random wait up to `base` * 2**n, at most
    `cap` seconds) or as long as the server's `Retry-After` asks (when that is more than
    `cap`, the call fails at once rather than wait). `deadline` bounds one call's time in
    seconds, every attempt and wait included (None: no bound but `attempts`)."""

    attempts: int = 4
    base: float = 0.5
    cap: float = 30.0
    deadline: float | None = 600.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("Retry.attempts must be at least 1")
        if self.base < 0 or self.cap < 0:
            raise ValueError("Retry.base and Retry.cap must not be negative")
        if self.deadline is not None and self.deadline <= 0:
            raise ValueError("Retry.deadline must be positive (or None)")

    def wait(self, failed: int, asked: float | None, draw: float) -> float | None:
        """Seconds to wait after `failed` failed attempts (1 for the first): the server's
        `asked` (Retry-After), or full jitter with `draw` in [0, 1); None when the server
        asks for longer than `cap`."""
        if asked is not None:
            return max(asked, 0.0) if asked <= self.cap else None
        return draw * min(self.cap, self.base * 2.0 ** (failed - 1))


def retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """The wait a response asks for, in seconds: `retry-after-ms` (OpenAI's), `Retry-After`
    as seconds or as an HTTP date (against `now`, a Unix time); None when it asks nothing
    readable. A header that does not read is skipped, not an error."""
    fields = {k.lower(): v.strip() for k, v in headers.items()}
    milliseconds = _number(fields.get("retry-after-ms"))
    if milliseconds is not None:
        return milliseconds / 1000
    given = fields.get("retry-after")
    if given is None:
        return None
    seconds = _number(given)
    if seconds is not None:
        return seconds
    try:
        when = parsedate_to_datetime(given)
    except (TypeError, ValueError, IndexError):
        return None
    return max(when.timestamp() - now, 0.0)


def _number(text: str | None) -> float | None:
    """A non-negative finite decimal number of a header (ASCII digits, as the TypeScript
    runtime reads it: no `1_0`, no `inf`), or None."""
    if text is None or not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if 0 <= value < float("inf") else None


def rejects_form(form: str, status: int | None, body: str, answered: bool) -> bool:
    """Whether an error response rejects the structured-output `form` a request was sent in,
    so that the request goes again at once in the next form: only a form this client has not
    yet had `answered`, with HTTP 400 or 422 (the request is malformed for this server), or
    HTTP 500 whose body names `response_format`, `json_schema` or `json_object` (servers that
    fail on a field they do not know, as llama-cpp-python's does)."""
    if form == "prompt" or answered or status is None:
        return False
    return status in (400, 422) or (
        status == 500 and bool(_NAMES_THE_FORM.search(body))
    )


def payload_forms(payload: Mapping[str, Any], pinned: str) -> tuple[str, ...]:
    """The forms a Chat Completions payload can be sent in, in the order they are tried:
    none when it asks for no JSON through `response_format` (text, a forced tool); the one
    `pinned` form, unless "auto"."""
    given = as_object(payload.get("response_format")).get("type")
    if given not in ("json_schema", "json_object"):
        return ()
    if pinned != "auto":
        return (pinned,)
    return RESPONSE_FORMS[RESPONSE_FORMS.index(given) :]


def in_form(payload: Mapping[str, Any], form: str) -> dict[str, Any]:
    """`payload` asking for JSON in `form`: the compiled `json_schema` fragment as it is,
    `{"type": "json_object", "schema": ...}` with the same schema (llama-cpp-python's form;
    servers that know no `schema` there take plain JSON mode), or no `response_format`, the
    prompt alone asking for the form."""
    out: dict[str, Any] = dict(payload)
    compiled = as_object(payload.get("response_format"))
    schema = as_object(compiled.get("json_schema")).get("schema")
    if form == "prompt":
        out.pop("response_format", None)
    elif form == "json_object":
        shape: dict[str, Any] = {"type": "json_object"}
        if isinstance(schema, dict):
            shape["schema"] = schema
        out["response_format"] = shape
    elif compiled.get("type") != "json_schema":
        raise ValueError(
            'response_format="json_schema" needs the compiled openai fragment, which this'
            " request does not carry"
        )
    return out


def _transient(exc: BaseException) -> bool:
    """A connection refused, reset or cut short, or a timeout: worth another attempt (not a
    name that does not resolve, nor a certificate refused)."""

    reason = getattr(exc, "reason", exc)
    return isinstance(
        reason, ConnectionError | TimeoutError | http.client.HTTPException
    )


def _same_origin(old: str, new: str) -> bool:

    a, b = urlsplit(old), urlsplit(new)
    return (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)


def _opener() -> Any:
    """urllib's opener for http and https only (no `file:` URL), following no redirect:
    `_send` follows a 307 or 308 to the same server itself, and no other."""

    opener = urllib.request.OpenerDirector()
    # UnknownHandler: any other scheme (file:, ftp:, data:) is an error, not a read.
    handlers: list[Any] = [
        urllib.request.ProxyHandler(),
        urllib.request.UnknownHandler(),
        urllib.request.HTTPHandler(),
    ]
    if hasattr(http.client, "HTTPSConnection"):  # Python built with ssl
        handlers.append(urllib.request.HTTPSHandler())
    handlers += [
        urllib.request.HTTPDefaultErrorHandler(),
        urllib.request.HTTPErrorProcessor(),
    ]
    for handler in handlers:
        opener.add_handler(handler)
    return opener


def _followed(url: str, status: int, location: str | None) -> str | None:
    """Where a redirect is followed to: a 307 or 308 (which keep the method and the body)
    to the same scheme, host and port, so that the API key goes to no other server and a
    POST never turns into a GET; None for any other."""

    if status not in (307, 308) or not location:
        return None
    target = urljoin(url, location)
    return target if _same_origin(url, target) else None


def _logger() -> Any:

    return logging.getLogger("sigspec.client")


@dataclass(frozen=True)
class _Attempt:
    """One request to send: its body, the timeout of each of its socket operations, and the
    clock time (`clock`) by which the call must be over (inf: none)."""

    body: bytes
    timeout: float
    until: float


# A call as a plan (`_ChatCompletions._exchange`): it yields the attempts to send and the
# waits (seconds) between them, is sent back what each attempt gave (the result, or the
# `_Transient` or `LlmHttpError` raised), and returns the result with the notes made. A sync
# driver sends and sleeps; an async one sends in a worker thread and awaits its sleeps.
_Plan = Generator[_Attempt | float, Any, tuple[T, list[str]]]


@dataclass(frozen=True)
class _ChatCompletions:
    """What the sync and the async Chat Completions callbacks share: the options, what the
    client learnt of its server, the plan of a call, and the blocking HTTP code."""

    base_url: str
    model: str
    # Secrets stay out of reprs (logs, tracebacks, debuggers): the key, and headers that may
    # carry one.
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0  # seconds per socket operation, within the retry deadline
    headers: Mapping[str, str] = field(default_factory=dict[str, str], repr=False)
    retry: Retry = field(default_factory=Retry, kw_only=True)
    response_format: str = field(default="auto", kw_only=True)
    max_response_bytes: int = field(default=16 * 1024 * 1024, kw_only=True)
    # More fields of every request body (`temperature`, `seed`, `max_tokens`, a server's
    # own options), over the compiled ones; `stream` and `response_format` are not for
    # here (the stream method and `response_format` above decide them).
    extra_body: Mapping[str, Any] = field(default_factory=dict[str, Any], kw_only=True)
    random: Callable[[], float] | None = field(
        default=None, kw_only=True, repr=False, compare=False
    )
    clock: Callable[[], float] | None = field(
        default=None, kw_only=True, repr=False, compare=False
    )
    # What this client learnt of its server: the forms answered, the fallbacks made.
    _learnt: dict[str, Any] = field(
        default_factory=dict[str, Any], init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        taken = sorted(
            {"stream", "stream_options", "response_format"} & set(self.extra_body)
        )
        if taken:
            raise ValueError(
                f"extra_body must not set {', '.join(taken)}: the stream method and"
                " `response_format` decide them"
            )
        if self.response_format not in ("auto", *RESPONSE_FORMS):
            raise ValueError(
                'response_format must be "auto", "json_schema", "json_object" or'
                f' "prompt", not {shown(self.response_format)}'
            )
        if self.max_response_bytes < 1:
            raise ValueError("max_response_bytes must be positive")

    def __repr__(self) -> str:
        # The URL as errors show it (a query or user info may carry a key); no secrets.
        return (
            f"{type(self).__name__}(base_url={_public_url(self.base_url)!r},"
            f" model={self.model!r}, timeout={self.timeout!r}, retry={self.retry!r},"
            f" response_format={self.response_format!r},"
            f" max_response_bytes={self.max_response_bytes!r})"
        )

    @property
    def form(self) -> str | None:
        """The structured-output form this client settled on: the one pinned, the last
        fallback made, or the first form a server answered; None before any json call."""
        pinned = self.response_format
        return pinned if pinned != "auto" else self._learnt.get("form")

    # -- the plan of a call: which form, which attempt, which wait -----------------------

    def _exchange(self, payload: dict[str, Any]) -> _Plan[Any]:
        """The call of `payload`, in the form this client settled on or negotiates."""
        notes: list[str] = []
        started = self._now()
        forms = payload_forms(payload, self.response_format)
        start = self._learnt.get("form")
        if self.response_format == "auto" and start in forms:
            forms = forms[forms.index(start) :]
        if not forms:
            result = yield from self._attempts(payload, started, notes, None)
            return result, notes
        for index, form in enumerate(forms):
            then = forms[index + 1] if index + 1 < len(forms) else None
            try:
                result = yield from self._attempts(
                    in_form(payload, form), started, notes, form
                )
            except LlmHttpError as exc:
                if then is None or not self._rejected(form, exc):
                    raise
                again = "with the prompt alone" if then == "prompt" else f"as {then}"
                notes.append(
                    f"the server rejected response_format {form} (HTTP {exc.status}):"
                    f" sent again {again}"
                )
                continue
            self._settle(form, forms[0], notes)
            return result, notes
        raise AssertionError("unreachable: the last form answers or raises")

    def _attempts(
        self,
        payload: dict[str, Any],
        started: float,
        notes: list[str],
        form: str | None,
    ) -> Generator[_Attempt | float, Any, Any]:
        """One request, sent again on a transient failure as `retry` says."""
        body = json.dumps(payload).encode("utf-8")
        deadline = self.retry.deadline
        until = started + deadline if deadline is not None else float("inf")
        failed = 0
        while True:
            left = self._left(started)
            outcome = yield _Attempt(body, min(self.timeout, left), until)
            if isinstance(outcome, LlmHttpError):
                raise outcome from None
            if not isinstance(outcome, _Transient):
                return outcome
            failed += 1
            error = outcome.error
            # A rejected form is sent again at once in the next, not retried.
            if form is not None and self._rejected(form, error):
                raise error from None
            wait = self._wait(failed, outcome, started)
            self._retrying(error, failed, wait, notes)
            yield wait

    def _rejected(self, form: str, exc: LlmHttpError) -> bool:
        if self.response_format != "auto":
            return False
        answered = form in self._learnt.get("answered", ())
        return rejects_form(form, exc.status, exc.body, answered)

    def _settle(self, form: str, first: str, notes: list[str]) -> None:
        """Remember `form` as answered; a fallback (an answered form other than the first
        tried) is kept for this client's later calls, and logged once."""
        answered = self._learnt.setdefault("answered", set())
        answered.add(form)
        if form != first:
            _logger().warning(
                "%s does not take response_format %s: using %s from now on (this client)",
                _public_url(self.base_url),
                first,
                form if form != "prompt" else "the prompt alone",
            )
            notes.append(f"response_format {form} from now on for this client")
        if form != first or "form" not in self._learnt:
            self._learnt["form"] = form

    def _answer(self, data: dict[str, Any], notes: list[str]) -> dict[str, Any]:
        answer = read_openai(data)
        if notes:
            answer["notes"] = list(notes)
        return answer

    def _now(self) -> float:

        return (self.clock or time.monotonic)()

    def _left(self, started: float) -> float:
        deadline = self.retry.deadline
        if deadline is None:
            return float("inf")
        return max(started + deadline - self._now(), 0.001)

    def _wait(self, failed: int, exc: _Transient, started: float) -> float:
        """How long to wait before the next attempt, or the error that ends the call."""
        error = exc.error
        if failed >= self.retry.attempts:
            raise _gave_up(error, failed, "") from None

        asked = retry_after(exc.headers, time.time())
        draw = (self.random or _random)()
        wait = self.retry.wait(failed, asked, draw)
        if wait is None:
            over = f"the server asks to wait {asked:g} s, more than Retry.cap"
            raise _gave_up(error, failed, over) from None
        deadline = self.retry.deadline
        if deadline is not None and self._now() + wait >= started + deadline:
            late = f"the next would start past the retry deadline of {deadline:g} s"
            raise _gave_up(error, failed, late) from None
        return wait

    def _retrying(
        self, error: LlmHttpError, failed: int, wait: float, notes: list[str]
    ) -> None:
        said = str(error)
        notes.append(
            f"attempt {failed} failed ({said[:200]}); sent again after {wait:.2f} s"
        )
        _logger().info(
            "%s; attempt %d of %d, sending again in %.2f s",
            said[:200],
            failed,
            self.retry.attempts,
            wait,
        )

    # -- the blocking HTTP code (the async callback runs it in a worker thread) ----------

    def _url(self) -> str:

        return self.base_url.rstrip("/") + "/chat/completions"

    def _send(self, attempt: _Attempt) -> dict[str, Any]:
        """One HTTP request: the decoded JSON object, `_Transient` for a failure worth
        another attempt, `LlmHttpError` for any other."""
        shown_url = _public_url(self._url())
        response = self._open(attempt, "application/json")
        try:
            with response:
                data = self._bounded(response, shown_url, attempt.until)
        except (OSError, http.client.HTTPException) as exc:
            raise self._broken(exc, shown_url) from None
        try:
            decoded = json.loads(data)
        except ValueError:
            raise LlmHttpError(f"{shown_url}: the response is not JSON") from None
        if not isinstance(decoded, dict):
            raise LlmHttpError(f"{shown_url}: the response is not a JSON object")
        return as_object(decoded)

    def _open(self, attempt: _Attempt, accept: str) -> Any:
        """The response to one POST of `attempt.body` (the caller closes it), following a
        307 or 308 to the same server; `_Transient` or `LlmHttpError` when none came."""
        url = self._url()
        shown_url = _public_url(url)
        headers = {"Content-Type": "application/json", "Accept": accept, **self.headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        opener = _opener()
        for _ in range(_REDIRECTS + 1):
            message = urllib.request.Request(
                url, data=attempt.body, headers=headers, method="POST"
            )
            try:
                return opener.open(message, timeout=attempt.timeout)
            except urllib.error.HTTPError as exc:
                moved = _followed(url, exc.code, exc.headers.get("Location"))
                if moved is None:
                    raise self._http_error(exc, url, shown_url) from None
                url = moved
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                raise self._broken(exc, shown_url) from None
        raise LlmHttpError(f"{shown_url}: more than {_REDIRECTS} redirects")

    def _broken(self, exc: BaseException, shown_url: str) -> Exception:
        """A connection that failed: `_Transient` when worth another attempt."""
        reason = self._redacted(str(getattr(exc, "reason", exc)))
        error = LlmHttpError(f"{shown_url}: {reason}")
        return _Transient(error, {}) if _transient(exc) else error

    def _http_error(self, exc: Any, url: str, shown_url: str) -> Exception:

        status = int(exc.code)
        given: Any = exc.headers
        headers = {str(k): str(v) for k, v in given.items()} if given else {}
        if 300 <= status < 400:
            target = _public_url(urljoin(url, given.get("Location") or ""))
            return LlmHttpError(
                f"{shown_url}: HTTP {status} redirect to {target} not followed (only a"
                " 307 or 308 to the same scheme, host and port is, so that the API key"
                " goes to no other server): use the new address as base_url",
                status=status,
            )
        try:
            raw = exc.read(_ERROR_BODY_LIMIT)
        except (OSError, ValueError):
            raw = b""
        cut = len(raw) >= _ERROR_BODY_LIMIT
        detail = self._redacted(raw.decode("utf-8", "replace"), cut=cut)
        error = LlmHttpError(
            f"{shown_url}: HTTP {status}: {detail[:500]}", status=status, body=detail
        )
        if status in RETRIED_STATUSES:
            return _Transient(error, headers)
        return error

    def _bounded(
        self, response: Any, shown_url: str, until: float = float("inf")
    ) -> bytes:
        """The response body, refused past `max_response_bytes` (before reading it when the
        server says its length), and read by the `until` of the retry deadline however
        slowly it comes (a socket timeout bounds one read only)."""
        limit = self.max_response_bytes
        length = response.headers.get("Content-Length") or ""
        too_large = (
            f"{shown_url}: the response is larger than max_response_bytes ({limit})"
        )
        if length.isdigit() and int(length) > limit:
            raise LlmHttpError(f"{too_large}: Content-Length {length}")
        parts: list[bytes] = []
        size = 0
        while True:
            left = until - self._now()
            late = LlmHttpError(
                f"{shown_url}: the response went on past the retry deadline of"
                f" {self.retry.deadline or 0.0:g} s"
            )
            if left <= 0:
                raise late
            _set_timeout(response, min(self.timeout, left))
            try:
                piece: bytes = response.read1(_STREAM_READ)
            except TimeoutError:
                if self.timeout < left:
                    raise
                raise late from None
            if not piece:
                return b"".join(parts)
            parts.append(piece)
            size += len(piece)
            if size > limit:
                raise LlmHttpError(too_large)

    def _redacted(self, text: str, *, cut: bool = False) -> str:
        """`text` (a server's error body, which may echo the request) without the secrets;
        when `cut` (the body's read stopped at its limit), without the start of a secret
        it ends with either."""
        for secret in (self.api_key, *self.headers.values()):
            # A short header value is no secret to hunt for.
            if secret and len(secret) >= 8:
                text = text.replace(secret, "[redacted]")
                text = _without_start(text, secret) if cut else text
        return text

    def _payload(self, request: Request) -> dict[str, Any]:
        """The compiled body of a request, with `extra_body` over it."""
        return {**openai_payload(request, self.model), **self.extra_body}

    # -- streams ---------------------------------------------------------------------------

    def _streamed(self, request: Request) -> dict[str, Any]:
        payload = self._payload(request)
        payload["stream"] = True
        payload["stream_options"] = {"include_usage": True}
        return payload

    def _open_stream(self, attempt: _Attempt) -> _Stream:
        """One streamed request, read until its first chunk (or its end): a failure up to
        there is one of the attempt, sent again as any other."""
        shown_url = _public_url(self._url())
        response = self._open(attempt, "text/event-stream")
        events = _Events(self.max_response_bytes, shown_url, self._redacted)
        stream = _Stream(response, events, attempt.until)
        try:
            kind = str(response.headers.get("Content-Type") or "")
            if kind.split(";", maxsplit=1)[0].strip().lower() == "application/json":
                raise LlmHttpError(
                    f"{shown_url}: the server answered without streaming (Content-Type"
                    f" {kind})"
                )
            while not stream.ready and not stream.ended:
                self._pull(stream)
        except (OSError, http.client.HTTPException) as exc:
            stream.close()
            raise self._broken(exc, shown_url) from None
        except BaseException:
            stream.close()
            raise
        return stream

    def _pull(self, stream: _Stream) -> None:
        """Reads what the server sent next into `stream`'s chunks, within the deadline."""
        if stream.events.failed is not None:
            raise stream.events.failed
        left = stream.until - self._now()
        if left <= 0:
            raise self._late(stream)
        _set_timeout(stream.response, min(self.timeout, left))
        try:
            data: bytes = stream.response.read1(_STREAM_READ)
        except TimeoutError:
            if self.timeout < left:
                raise
            raise self._late(stream) from None
        stream.ready += stream.events.feed(data) if data else stream.events.end()
        stream.ended = not data or stream.events.done

    def _late(self, stream: _Stream) -> LlmHttpError:

        deadline = self.retry.deadline or 0.0
        return LlmHttpError(
            f"{stream.events.url}: the stream went on past the retry deadline of"
            f" {deadline:g} s"
        )

    def _cut(self, exc: BaseException, stream: _Stream) -> LlmHttpError:
        """A stream broken after its first chunk: an error, not sent again (the chunks
        given cannot be taken back)."""
        reason = self._redacted(str(getattr(exc, "reason", exc)))
        return LlmHttpError(
            f"{stream.events.url}: the stream broke after its first chunk ({reason});"
            " not sent again"
        )


# repr=False: the base's __repr__, which shows no secret.
@dataclass(frozen=True, repr=False)
class OpenAICompatible(_ChatCompletions):
    """A callback for any Chat Completions endpoint: OpenAI, vLLM, llama.cpp's server,
    llama-cpp-python, Ollama's /v1, LM Studio, a LiteLLM proxy.

    Calling it sends one request and returns the whole reply; `.stream(request)` is the
    streaming callback (server-sent events, chunks as they arrive). Every reply goes to the
    signature's parser as it came; a reply that is not a valid answer gets the signature's
    retry prompt as the next turn (`step.turns` holds both). Transport failures are retried
    as `retry` says (a stream only before its first chunk); the structured-output form
    is `response_format`: "auto" sends the compiled `json_schema` and, when this server
    rejects it, falls back once for this client to `json_object` with the schema, then to
    the prompt alone (a warning on the `sigspec.client` logger and a note on the turn).
    `sleep`, `random` and `clock` are for tests.
    """

    sleep: Callable[[float], None] | None = field(
        default=None, kw_only=True, repr=False, compare=False
    )

    def __call__(self, request: Request) -> dict[str, Any]:
        payload = self._payload(request)
        data, notes = self._run(self._exchange(payload), self._send)
        return self._answer(data, notes)

    def stream(self, request: Request) -> Iterator[dict[str, Any]]:
        """The streaming callback: `"stream": true` with usage, and the chunks of the reply
        as the server sends them (`content`, `arguments` and `tool`, `refusal`,
        `reasoning`, `tokens`, and `notes` on the first). Nothing is sent before the first
        chunk is asked for; a failure after the first chunk raises `LlmHttpError`."""
        stream, notes = self._run(
            self._exchange(self._streamed(request)), self._open_stream
        )
        with closing(stream):
            stream.begin(notes)
            while True:
                yield from stream.take()
                if stream.ended:
                    return
                try:
                    self._pull(stream)
                except (OSError, http.client.HTTPException) as exc:
                    raise self._cut(exc, stream) from None

    def _run(
        self, plan: _Plan[T], send: Callable[[_Attempt], T]
    ) -> tuple[T, list[str]]:
        """Carries out `plan`: sends its attempts, sleeps its waits."""
        outcome: Any = None
        try:
            while True:
                step = plan.send(outcome)
                if isinstance(step, _Attempt):
                    try:
                        outcome = send(step)
                    except (_Transient, LlmHttpError) as exc:
                        outcome = exc
                else:
                    (self.sleep or _sleep)(step)
                    outcome = None
        except StopIteration as done:
            return cast("tuple[T, list[str]]", done.value)
        finally:
            plan.close()


# repr=False: the base's __repr__, which shows no secret.
@dataclass(frozen=True, repr=False)
class AsyncOpenAICompatible(_ChatCompletions):
    """`OpenAICompatible` as an async callback, for the async forms (`aclassify`): the same
    options, retries, deadline, bounds and structured-output negotiation (per client).

    It runs under asyncio: each blocking HTTP request or read goes to a worker thread
    (`asyncio.to_thread`) while the waits between attempts are awaited, so the event loop
    is never blocked and several calls over one client run at once. Cancelling a call
    (`asyncio.wait_for`, a task cancelled) stops it: nothing is sent again; a request in
    flight ends in its thread within `timeout`, and what it opened is closed. `sleep` (an
    async function), `random` and `clock` are for tests.
    """

    sleep: Callable[[float], Awaitable[None]] | None = field(
        default=None, kw_only=True, repr=False, compare=False
    )

    async def __call__(self, request: Request) -> dict[str, Any]:
        payload = self._payload(request)
        data, notes = await self._run(self._exchange(payload), self._send)
        return self._answer(data, notes)

    async def stream(self, request: Request) -> AsyncIterator[dict[str, Any]]:
        """The async streaming callback: the chunks of `OpenAICompatible.stream`."""
        plan = self._exchange(self._streamed(request))
        stream, notes = await self._run(plan, self._open_stream)
        try:
            stream.begin(notes)
            while True:
                for chunk in stream.take():
                    yield chunk
                if stream.ended:
                    return
                try:
                    await _in_thread(partial(self._pull, stream), stream)
                except asyncio.CancelledError:
                    stream.abandoned = True  # closed when its thread's read ends
                    raise
                except (OSError, http.client.HTTPException) as exc:
                    raise self._cut(exc, stream) from None
        finally:
            if not stream.abandoned:
                stream.close()

    async def _run(
        self, plan: _Plan[T], send: Callable[[_Attempt], T]
    ) -> tuple[T, list[str]]:
        """Carries out `plan`: sends its attempts in a worker thread, awaits its waits."""
        outcome: Any = None
        try:
            while True:
                step = plan.send(outcome)
                if isinstance(step, _Attempt):
                    try:
                        outcome = await _in_thread(partial(send, step))
                    except (_Transient, LlmHttpError) as exc:
                        outcome = exc
                else:
                    await (self.sleep or asyncio.sleep)(step)
                    outcome = None
        except StopIteration as done:
            return cast("tuple[T, list[str]]", done.value)
        finally:
            plan.close()


async def _in_thread(call: Callable[[], T], owned: object = None) -> T:
    """`call()` in a worker thread (`asyncio.to_thread`), awaited. A blocking call cannot
    be interrupted: when the awaiting task is cancelled, the thread runs on to the end of
    its one call, and then closes what nobody will read: `owned`, or what `call` opened
    and returned (the close happens in the thread, so it holds when the event loop has
    gone too)."""
    lock = threading.Lock()
    state: dict[str, Any] = {"wanted": True}

    def work() -> T:
        try:
            result = call()
        except BaseException:
            with lock:
                if not state["wanted"]:
                    _close(owned)
            raise
        with lock:
            if not state["wanted"]:
                _close(owned if owned is not None else result)
            state["result"] = result
        return result

    try:
        return await asyncio.to_thread(work)
    except asyncio.CancelledError:
        with lock:
            state["wanted"] = False
            if "result" in state:  # the thread was done: it closed nothing
                _close(owned if owned is not None else state["result"])
        raise


def _close(value: object) -> None:
    """Closes what a cancelled call's thread opened (a stream); a dict needs nothing."""
    close = getattr(value, "close", None)
    if callable(close):
        close()


class _Stream:
    """An open stream: the response, its events read so far, the chunks not yet given."""

    def __init__(self, response: Any, events: _Events, until: float) -> None:
        self.response = response
        self.events = events
        self.until = until
        self.ready: list[dict[str, Any]] = []
        self.ended = False
        self.abandoned = False  # cancelled mid-read: `_in_thread` closes it

    def begin(self, notes: list[str]) -> None:
        """The notes of the attempts (retries, fallbacks) go with the first chunk."""
        if notes:
            if not self.ready:
                self.ready.append({})
            self.ready[0]["notes"] = list(notes)

    def take(self) -> list[dict[str, Any]]:
        taken, self.ready = self.ready, []
        return taken

    def close(self) -> None:

        self.response.close()


class _Events:
    """The server-sent events of a Chat Completions stream, fed the bytes as they arrive
    (split anywhere: inside a line, a UTF-8 character, a field name), giving the chunks of
    the streaming contract. Pure: no socket, no clock."""

    def __init__(self, limit: int, url: str, redacted: Callable[[str], str]) -> None:
        self.limit = limit
        self.url = url
        self.redacted = redacted
        self.size = 0
        self.partial: list[bytes] = []  # the line not yet ended
        self.data: list[str] = []  # the `data:` lines of the event not yet dispatched
        self.kind = ""  # the event's `event:` name
        self.done = False  # `data: [DONE]` came
        self.finish: str | None = None  # the last `finish_reason`
        self.said = False  # answer text, arguments or a refusal came
        self.call: Any = None  # the index of the tool call followed (the first)
        self.failed: LlmHttpError | None = None  # an error after chunks not yet given
        self.cr = False  # the bytes fed last ended in a CR (a CRLF's LF may come next)

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        if self.failed is not None:
            raise self.failed
        self.size += len(data)
        if self.size > self.limit:
            raise LlmHttpError(
                f"{self.url}: the stream is larger than max_response_bytes ({self.limit})"
            )
        if self.cr and data.startswith(b"\n"):
            data = data[1:]  # the LF of a CRLF whose CR ended the bytes before
        self.cr = False
        if b"\n" not in data and b"\r" not in data:
            self.partial.append(data)
            return []
        self.cr = data.endswith(b"\r")
        lines, rest = _lines(b"".join([*self.partial, data]))
        self.partial = [rest] if rest else []
        chunks: list[dict[str, Any]] = []
        for line in lines:
            if self.done:
                break
            try:
                chunks += self._line(line)
            except LlmHttpError as exc:
                if not chunks:
                    raise
                # The chunks before it are given first; the next read raises it.
                self.failed = exc
                break
        return chunks

    def end(self) -> list[dict[str, Any]]:
        """The chunks at the end of the stream: a last line without its newline is read,
        and a stream that ends with neither `[DONE]` nor a `finish_reason` (cut short) is
        an error."""
        chunks = self.feed(b"\n\n") if self.partial or self.data else []
        if not self.done and self.finish is None:
            raise LlmHttpError(
                f"{self.url}: the stream ended before its end (no [DONE], no"
                " finish_reason): the reply may be cut short"
            )
        return chunks if self.done else chunks + self._last()

    def _line(self, raw: bytes) -> list[dict[str, Any]]:
        text = raw.decode("utf-8", "replace")
        if not text:
            return self._dispatch()
        if text.startswith(":"):  # a comment (a keep-alive)
            return []
        name, _, value = text.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            self.data.append(value)
        elif name == "event":
            self.kind = value
        return []

    def _dispatch(self) -> list[dict[str, Any]]:
        data, kind = "\n".join(self.data), self.kind
        self.data, self.kind = [], ""
        if not data:
            return []
        if data.strip() == "[DONE]":
            self.done = True
            return self._last()
        try:
            event = json.loads(data)
        except ValueError:
            raise LlmHttpError(f"{self.url}: a stream event is not JSON") from None
        if not isinstance(event, dict):
            raise LlmHttpError(f"{self.url}: a stream event is not a JSON object")
        fields = as_object(event)
        if kind == "error" or fields.get("error") is not None:
            said = self.redacted(json.dumps(fields.get("error", fields)))
            raise LlmHttpError(f"{self.url}: the stream reports an error: {said[:500]}")
        return self._chunks(fields)

    def _chunks(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """The chunk of one event: its delta's pieces and its usage."""
        choices = as_array(event.get("choices"))
        choice = as_object(choices[0] if choices else None)
        delta = as_object(choice.get("delta"))
        chunk: dict[str, Any] = {}
        pieces = {
            "content": _piece(delta.get("content")),
            "refusal": _piece(delta.get("refusal")),
            "reasoning": _piece(
                delta.get("reasoning_content") or delta.get("reasoning")
            ),
        }
        for call in map(as_object, as_array(delta.get("tool_calls"))):
            index = call.get("index", 0)
            self.call = index if self.call is None else self.call
            function = as_object(call.get("function"))
            if index == self.call and isinstance(function.get("name"), str):
                chunk["tool"] = function["name"]
            if index == self.call:
                pieces["arguments"] = (pieces.get("arguments") or "") + (
                    _piece(function.get("arguments")) or ""
                )
        chunk.update((key, text) for key, text in pieces.items() if text)
        self.said = self.said or any(
            key in chunk for key in ("content", "refusal", "arguments")
        )
        finish = choice.get("finish_reason")
        self.finish = finish if isinstance(finish, str) else self.finish
        usage = as_object(event.get("usage"))
        counts = {
            "input": usage.get("prompt_tokens"),
            "output": usage.get("completion_tokens"),
        }
        tokens = {key: n for key, n in counts.items() if type(n) is int}
        if tokens:
            chunk["tokens"] = tokens
        return [chunk] if chunk else []

    def _last(self) -> list[dict[str, Any]]:
        """A reply the content filter stopped before any answer is a refusal (as
        `read_openai` reads it)."""
        if self.finish == "content_filter" and not self.said:
            refusal = (
                'the content filter stopped the reply (finish_reason "content_filter")'
            )
            return [{"refusal": refusal}]
        return []


def _lines(buffer: bytes) -> tuple[list[bytes], bytes]:
    """The lines `buffer` ends (each ended by CRLF, LF or CR, as server-sent events may be)
    and the rest."""
    lines: list[bytes] = []
    at = 0
    for end in _LINE_END.finditer(buffer):
        lines.append(buffer[at : end.start()])
        at = end.end()
    return lines, buffer[at:]


def _piece(value: Any) -> str | None:
    """A delta's text: a string, or the text parts of a list (as some servers send)."""
    if isinstance(value, list):
        parts = [as_object(part).get("text") for part in as_array(value)]
        return "".join(p for p in parts if isinstance(p, str)) or None
    return str.__str__(value) if isinstance(value, str) and value else None


def _set_timeout(response: Any, seconds: float) -> None:
    """The timeout of the next read of `response`'s socket (http.client keeps it as
    `fp.raw._sock`), so that a stream's deadline holds however slowly it trickles; a
    response without one keeps the timeout it was opened with."""
    raw = getattr(getattr(response, "fp", None), "raw", None)
    settimeout = getattr(getattr(raw, "_sock", None), "settimeout", None)
    if callable(settimeout):
        settimeout(max(seconds, 0.001))


class _Transient(Exception):
    """A failure worth another attempt: the error to raise if none is left, and the
    response's headers (for `Retry-After`)."""

    def __init__(self, error: LlmHttpError, headers: Mapping[str, str]) -> None:
        super().__init__(str(error))
        self.error = error
        self.headers = headers


def _gave_up(error: LlmHttpError, attempts: int, why: str) -> LlmHttpError:
    """The last attempt's error, saying why no other follows (nothing when retries are off)."""
    if attempts == 1 and not why:
        return error
    plural = "s" if attempts != 1 else ""
    return LlmHttpError(
        f"{error} (gave up after {attempts} attempt{plural}"
        + (f": {why})" if why else ")"),
        status=error.status,
        body=error.body,
        attempts=attempts,
    )


def _sleep(seconds: float) -> None:

    time.sleep(seconds)


def _random() -> float:

    return random.random()


def _without_start(text: str, secret: str) -> str:
    """`text` without the start of `secret` it ends with (4 characters or more), as a body
    cut at its limit in the middle of an echoed secret ends."""
    for size in range(len(secret) - 1, 3, -1):
        if text.endswith(secret[:size]):
            return text[:-size] + "[redacted]"
    return text


def _public_url(url: str) -> str:
    """`url` as errors show it: without user info and query (either may carry a key)."""

    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


__all__ = [
    "AsyncOpenAICompatible",
    "LlmHttpError",
    "OpenAICompatible",
    "Retry",
]
