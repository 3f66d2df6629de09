"""The typed client's runtime: the call-validate-retry loop, provider payloads and replies, and
an OpenAI-compatible HTTP callback. Standard library only.

Copied into every generated Python package as `_client.py` (with the Mustache renderer as
`_mustache.py`), so generated clients run without sigspec installed. The generated client
modules pass each signature's compiled prompts, schema and provider fragments as a `Spec`;
nothing here reads a `.sig` file or parses a signature.

The loop is written once, as a generator of requests (`json_turns`, `text_turns`): the sync
forms (`run_json`, `call_json`, ...) drive it with a sync callback, the async forms
(`arun_json`, `acall_json`, ...) with an async one they await, and nothing else differs.
The async forms import no event loop library: they run under asyncio, trio or anyio alike.
"""

from __future__ import annotations

import copy
import importlib
import json
import re
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Generic, NoReturn, TypeVar, cast

from .common import LIMITS, Limits, shown
from .mustache import render as render_template
from .observe import Budget, Hooks, TurnEvent, call_span, clock, finish_span, report

T = TypeVar("T")
Request = dict[str, Any]
JsonObject = dict[str, Any]  # a JSON object: a schema, a provider's request fragment
# The user's model call: a request in, the reply text or {content, tool_calls, tokens} out.
Llm = Callable[[Request], Any]
# The same as an async callback (`async def llm(request)`), which the async forms await.
AsyncLlm = Callable[[Request], Awaitable[Any]]
Errors = list[tuple[str, str]]

REPLY_LIMIT = 500
RESPOND_TOOL = "respond"
_ENVELOPE = re.compile(r"</?\s*reply_data", re.IGNORECASE)


def retry_values(reply: str, errors: Errors) -> dict[str, Any]:
    """The values of the retry template's variables, as every runtime must build them: the
    reply cut to 500 characters, and nothing from the reply able to close the data envelope."""

    def neutral(text: str) -> str:
        return _ENVELOPE.sub("[reply_data", text)

    return {
        "reply": neutral(reply[:REPLY_LIMIT]),
        "errors": [{"path": neutral(p), "message": neutral(m)} for p, m in errors],
    }


@dataclass(frozen=True)
class Spec:
    """One signature as the client runs it; generated code builds these from compiled output."""

    name: str
    mode: str  # "json", "text" or "ptc_lisp"
    system: str | None  # Mustache templates, static parts already rendered
    user: str
    retry: str | None
    schema: JsonObject | None  # the output's JSON Schema (json mode)
    max_turns: int
    doc: str = ""
    fragments: JsonObject | None = None  # provider request fragments, by provider
    # The output's field descriptions, which a pipeline hands to its next step.
    descriptions: dict[str, str] = field(default_factory=dict[str, str])
    # Its .sig file's generated modules: <module>.py and models/<module>.py.
    module: str = ""
    key: str = ""  # its generated validators' names: validate_<key>_input, parse_<key>
    model: str = ""  # its output model's class name
    # Its client function's sync and async names, which a callback error names.
    function: str = ""
    async_function: str = ""


@dataclass(frozen=True)
class Reply:
    """What a callback returned, in one shape: `refusal` is the model's (or the provider's)
    refusal to answer, which ends the call; `reasoning` the thoughts the provider returned
    apart from the answer, kept for the caller and never parsed."""

    content: str | None
    tool_calls: list[dict[str, Any]]
    tokens: dict[str, int]
    refusal: str | None = None
    reasoning: str | None = None
    # What the callback did on the way to this reply (a transport retry, a structured-output
    # fallback), for the caller's records; never parsed.
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Turn:
    """One model call: what was sent, what came back, and what the parser made of it."""

    request: Request
    reply: Reply
    errors: Errors
    repairs: Errors


@dataclass(frozen=True)
class Failure:
    reason: str
    errors: Errors


@dataclass(frozen=True)
class Step(Generic[T]):
    """A finished call: `return_` (the typed value), every turn, summed token usage, and for a
    failed run (carried by `JsonEnforcementError`) the `fail` reason."""

    return_: T
    turns: tuple[Turn, ...]
    usage: dict[str, int]
    fail: Failure | None = None
    # The output's field descriptions, handed to the next step of a pipeline.
    field_descriptions: dict[str, str] = field(default_factory=dict[str, str])


# A call's turns as a generator: it yields each request, is sent what the callback returned
# for it, and returns the finished `Step` (or raises). The sync and the async forms drive
# the same generator; only the call differs.
Turns = Generator[Request, Any, Step[T]]


class JsonEnforcementError(RuntimeError):
    """No valid answer within the turn budget; `.errors` are the last turn's, `.step` has all."""

    def __init__(self, signature: str, step: Step[None]) -> None:
        self.signature = signature
        self.step = step
        self.errors: Errors = step.fail.errors if step.fail else []
        reason = step.fail.reason if step.fail else "failed"
        shown = "; ".join(f"{p}: {m}" for p, m in self.errors[:5])
        turns = len(step.turns)
        super().__init__(
            f"{signature}: {reason} after {turns} turn{'s' if turns != 1 else ''}"
            + (f" ({shown})" if shown else "")
        )


class RefusalError(JsonEnforcementError):
    """The model (or the provider's filter) refused to answer: `.refusal` says why. No retry
    follows, since asking again with the refused reply as feedback would not change it."""

    def __init__(self, signature: str, step: Step[None], refusal: str) -> None:
        super().__init__(signature, step)
        self.refusal = refusal
        turns = len(step.turns)
        self.args = (
            f"{signature}: the model refused to answer on turn {turns}: "
            + refusal[:REPLY_LIMIT],
        )


class CallbackError(TypeError):
    """The callback returned something that is neither text nor {content, tool_calls, tokens}
    (with `refusal` and `reasoning` optional), or an async callback went to a sync form (or a
    sync one to an async form)."""


def as_object(value: Any) -> dict[str, Any]:
    """`value` as a JSON object, or an empty one: what callbacks and servers send may have
    any shape, and a reader takes what it understands."""
    if not isinstance(value, Mapping):
        return {}
    # cast: the checkers would see a Mapping of unknown types, which is what JSON holds.
    fields: Mapping[Any, Any] = cast(Any, value)
    return {str(k): v for k, v in fields.items()}


def as_array(value: Any) -> list[Any]:
    """`value` as a JSON array, or an empty one."""
    return list(cast(Any, value)) if isinstance(value, list) else []


def _tokens(value: Any) -> dict[str, int]:
    return {k: v for k, v in as_object(value).items() if type(v) is int}


def read_reply(raw: Any) -> Reply:
    """A callback's return value as a `Reply`."""
    if isinstance(raw, str):
        return Reply(raw, [], {})
    if not isinstance(raw, Mapping):
        raise CallbackError(
            f"the llm callback returned {type(raw).__name__}, not str or dict"
        )
    reply = as_object(raw)
    content = reply.get("content")
    if content is not None and not isinstance(content, str):
        raise CallbackError("the llm callback's `content` must be a string or None")
    given: Any = reply.get("tool_calls") or []
    calls = as_array(given)
    if calls != given or not all(isinstance(c, Mapping) for c in calls):
        raise CallbackError("the llm callback's `tool_calls` must be a list of dicts")
    texts = {key: reply.get(key) for key in ("refusal", "reasoning")}
    for key, text in texts.items():
        if text is not None and not isinstance(text, str):
            raise CallbackError(f"the llm callback's `{key}` must be a string or None")
    notes: Any = reply.get("notes") or []
    if as_array(notes) != notes or not all(isinstance(n, str) for n in notes):
        raise CallbackError("the llm callback's `notes` must be a list of strings")
    return Reply(
        content,
        [as_object(c) for c in calls],
        _tokens(reply.get("tokens")),
        texts["refusal"] or None,
        texts["reasoning"] or None,
        tuple(notes),
    )


def reasoning_note(limit: int) -> str:
    """The note a turn gets when its reasoning was cut at the reply-size limit."""
    return (
        f"the reasoning was longer than {limit} characters (the reply-size limit):"
        f" kept its first {limit}"
    )


def kept_reasoning(reply: Reply, limit: int) -> Reply:
    """`reply` with its reasoning cut to `limit` characters and a note saying so, when it
    is longer: reasoning is never parsed, so past the limit it is cut, not a failed turn
    (the stream forms cut it the same way as it arrives)."""
    reasoning = reply.reasoning
    if reasoning is None or len(reasoning) <= limit:
        return reply
    notes = (*reply.notes, reasoning_note(limit))
    return replace(reply, reasoning=reasoning[:limit], notes=notes)


def _add_usage(total: dict[str, int], tokens: Mapping[str, int]) -> None:
    for key, value in tokens.items():
        total[key] = total.get(key, 0) + value


def _error_list(exc: Exception) -> Errors:
    """(path, message) pairs from sigspec's errors or from a pydantic ValidationError."""
    found = getattr(exc, "errors", None)
    if callable(found):  # pydantic: errors() -> [{"loc": (...), "msg": ...}]
        out: Errors = []
        for item in map(as_object, as_array(found())):
            path = ".".join(str(part) for part in item.get("loc", ())) or "root"
            out.append((path, str(item.get("msg", "invalid"))))
        return out
    if isinstance(found, list) and found:
        return [(str(p), str(m)) for p, m in as_array(found)]
    return [("root", getattr(exc, "reason", None) or str(exc))]


def describe_inputs(descriptions: Mapping[str, str]) -> str:
    """The block a pipeline step adds to its prompt: what the previous step's fields mean."""
    lines = [f"- {name}: {text}" for name, text in descriptions.items()]
    return "\n\nWhat the input fields mean:\n" + "\n".join(lines) if lines else ""


def _first_request(
    spec: Spec, values: Mapping[str, Any], described: Mapping[str, str]
) -> Request:
    user = render_template(spec.user, values) + describe_inputs(described)
    return {
        "signature": spec.name,
        "system": render_template(spec.system, values) if spec.system else "",
        "messages": [{"role": "user", "content": user}],
        "output": spec.mode,
        # Copies: the module's constants serve every call, whatever a callback does.
        "schema": copy.deepcopy(spec.schema) if spec.mode == "json" else None,
        "tools": None,
        "tool_choice": None,
        "fragments": copy.deepcopy(spec.fragments),
    }


def _as_tool(request: Request, spec: Spec) -> Request:
    """Ask for the answer as the arguments of a forced `respond` tool (PtcRunner's way)."""
    parameters, _ = tool_parameters(spec.schema or {})
    tool = {
        "name": RESPOND_TOOL,
        "description": spec.doc or "Return your response",
        "parameters": parameters,
    }
    return {**request, "tools": [tool], "tool_choice": {"tool": RESPOND_TOOL}}


def tool_parameters(schema: JsonObject) -> tuple[JsonObject, str | None]:
    """An output's schema as a tool's parameters, which every provider wants an object: a
    root `$ref` to a map is that map (its `$defs` kept for recursion), any other root that
    is no map goes under a key as the fragments wrap it (`items` for a list, else `result`),
    which is returned with it. A copy: the module's constant serves every call."""
    schema = copy.deepcopy(schema)
    defs = as_object(schema.pop("$defs", None))
    target = schema.get("$ref")
    name = target[len("#/$defs/") :] if isinstance(target, str) else ""
    if (
        target == f"#/$defs/{name}"
        and as_object(defs.get(name)).get("type") == "object"
    ):
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return {**as_object(defs[name]), **rest, "$defs": defs}, None
    with_defs = {"$defs": defs} if defs else {}
    if schema.get("type") == "object":
        return {**schema, **with_defs}, None
    key = "items" if schema.get("type") == "array" else "result"
    wrapper = {
        "type": "object",
        "properties": {key: schema},
        "required": [key],
        "additionalProperties": False,
    }
    return {**wrapper, **with_defs}, key


def _answer_text(reply: Reply, structured: str) -> str:
    if structured != "tool":
        return reply.content or ""
    for call in reply.tool_calls:
        if call.get("name") == RESPOND_TOOL:
            arguments = call.get("arguments")
            return arguments if isinstance(arguments, str) else json.dumps(arguments)
    return reply.content or ""


def run_json(
    spec: Spec,
    values: Mapping[str, Any],
    llm: Llm,
    parse: Callable[[str], Any],
    convert: Callable[[Any], T],
    *,
    max_turns: int | None = None,
    structured: str = "prompt",
    described: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    hooks: Hooks | None = None,
    budget: Budget | None = None,
) -> Step[T]:
    """The flow: prompt, call, parse, validate, retry with feedback, or fail. `limits`, when
    given, goes to `parse` (a generated `parse_NAME` takes it) for every reply."""
    turns = json_turns(
        spec,
        values,
        parse,
        convert,
        max_turns=max_turns,
        structured=structured,
        described=described,
        limits=limits,
        hooks=hooks,
        budget=budget,
    )
    return _drive(turns, llm, ("run_json", "arun_json"))


async def arun_json(
    spec: Spec,
    values: Mapping[str, Any],
    llm: AsyncLlm,
    parse: Callable[[str], Any],
    convert: Callable[[Any], T],
    *,
    max_turns: int | None = None,
    structured: str = "prompt",
    described: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    hooks: Hooks | None = None,
    budget: Budget | None = None,
) -> Step[T]:
    """`run_json` with an async callback, which it awaits."""
    turns = json_turns(
        spec,
        values,
        parse,
        convert,
        max_turns=max_turns,
        structured=structured,
        described=described,
        limits=limits,
        hooks=hooks,
        budget=budget,
    )
    return await _adrive(turns, llm, ("run_json", "arun_json"))


def json_turns(
    spec: Spec,
    values: Mapping[str, Any],
    parse: Callable[[str], Any],
    convert: Callable[[Any], T],
    *,
    max_turns: int | None = None,
    structured: str = "prompt",
    described: Mapping[str, str] | None = None,
    limits: Limits | None = None,
    hooks: Hooks | None = None,
    budget: Budget | None = None,
) -> Turns[T]:
    """The turns of a json call, as a generator (`Turns`): `run_json` and `arun_json` drive
    it, and so may a caller with a loop of its own (a batch API, another event loop). Its
    arguments are checked here, before the first request."""
    if limits is not None:
        parse = _with_limits(parse, limits)
    if structured not in ("prompt", "tool"):
        raise ValueError(
            f'structured must be "prompt" or "tool", not {shown(structured)}'
        )
    most = spec.max_turns if max_turns is None else max_turns
    if most < 1:
        raise ValueError("max_turns must be at least 1")
    request = _first_request(spec, values, described or {})
    keys = answer_keys(spec, structured)
    if structured == "tool":
        request = _as_tool(request, spec)
    run = _JsonRun(
        spec,
        parse,
        convert,
        most,
        structured,
        frozenset(keys),
        hooks,
        budget,
        (limits or LIMITS).reply_chars,
    )
    return _json_turns(run, request)


@dataclass(frozen=True)
class _JsonRun(Generic[T]):
    """What the turns of one json call share, checked by `json_turns`."""

    spec: Spec
    parse: Callable[[str], Any]
    convert: Callable[[Any], T]
    most: int  # turns at most
    structured: str
    keys: frozenset[str]  # the keys a provider's root wrapper may use
    hooks: Hooks | None
    budget: Budget | None
    reply_chars: int  # the reasoning a turn keeps, at most


def _json_turns(run: _JsonRun[T], request: Request) -> Turns[T]:
    """The turns inside the call's span (when the caller passed a tracer)."""
    with call_span(run.hooks, run.spec.name) as span:
        try:
            step = yield from _json_loop(run, request, span)
        except JsonEnforcementError as exc:
            finish_span(span, exc.step.turns, exc.step.usage)
            raise
        finish_span(span, step.turns, step.usage)
        return step


def _json_loop(run: _JsonRun[T], request: Request, span: Any) -> Turns[T]:
    spec, budget = run.spec, run.budget
    turns: list[Turn] = []
    usage: dict[str, int] = {}
    errors: Errors = []
    reason = "no valid answer"
    for number in range(1, run.most + 1):
        spent = budget.spent(usage) if budget is not None else None
        if spent is not None:
            reason = spent
            break
        started = clock()
        reply = kept_reasoning(read_reply((yield request)), run.reply_chars)
        seconds = clock() - started
        _add_usage(usage, reply.tokens)
        text = _answer_text(reply, run.structured)
        judged = _judged(reply, text, run)
        value, found, repairs = judged
        turns.append(Turn(request, reply, found, repairs))
        event = TurnEvent(spec.name, number, turns[-1], seconds, dict(usage))
        report(run.hooks, span, event)
        if reply.refusal is not None:
            _refused(spec, turns, usage, reply.refusal)
        if event.valid:
            # cast: a turn without errors holds the converted answer
            answer = cast("T", value)
            return Step(answer, tuple(turns), usage, None, dict(spec.descriptions))
        errors = turns[-1].errors
        feedback = render_template(spec.retry or "", retry_values(text, errors))
        messages = [
            *request["messages"],
            {"role": "assistant", "content": text},
            {"role": "user", "content": feedback},
        ]
        request = {**request, "messages": messages}
    failed: Step[None] = Step(None, tuple(turns), usage, Failure(reason, errors))
    raise JsonEnforcementError(spec.name, failed)


def _judged(
    reply: Reply, text: str, run: _JsonRun[T]
) -> tuple[T | None, Errors, Errors]:
    """One reply judged: (the value, [], its repairs), or (None, its errors, [])."""
    if reply.refusal is not None:
        return None, _refusal_errors(reply.refusal), []
    parse, convert, keys = run.parse, run.convert, run.keys
    try:
        parsed = parse(text)
        # An output the wrapper itself is valid for (`:any`) still gets the inside.
        unwrapped = _unwrapped(parsed.value, keys, parse, convert)
        if unwrapped is not None:
            value, repairs = unwrapped
            repairs[1:1] = parsed.repairs
            return value, [], repairs
        return convert(parsed.value), [], list(parsed.repairs)
    except ValueError as exc:
        unwrapped = _unwrapped(_decoded(text), keys, parse, convert)
        if unwrapped is not None:
            return unwrapped[0], [], unwrapped[1]
        return None, _error_list(exc), []


# -- the two drivers: all they do is call the callback (and await it, in the async form) --


def _drive(turns: Turns[T], llm: Llm, forms: tuple[str, str]) -> Step[T]:
    """Runs `turns` with a sync callback; `forms` names the sync and the async function a
    callback of the other kind is sent to."""
    try:
        request = next(turns)
        while True:
            raw = llm(request)
            if awaitable(raw):
                raise CallbackError(_async_given(raw, forms))
            try:
                request = turns.send(raw)
            except StopIteration as done:
                return cast("Step[T]", done.value)
    finally:
        turns.close()


async def _adrive(turns: Turns[T], llm: AsyncLlm, forms: tuple[str, str]) -> Step[T]:
    """Runs `turns` with an async callback, awaiting each call."""
    try:
        request = next(turns)
        while True:
            pending = llm(request)
            if not awaitable(pending):
                raise CallbackError(_sync_given(pending, forms))
            raw = await pending
            try:
                request = turns.send(raw)
            except StopIteration as done:
                return cast("Step[T]", done.value)
    finally:
        turns.close()


def awaitable(value: object) -> bool:
    """Whether a callback returned something to await (a coroutine, a future, a task)."""
    return isinstance(value, Awaitable)


def _async_given(raw: Any, forms: tuple[str, str]) -> str:
    close = getattr(raw, "close", None)
    if callable(close):  # a coroutine never awaited would warn when collected
        close()
    sync, async_ = forms
    return (
        f"`{sync}` takes a sync llm callback, and this one is async (it returned"
        f" {type(raw).__name__}): await `{async_}(...)`, the async form, with an async"
        " callback (a pipeline's async form takes the same `a` prefix)"
    )


def _sync_given(raw: Any, forms: tuple[str, str]) -> str:
    sync, async_ = forms
    return (
        f"`{async_}` takes an async llm callback (`async def llm(request)`), and this one"
        f" returned {type(raw).__name__}: call `{sync}(...)`, the sync form, with a sync"
        " callback"
    )


def _with_limits(parse: Callable[..., Any], limits: Limits) -> Callable[[str], Any]:
    return lambda text: parse(text, limits=limits)


def _refusal_errors(refusal: str) -> Errors:
    return [("root", f"the model refused to answer: {refusal[:REPLY_LIMIT]}")]


def _refused(
    spec: Spec, turns: list[Turn], usage: dict[str, int], refusal: str
) -> NoReturn:
    """The call ends on a refusal (its turn last in `turns`)."""
    errors = turns[-1].errors
    failed: Step[None] = Step(
        None, tuple(turns), usage, Failure("the model refused to answer", errors)
    )
    raise RefusalError(spec.name, failed, refusal)


def answer_keys(spec: Spec, structured: str) -> set[str]:
    """The keys a provider's fragments (and, in tool mode, the forced tool's parameters)
    wrap an output that is no map under: `{"result": ...}`, `{"items": [...]}`."""
    entries = map(as_object, (spec.fragments or {}).values())
    found = [entry.get("wrapped") for entry in entries]
    if structured == "tool":
        found.append(tool_parameters(spec.schema or {})[1])
    return {key for key in found if isinstance(key, str)}


_NOT_JSON = object()


def _decoded(text: str) -> Any:
    """`text` as strict JSON, or a value no wrapper is."""
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _unwrapped(
    value: Any,
    keys: frozenset[str],
    parse: Callable[[str], Any],
    convert: Callable[[Any], T],
) -> tuple[T, list[tuple[str, str]]] | None:
    """The answer inside a provider's root wrapper: OpenAI and Anthropic take only an object
    at the root, so the compiled fragments (and a forced tool's parameters) ask for
    `{"result": ...}` (`{"items": [...]}` for a list) when the output is no map, and a model
    answering through them replies so. Only a reply that is exactly such an object, under a
    key the fragments name, whose content is a valid answer."""
    if not keys or not isinstance(value, dict):
        return None
    answer = as_object(value)
    if len(answer) != 1 or next(iter(answer)) not in keys:
        return None
    ((key, inner),) = answer.items()
    try:  # as a fenced block: a candidate whatever its type
        parsed = parse(f"```json\n{json.dumps(inner)}\n```")
        result = convert(parsed.value)
    except ValueError:
        return None
    note = ("root", f"unwrapped the answer from the provider's {{{shown(key)}: ...}}")
    return result, [note, *parsed.repairs]


def generated(spec: Spec, part: str) -> Any:
    """One of the signature's generated modules (`part` "" for the validators, "models." for
    the models), in the package this runtime is copied into; loaded on the first call."""
    return importlib.import_module(f"{__package__}.{part}{spec.module}")


def call_json(
    spec: Spec,
    values: dict[str, Any],
    llm: Llm,
    *,
    max_turns: int | None,
    structured: str,
    described: Mapping[str, str] | None,
    limits: Limits | None = None,
    hooks: Hooks | None = None,
    budget: Budget | None = None,
) -> Step[Any]:
    """A generated client function of a JSON signature: its arguments checked by the input
    validator, then `run_json` with its reply parser and output model."""
    turns = json_call(
        spec,
        values,
        max_turns=max_turns,
        structured=structured,
        described=described,
        limits=limits,
        hooks=hooks,
        budget=budget,
    )
    return _drive(turns, llm, _forms(spec))


async def acall_json(
    spec: Spec,
    values: dict[str, Any],
    llm: AsyncLlm,
    *,
    max_turns: int | None,
    structured: str,
    described: Mapping[str, str] | None,
    limits: Limits | None = None,
    hooks: Hooks | None = None,
    budget: Budget | None = None,
) -> Step[Any]:
    """`call_json`, the async form: the generated `aNAME` function of a JSON signature."""
    turns = json_call(
        spec,
        values,
        max_turns=max_turns,
        structured=structured,
        described=described,
        limits=limits,
        hooks=hooks,
        budget=budget,
    )
    return await _adrive(turns, llm, _forms(spec))


def json_call(
    spec: Spec,
    values: dict[str, Any],
    *,
    max_turns: int | None,
    structured: str,
    described: Mapping[str, str] | None,
    limits: Limits | None,
    hooks: Hooks | None,
    budget: Budget | None,
) -> Turns[Any]:
    """The turns of a generated function's call: its arguments checked by the input
    validator, then `json_turns` with its reply parser and output model."""
    validators = generated(spec, "")
    checked = getattr(validators, f"validate_{spec.key}_input")(plain(values))
    model = getattr(generated(spec, "models."), spec.model)
    return json_turns(
        spec,
        checked,
        getattr(validators, f"parse_{spec.key}"),
        model.model_validate,
        max_turns=max_turns,
        structured=structured,
        described=described,
        limits=limits,
        hooks=hooks,
        budget=budget,
    )


def _forms(spec: Spec) -> tuple[str, str]:
    """The names of a signature's sync and async client functions."""
    sync = spec.function or spec.name
    return sync, spec.async_function or f"a{sync}"


def call_text(
    spec: Spec,
    values: dict[str, Any],
    llm: Llm,
    described: Mapping[str, str] | None,
    hooks: Hooks | None = None,
) -> Step[str]:
    """A generated client function of a text signature: arguments checked, then `run_text`."""
    return _drive(_text_call(spec, values, described, hooks), llm, _forms(spec))


async def acall_text(
    spec: Spec,
    values: dict[str, Any],
    llm: AsyncLlm,
    described: Mapping[str, str] | None,
    hooks: Hooks | None = None,
) -> Step[str]:
    """`call_text`, the async form: the generated `aNAME` function of a text signature."""
    return await _adrive(_text_call(spec, values, described, hooks), llm, _forms(spec))


def _text_call(
    spec: Spec,
    values: dict[str, Any],
    described: Mapping[str, str] | None,
    hooks: Hooks | None,
) -> Turns[str]:
    checked = getattr(generated(spec, ""), f"validate_{spec.key}_input")(plain(values))
    return text_turns(spec, checked, described, hooks)


def run_text(
    spec: Spec,
    values: Mapping[str, Any],
    llm: Llm,
    described: Mapping[str, str] | None = None,
    hooks: Hooks | None = None,
) -> Step[str]:
    """Text mode: one call, the reply as it is, no parsing and no retries (a refusal is
    `RefusalError`)."""
    turns = text_turns(spec, values, described, hooks)
    return _drive(turns, llm, ("run_text", "arun_text"))


async def arun_text(
    spec: Spec,
    values: Mapping[str, Any],
    llm: AsyncLlm,
    described: Mapping[str, str] | None = None,
    hooks: Hooks | None = None,
) -> Step[str]:
    """`run_text` with an async callback, which it awaits."""
    turns = text_turns(spec, values, described, hooks)
    return await _adrive(turns, llm, ("run_text", "arun_text"))


def text_turns(
    spec: Spec,
    values: Mapping[str, Any],
    described: Mapping[str, str] | None = None,
    hooks: Hooks | None = None,
) -> Turns[str]:
    """The one turn of a text call, as a generator (`Turns`), as `json_turns`."""
    request = _first_request(spec, values, described or {})
    with call_span(hooks, spec.name) as span:
        started = clock()
        reply = read_reply((yield request))
        seconds, usage = clock() - started, dict(reply.tokens)
        refused = _refusal_errors(reply.refusal) if reply.refusal is not None else []
        turn = Turn(request, reply, refused, [])
        report(hooks, span, TurnEvent(spec.name, 1, turn, seconds, usage))
        finish_span(span, (turn,), usage)
        if reply.refusal is not None:
            _refused(spec, [turn], usage, reply.refusal)
        return Step(reply.content or "", (turn,), usage, None, {})


def plain(value: Any) -> Any:
    """Arguments as plain JSON data: Pydantic models (anything with `model_dump`) dumped by
    alias, containers walked."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in as_object(value).items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in cast(Any, value)]
    return value


def pipe_args(step: Step[Any], params: Mapping[str, str]) -> dict[str, Any]:
    """The next pipeline step's keyword arguments from this step's result (a pipeline's piping):
    each param the output has a field for, by name."""
    value = plain(step.return_)
    if not isinstance(value, Mapping):
        raise TypeError("a pipeline step's output must be an object for the next step")
    fields = as_object(value)
    return {kw: fields[name] for name, kw in params.items() if name in fields}


def chain(*steps: Step[Any], last: Step[T]) -> Step[T]:
    """A pipeline's result: the last step's value, every step's turns, the summed usage."""
    usage: dict[str, int] = {}
    turns: list[Turn] = []
    for step in (*steps, last):
        _add_usage(usage, step.usage)
        turns += step.turns
    return Step(last.return_, tuple(turns), usage, None, dict(last.field_descriptions))


def remaining(budget: Budget | None, *steps: Step[Any]) -> Budget | None:
    """What a pipeline's next step may spend: `budget` less the steps' usage so far."""
    if budget is None:
        return None
    usage: dict[str, int] = {}
    for step in steps:
        _add_usage(usage, step.usage)
    return budget.after(usage)


def build_request(spec: Spec, values: Mapping[str, Any]) -> Request:
    """The first request for a signature, for runtimes that run the loop themselves."""
    return _first_request(spec, values, {})


# -- provider payloads ------------------------------------------------------------------------


def _fragment(request: Request, provider: str, kind: str) -> dict[str, Any] | None:
    entry = as_object(as_object(request.get("fragments")).get(provider))
    found = entry.get(kind)
    return as_object(found) if isinstance(found, dict) else None


def _renamed_tools(fragment: dict[str, Any], name: str) -> dict[str, Any]:
    """A compiled tool request with its one tool renamed to what the request asks for."""
    out = copy.deepcopy(fragment)  # fragments are the module's constants
    for tool in as_array(out.get("tools")):  # the copy's own dicts, renamed in place
        tool.get("function", tool)["name"] = name
    choice = out.get("tool_choice")
    if isinstance(choice, dict):
        cast("dict[str, Any]", choice).get("function", choice)["name"] = name
    return out


def _forced_tool(request: Request) -> str | None:
    tool = as_object(request.get("tool_choice")).get("tool")
    return tool if isinstance(tool, str) else None


def _chat_messages(request: Request) -> list[dict[str, Any]]:
    system = request.get("system")
    head = [{"role": "system", "content": system}] if system else []
    return head + [dict(m) for m in request["messages"]]


def openai_payload(request: Request, model: str) -> dict[str, Any]:
    """A Chat Completions body (OpenAI, vLLM, llama.cpp, Ollama's /v1) from a request."""
    payload: dict[str, Any] = {
        "model": model,
        "messages": _chat_messages(request),
        "stream": False,
    }
    tool = _forced_tool(request)
    if tool and (compiled := _fragment(request, "openai", "tool_request")):
        payload.update(_renamed_tools(compiled, tool))
    elif tool:
        payload["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t["description"],
                    "parameters": t["parameters"],
                },
            }
            for t in request["tools"]
        ]
        payload["tool_choice"] = {"type": "function", "function": {"name": tool}}
    elif request.get("output") == "json":
        compiled = _fragment(request, "openai", "request")
        payload.update(compiled or {"response_format": {"type": "json_object"}})
    return payload


def anthropic_payload(
    request: Request, model: str, max_tokens: int = 4096
) -> dict[str, Any]:
    """A Messages API body from a request."""
    payload: dict[str, Any] = {
        "model": model,
        "max_tokens": max_tokens,
        "messages": [dict(m) for m in request["messages"]],
    }
    if request.get("system"):
        payload["system"] = request["system"]
    tool = _forced_tool(request)
    if tool and (compiled := _fragment(request, "anthropic", "tool_request")):
        payload.update(_renamed_tools(compiled, tool))
    elif tool:
        payload["tools"] = [
            {
                "name": t["name"],
                "description": t["description"],
                "input_schema": t["parameters"],
            }
            for t in request["tools"]
        ]
        payload["tool_choice"] = {"type": "tool", "name": tool}
    elif request.get("output") == "json" and (
        compiled := _fragment(request, "anthropic", "request")
    ):
        payload.update(compiled)
    return payload


def gemini_payload(request: Request) -> dict[str, Any]:
    """A generateContent body from a request (the model goes in Gemini's URL). A request
    forcing a tool (`structured="tool"`) gets it as a function declaration, called in mode
    `ANY` and allowed alone (`_gemini_tool`), in place of the response schema."""
    role = {"user": "user", "assistant": "model"}
    payload: dict[str, Any] = {
        "contents": [
            {"role": role.get(m["role"], "user"), "parts": [{"text": m["content"]}]}
            for m in request["messages"]
        ]
    }
    if request.get("system"):
        payload["systemInstruction"] = {"parts": [{"text": request["system"]}]}
    tool = _forced_tool(request)
    if tool:
        payload.update(_gemini_tool(request, tool))
    elif request.get("output") == "json" and (
        compiled := _fragment(request, "gemini", "request")
    ):
        payload.update(json.loads(json.dumps(compiled)))
    return payload


def _gemini_tool(request: Request, name: str) -> dict[str, Any]:
    """`tools` and `toolConfig` forcing a call of the function `name`. Its parameters are
    the compiled `responseJsonSchema` (Gemini's dialect) as an object, as `tool_parameters`
    makes every forced tool's (a root that is no map under `result`, or `items` for a
    list, which the client unwraps); without a compiled schema, the request's own tool's."""
    config = as_object(
        as_object(_fragment(request, "gemini", "request")).get("generationConfig")
    )
    given = [
        t
        for t in map(as_object, as_array(request.get("tools")))
        if t.get("name") == name
    ]
    asked = given[0] if given else {}
    if isinstance(config.get("responseJsonSchema"), dict):
        parameters: Any = tool_parameters(as_object(config["responseJsonSchema"]))[0]
    else:
        parameters = copy.deepcopy(asked.get("parameters", {"type": "object"}))
    function = {
        "name": name,
        "description": asked.get("description") or "Return your response",
        "parametersJsonSchema": parameters,
    }
    calling = {"mode": "ANY", "allowedFunctionNames": [name]}
    return {
        "tools": [{"functionDeclarations": [function]}],
        "toolConfig": {"functionCallingConfig": calling},
    }


def ollama_payload(request: Request, model: str) -> dict[str, Any]:
    """An Ollama /api/chat body from a request. Ollama cannot force a tool (its `tools`
    are offered, and the model may answer in text instead), so a request forcing one
    (`structured="tool"`) is sent in the schema form: the compiled `format` constrains the
    reply, and the answer is read from its text."""
    payload: dict[str, Any] = {
        "model": model,
        "messages": _chat_messages(request),
        "stream": False,
    }
    if request.get("output") == "json":
        compiled = _fragment(request, "ollama", "request")
        payload.update(compiled or {"format": "json"})
    return payload


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def _calls(items: Any, arguments: str) -> list[dict[str, Any]]:
    """Tool calls of the OpenAI and Ollama shapes: {id, function: {name, arguments}}."""
    out: list[dict[str, Any]] = []
    for call in map(as_object, as_array(items)):
        function = as_object(call.get("function"))
        if function:
            args = _arguments(function.get(arguments))
            out.append(
                {"id": call.get("id"), "name": function.get("name"), "arguments": args}
            )
    return out


def _text(content: Any) -> Any:
    """A message's content: text as it is; a list of parts (some OpenAI-compatible servers
    send them) as its text parts joined; anything else as it is, for `read_reply` to refuse."""
    if not isinstance(content, list):
        return content
    parts = [as_object(part).get("text") for part in as_array(content)]
    return "".join(p for p in parts if isinstance(p, str))


def as_response(raw: Any) -> dict[str, Any]:
    """A response as the readers take it: the body as JSON, a dump of an SDK's response
    object, or the object itself (a pydantic model: OpenAI's, Anthropic's, google-genai's and
    ollama's are), dumped here by alias."""
    dump = getattr(raw, "model_dump", None)
    if callable(dump) and not isinstance(raw, Mapping):
        raw = dump(by_alias=True)
    return as_object(raw)


def _either(fields: Mapping[str, Any], *names: str) -> Any:
    """The first of `names` present and not null: a response dumped by alias (the wire's
    camelCase) or by field name (google-genai's `model_dump()` gives snake_case)."""
    for name in names:
        value = fields.get(name)
        if value is not None:
            return value
    return None


def _word(value: Any) -> str | None:
    """A string (a str-valued enum, as SDK objects dumped in Python mode hold, as its plain
    value), or None."""
    return str.__str__(value) if isinstance(value, str) else None


def _sum(*counts: Any) -> int | None:
    """Token counts added up (those given), so that every provider's `input` and `output`
    count the same tokens: all the prompt read, all the model wrote."""
    given = [n for n in counts if type(n) is int]
    return sum(given) if given else None


def _joined(texts: list[str]) -> str | None:
    return "".join(texts) if texts else None


def _answer(
    content: Any,
    calls: Any,
    tokens: Any,
    refusal: str | None = None,
    reasoning: str | None = None,
) -> dict[str, Any]:
    return {
        "content": content,
        "tool_calls": calls,
        "tokens": _tokens(tokens),
        "refusal": refusal,
        "reasoning": reasoning,
    }


def read_openai(response: Any) -> dict[str, Any]:
    """{content, tool_calls, tokens, refusal, reasoning} from a Chat Completions response
    (a `ChatCompletion`, its `model_dump()`, or the body as JSON). `refusal` is the model's refusal
    (`message.refusal`, or a reply stopped by the content filter); `reasoning` the thoughts
    some compatible servers return apart (`reasoning_content`, `reasoning`)."""
    response = as_response(response)
    choices = as_array(response.get("choices"))
    choice = as_object(choices[0] if choices else None)
    message = as_object(choice.get("message"))
    usage = as_object(response.get("usage"))
    tokens = {
        "input": usage.get("prompt_tokens"),
        "output": usage.get("completion_tokens"),
    }
    content = _text(message.get("content"))
    calls = _calls(message.get("tool_calls"), "arguments")
    parts = map(as_object, as_array(message.get("content")))
    refused = [p.get("refusal") for p in parts if p.get("type") == "refusal"]
    refusal = _word(message.get("refusal")) or _joined(list(filter(None, refused)))
    stop = _word(choice.get("finish_reason"))
    if refusal is None and stop == "content_filter" and not content and not calls:
        refusal = (
            'the content filter stopped the reply (finish_reason "content_filter")'
        )
    reasoning = _word(_either(message, "reasoning_content", "reasoning"))
    return _answer(content, calls, tokens, refusal, reasoning or None)


def read_anthropic(response: Any) -> dict[str, Any]:
    """{content, tool_calls, tokens, refusal, reasoning} from a Messages API response
    (a `Message`, its `model_dump()`, or the body as JSON): text blocks joined, `tool_use` blocks as
    calls, `thinking` blocks as reasoning, `stop_reason: "refusal"` as a refusal."""
    response = as_response(response)
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in map(as_object, as_array(response.get("content"))):
        kind = block.get("type")
        if kind == "text":
            texts.append(_word(block.get("text")) or "")
        elif kind == "thinking":
            thoughts.append(_word(block.get("thinking")) or "")
        elif kind == "tool_use":
            name, arguments = block.get("name"), block.get("input")
            calls.append({"id": block.get("id"), "name": name, "arguments": arguments})
    usage = as_object(response.get("usage"))
    tokens = {  # input_tokens leaves out the tokens read from and written to the cache
        "input": _sum(
            usage.get("input_tokens"),
            usage.get("cache_creation_input_tokens"),
            usage.get("cache_read_input_tokens"),
        ),
        "output": usage.get("output_tokens"),
    }
    refusal = None
    if _word(response.get("stop_reason")) == "refusal":
        said = "".join(texts).strip()
        refusal = 'stop_reason "refusal"' + (f": {said}" if said else "")
    return _answer(_joined(texts), calls, tokens, refusal, _joined(thoughts))


# Gemini's reasons for a candidate with no answer: blocked, not a mere stop.
_GEMINI_BLOCKED = frozenset(
    {"SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY"}
)


def read_gemini(response: Any) -> dict[str, Any]:
    """{content, tool_calls, tokens, refusal, reasoning} from a generateContent response:
    the body as JSON, or google-genai's `GenerateContentResponse`, as it is or dumped by
    alias (camelCase) or not (snake_case). Thought parts (`thought: true`) are the reasoning, not
    the content; a blocked prompt or a candidate stopped for safety is a refusal."""
    response = as_response(response)
    candidates = as_array(response.get("candidates"))
    candidate = as_object(candidates[0] if candidates else None)
    parts = list(
        map(as_object, as_array(as_object(candidate.get("content")).get("parts")))
    )
    texts = [p for p in parts if isinstance(p.get("text"), str)]
    answer = [p["text"] for p in texts if p.get("thought") is not True]
    reasoning = [p["text"] for p in texts if p.get("thought") is True]
    calls = [
        {"id": call.get("id"), "name": call.get("name"), "arguments": call.get("args")}
        for call in (
            as_object(_either(p, "functionCall", "function_call")) for p in parts
        )
        if call
    ]
    usage = as_object(_either(response, "usageMetadata", "usage_metadata"))
    tokens = {  # the candidates' count leaves out the thinking tokens, billed as output
        "input": _either(usage, "promptTokenCount", "prompt_token_count"),
        "output": _sum(
            _either(usage, "candidatesTokenCount", "candidates_token_count"),
            _either(usage, "thoughtsTokenCount", "thoughts_token_count"),
        ),
    }
    return _answer(
        _joined(answer),
        calls,
        tokens,
        _gemini_refusal(response, candidate, any(answer) or bool(calls)),
        _joined(reasoning),
    )


def _gemini_refusal(
    response: Mapping[str, Any], candidate: Mapping[str, Any], answered: bool
) -> str | None:
    feedback = as_object(_either(response, "promptFeedback", "prompt_feedback"))
    blocked = _word(_either(feedback, "blockReason", "block_reason"))
    if blocked:
        said = _word(_either(feedback, "blockReasonMessage", "block_reason_message"))
        return f'the prompt was blocked (blockReason "{blocked}")' + (
            f": {said}" if said else ""
        )
    stop = _word(_either(candidate, "finishReason", "finish_reason"))
    if stop in _GEMINI_BLOCKED and not answered:
        return f'the reply was blocked (finishReason "{stop}")'
    return None


def read_ollama(response: Any) -> dict[str, Any]:
    """{content, tool_calls, tokens, refusal, reasoning} from an Ollama /api/chat response
    (a `ChatResponse`, its `model_dump()`, or the body as JSON); `message.thinking` is the
    reasoning."""
    response = as_response(response)
    message = as_object(response.get("message"))
    tokens = {
        "input": response.get("prompt_eval_count"),
        "output": response.get("eval_count"),
    }
    calls = [{**c, "id": None} for c in _calls(message.get("tool_calls"), "arguments")]
    reasoning = _word(message.get("thinking")) or None
    # Ollama sends "" beside tool calls, where the other APIs send no content.
    content = _text(message.get("content"))
    return _answer(content if content != "" else None, calls, tokens, None, reasoning)


__all__ = [
    "AsyncLlm",
    "Budget",
    "CallbackError",
    "Failure",
    "Hooks",
    "JsonEnforcementError",
    "Limits",
    "Llm",
    "RefusalError",
    "Reply",
    "Request",
    "Spec",
    "Step",
    "Turn",
    "TurnEvent",
    "Turns",
    "answer_keys",
    "anthropic_payload",
    "arun_json",
    "arun_text",
    "as_response",
    "awaitable",
    "build_request",
    "chain",
    "gemini_payload",
    "generated",
    "json_call",
    "json_turns",
    "ollama_payload",
    "openai_payload",
    "pipe_args",
    "plain",
    "read_anthropic",
    "read_gemini",
    "read_ollama",
    "read_openai",
    "read_reply",
    "remaining",
    "retry_values",
    "run_json",
    "run_text",
    "text_turns",
    "tool_parameters",
]
