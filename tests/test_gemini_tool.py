"""Gemini's forced tool: `gemini_payload` sends a request forcing the `respond` tool as a
function declaration (`parametersJsonSchema`: the compiled `responseJsonSchema` as an object),
called in mode `ANY` and allowed alone, in place of the response schema, and the answer comes
back as the function call's arguments, unwrapped as OpenAI's and Anthropic's tool mode are.

For every json signature of the examples, the body is built by the runtime and sent with the
real google-genai SDK (`client.models.generate_content`) to the recording server on 127.0.0.1,
which answers with a `functionCall`: the typed result and the recorded body are checked. Then
the generated client (`classify(..., structured="tool", llm=...)`) with a callback built on
`gemini_payload` and `read_gemini`, a retry in tool mode, and Ollama's documented fallback.
SDK tests: google-genai is in the test extra, so a missing SDK fails here rather than skipping;
nothing leaves the machine and no key is needed.
"""

from __future__ import annotations

import copy
import json
from types import ModuleType
from typing import Any

import pytest
from google import genai
from google.genai import types as genai_types

from recording_server import Recorder, canned
from test_adapters import CASES, TOKENS, Case, model_of, pkg, server, server_once, spec_of
from test_sdk_requests import _camel, _same

__all__ = ["pkg", "server", "server_once"]  # the fixtures, shared with the adapters' tests

Json = dict[str, Any]
FORCED = {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["respond"]}}


def gemini_call(args: Any, name: str = "respond") -> Json:
    """A generateContent response whose one part calls the function `name`."""
    body = canned("/v1beta/models/m:generateContent")
    assert body is not None
    call = {"functionCall": {"id": "fc_1", "name": name, "args": args}}
    body["candidates"][0]["content"]["parts"] = [call]
    body["usageMetadata"] = {"promptTokenCount": 11, "candidatesTokenCount": 7}
    return body


def send(client: genai.Client, payload: Json) -> Any:
    """A generateContent body as google-genai takes it: `contents`, the rest in `config`."""
    config = {k: v for k, v in payload.items() if k != "contents"}
    return client.models.generate_content(model="m", contents=payload["contents"], config=config)


@pytest.fixture
def client(server: Recorder) -> genai.Client:
    return genai.Client(api_key="k", http_options=genai_types.HttpOptions(base_url=server.url))


def compiled_schema(pkg: dict[str, ModuleType], case: Case) -> Json:
    config = spec_of(pkg, case).fragments["gemini"]["request"]["generationConfig"]
    return copy.deepcopy(config["responseJsonSchema"])


def wrapped(case: Case) -> Any:
    """The answer as the forced tool's arguments: an object, a list under `items`."""
    return {"items": case.answer} if isinstance(case.answer, list) else case.answer


def assert_forced_tool(pkg: dict[str, ModuleType], case: Case, body: Json) -> None:
    """The body forces `respond`, declared with the compiled schema, and asks no schema
    (google-genai sends some field names in snake_case, which the API reads as camelCase)."""
    body = _camel(body)
    [tools] = body["tools"]
    [function] = tools["functionDeclarations"]
    parameters, key = pkg["_client"].tool_parameters(compiled_schema(pkg, case))
    assert function["name"] == "respond"
    assert function["description"] == spec_of(pkg, case).doc
    assert _same(function["parametersJsonSchema"], parameters)
    assert parameters["type"] == "object" and key == (
        "items" if case.function == "rank_results" else None
    )
    assert _same(body["toolConfig"], FORCED)
    sent = json.dumps(body.get("generationConfig", {}))
    assert "responseJsonSchema" not in sent and "responseMimeType" not in sent


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.function)
def test_every_json_signature_forces_the_respond_function_through_google_genai(
    pkg: dict[str, ModuleType], server: Recorder, client: genai.Client, case: Case
) -> None:
    runtime, spec = pkg["_client"], spec_of(pkg, case)
    validators = __import__(f"signatures.{spec.module}", fromlist=["_"])
    model = model_of(pkg, case)
    before = copy.deepcopy(spec.fragments)
    turns = runtime.json_turns(
        spec,
        case.arguments,
        getattr(validators, f"parse_{spec.key}"),
        model.model_validate,
        structured="tool",
    )
    payload = runtime.gemini_payload(next(turns))
    assert_forced_tool(pkg, case, payload)
    server.script.append(gemini_call(wrapped(case)))
    with pytest.raises(StopIteration) as done:
        turns.send(runtime.read_gemini(send(client, payload)))
    step = done.value.value
    assert step.return_ == model.model_validate(case.answer)
    assert step.usage == TOKENS and len(step.turns) == 1
    assert step.turns[0].reply.tool_calls[0]["name"] == "respond"
    body = server.take().body
    assert_forced_tool(pkg, case, body)
    assert _same(body["contents"], payload["contents"])
    assert body["systemInstruction"]["parts"][0]["text"] == step.turns[0].request["system"]
    assert spec.fragments == before, "the module's fragments were changed"


def callback(runtime: ModuleType, client: genai.Client) -> Any:
    """The callback a user writes over google-genai with the runtime's helpers."""
    return lambda request: runtime.read_gemini(send(client, runtime.gemini_payload(request)))


def test_classify_in_tool_mode_over_google_genai(
    pkg: dict[str, ModuleType], server: Recorder, client: genai.Client
) -> None:
    runtime = pkg["_client"]
    server.script.append(gemini_call({"sentiment": "positive", "score": 0.9}))
    llm = callback(runtime, client)
    step = pkg["sentiment"].classify(text="Great!", llm=llm, structured="tool")
    assert step.return_ == model_of(pkg, CASES[0]).model_validate(CASES[0].answer)
    assert step.usage == TOKENS
    [turn] = step.turns
    assert turn.request["tool_choice"] == {"tool": "respond"}
    assert turn.reply.tool_calls == [
        {"id": "fc_1", "name": "respond", "arguments": {"sentiment": "positive", "score": 0.9}}
    ]
    assert_forced_tool(pkg, CASES[0], server.take().body)


def test_a_bad_call_is_retried_with_the_tool_still_forced(
    pkg: dict[str, ModuleType], server: Recorder, client: genai.Client
) -> None:
    runtime = pkg["_client"]
    server.script += [
        gemini_call({"sentiment": "great", "score": 0.9}),
        gemini_call({"sentiment": "positive", "score": 0.9}),
    ]
    llm = callback(runtime, client)
    step = pkg["sentiment"].classify(text="Great!", llm=llm, structured="tool")
    assert step.return_.sentiment == "positive"
    assert len(step.turns) == 2 and step.turns[0].errors
    assert step.usage == {"input": 22, "output": 14}
    first, second = (r.body for r in server.requests)
    server.requests.clear()
    assert second["contents"][: len(first["contents"])] == first["contents"]
    said, feedback = second["contents"][-2:]
    assert said["role"] == "model" and "great" in said["parts"][0]["text"]
    assert feedback["role"] == "user" and "Your previous reply was not valid" in json.dumps(
        feedback
    )
    assert_forced_tool(pkg, CASES[0], second)


def test_a_request_without_a_compiled_schema_declares_its_own_tool(
    pkg: dict[str, ModuleType],
) -> None:
    """A request built by hand (no fragments): the function takes the request's tool."""
    parameters = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    request = {
        "system": "",
        "messages": [{"role": "user", "content": "hi"}],
        "output": "json",
        "tools": [{"name": "answer", "description": "The answer.", "parameters": parameters}],
        "tool_choice": {"tool": "answer"},
        "fragments": {},
    }
    payload = pkg["_client"].gemini_payload(request)
    function = {"name": "answer", "description": "The answer.", "parametersJsonSchema": parameters}
    assert payload["tools"] == [{"functionDeclarations": [function]}]
    assert payload["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"] == ["answer"]
    assert "generationConfig" not in payload
    payload["tools"][0]["functionDeclarations"][0]["parametersJsonSchema"]["type"] = "changed"
    assert parameters["type"] == "object", "the request's tool was shared, not copied"


def test_schema_mode_is_unchanged(pkg: dict[str, ModuleType]) -> None:
    runtime, spec = pkg["_client"], spec_of(pkg, CASES[0])
    payload = runtime.gemini_payload(runtime.build_request(spec, CASES[0].arguments))
    assert payload["generationConfig"] == spec.fragments["gemini"]["request"]["generationConfig"]
    assert "tools" not in payload and "toolConfig" not in payload


def test_ollama_cannot_force_a_tool_and_sends_the_schema_form(
    pkg: dict[str, ModuleType],
) -> None:
    """Ollama's documented fallback: a forced tool is sent as the compiled `format`."""
    runtime, spec = pkg["_client"], spec_of(pkg, CASES[0])
    seen: list[Json] = []

    def llm(request: Json) -> str:
        seen.append(runtime.ollama_payload(request, "m"))
        return json.dumps(CASES[0].answer)

    step = pkg["sentiment"].classify(text="Great!", llm=llm, structured="tool")
    assert step.return_.sentiment == "positive"
    [payload] = seen
    assert payload["format"] == spec.fragments["ollama"]["request"]["format"]
    assert "tools" not in payload and "tool_choice" not in payload
    assert "cannot force a tool" in runtime.ollama_payload.__doc__
