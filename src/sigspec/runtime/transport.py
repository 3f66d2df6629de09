"""An OpenAI-compatible HTTP callback over the standard library: `OpenAICompatible`, with
transport retries (`Retry`), a total deadline, a bound on the response's size, same-server
redirects only, and structured-output negotiation. Standard library only.

Copied into every generated Python package as `_transport.py`. It sends what the client's
payload builder makes of a request and reads the answer with the client's reader; the
call-validate-retry loop (`client.py`) does not know it exists, so a transport failure is
never a validation turn and a reply is never judged here.
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

from .client import Request, as_object, openai_payload, read_openai
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
_NAMES_THE_FORM = re.compile(r"response_format|json_schema|json_object", re.IGNORECASE)
_ERROR_BODY_LIMIT = 4096  # bytes of an error response read: enough to name the problem
_REDIRECTS = 5  # same-server redirects followed for one request


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
    readable."""
    fields = {k.lower(): v.strip() for k, v in headers.items()}
    try:
        if "retry-after-ms" in fields:
            return float(fields["retry-after-ms"]) / 1000
        if "retry-after" not in fields:
            return None
        return float(fields["retry-after"])
    except ValueError:
        pass

    try:
        when = parsedate_to_datetime(fields["retry-after"])
    except (TypeError, ValueError, IndexError):
        return None
    return max(when.timestamp() - now, 0.0)


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
class OpenAICompatible:
    """A callback for any Chat Completions endpoint: OpenAI, vLLM, llama.cpp's server,
    llama-cpp-python, Ollama's /v1, LM Studio, a LiteLLM proxy.

    Non-streaming. Every reply goes to the signature's parser as it came; a reply that is
    not a valid answer gets the signature's retry prompt as the next turn (`step.turns`
    holds both). Transport failures are retried as `retry` says; the structured-output form
    is `response_format`: "auto" sends the compiled `json_schema` and, when this server
    rejects it, falls back once for this client to `json_object` with the schema, then to
    the prompt alone (a warning on the `sigspec.client` logger and a note on the turn).
    `sleep`, `random` and `clock` are for tests.
    """

    base_url: str
    model: str
    # Secrets stay out of reprs (logs, tracebacks, debuggers): the key, and headers that may
    # carry one.
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0  # seconds per attempt, within the retry deadline
    headers: Mapping[str, str] = field(default_factory=dict[str, str], repr=False)
    retry: Retry = field(default_factory=Retry, kw_only=True)
    response_format: str = field(default="auto", kw_only=True)
    max_response_bytes: int = field(default=16 * 1024 * 1024, kw_only=True)
    sleep: Callable[[float], None] | None = field(
        default=None, kw_only=True, repr=False, compare=False
    )
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
            f"OpenAICompatible(base_url={_public_url(self.base_url)!r},"
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

    def __call__(self, request: Request) -> dict[str, Any]:
        payload = openai_payload(request, self.model)
        notes: list[str] = []
        started = self._now()
        forms = payload_forms(payload, self.response_format)
        start = self._learnt.get("form")
        if self.response_format == "auto" and start in forms:
            forms = forms[forms.index(start) :]
        if not forms:
            return self._answer(self._post(payload, started, notes, None), notes)
        for index, form in enumerate(forms):
            then = forms[index + 1] if index + 1 < len(forms) else None
            try:
                data = self._post(in_form(payload, form), started, notes, form)
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
            return self._answer(data, notes)
        raise AssertionError("unreachable: the last form answers or raises")

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

    def _post(
        self,
        payload: dict[str, Any],
        started: float,
        notes: list[str],
        form: str | None,
    ) -> dict[str, Any]:
        """One request, sent again on a transient failure as `retry` says."""
        url = self.base_url.rstrip("/") + "/chat/completions"
        shown_url = _public_url(url)
        body = json.dumps(payload).encode("utf-8")
        failed = 0
        while True:
            left = self._left(started)
            try:
                return self._send(url, body, min(self.timeout, left), shown_url)
            except _Transient as exc:
                failed += 1
                error = exc.error
                # A rejected form is sent again at once in the next, not retried.
                if form is not None and self._rejected(form, error):
                    raise error from None
                wait = self._wait(failed, exc, started)
                self._retrying(error, failed, wait, notes)
                (self.sleep or _sleep)(wait)

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

    def _send(
        self, url: str, body: bytes, timeout: float, shown_url: str
    ) -> dict[str, Any]:
        """One HTTP request: the decoded JSON object, `_Transient` for a failure worth
        another attempt, `LlmHttpError` for any other."""

        headers = {"Content-Type": "application/json", **self.headers}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        opener = _opener()
        for _ in range(_REDIRECTS + 1):
            message = urllib.request.Request(
                url, data=body, headers=headers, method="POST"
            )
            try:
                with opener.open(message, timeout=timeout) as response:
                    data = self._bounded(response, shown_url)
                break
            except urllib.error.HTTPError as exc:
                moved = _followed(url, exc.code, exc.headers.get("Location"))
                if moved is None:
                    raise self._http_error(exc, url, shown_url) from None
                url = moved
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = self._redacted(str(getattr(exc, "reason", exc)))
                error = LlmHttpError(f"{shown_url}: {reason}")
                if _transient(exc):
                    raise _Transient(error, {}) from None
                raise error from None
        else:
            raise LlmHttpError(f"{shown_url}: more than {_REDIRECTS} redirects")
        try:
            decoded = json.loads(data)
        except ValueError:
            raise LlmHttpError(f"{shown_url}: the response is not JSON") from None
        if not isinstance(decoded, dict):
            raise LlmHttpError(f"{shown_url}: the response is not a JSON object")
        return as_object(decoded)

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
        detail = self._redacted(raw.decode("utf-8", "replace"))
        error = LlmHttpError(
            f"{shown_url}: HTTP {status}: {detail[:500]}", status=status, body=detail
        )
        if status in RETRIED_STATUSES:
            return _Transient(error, headers)
        return error

    def _bounded(self, response: Any, shown_url: str) -> bytes:
        """The response body, refused past `max_response_bytes` (before reading it when the
        server says its length)."""
        limit = self.max_response_bytes
        length = response.headers.get("Content-Length") or ""
        too_large = (
            f"{shown_url}: the response is larger than max_response_bytes ({limit})"
        )
        if length.isdigit() and int(length) > limit:
            raise LlmHttpError(f"{too_large}: Content-Length {length}")
        data: bytes = response.read(limit + 1)
        if len(data) > limit:
            raise LlmHttpError(too_large)
        return data

    def _redacted(self, text: str) -> str:
        """`text` (a server's error body, which may echo the request) without the secrets."""
        for secret in (self.api_key, *self.headers.values()):
            # A short header value is no secret to hunt for.
            if secret and len(secret) >= 8:
                text = text.replace(secret, "[redacted]")
        return text


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


def _public_url(url: str) -> str:
    """`url` as errors show it: without user info and query (either may carry a key)."""

    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


__all__ = [
    "LlmHttpError",
    "OpenAICompatible",
    "Retry",
]
