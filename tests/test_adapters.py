"""The SDK adapters (`signatures._adapters`): the examples' generated client functions run
with the official SDKs' own client objects, against the recording server on 127.0.0.1 playing
each provider with scripted replies.

For every json signature of the examples and every adapter, in both forms (the sync adapter
over the SDK's sync client with `classify`, and the async adapter over its async client with
`aclassify` under `asyncio.run`): the typed result, the compiled fragment in the body the SDK
sent (schema mode, and the forced tool where the provider has one), the retry turn and the
usage summed over turns, a refusal as `RefusalError`, extra keyword arguments passed through,
and a client of the other kind refused with a pointer to the right adapter. SDK tests: the
SDKs are in the test extra, so a missing one fails here rather than skipping; nothing leaves
the machine and no key is needed.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import anthropic
import ollama
import openai
import pytest
from google import genai
from google.genai import types as genai_types

from conftest import examples_package
from recording_server import Recorder, canned, recording_server
from test_sdk_requests import _camel, _same

Json = dict[str, Any]
TOKENS = {"input": 11, "output": 7}


@pytest.fixture(scope="module")
def pkg(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    with examples_package(examples_output) as modules:
        yield modules


@pytest.fixture(scope="module")
def server_once() -> Iterator[Recorder]:
    with recording_server() as recorder:
        yield recorder


@pytest.fixture
def server(server_once: Recorder) -> Iterator[Recorder]:
    yield server_once
    leftover = (server_once.requests[:], server_once.script[:])
    server_once.requests.clear()
    server_once.script.clear()
    assert leftover == ([], []), "a test left requests or scripted replies behind"


# ---- the providers: an SDK client on the server, and its replies --------------------------------


def openai_reply(content: str | None, call: Json | None = None, refusal: str | None = None) -> Json:
    body = canned("/v1/chat/completions")
    assert body is not None
    message = body["choices"][0]["message"]
    message.update(content=content, refusal=refusal)
    if call is not None:
        arguments = json.dumps(call["arguments"])
        function = {"name": call["name"], "arguments": arguments}
        message["tool_calls"] = [{"id": "call_1", "type": "function", "function": function}]
        body["choices"][0]["finish_reason"] = "tool_calls"
    body["usage"] = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    return body


def anthropic_reply(
    content: str | None, call: Json | None = None, refusal: str | None = None
) -> Json:
    body = canned("/v1/messages")
    assert body is not None
    blocks: list[Json] = [{"type": "text", "text": content}] if content is not None else []
    if refusal is not None:
        blocks, body["stop_reason"] = [{"type": "text", "text": refusal}], "refusal"
    if call is not None:
        blocks.append(
            {"type": "tool_use", "id": "toolu_1", "name": call["name"], "input": call["arguments"]}
        )
        body["stop_reason"] = "tool_use"
    body["content"] = blocks
    body["usage"] = {"input_tokens": 11, "output_tokens": 7}
    return body


def gemini_reply(content: str | None, call: Json | None = None, refusal: str | None = None) -> Json:
    body = canned("/v1beta/models/m:generateContent")
    assert body is not None
    parts: list[Json] = [{"text": content}] if content is not None else []
    if call is not None:
        parts.append({"functionCall": {"name": call["name"], "args": call["arguments"]}})
    body["candidates"][0]["content"]["parts"] = parts or [{"text": ""}]
    if refusal is not None:
        body["candidates"] = []
        body["promptFeedback"] = {"blockReason": "SAFETY", "blockReasonMessage": refusal}
    body["usageMetadata"] = {"promptTokenCount": 11, "candidatesTokenCount": 7}
    return body


def ollama_reply(content: str | None, call: Json | None = None, refusal: str | None = None) -> Json:
    assert call is None and refusal is None, "Ollama has no compiled forced tool nor refusal"
    body = canned("/api/chat")
    assert body is not None
    body["message"]["content"] = content
    body.update(prompt_eval_count=11, eval_count=7)
    return body


@dataclass(frozen=True)
class Provider:
    name: str
    adapter: str  # the function of `_adapters`; `a` + it is the async form
    client: Callable[[str], Any]  # the SDK client for the server's URL
    aclient: Callable[[str], Any]  # the SDK's async client, which the async form takes
    reply: Callable[..., Json]
    tool_mode: bool  # the fragments hold a forced tool
    refuses: bool  # the API has a refusal the reader reads


PROVIDERS = [
    Provider(
        "openai",
        "openai_llm",
        lambda url: openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0),
        lambda url: openai.AsyncOpenAI(base_url=url + "/v1", api_key="k", max_retries=0),
        openai_reply,
        tool_mode=True,
        refuses=True,
    ),
    Provider(
        "anthropic",
        "anthropic_llm",
        lambda url: anthropic.Anthropic(base_url=url, api_key="k", max_retries=0),
        lambda url: anthropic.AsyncAnthropic(base_url=url, api_key="k", max_retries=0),
        anthropic_reply,
        tool_mode=True,
        refuses=True,
    ),
    Provider(
        "gemini",
        "gemini_llm",
        lambda url: genai.Client(api_key="k", http_options=genai_types.HttpOptions(base_url=url)),
        # the same client: the async form awaits its `client.aio.models.generate_content`
        lambda url: genai.Client(api_key="k", http_options=genai_types.HttpOptions(base_url=url)),
        gemini_reply,
        tool_mode=True,
        refuses=True,
    ),
    Provider(
        "ollama",
        "ollama_llm",
        lambda url: ollama.Client(host=url),
        lambda url: ollama.AsyncClient(host=url),
        ollama_reply,
        tool_mode=False,
        refuses=False,
    ),
]
BY_NAME = {p.name: p for p in PROVIDERS}


@dataclass(frozen=True)
class Form:
    """The sync or the async way of using an adapter: the adapter over the SDK's client, and
    a generated function (or its `a` form, run to completion by `asyncio.run`)."""

    name: str

    def adapter(
        self, pkg: dict[str, ModuleType], provider: Provider, url: str, **kwargs: Any
    ) -> Any:
        """The one line a user writes: the adapter over the SDK's client."""
        if self.name == "sync":
            return getattr(pkg["_adapters"], provider.adapter)(provider.client(url), "m", **kwargs)
        made = getattr(pkg["_adapters"], "a" + provider.adapter)
        return made(provider.aclient(url), "m", **kwargs)

    def run(self, function: Callable[..., Any], **kwargs: Any) -> Any:
        if self.name == "sync":
            return function(**kwargs)
        module = sys.modules[function.__module__]
        return asyncio.run(getattr(module, "a" + function.__name__)(**kwargs))

    def call(self, pkg: dict[str, ModuleType], case: Case, llm: Any, **options: Any) -> Any:
        function = getattr(pkg[case.module], case.function)
        return self.run(function, **case.arguments, llm=llm, **options)


@pytest.fixture(params=["sync", "async"])
def form(request: pytest.FixtureRequest) -> Form:
    return Form(request.param)


# ---- the examples' json signatures, each with a valid answer ----------------------------------


@dataclass(frozen=True)
class Case:
    module: str
    function: str
    arguments: Json
    answer: Any


CASES = [
    Case("sentiment", "classify", {"text": "Great!"}, {"sentiment": "positive", "score": 0.9}),
    Case(
        "sentiment",
        "act_on_sentiment",
        {"sentiment": "negative", "score": 0.2},
        {"action": "escalate", "priority": 1, "note": None},
    ),
    Case(
        "extraction",
        "extract_products",
        {"article": "The Lamp costs 20."},
        {"products": [{"name": "Lamp", "price": 20.0, "tags": ["home"]}], "main_topic": "lamps"},
    ),
    Case(
        "extraction",
        "read_invoice",
        {"document": "INV-1"},
        {
            "invoice_number": "INV-1",
            "issue_date": "2026-01-02",
            "currency": "EUR",
            "line_items": [{"description": "x", "quantity": 2, "unit_price": 1.5, "total": 3.0}],
            "due_date": None,
            "total": 3.0,
        },
    ),
    Case(
        "research",
        "rank_results",
        {"query": "q", "results": [{"title": "T", "url": "https://a.example/"}]},
        [{"title": "T", "url": "https://a.example/", "score": 0.5}],
    ),
    Case("agent", "agent_step", {"query": "q"}, {"conclusion": "done", "confidence": 0.5}),
]


def spec_of(pkg: dict[str, ModuleType], case: Case) -> Any:
    return getattr(pkg[case.module], f"{case.function.upper()}_SPEC")


def model_of(pkg: dict[str, ModuleType], case: Case) -> Any:
    spec = spec_of(pkg, case)
    return getattr(importlib.import_module(f"signatures.models.{spec.module}"), spec.model)


def as_sent(pkg: dict[str, ModuleType], case: Case, provider: str) -> Any:
    """The answer as a model answers through the provider's schema: under the fragments'
    wrapper key where they wrap a root that is no object."""
    key = spec_of(pkg, case).fragments[provider].get("wrapped")
    return {key: case.answer} if key else case.answer


def fragment(pkg: dict[str, ModuleType], case: Case, provider: str, kind: str) -> Json:
    return copy.deepcopy(spec_of(pkg, case).fragments[provider][kind])


def assert_schema_form(pkg: dict[str, ModuleType], case: Case, provider: str, body: Json) -> None:
    """The body holds the compiled schema-mode fragment, as the provider's API reads it."""
    compiled = fragment(pkg, case, provider, "request")
    if provider == "openai":
        assert body["response_format"] == compiled["response_format"]
        assert "tools" not in body
    elif provider == "anthropic":
        assert body["output_config"] == compiled["output_config"]
    elif provider == "gemini":
        config, wanted = body["generationConfig"], compiled["generationConfig"]
        assert _same({k: v for k, v in config.items() if k in wanted}, wanted)
    else:
        assert body["format"] == compiled["format"]


def assert_tool_form(pkg: dict[str, ModuleType], case: Case, provider: str, body: Json) -> None:
    """The body holds the compiled forced tool, renamed `respond`, and no schema form."""
    if provider == "gemini":  # the compiled schema as a function, called in mode ANY
        [function] = _camel(body)["tools"][0]["functionDeclarations"]
        schema = fragment(pkg, case, "gemini", "request")["generationConfig"]
        parameters = pkg["_client"].tool_parameters(schema["responseJsonSchema"])[0]
        assert function["name"] == "respond"
        assert _same(function["parametersJsonSchema"], parameters)
        calling = _camel(body)["toolConfig"]["functionCallingConfig"]
        assert calling == {"mode": "ANY", "allowedFunctionNames": ["respond"]}
        assert "responseJsonSchema" not in json.dumps(body.get("generationConfig", {}))
        return
    compiled = fragment(pkg, case, provider, "tool_request")
    [tool] = compiled["tools"]
    if provider == "openai":
        tool["function"]["name"] = "respond"
        assert body["tools"] == [tool]
        assert body["tool_choice"] == {"type": "function", "function": {"name": "respond"}}
        assert "response_format" not in body
    else:
        tool["name"] = "respond"
        assert body["tools"] == [tool]
        assert body["tool_choice"] == {"type": "tool", "name": "respond"}
        assert "output_config" not in body


def system_of(provider: str, body: Json) -> str:
    if provider == "anthropic":
        return str(body["system"])
    if provider == "gemini":
        return str(body["systemInstruction"]["parts"][0]["text"])
    first = body["messages"][0]
    assert first["role"] == "system"
    return str(first["content"])


# ---- the examples' json signatures through every adapter ---------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.function)
def test_every_json_signature_runs_through_every_adapter(
    pkg: dict[str, ModuleType],
    server: Recorder,
    form: Form,
    provider: Provider,
    case: Case,
) -> None:
    server.script.append(provider.reply(json.dumps(as_sent(pkg, case, provider.name))))
    before = copy.deepcopy(spec_of(pkg, case).fragments)
    step = form.call(pkg, case, form.adapter(pkg, provider, server.url))
    model = model_of(pkg, case)
    assert isinstance(step.return_, model)
    assert step.return_ == model.model_validate(case.answer)
    assert step.usage == TOKENS and len(step.turns) == 1
    body = server.take().body
    assert_schema_form(pkg, case, provider.name, body)
    assert system_of(provider.name, body) == step.turns[0].request["system"]
    assert spec_of(pkg, case).fragments == before, "the module's fragments were changed"


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p.tool_mode], ids=lambda p: p.name)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.function)
def test_tool_mode_sends_the_compiled_forced_tool_and_reads_its_call(
    pkg: dict[str, ModuleType],
    server: Recorder,
    form: Form,
    provider: Provider,
    case: Case,
) -> None:
    arguments = as_sent(pkg, case, provider.name)
    if provider.name == "gemini":  # the forced function's parameters are an object
        schema = fragment(pkg, case, "gemini", "request")["generationConfig"]
        key = pkg["_client"].tool_parameters(schema["responseJsonSchema"])[1]
        arguments = {key: case.answer} if key else case.answer
    answer = {"name": "respond", "arguments": arguments}
    server.script.append(provider.reply(None, answer))
    step = form.call(pkg, case, form.adapter(pkg, provider, server.url), structured="tool")
    assert step.return_ == model_of(pkg, case).model_validate(case.answer)
    assert step.turns[0].reply.tool_calls[0]["name"] == "respond"
    assert_tool_form(pkg, case, provider.name, server.take().body)


@pytest.mark.parametrize("name", ["ollama"])
def test_tool_mode_without_a_compiled_tool_sends_the_schema_form(
    pkg: dict[str, ModuleType], server: Recorder, form: Form, name: str
) -> None:
    """Ollama cannot force a tool: the adapter sends the schema form (the runtime's payload
    builder does), and the answer is read from the reply's text."""
    provider, case = BY_NAME[name], CASES[0]
    server.script.append(provider.reply(json.dumps(case.answer)))
    step = form.call(pkg, case, form.adapter(pkg, provider, server.url), structured="tool")
    assert step.return_ == model_of(pkg, case).model_validate(case.answer)
    body = server.take().body
    assert_schema_form(pkg, case, name, body)
    assert not body.get("tools")  # the ollama SDK sends an empty list


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_a_retry_is_a_second_sdk_call_and_usage_is_summed(
    pkg: dict[str, ModuleType], server: Recorder, form: Form, provider: Provider
) -> None:
    case = CASES[0]
    bad = json.dumps({"sentiment": "great", "score": 0.9})
    server.script += [provider.reply(bad), provider.reply(json.dumps(case.answer))]
    step = form.call(pkg, case, form.adapter(pkg, provider, server.url))
    assert step.return_.sentiment == "positive"
    assert len(step.turns) == 2 and step.turns[0].errors
    assert step.usage == {"input": 22, "output": 14}
    first, second = (r.body for r in server.requests)
    server.requests.clear()
    key = "contents" if provider.name == "gemini" else "messages"
    assert second[key][: len(first[key])] == first[key]  # the conversation goes on
    assert len(second[key]) == len(first[key]) + 2
    text = json.dumps(second[key][-2:])
    assert "great" in text and "Your previous reply was not valid" in text


@pytest.mark.parametrize("provider", [p for p in PROVIDERS if p.refuses], ids=lambda p: p.name)
def test_a_refusal_raises_refusal_error_after_one_call(
    pkg: dict[str, ModuleType], server: Recorder, form: Form, provider: Provider
) -> None:
    server.script.append(provider.reply(None, refusal="I cannot help with that."))
    with pytest.raises(pkg["_client"].RefusalError) as caught:
        form.call(pkg, CASES[0], form.adapter(pkg, provider, server.url))
    assert caught.value.refusal
    step = caught.value.step
    assert len(step.turns) == 1 and step.usage == TOKENS
    assert "I cannot help with that." in caught.value.refusal
    server.take()


THOUGHT = "The review praises the product."


def with_thought(provider: str, body: Json) -> Json:
    """A reply that carries the model's thoughts apart from its answer, as each API does."""
    if provider == "openai":  # compatible servers (vLLM, llama.cpp, DeepSeek)
        body["choices"][0]["message"]["reasoning_content"] = THOUGHT
    elif provider == "anthropic":
        thinking = {"type": "thinking", "thinking": THOUGHT, "signature": "s"}
        body["content"].insert(0, thinking)
    elif provider == "gemini":
        body["candidates"][0]["content"]["parts"].insert(0, {"text": THOUGHT, "thought": True})
    else:
        body["message"]["thinking"] = THOUGHT
    return body


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_reasoning_is_kept_apart_from_the_answer(
    pkg: dict[str, ModuleType], server: Recorder, form: Form, provider: Provider
) -> None:
    case = CASES[0]
    server.script.append(with_thought(provider.name, provider.reply(json.dumps(case.answer))))
    step = form.call(pkg, case, form.adapter(pkg, provider, server.url))
    assert step.return_ == model_of(pkg, case).model_validate(case.answer)
    [turn] = step.turns
    assert turn.reply.reasoning == THOUGHT and THOUGHT not in (turn.reply.content or "")
    server.take()


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_a_text_signature_returns_the_reply_text(
    pkg: dict[str, ModuleType], server: Recorder, form: Form, provider: Provider
) -> None:
    server.script.append(provider.reply("A short summary."))
    llm = form.adapter(pkg, provider, server.url)
    step = form.run(pkg["summary"].summarize, document="A long text.", llm=llm)
    assert step.return_ == "A short summary." and step.usage == TOKENS
    body = server.take().body
    assert "response_format" not in body and "output_config" not in body
    assert "format" not in body and "responseJsonSchema" not in json.dumps(body)


def test_a_pipeline_runs_on_one_adapter_and_sums_its_usage(
    pkg: dict[str, ModuleType], server: Recorder, form: Form
) -> None:
    provider = BY_NAME["openai"]
    server.script += [
        openai_reply(json.dumps({"sentiment": "negative", "score": 0.1})),
        openai_reply(json.dumps({"action": "escalate", "priority": 1, "note": "broken"})),
    ]
    llm = form.adapter(pkg, provider, server.url)
    step = form.run(pkg["sentiment"].triage, text="Arrived broken.", llm=llm)
    assert step.return_.action == "escalate"
    assert step.usage == {"input": 22, "output": 14}
    first, second = (r.body for r in server.requests)
    server.requests.clear()
    assert first["response_format"]["json_schema"]["name"] == "classify"
    assert second["response_format"]["json_schema"]["name"] == "act_on_sentiment"


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_async_calls_over_one_async_client_run_at_once(
    pkg: dict[str, ModuleType], server: Recorder, provider: Provider
) -> None:
    """The point of the async form: one async adapter serves calls gathered together."""
    case, texts = CASES[0], ["review-one", "review-two", "review-three"]
    server.script += [provider.reply(json.dumps(case.answer)) for _ in texts]
    llm = Form("async").adapter(pkg, provider, server.url)

    async def gathered() -> list[Any]:
        calls = [pkg["sentiment"].aclassify(text=text, llm=llm) for text in texts]
        return await asyncio.gather(*calls)

    steps = asyncio.run(gathered())
    assert [step.return_.sentiment for step in steps] == ["positive"] * 3
    sent = [json.dumps(r.body) for r in server.requests]
    server.requests.clear()
    assert sorted(t for body in sent for t in texts if t in body) == sorted(texts)


# ---- extra keyword arguments ------------------------------------------------------------------


def test_extra_openai_arguments_pass_through_and_win(
    pkg: dict[str, ModuleType], server: Recorder, form: Form
) -> None:
    """A keyword argument reaches the SDK's method; one the adapter would set wins, so a
    server that takes another structured-output form can have it pinned."""
    provider, case = BY_NAME["openai"], CASES[0]
    pinned = {"type": "json_object"}
    llm = form.adapter(
        pkg,
        provider,
        server.url,
        temperature=0,
        extra_body={"top_k": 5},
        response_format=pinned,
    )
    server.script.append(openai_reply(json.dumps(case.answer)))
    form.call(pkg, case, llm)
    body = server.take().body
    assert body["temperature"] == 0 and body["top_k"] == 5
    assert body["response_format"] == pinned


@pytest.mark.parametrize(
    ("name", "kwargs", "where"),
    [
        (
            "anthropic",
            {"stop_sequences": ["END"], "max_tokens": 99},
            {"stop_sequences": ["END"], "max_tokens": 99},
        ),
        ("gemini", {"temperature": 0}, {"generationConfig": {"temperature": 0}}),
        ("ollama", {"options": {"temperature": 0}}, {"options": {"temperature": 0}}),
    ],
)
def test_extra_arguments_of_the_other_sdks_pass_through(
    pkg: dict[str, ModuleType],
    server: Recorder,
    form: Form,
    *,
    name: str,
    kwargs: Json,
    where: Json,
) -> None:
    provider, case = BY_NAME[name], CASES[0]
    server.script.append(provider.reply(json.dumps(case.answer)))
    form.call(pkg, case, form.adapter(pkg, provider, server.url, **kwargs))
    body = server.take().body
    for key, value in where.items():
        sent = body[key]
        if isinstance(value, dict):
            sent = {k: v for k, v in sent.items() if k in value}
        assert sent == value, (key, body[key])
    assert_schema_form(pkg, case, name, body)


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_a_streaming_argument_is_refused_when_the_adapter_is_made(
    pkg: dict[str, ModuleType], form: Form, provider: Provider
) -> None:
    with pytest.raises(ValueError, match="whole replies"):
        form.adapter(pkg, provider, "http://127.0.0.1:9", stream=True)


def test_the_adapters_import_no_sdk(examples_output: Path) -> None:
    """The package stays pydantic-only: importing the adapters loads no SDK."""
    script = (
        "import sys\n"
        f"sys.path.insert(0, {str(examples_output / 'python')!r})\n"
        "import signatures._adapters\n"
        "sdks = ('openai', 'anthropic', 'google', 'ollama', 'httpx')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in sdks))\n"
    )
    result = subprocess.run(
        [sys.executable, "-B", "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_an_async_client_given_to_a_sync_adapter_points_at_the_async_one(
    pkg: dict[str, ModuleType], server: Recorder, provider: Provider
) -> None:
    """An async client's method returns a coroutine: the synchronous adapter says so and
    names its async form (closing the coroutine, so nothing is sent) instead of failing as
    a bad reply. Gemini's async client is the sync one's `client.aio`."""
    client = provider.aclient(server.url)
    if provider.name == "gemini":
        client = client.aio
    llm = getattr(pkg["_adapters"], provider.adapter)(client, "m")
    wanted = f"{provider.adapter} needs a synchronous client.*use a{provider.adapter}"
    with pytest.raises(TypeError, match=wanted):
        Form("sync").call(pkg, CASES[0], llm)
    assert server.requests == []


@pytest.mark.parametrize(
    "provider", [p for p in PROVIDERS if p.name != "gemini"], ids=lambda p: p.name
)
def test_a_sync_client_given_to_an_async_adapter_points_at_the_sync_one(
    pkg: dict[str, ModuleType], server: Recorder, provider: Provider
) -> None:
    """A sync client answers without being awaited: the async adapter says so and names the
    sync form (its request has gone out; its reply is not read). Gemini's async adapter
    takes the sync `genai.Client` itself and awaits its `client.aio`."""
    name = "a" + provider.adapter
    llm = getattr(pkg["_adapters"], name)(provider.client(server.url), "m")
    wanted = f"{name} needs an async client.*use {provider.adapter},"
    with pytest.raises(TypeError, match=wanted):
        Form("async").call(pkg, CASES[0], llm)
    server.take()


def test_the_async_gemini_adapter_takes_the_async_client_too(
    pkg: dict[str, ModuleType], server: Recorder
) -> None:
    provider, case = BY_NAME["gemini"], CASES[0]
    server.script.append(provider.reply(json.dumps(case.answer)))
    llm = pkg["_adapters"].agemini_llm(provider.client(server.url).aio, "m")
    step = Form("async").call(pkg, case, llm)
    assert step.return_ == model_of(pkg, case).model_validate(case.answer)
    assert_schema_form(pkg, case, "gemini", server.take().body)


def test_any_object_with_the_sdk_s_method_works(pkg: dict[str, ModuleType], form: Form) -> None:
    """The adapters call the client's method by name: a proxy or a test double works too
    (an async method for the async form), and the keyword arguments it gets are what the
    SDK would."""
    seen: list[Json] = []

    def create(**arguments: Any) -> Json:
        seen.append(arguments)
        return openai_reply(json.dumps(CASES[0].answer))

    async def acreate(**arguments: Any) -> Json:
        await asyncio.sleep(0)
        return create(**arguments)

    method = create if form.name == "sync" else acreate
    client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=method)))
    made = getattr(pkg["_adapters"], "openai_llm" if form.name == "sync" else "aopenai_llm")
    step = form.call(pkg, CASES[0], made(client, "m", seed=1))
    assert step.return_.sentiment == "positive" and step.usage == TOKENS
    [arguments] = seen
    assert arguments["model"] == "m" and arguments["seed"] == 1 and "stream" not in arguments
    assert_schema_form(pkg, CASES[0], "openai", arguments)
