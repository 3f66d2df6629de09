"""The generated typed client (the examples' goldens), run with scripted model replies."""

from __future__ import annotations

import importlib
import inspect
import json
import re
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import ROOT, examples_package, write_python_package

GOOD = '{"sentiment": "positive", "score": 0.9}'


@pytest.fixture(scope="module")
def pkg(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    with examples_package(examples_output) as modules:
        yield modules


class Script:
    """An llm callback that answers from a list and records every request."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> Any:
        self.requests.append(json.loads(json.dumps(request)))
        return self.replies.pop(0)


def test_templates_render_as_the_prompt_files(pkg: dict[str, ModuleType]) -> None:
    """A client module stores each prompt as a plain text constant, without the prompt
    files' header comment: each template still renders exactly as the prompts target's file."""
    from sigspec.runtime.mustache import render

    values = {"text": "a <b> {{c}}", "errors": [{"path": "p", "message": "m"}], "reply": "r"}
    checked = 0
    for name in ["sentiment", "summary", "research", "agent", "extraction"]:
        for spec in (v for k, v in vars(pkg[name]).items() if k.endswith("_SPEC")):
            folder = ROOT / "tests" / "golden" / "examples" / "prompts" / spec.name
            for role in ("system", "user", "retry"):
                path = folder / f"{role}.mustache"
                stored = getattr(spec, role)
                assert (stored is None) == (not path.is_file()), (spec.name, role)
                if stored is None:
                    continue
                text = path.read_text(encoding="utf-8")
                assert text.endswith(stored) and text.startswith("{{! Code generated")
                assert render(stored, values) == render(text, values)
                checked += 1
    assert checked >= 20
    client = pkg["sentiment"].__file__
    assert client is not None and 'CLASSIFY_USER = """\\\n' in Path(client).read_text()


def test_retry_with_feedback_then_success(pkg: dict[str, ModuleType]) -> None:
    llm = Script(
        {"content": '{"sentiment": "happy", "score": 2}', "tokens": {"input": 7, "output": 3}},
        {"content": f"```json\n{GOOD}\n```", "tokens": {"input": 9, "output": 4}},
    )
    step = pkg["sentiment"].classify(text="I love it", llm=llm)
    assert isinstance(step.return_, pkg["models"].ClassifyOutput)
    assert step.return_.sentiment == "positive" and step.return_.score == 0.9
    assert step.usage == {"input": 16, "output": 7}
    assert step.fail is None
    assert [t.errors for t in step.turns][1] == []
    assert [p for p, _ in step.turns[0].errors] == ["sentiment", "score"]

    first, second = llm.requests
    assert first["output"] == "json" and first["schema"]["required"] == ["sentiment", "score"]
    assert first["system"].startswith("Answer with JSON only")
    assert first["messages"] == [{"role": "user", "content": first["messages"][0]["content"]}]
    assert "I love it" in first["messages"][0]["content"]
    assert "{{" not in first["messages"][0]["content"]
    # The retry: the bad reply as assistant turn, then feedback holding it as data.
    assert second["messages"][1] == {"role": "assistant", "content": llm_reply(step, 0)}
    feedback = second["messages"][2]["content"]
    assert "<reply_data>" in feedback and "- score: 2 is greater than the maximum 1" in feedback


def llm_reply(step: Any, turn: int) -> str:
    return str(step.turns[turn].reply.content)


def test_fails_with_json_enforcement_error_after_max_turns(pkg: dict[str, ModuleType]) -> None:
    llm = Script(*["I cannot answer that."] * 3)
    with pytest.raises(pkg["sentiment"].JsonEnforcementError) as caught:
        pkg["sentiment"].classify(text="meh", llm=llm)
    error = caught.value
    assert len(llm.requests) == 3  # @max_turns(3)
    assert len(error.step.turns) == 3 and error.step.fail is not None
    assert error.step.return_ is None
    assert error.errors and "classify" in str(error) and "3 turns" in str(error)
    # The caller's own budget wins over the signature's.
    with pytest.raises(pkg["sentiment"].JsonEnforcementError):
        pkg["sentiment"].classify(text="meh", llm=Script("no", "no"), max_turns=2)


def test_arguments_are_validated_before_any_call(pkg: dict[str, ModuleType]) -> None:
    llm = Script(GOOD)
    with pytest.raises(ValueError, match="text"):
        pkg["sentiment"].classify(text="", llm=llm)  # @min_length(1)
    assert llm.requests == []


def test_a_bad_callback_return_is_a_clear_error(pkg: dict[str, ModuleType]) -> None:
    with pytest.raises(TypeError, match="llm callback returned int"):
        pkg["sentiment"].classify(text="x", llm=Script(42))


def test_text_mode_returns_raw_text_without_retries(pkg: dict[str, ModuleType]) -> None:
    llm = Script({"content": "not json at all", "tokens": {"input": 1, "output": 2}})
    step = pkg["summary"].summarize(document="Doc body", focus=["cost", "risk"], llm=llm)
    assert step.return_ == "not json at all"
    assert len(llm.requests) == 1 and step.usage == {"input": 1, "output": 2}
    request = llm.requests[0]
    assert request["output"] == "text" and request["schema"] is None
    assert request["system"].startswith("You write clear, faithful summaries.")
    user = request["messages"][0]["content"]
    assert "a general reader" in user and "150 words" in user
    assert "Focus on: cost" in user and "Focus on: risk" in user and "Doc body" in user


def test_tool_mode_reads_the_respond_tool_arguments(pkg: dict[str, ModuleType]) -> None:
    call = {"id": "1", "name": "respond", "arguments": {"sentiment": "negative", "score": 0.1}}
    llm = Script({"content": None, "tool_calls": [call]})
    step = pkg["sentiment"].classify(text="bad", llm=llm, structured="tool")
    assert step.return_.sentiment == "negative"
    request = llm.requests[0]
    assert request["tool_choice"] == {"tool": "respond"}
    [tool] = request["tools"]
    assert tool["name"] == "respond" and tool["parameters"] == request["schema"]


def test_pipeline_feeds_each_return_into_the_next_step(pkg: dict[str, ModuleType]) -> None:
    llm = Script(
        {"content": GOOD, "tokens": {"input": 5}},
        {"content": '{"action": "thank"}', "tokens": {"input": 6}},
    )
    step = pkg["sentiment"].triage(text="Great", llm=llm)
    assert step.return_.action == "thank" and step.return_.priority == 3
    assert len(step.turns) == 2 and step.usage == {"input": 11}
    second = llm.requests[1]["messages"][0]["content"]
    assert "classified as positive (confidence 0.9)" in second
    # Field descriptions travel with the step.
    assert "- sentiment: One of: positive, negative, neutral" in second


def test_ptc_lisp_gets_request_building_and_output_validation(pkg: dict[str, ModuleType]) -> None:
    research = pkg["research"]
    request = research.build_research_request(topic="tides")
    assert request["output"] == "ptc_lisp" and request["schema"] is None
    assert "tides" in request["messages"][0]["content"]
    source = {"title": "T", "url": "https://example.com/a"}
    typed = research.validate_research_output({"summary": "s", "sources": [source]})
    assert typed.summary == "s" and str(typed.sources[0].url) == "https://example.com/a"
    with pytest.raises(ValueError, match="summary"):
        research.validate_research_output({"sources": []})


# -- provider round trips ----------------------------------------------------------------------

PROVIDER_REPLIES: dict[str, Any] = {
    "openai": {
        "choices": [{"message": {"content": GOOD}}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 4},
    },
    "anthropic": {
        "content": [{"type": "text", "text": GOOD}],
        "usage": {"input_tokens": 11, "output_tokens": 4},
    },
    "gemini": {
        "candidates": [{"content": {"parts": [{"text": GOOD}]}}],
        "usageMetadata": {"promptTokenCount": 11, "candidatesTokenCount": 4},
    },
    "ollama": {"message": {"content": GOOD}, "prompt_eval_count": 11, "eval_count": 4},
}


def _with_runtime() -> list[str]:
    """The providers the registry says the runtime builds requests for and reads replies of."""
    from sigspec.lower.providers import NAMES, provider

    return [name for name in NAMES if provider(name).payload and provider(name).reader]


def test_every_provider_with_a_runtime_reader_has_a_reply_here() -> None:
    """A provider added with runtime support is round-tripped below (give it a reply)."""
    assert sorted(PROVIDER_REPLIES) == sorted(_with_runtime())


@pytest.mark.parametrize("provider", _with_runtime())
def test_provider_payload_and_reply_round_trip(pkg: dict[str, ModuleType], provider: str) -> None:
    """Through the payload builder and reply reader the provider's module names."""
    from sigspec.lower.providers import provider as registered

    client = pkg["_client"]
    entry = registered(provider)
    assert entry.payload is not None and entry.reader is not None
    sent: list[dict[str, Any]] = []

    def llm(request: dict[str, Any]) -> Any:
        build = getattr(client, entry.payload)
        takes_model = "model" in inspect.signature(build).parameters
        payload = build(request, "model-x") if takes_model else build(request)
        sent.append(json.loads(json.dumps(payload)))
        return getattr(client, entry.reader)(PROVIDER_REPLIES[provider])

    step = pkg["sentiment"].classify(text="fine", llm=llm)
    assert step.return_.score == 0.9 and step.usage == {"input": 11, "output": 4}
    [payload] = sent
    schema_holder = {
        "openai": lambda p: p["response_format"]["json_schema"]["schema"],
        "anthropic": lambda p: p["output_config"]["format"]["schema"],
        "gemini": lambda p: p["generationConfig"]["responseJsonSchema"],
        "ollama": lambda p: p["format"],
    }[provider]
    assert schema_holder(payload)["required"] == ["sentiment", "score"]
    text = json.dumps(payload)
    assert "fine" in text and "Answer with JSON only" in text
    if provider in ("openai", "ollama"):
        assert payload["stream"] is False and payload["messages"][0]["role"] == "system"


@pytest.mark.parametrize(
    ("provider", "reply"),
    [
        (
            "openai",
            {
                "choices": [
                    {
                        "message": {
                            "content": None,
                            "tool_calls": [
                                {
                                    "id": "c1",
                                    "function": {
                                        "name": "respond",
                                        "arguments": '{"sentiment": "neutral", "score": 0.5}',
                                    },
                                }
                            ],
                        }
                    }
                ]
            },
        ),
        (
            "anthropic",
            {
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "respond",
                        "input": {"sentiment": "neutral", "score": 0.5},
                    }
                ]
            },
        ),
    ],
)
def test_forced_tool_round_trip(
    pkg: dict[str, ModuleType], provider: str, reply: dict[str, Any]
) -> None:
    client = pkg["_client"]
    sent: list[dict[str, Any]] = []

    def llm(request: dict[str, Any]) -> Any:
        payload = getattr(client, f"{provider}_payload")(request, "model-x")
        sent.append(payload)
        return getattr(client, f"read_{provider}")(reply)

    step = pkg["sentiment"].classify(text="ok", llm=llm, structured="tool")
    assert step.return_.sentiment == "neutral"
    [payload] = sent
    [tool] = payload["tools"]
    name = tool["function"]["name"] if provider == "openai" else tool["name"]
    assert name == "respond" and tool.get("function", tool)["strict"] is True
    choice = payload["tool_choice"]
    assert choice.get("function", choice)["name"] == "respond"
    # The compiled fragment itself is shared and must not have been renamed.
    compiled = pkg["sentiment"].CLASSIFY_SPEC.fragments[provider]["tool_request"]
    assert compiled["tools"][0].get("function", compiled["tools"][0])["name"] == "classify"


# -- the OpenAI-compatible HTTP callback -------------------------------------------------------


class ScriptedServer:
    """A Chat Completions endpoint on 127.0.0.1 answering from a list."""

    def __init__(self, *answers: tuple[int, Any, float]) -> None:
        self.answers = list(answers)
        self.seen: list[tuple[dict[str, str], dict[str, Any]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.seen.append((dict(self.headers), json.loads(body)))
                status, answer, delay = outer.answers.pop(0)
                time.sleep(delay)
                data = answer.encode() if isinstance(answer, str) else json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # The timeout test hangs up before the answer: a broken pipe there is expected.
        self.server.handle_error = lambda *args: None  # type: ignore[method-assign]
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def completion(content: str, tokens: int = 3) -> dict[str, Any]:
    return {
        "choices": [{"message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": tokens, "completion_tokens": tokens},
    }


def test_http_callback_errors_are_clear(pkg: dict[str, ModuleType]) -> None:
    client = pkg["_transport"]
    server = ScriptedServer((500, {"error": "overloaded"}, 0), (200, "not json", 0), (200, {}, 2))
    try:
        # Retries off: each answer is the call's last (tests/test_transport.py has retries).
        llm = client.OpenAICompatible(server.url, "m", timeout=0.5, retry=client.Retry(attempts=1))
        with pytest.raises(client.LlmHttpError, match=r"HTTP 500: .*overloaded"):
            pkg["sentiment"].classify(text="x", llm=llm)
        with pytest.raises(client.LlmHttpError, match="not JSON"):
            pkg["sentiment"].classify(text="x", llm=llm)
        with pytest.raises(client.LlmHttpError, match="timed out"):
            pkg["sentiment"].classify(text="x", llm=llm)
    finally:
        server.close()


def test_api_keys_stay_out_of_errors_and_reprs(pkg: dict[str, ModuleType]) -> None:
    """A server that echoes the request in its error, a debugger's or a log's repr, a key in
    a URL an error names: the key never shows."""
    client = pkg["_transport"]
    key, token = "sk-test-0123456789abcdef", "tok-abcdefghijklmnop"
    echo = {"error": f"bad key Bearer {key}, header {token}"}
    server = ScriptedServer((401, echo, 0))
    try:
        llm = client.OpenAICompatible(
            server.url, "m", api_key=key, timeout=5, headers={"X-Token": token}
        )
        with pytest.raises(client.LlmHttpError) as caught:
            pkg["sentiment"].classify(text="x", llm=llm)
    finally:
        server.close()
    assert server.seen[0][0]["Authorization"] == f"Bearer {key}"  # the key was sent
    message = str(caught.value)
    assert "HTTP 401" in message and "[redacted]" in message
    assert key not in message and token not in message
    assert key not in repr(llm) and token not in repr(llm)
    shown = client._public_url(f"https://me:{key}@api.example.com:8443/v1?key={key}")
    assert shown == "https://api.example.com:8443/v1"


def test_importing_a_client_loads_no_models_validators_or_http(examples_output: Path) -> None:
    """What keeps importing 1,000 clients cheap: the rest loads on a function's first call."""
    import subprocess

    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from signatures.client import sentiment\n"
        "heavy = ('signatures.models.sentiment', 'signatures.sentiment', 'pydantic',"
        " 'urllib.request')\n"
        "print([m for m in heavy if m in sys.modules])\n"
        'sentiment.classify(text=\'ok\', llm=lambda r: \'{"sentiment": "neutral", "score": 1}\')\n'
        "print([m for m in heavy[:3] if m in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-B", "-c", code, str(examples_output / "python")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    before, after = result.stdout.splitlines()
    assert before == "[]"
    assert after == "['signatures.models.sentiment', 'signatures.sentiment', 'pydantic']"


SCALARS = 'signature pick(text :string) -> "a" | "b"\nsignature count(text :string) -> :int\n'


@pytest.fixture
def scalars(tmp_path: Any) -> Iterator[ModuleType]:
    """A package whose outputs are no map: OpenAI's and Anthropic's fragments wrap them."""
    folder, _ = write_python_package(tmp_path, SCALARS, "scal")
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("scal.client.p")
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == "scal" or m.startswith("scal.")]:
            del sys.modules[name]


def test_a_wrapped_root_is_unwrapped(scalars: ModuleType) -> None:
    """Through the OpenAI helper a model must answer `{"result": ...}` for an output that is
    no map (strict structured outputs want an object root): the client reads the answer."""
    client = importlib.import_module("scal._client")  # the generated package's own
    sent: list[dict[str, Any]] = []

    def openai(content: str) -> Any:
        def llm(request: dict[str, Any]) -> Any:
            sent.append(client.openai_payload(request, "model-x"))
            return client.read_openai({"choices": [{"message": {"content": content}}]})

        return llm

    step = scalars.count(text="x", llm=openai('{"result": 3}'))
    assert step.return_.root == 3 and len(step.turns) == 1
    assert step.turns[0].repairs == [
        ("root", """unwrapped the answer from the provider's {"result": ...}""")
    ]
    schema = sent[0]["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["result"]
    assert scalars.pick(text="x", llm=openai('{"result": "b"}')).return_.root == "b"
    with pytest.raises(client.JsonEnforcementError):  # another key, or an invalid answer inside
        scalars.count(text="x", llm=openai('{"answer": 3}'), max_turns=1)
    with pytest.raises(client.JsonEnforcementError):
        scalars.pick(text="x", llm=openai('{"result": "c"}'), max_turns=1)


def test_every_spec_holds_its_compiled_schema_and_fragments(tmp_path: Any) -> None:
    """A client module writes each named type's schema once and each provider's form of a
    signature's schema once, and refers to them by name; every spec still holds exactly what
    the jsonschema and providers targets compile. Thirty random outputs, some repeated and
    some described."""
    from sigspec.lower.views import Lowered
    from unit.test_generated import random_spec

    text = random_spec(17, 24)
    for i in range(0, 24, 3):  # a description; and an output another signature also has
        text = text.replace(f"signature r{i}()", f'## Does r{i}, "quoted".\nsignature r{i}()')
    text += "signature again() -> {n :int}\nsignature more() -> {n :int}\n"
    text += "## A tool.\ntool look(q :string, n :int = 3) -> {hits [:string]}\n"
    folder, project = write_python_package(tmp_path, text, "framed")
    sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module("framed.client.p")
        lowered = Lowered(project)
        for sig in project.signatures:
            spec = getattr(module, f"{sig.name.upper()}_SPEC")
            if sig.mode != "json":
                continue
            assert spec.schema == json.loads(json.dumps(lowered.output_schema(sig)))
            assert spec.fragments == json.loads(json.dumps(lowered.runtime_fragments(sig)))
        source = Path(str(module.__file__)).read_text(encoding="utf-8")
        # Each fragment names its schema constant rather than repeating the schema.
        for sig in (s for s in project.signatures if s.mode == "json"):
            stem = sig.name.upper()
            assert re.search(rf'"parameters": {stem}_SCHEMA(_OPENAI)?,', source), stem
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == "framed" or m.startswith("framed.")]:
            del sys.modules[name]


def test_a_client_runs_on_compact_validators(tmp_path: Any) -> None:
    """With `validators = "compact"` the client's arguments, retries and answers go through the
    runtime's validator: the same flow, the same errors."""
    text = (
        '@prompt("Rate {{text}}")\n'
        "signature rate(text :string @min_length(1)) -> "
        '{label "good" | "bad", score :float @min(0) @max(1)}\n'
    )
    folder, _ = write_python_package(tmp_path, text, "compactpkg", "compact")
    sys.path.insert(0, str(folder))
    try:
        client = importlib.import_module("compactpkg.client.p")
        validators = importlib.import_module("compactpkg.p")
        assert not hasattr(validators, "_MISS")  # no generated checks
        script = Script(
            '{"label": "Good", "score": 2}', '```json\n{"label": "Good", "score": 1}\n```'
        )
        step = client.rate(text="x", llm=script)
        assert step.return_.label == "good" and len(step.turns) == 2
        assert step.turns[0].errors == [("score", "2 is greater than the maximum 1")]
        assert step.turns[1].repairs == [("label", 'matched "Good" to enum value "good"')]
        with pytest.raises(validators.ValidationError) as raised:
            client.rate(text="", llm=script)
        assert raised.value.errors == [("text", "shorter than 1 character")]
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == "compactpkg" or m.startswith("compactpkg.")]:
            del sys.modules[name]
