"""The runtime's reply readers (`read_openai`, `read_anthropic`, `read_gemini`, `read_ollama`)
on the official SDKs' own response objects, built and dumped as users dump them, and the client
loop on what they read: every SDK's answer, tool call, usage, thoughts and refusal reach the
same typed result. Issue 24's "Reading replies" cases each have a regression test here.

SDK tests: the SDKs are in the test extra, so a missing one fails here rather than skipping.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import jsonschema
import pytest
from anthropic import types as anthropic_types
from google.genai import types as gemini_types
from ollama import ChatResponse, Message
from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_message import ChatCompletionMessage
from openai.types.chat.chat_completion_message_function_tool_call import Function
from openai.types.completion_usage import CompletionUsage

from conftest import write_python_package

SIG = """\
type Tree = {label :string, kids [Tree]}
type Json = :any

## Rate a review.
signature rate(text :string) -> {label "good" | "bad", score :float @min(0) @max(1)}
signature anything(text :string) -> :any
signature json_value(text :string) -> Json
signature maybe(text :string) -> :int?
signature count(text :string) -> :int
signature tree(text :string) -> Tree
signature trees(text :string) -> [Tree]

@output(text)
signature say(text :string) -> :string
"""

ANSWER = {"label": "good", "score": 0.75}
GOOD = json.dumps(ANSWER)
THOUGHT = "The review praises the product."


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The client module of SIG's package (`readers`); it imports its runtime as `_client`."""
    folder, _ = write_python_package(tmp_path_factory.mktemp("readers"), SIG, "readers")
    sys.dont_write_bytecode, before = True, sys.dont_write_bytecode
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("readers.client.p")
    finally:
        sys.path.remove(str(folder))
        sys.dont_write_bytecode = before
        for name in [m for m in sys.modules if m == "readers" or m.startswith("readers.")]:
            del sys.modules[name]


def runtime(pkg: ModuleType) -> Any:
    return pkg._client


def replying(reader: Callable[[Any], Any], *responses: Any) -> Callable[[Any], Any]:
    """An llm callback that reads each response in turn, recording the requests."""
    queue = list(responses)
    sent: list[Any] = []

    def llm(request: Any) -> Any:
        sent.append(request)
        return reader(queue.pop(0))

    llm.sent = sent  # type: ignore[attr-defined]
    return llm


# -- the SDKs' response objects ------------------------------------------------------------


def openai_response(
    content: str | None = None,
    *,
    refusal: str | None = None,
    calls: tuple[tuple[str, str], ...] = (),
    finish: str = "stop",
) -> ChatCompletion:
    tool_calls = [
        ChatCompletionMessageFunctionToolCall(
            id=f"call_{i}", type="function", function=Function(name=name, arguments=args)
        )
        for i, (name, args) in enumerate(calls)
    ]
    message = ChatCompletionMessage(
        role="assistant", content=content, refusal=refusal, tool_calls=tool_calls or None
    )
    return ChatCompletion(
        id="chatcmpl-1",
        object="chat.completion",
        created=0,
        model="gpt-x",
        choices=[Choice(index=0, finish_reason=finish, message=message)],  # type: ignore[arg-type]
        usage=CompletionUsage(prompt_tokens=11, completion_tokens=4, total_tokens=15),
    )


def anthropic_response(*blocks: Any, stop: str = "end_turn") -> anthropic_types.Message:
    return anthropic_types.Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="claude-x",
        content=list(blocks),
        stop_reason=stop,  # type: ignore[arg-type]
        stop_sequence=None,
        # 11 tokens read in all: input_tokens leaves out those read from the cache.
        usage=anthropic_types.Usage(input_tokens=5, cache_read_input_tokens=6, output_tokens=4),
    )


def gemini_response(
    *parts: gemini_types.Part,
    finish: gemini_types.FinishReason = gemini_types.FinishReason.STOP,
    blocked: gemini_types.BlockedReason | None = None,
) -> gemini_types.GenerateContentResponse:
    candidates = [
        gemini_types.Candidate(
            content=gemini_types.Content(role="model", parts=list(parts)), finish_reason=finish
        )
    ]
    return gemini_types.GenerateContentResponse(
        candidates=candidates if parts or not blocked else None,
        prompt_feedback=(
            gemini_types.GenerateContentResponsePromptFeedback(block_reason=blocked)
            if blocked
            else None
        ),
        usage_metadata=gemini_types.GenerateContentResponseUsageMetadata(
            # 4 tokens written in all: the candidates' count leaves out the thoughts.
            prompt_token_count=11,
            candidates_token_count=1,
            thoughts_token_count=3,
        ),
    )


def ollama_response(
    content: str = "", *, thinking: str | None = None, calls: tuple[tuple[str, Any], ...] = ()
) -> ChatResponse:
    tool_calls = [
        Message.ToolCall(function=Message.ToolCall.Function(name=name, arguments=args))
        for name, args in calls
    ]
    message = Message(
        role="assistant", content=content, thinking=thinking, tool_calls=tool_calls or None
    )
    return ChatResponse(
        model="llama-x", done=True, message=message, prompt_eval_count=11, eval_count=4
    )


# How users turn an SDK object into what the readers take: each documented dump.
GEMINI_DUMPS: dict[str, Callable[[Any], Any]] = {
    "by_alias": lambda r: r.model_dump(by_alias=True, exclude_none=True),
    "by_alias_json": lambda r: r.model_dump(mode="json", by_alias=True, exclude_none=True),
    "snake_case": lambda r: r.model_dump(),  # field names, every unset field as None
    "snake_case_json": lambda r: r.model_dump(mode="json", exclude_none=True),
}


def answers(provider: str) -> list[tuple[str, Any]]:
    """(how it was dumped, a dumped response) whose answer is ANSWER as text."""
    if provider == "openai":
        made = openai_response(GOOD)
        return [
            ("object", made),
            ("model_dump", made.model_dump()),
            ("json", json.loads(made.to_json())),
        ]
    if provider == "anthropic":
        made = anthropic_response(
            anthropic_types.ThinkingBlock(type="thinking", thinking=THOUGHT, signature="s"),
            anthropic_types.TextBlock(type="text", text=GOOD),
        )
        return [
            ("object", made),
            ("model_dump", made.model_dump()),
            ("json", json.loads(made.to_json())),
        ]
    if provider == "gemini":
        made = gemini_response(
            gemini_types.Part(text=THOUGHT, thought=True), gemini_types.Part(text=GOOD)
        )
        return [("object", made), *((name, dump(made)) for name, dump in GEMINI_DUMPS.items())]
    made = ollama_response(GOOD, thinking=THOUGHT)
    return [
        ("object", made),  # subscriptable, yet its message is an object too
        ("model_dump", made.model_dump()),
        ("json", json.loads(made.model_dump_json())),
    ]


PROVIDERS = ["openai", "anthropic", "gemini", "ollama"]
CASES = [(p, how, dumped) for p in PROVIDERS for how, dumped in answers(p)]


@pytest.mark.parametrize(
    ("provider", "how", "dumped"), CASES, ids=[f"{p}-{h}" for p, h, _ in CASES]
)
def test_each_sdk_answer_reads_into_the_same_typed_result(
    pkg: ModuleType, provider: str, how: str, dumped: Any
) -> None:
    """Content, usage and thoughts of each SDK's response, as the SDK returned it or however
    it was dumped."""
    read = getattr(runtime(pkg), f"read_{provider}")
    assert read(dumped) == {
        "content": GOOD,
        "tool_calls": [],
        "tokens": {"input": 11, "output": 4},
        "refusal": None,
        "reasoning": None if provider == "openai" else THOUGHT,
    }
    step = pkg.rate(text="great", llm=replying(read, dumped))
    assert step.return_.model_dump() == ANSWER
    assert step.usage == {"input": 11, "output": 4} and len(step.turns) == 1
    assert step.turns[0].reply.reasoning == (None if provider == "openai" else THOUGHT)


def test_openai_compatible_servers_reasoning_is_kept_apart(pkg: ModuleType) -> None:
    """vLLM and DeepSeek send `reasoning_content`, newer vLLM, Ollama's /v1 and OpenRouter
    `reasoning`: extra fields the SDK's message keeps."""
    client = runtime(pkg)
    for key in ("reasoning_content", "reasoning"):
        made = openai_response(GOOD)
        dumped = made.model_dump()
        dumped["choices"][0]["message"][key] = THOUGHT
        rebuilt = ChatCompletion.model_validate(dumped).model_dump()
        assert rebuilt["choices"][0]["message"][key] == THOUGHT
        step = pkg.rate(text="x", llm=replying(client.read_openai, rebuilt))
        assert step.return_.model_dump() == ANSWER
        assert step.turns[0].reply.reasoning == THOUGHT


def tool_calls(provider: str) -> list[tuple[str, Any]]:
    """(how it was dumped, a dumped response) answering through a forced `respond` tool."""
    if provider == "openai":
        made = openai_response(calls=(("respond", GOOD),), finish="tool_calls")
        return [("object", made), ("model_dump", made.model_dump())]
    if provider == "anthropic":
        block = anthropic_types.ToolUseBlock(
            type="tool_use", id="toolu_1", name="respond", input=ANSWER
        )
        made = anthropic_response(block, stop="tool_use")
        return [("object", made), ("model_dump", made.model_dump())]
    if provider == "gemini":
        call = gemini_types.FunctionCall(id="fc_1", name="respond", args=ANSWER)
        made = gemini_response(gemini_types.Part(function_call=call))
        return [("object", made), *((name, dump(made)) for name, dump in GEMINI_DUMPS.items())]
    made = ollama_response(calls=(("respond", ANSWER),))
    return [("object", made), ("model_dump", made.model_dump())]


TOOL_CASES = [(p, how, dumped) for p in PROVIDERS for how, dumped in tool_calls(p)]


@pytest.mark.parametrize(
    ("provider", "how", "dumped"), TOOL_CASES, ids=[f"{p}-{h}" for p, h, _ in TOOL_CASES]
)
def test_each_sdk_tool_call_reads_into_the_same_typed_result(
    pkg: ModuleType, provider: str, how: str, dumped: Any
) -> None:
    """Gemini's calls and usage read from a snake_case dump too (`model_dump()`)."""
    read = getattr(runtime(pkg), f"read_{provider}")
    answer = read(dumped)
    assert answer["content"] is None and answer["tokens"] == {"input": 11, "output": 4}
    [call] = answer["tool_calls"]
    assert call["name"] == "respond" and call["arguments"] == ANSWER
    step = pkg.rate(text="great", llm=replying(read, dumped), structured="tool")
    assert step.return_.model_dump() == ANSWER and step.usage == {"input": 11, "output": 4}


def test_gemini_thought_parts_are_reasoning_not_content(pkg: ModuleType) -> None:
    """A thought part holding JSON of its own would otherwise join (and break) the answer."""
    draft = json.dumps({"label": "bad", "score": 0.1})
    made = gemini_response(
        gemini_types.Part(text=f"Draft: {draft}", thought=True),
        gemini_types.Part(text=GOOD),
        gemini_types.Part(text="Checked it.", thought=True),
    )
    client = runtime(pkg)
    for dump in GEMINI_DUMPS.values():
        answer = client.read_gemini(dump(made))
        assert answer["content"] == GOOD
        assert answer["reasoning"] == f"Draft: {draft}Checked it."
        step = pkg.rate(text="x", llm=replying(client.read_gemini, dump(made)), max_turns=1)
        assert step.return_.model_dump() == ANSWER and not step.turns[0].repairs


# -- refusals ---------------------------------------------------------------------------------


def refusals() -> list[tuple[str, str, Any, str]]:
    """(provider, case, dumped response, what the refusal says)."""
    gemini_blocked = gemini_response(blocked=gemini_types.BlockedReason.PROHIBITED_CONTENT)
    gemini_stopped = gemini_response(
        gemini_types.Part(text=""), finish=gemini_types.FinishReason.SAFETY
    )
    return [
        (
            "openai",
            "refusal",
            openai_response(refusal="I can't help with that.").model_dump(),
            "I can't help with that.",
        ),
        (
            "openai",
            "content_filter",
            openai_response(finish="content_filter").model_dump(),
            'finish_reason "content_filter"',
        ),
        (
            "anthropic",
            "stop_reason",
            anthropic_response(stop="refusal").model_dump(),
            'stop_reason "refusal"',
        ),
        (
            "gemini",
            "blocked prompt",
            gemini_blocked.model_dump(),
            'blockReason "PROHIBITED_CONTENT"',
        ),
        (
            "gemini",
            "blocked prompt by alias",
            gemini_blocked.model_dump(mode="json", by_alias=True, exclude_none=True),
            'blockReason "PROHIBITED_CONTENT"',
        ),
        ("gemini", "safety stop", gemini_stopped.model_dump(), 'finishReason "SAFETY"'),
    ]


REFUSALS = refusals()


@pytest.mark.parametrize(
    ("provider", "case", "dumped", "says"), REFUSALS, ids=[f"{p}-{c}" for p, c, _, _ in REFUSALS]
)
def test_a_refusal_ends_the_call_without_retries(
    pkg: ModuleType, provider: str, case: str, dumped: Any, says: str
) -> None:
    """A refusal is no empty reply to retry: `RefusalError` (a `JsonEnforcementError`, so
    existing handlers still catch it) after one turn, naming the refusal."""
    client = runtime(pkg)
    read = getattr(client, f"read_{provider}")
    assert says in read(dumped)["refusal"]
    llm = replying(read, dumped, dumped, dumped)
    with pytest.raises(client.RefusalError) as caught:
        pkg.rate(text="x", llm=llm)
    error = caught.value
    assert isinstance(error, client.JsonEnforcementError)
    assert len(llm.sent) == 1 and len(error.step.turns) == 1  # type: ignore[attr-defined]
    assert says in error.refusal and says in str(error) and "refused" in str(error)
    assert error.step.fail.reason == "the model refused to answer"
    assert error.errors == [("root", f"the model refused to answer: {error.refusal}")]
    assert "empty" not in str(error)


def test_a_refusal_after_a_retry_keeps_every_turn(pkg: ModuleType) -> None:
    client = runtime(pkg)
    llm = replying(
        client.read_openai,
        openai_response('{"label": "great", "score": 0.75}').model_dump(),
        openai_response(refusal="No.").model_dump(),
    )
    with pytest.raises(client.RefusalError) as caught:
        pkg.rate(text="x", llm=llm)
    turns = caught.value.step.turns
    assert len(turns) == 2 and turns[0].errors[0][0] == "label" and turns[1].reply.refusal == "No."
    assert caught.value.step.usage == {"input": 22, "output": 8}


def test_a_callback_reports_a_refusal_and_text_mode_raises_it(pkg: ModuleType) -> None:
    client = runtime(pkg)
    with pytest.raises(client.RefusalError, match="say: the model refused"):
        pkg.say(text="x", llm=lambda _: {"content": None, "refusal": "Not that."})
    with pytest.raises(client.RefusalError):
        pkg.rate(text="x", llm=lambda _: {"content": "", "refusal": "Not that."})
    # An empty refusal is none; reasoning is kept as the callback gives it.
    step = pkg.rate(text="x", llm=lambda _: {"content": GOOD, "refusal": "", "reasoning": "r"})
    assert step.turns[0].reply.refusal is None and step.turns[0].reply.reasoning == "r"
    for key, bad in (("refusal", 3), ("reasoning", ["a"])):
        with pytest.raises(client.CallbackError, match=f"`{key}` must be a string or None"):
            pkg.rate(text="x", llm=lambda _, k=key, b=bad: {"content": GOOD, k: b})


# -- wrapped roots and null answers -------------------------------------------------------


@pytest.mark.parametrize("name", ["anything", "json_value"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_any_output_gets_the_answer_not_the_wrapper(
    pkg: ModuleType, name: str, provider: str
) -> None:
    """`{"result": 42}` is itself a valid `:any`, but through the fragments it is only the
    wrapper OpenAI's and Anthropic's object roots force: the client returns 42."""
    client = runtime(pkg)
    spec = getattr(pkg, f"{name.upper()}_SPEC")
    assert spec.fragments[provider]["wrapped"] == "result"
    make = {
        "openai": lambda text: openai_response(text).model_dump(),
        "anthropic": lambda text: anthropic_response(
            anthropic_types.TextBlock(type="text", text=text)
        ).model_dump(),
    }[provider]
    read = getattr(client, f"read_{provider}")
    for wrapped, value in (('{"result": 42}', 42), ('{"result": null}', None)):
        step = getattr(pkg, name)(text="x", llm=replying(read, make(wrapped)))
        assert step.return_.root == value
        assert step.turns[0].repairs[0] == (
            "root",
            """unwrapped the answer from the provider's {"result": ...}""",
        )
    step = getattr(pkg, name)(text="x", llm=replying(read, make('{"other": 42}')))
    assert step.return_.root == {"other": 42}  # no wrapper: the object is the answer


@pytest.mark.parametrize(("name", "value"), [("maybe", None), ("anything", None), ("count", 7)])
def test_a_bare_scalar_or_null_answers_an_output_that_admits_it(
    pkg: ModuleType, name: str, value: Any
) -> None:
    reply = "null" if value is None else str(value)
    step = getattr(pkg, name)(text="x", llm=lambda _: reply, max_turns=1)
    assert step.return_.root == value and step.turns[0].errors == []


def test_a_bare_null_is_no_answer_where_null_is_invalid(pkg: ModuleType) -> None:
    client = runtime(pkg)
    with pytest.raises(client.JsonEnforcementError) as caught:
        pkg.count(text="x", llm=lambda _: "null", max_turns=1)
    assert caught.value.errors == [("root", "expected int, got null")]


# -- forced tools without a provider fragment -----------------------------------------------


def test_a_forced_tool_always_takes_an_object(pkg: ModuleType) -> None:
    """Recursive types have no Anthropic fragment, so the payload builder sends the request's
    own tool: its parameters are an object (a root `$ref` to a map inlined with its `$defs`,
    a list under `items`, any other root under `result`), as every provider wants."""
    client = runtime(pkg)
    assert "anthropic" not in pkg.TREE_SPEC.fragments  # unavailable: recursive
    tree = {"label": "a", "kids": [{"label": "b", "kids": []}]}
    cases = [
        (pkg.tree, tree, None, tree),
        (pkg.trees, [tree], "items", [tree]),
        (pkg.maybe, None, "result", None),
        (pkg.count, 3, "result", 3),
    ]
    for function, answer, key, expected in cases:
        sent: list[Any] = []

        def llm(
            request: Any, key: str | None = key, answer: Any = answer, sent: list[Any] = sent
        ) -> Any:
            payload = client.anthropic_payload(request, "claude-x")
            sent.append(payload)
            given = answer if key is None else {key: answer}
            block = anthropic_types.ToolUseBlock(
                type="tool_use", id="toolu_1", name="respond", input=given
            )
            return client.read_anthropic(anthropic_response(block).model_dump())

        step = function(text="x", llm=llm, structured="tool")
        assert client.plain(step.return_) == expected, function
        [tool] = sent[0]["tools"]
        schema = tool["input_schema"]
        assert schema["type"] == "object" and "$ref" not in schema
        # The schema is whole: its references resolve, and it holds the answer it asked for.
        jsonschema.Draft202012Validator.check_schema(schema)
        given = answer if key is None else {key: answer}
        assert not list(jsonschema.Draft202012Validator(schema).iter_errors(given))
        if key is not None:
            assert schema["required"] == [key] and step.turns[0].repairs[0][0] == "root"


def test_tool_parameters_keep_an_object_root_and_copy_the_schema(pkg: ModuleType) -> None:
    client = runtime(pkg)
    schema = pkg.RATE_SPEC.schema
    parameters, key = client.tool_parameters(schema)
    assert key is None and parameters == schema and parameters is not schema
    parameters["properties"].clear()
    assert pkg.RATE_SPEC.schema["properties"]  # the module's constant is untouched
    parameters, key = client.tool_parameters(pkg.TREE_SPEC.schema)
    assert key is None and parameters["required"] == ["label", "kids"]
    assert parameters["$defs"]["Tree"]["properties"]["kids"]["items"] == {"$ref": "#/$defs/Tree"}


def test_the_http_callback_does_not_repair_a_refusal(pkg: ModuleType) -> None:
    """A refusal through `OpenAICompatible` is the answer: one request, no retry turn."""
    from test_client import ScriptedServer

    client = runtime(pkg)
    refused = json.loads(openai_response(refusal="No.").to_json())
    server = ScriptedServer((200, refused, 0), (200, refused, 0))
    try:
        llm = importlib.import_module(f"{pkg.__name__.split('.')[0]}._transport").OpenAICompatible(
            server.url, "gpt-x"
        )
        with pytest.raises(client.RefusalError):
            pkg.rate(text="x", llm=llm)
        assert len(server.seen) == 1
    finally:
        server.close()
