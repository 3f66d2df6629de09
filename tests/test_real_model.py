"""The examples' json signatures against a real model: SmolLM2-135M-Instruct served by
llama-cpp-python's OpenAI-compatible server on 127.0.0.1 (`tests/real_model.py` starts it).

Each json-mode signature of `examples/` is called through the generated package, in its sync
and async forms, over three callbacks: `OpenAICompatible` in schema mode (the server rejects
`json_schema`, so the client falls back once to `json_object` with the schema, which the
server enforces with a grammar), `OpenAICompatible` with the prompt alone, and the official
OpenAI SDK through `openai_llm` with the form this server takes. What is asserted is the
client's behaviour, not the small model's luck: with the schema enforced, every call returns a
valid value; with the prompt alone, every call returns a valid value or raises
`JsonEnforcementError` holding every request sent. The tally of each mode is printed at the
end of the module.

Skipped, naming what is missing, without llama-cpp-python's server or the model's wheel;
failed instead when SIGSPEC_REAL_MODEL=required (`.ci/run`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

import real_model
from conftest import examples_package

# An input for every json-mode signature of examples/ (a test fails when one has none).
INPUTS: dict[str, dict[str, Any]] = {
    "classify": {"text": "The battery died after two days and support never answered."},
    "act_on_sentiment": {"sentiment": "negative", "score": 0.9},
    "agent_step": {"query": "Find why the nightly build fails on Python 3.10."},
    "extract_products": {
        "article": "The Acme Phone X costs $799 and the Acme Buds cost $129. Both ship in"
        " May; the Buds come in white and black."
    },
    "read_invoice": {
        "document": "Invoice INV-2024-001, issued 2024-03-05, due 2024-04-04.\n"
        "2 x Widget at 10.00 USD = 20.00 USD\nTotal: 20.00 USD"
    },
    "rank_results": {
        "query": "python async http client",
        "results": [
            {"title": "HTTPX documentation", "url": "https://www.python-httpx.org/"},
            {"title": "Cooking with cast iron", "url": "https://example.com/cast-iron"},
        ],
    },
}
MODULES = ["sentiment", "agent", "extraction", "research", "summary"]
# Schema mode: every signature in its sync form, and the async and stream forms of a flat and
# a nested output. The official SDK: those two (each call of a 135M model on 2 shared cores
# takes seconds: the whole module stays within a few minutes).
FEW = ["classify", "extract_products"]
CALLS = [(name, "sync") for name in sorted(INPUTS)] + [
    (name, form) for name in FEW for form in ("async", "stream", "astream")
]
FEW_CALLS = [(name, form) for name in FEW for form in ("sync", "async")]
# Prompt mode: the small model often needs every turn (minutes for a long output), so the
# flat output alone.
PROMPT_CALLS = [("classify", "sync"), ("classify", "async")]


@dataclass
class Tally:
    """Per mode: calls, valid answers, requests sent, seconds spent."""

    calls: dict[str, int] = field(default_factory=dict)
    valid: dict[str, int] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def add(self, mode: str, valid: bool, requests: int, seconds: float) -> None:
        for counts, value in (
            (self.calls, 1),
            (self.valid, int(valid)),
            (self.requests, requests),
        ):
            counts[mode] = counts.get(mode, 0) + value
        self.seconds[mode] = self.seconds.get(mode, 0.0) + seconds

    def lines(self) -> list[str]:
        return [
            f"real model, {mode}: {self.valid[mode]} valid of {calls} calls in"
            f" {self.requests[mode]} requests, {self.seconds[mode] / calls:.2f} s per call"
            for mode, calls in sorted(self.calls.items())
        ]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[real_model.Server]:
    """The server, started once for this module and stopped after it (or skipped)."""
    reason = real_model.missing()
    if reason:
        real_model.unavailable(reason)
    model = real_model.gguf()
    assert model is not None
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with real_model.serve(model, log) as running:
        yield running


@pytest.fixture(scope="module")
def pkg(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    with examples_package(examples_output) as modules:
        yield modules


@pytest.fixture(scope="module")
def tally(request: pytest.FixtureRequest) -> Iterator[Tally]:
    """The calls' outcomes per mode, printed when the module ends."""
    counts = Tally()
    yield counts
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        for line in counts.lines():
            print(line, file=sys.stderr)


def json_specs(pkg: dict[str, ModuleType]) -> dict[str, tuple[Any, ModuleType]]:
    """Every json-mode signature's `Spec` in the package, by name, with its client module."""
    spec_type = pkg["_client"].Spec
    found: dict[str, tuple[Any, ModuleType]] = {}
    for name in MODULES:
        module = pkg[name]
        for value in vars(module).values():
            if isinstance(value, spec_type) and value.mode == "json":
                found[value.name] = (value, module)
    return found


class Recorder:
    """A sync callback that keeps a copy of every request before passing it on."""

    def __init__(self, llm: Callable[[dict[str, Any]], Any]) -> None:
        self.llm = llm
        self.sent: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> Any:
        self.sent.append(json.loads(json.dumps(request)))
        return self.llm(request)


class AsyncRecorder:
    """An async callback that keeps a copy of every request before awaiting `llm`."""

    def __init__(self, llm: Callable[[dict[str, Any]], Awaitable[Any]]) -> None:
        self.llm = llm
        self.sent: list[dict[str, Any]] = []

    async def __call__(self, request: dict[str, Any]) -> Any:
        self.sent.append(json.loads(json.dumps(request)))
        return await self.llm(request)


def threaded(llm: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Awaitable[Any]]:
    """A sync callback as an async one (each call in a worker thread)."""

    async def allm(request: dict[str, Any]) -> Any:
        return await asyncio.to_thread(llm, request)

    return allm


# A form of calling: (spec, module, sync llm, async llm, inputs) -> (the step or the error,
# the requests sent). A streaming form is one more entry here.
Outcome = tuple[Any, list[dict[str, Any]]]


def call_sync(spec: Any, module: ModuleType, llm: Any, allm: Any, inputs: Any) -> Outcome:
    recorder = Recorder(llm)
    try:
        return getattr(module, spec.function)(**inputs, llm=recorder), recorder.sent
    except Exception as exc:
        return exc, recorder.sent


def call_async(spec: Any, module: ModuleType, llm: Any, allm: Any, inputs: Any) -> Outcome:
    recorder = AsyncRecorder(allm)
    function = getattr(module, spec.async_function)
    try:
        return asyncio.run(function(**inputs, llm=recorder)), recorder.sent
    except Exception as exc:
        return exc, recorder.sent


def call_stream(spec: Any, module: ModuleType, llm: Any, allm: Any, inputs: Any) -> Outcome:
    """`NAME_stream` over the callback's `.stream`: the step, once every partial of the
    answering turn agrees with the answer (each field it shows is the answer's, a list a
    prefix of the answer's list)."""
    recorder = Recorder(llm.stream)
    stream = getattr(module, f"{spec.function}_stream")(**inputs, llm=recorder)
    try:
        partials = [(stream.turn, dict(partial)) for partial in stream]
    except Exception as exc:
        return exc, recorder.sent
    step = stream.step
    final = step.return_.model_dump(mode="json", by_alias=True)
    answering = [p for turn, p in partials if turn == len(step.turns)]
    assert answering and answering[-1] == {k: final[k] for k in answering[-1]}
    for partial in answering:
        for key, value in partial.items():
            shown = final[key][: len(value)] if isinstance(value, list) else final[key]
            assert value == shown, (key, value, final[key])
    return step, recorder.sent


def call_astream(spec: Any, module: ModuleType, llm: Any, allm: Any, inputs: Any) -> Outcome:
    """`aNAME_stream` over an async callback streaming the same chunks."""

    async def chunks(request: dict[str, Any]) -> Any:
        for chunk in await asyncio.to_thread(lambda: list(llm.stream(request))):
            yield chunk

    recorder = AsyncStreamRecorder(chunks)
    stream = getattr(module, f"{spec.async_function}_stream")(**inputs, llm=recorder)

    async def drain() -> Any:
        async for _ in stream:
            pass
        return await stream.result()

    try:
        return asyncio.run(drain()), recorder.sent
    except Exception as exc:
        return exc, recorder.sent


class AsyncStreamRecorder:
    """An async streaming callback that keeps a copy of every request."""

    def __init__(self, llm: Callable[[dict[str, Any]], Any]) -> None:
        self.llm = llm
        self.sent: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> Any:
        self.sent.append(json.loads(json.dumps(request)))
        return self.llm(request)


FORMS = {"sync": call_sync, "async": call_async, "stream": call_stream, "astream": call_astream}


def assert_valid(spec: Any, pkg: dict[str, ModuleType], step: Any, sent: list[Any]) -> None:
    """A finished call: the typed value, valid against the output's JSON Schema, the last turn
    free of errors, one turn per request sent, within the turn budget."""
    models = importlib.import_module(f"signatures.models.{spec.module}")
    assert isinstance(step, pkg["_client"].Step), step
    assert isinstance(step.return_, getattr(models, spec.model))
    jsonschema.validate(step.return_.model_dump(mode="json"), spec.schema)
    assert step.turns[-1].errors == [] and step.fail is None
    assert [t.request for t in step.turns] == sent
    assert 1 <= len(step.turns) <= spec.max_turns


def assert_valid_or_failed(
    spec: Any, pkg: dict[str, ModuleType], outcome: Any, sent: list[Any]
) -> bool:
    """A valid step (True), or JsonEnforcementError holding every request sent (False)."""
    if not isinstance(outcome, pkg["_client"].JsonEnforcementError):
        assert_valid(spec, pkg, outcome, sent)
        return True
    step = outcome.step
    assert [t.request for t in step.turns] == sent
    assert step.fail is not None and step.turns[-1].errors
    assert len(step.turns) == spec.max_turns or step.fail.reason.startswith("refus")
    return False


def run(
    spec_name: str,
    form: str,
    pkg: dict[str, ModuleType],
    llm: Any,
    allm: Any,
) -> tuple[Any, Any, list[dict[str, Any]], float]:
    spec, module = json_specs(pkg)[spec_name]
    started = time.monotonic()
    outcome, sent = FORMS[form](spec, module, llm, allm, INPUTS[spec_name])
    return spec, outcome, sent, time.monotonic() - started


@pytest.fixture(scope="module")
def schema_llm(server: real_model.Server, pkg: dict[str, ModuleType]) -> Any:
    """One `OpenAICompatible` in "auto" mode for the module: it negotiates the form once."""
    return pkg["_transport"].OpenAICompatible(
        server.base_url, server.model, timeout=60, extra_body=real_model.SAMPLING
    )


@pytest.fixture(scope="module")
def prompt_llm(server: real_model.Server, pkg: dict[str, ModuleType]) -> Any:
    return pkg["_transport"].OpenAICompatible(
        server.base_url,
        server.model,
        timeout=60,
        response_format="prompt",
        extra_body=real_model.SAMPLING,
    )


def test_every_json_signature_of_the_examples_has_an_input(
    pkg: dict[str, ModuleType],
) -> None:
    assert sorted(json_specs(pkg)) == sorted(INPUTS)


def test_the_client_falls_back_once_to_the_form_this_server_takes(
    server: real_model.Server,
    pkg: dict[str, ModuleType],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """llama-cpp-python answers HTTP 500 to `json_schema`: the first call is sent again as
    `json_object` with the schema and says so (a turn's note, one warning); later calls of
    the same client go straight to that form."""
    llm = pkg["_transport"].OpenAICompatible(
        server.base_url, server.model, timeout=60, extra_body=real_model.SAMPLING
    )
    spec, module = json_specs(pkg)["classify"]
    with caplog.at_level(logging.WARNING, logger="sigspec.client"):
        first = module.classify(**INPUTS["classify"], llm=llm)
        second = module.classify(**INPUTS["classify"], llm=llm)
    notes = first.turns[0].reply.notes
    assert any("rejected response_format json_schema (HTTP 500)" in n for n in notes), notes
    assert any("json_object from now on" in n for n in notes), notes
    assert [t.reply.notes for t in second.turns] == [() for _ in second.turns]
    assert llm.form == "json_object"
    warnings = [r for r in caplog.records if r.name == "sigspec.client"]
    assert len(warnings) == 1 and "json_object" in warnings[0].getMessage()
    assert spec.name == "classify"


@pytest.mark.parametrize(("name", "form"), CALLS)
def test_schema_mode_gives_a_valid_value_on_every_call(
    name: str, form: str, pkg: dict[str, ModuleType], schema_llm: Any, tally: Tally
) -> None:
    spec, step, sent, seconds = run(name, form, pkg, schema_llm, threaded(schema_llm))
    tally.add(f"schema mode ({form})", _is_step(pkg, step), len(sent), seconds)
    assert_valid(spec, pkg, step, sent)
    assert schema_llm.form == "json_object"


@pytest.mark.parametrize(("name", "form"), PROMPT_CALLS)
def test_prompt_mode_gives_a_valid_value_or_every_turn(
    name: str, form: str, pkg: dict[str, ModuleType], prompt_llm: Any, tally: Tally
) -> None:
    spec, outcome, sent, seconds = run(name, form, pkg, prompt_llm, threaded(prompt_llm))
    valid = assert_valid_or_failed(spec, pkg, outcome, sent)
    tally.add(f"prompt mode ({form})", valid, len(sent), seconds)
    assert all("response_format" not in json.dumps(t.reply.notes) for t in _turns(outcome))


def _is_step(pkg: dict[str, ModuleType], outcome: Any) -> bool:
    return isinstance(outcome, pkg["_client"].Step)


def _turns(outcome: Any) -> tuple[Any, ...]:
    step = getattr(outcome, "step", outcome)
    return tuple(step.turns)


@pytest.mark.parametrize(("name", "form"), FEW_CALLS)
def test_the_official_sdk_gives_a_valid_value_on_every_call(
    name: str, form: str, server: real_model.Server, pkg: dict[str, ModuleType], tally: Tally
) -> None:
    """`openai_llm(OpenAI(base_url=...))`, with `response_format` pinned to the form this
    server takes (`json_object` with the signature's schema) and temperature 0."""
    openai = pytest.importorskip("openai")
    spec, _ = json_specs(pkg)[name]
    transport, adapters = pkg["_transport"], pkg["_adapters"]
    # The transport's own rewriting of the compiled json_schema fragment.
    shape = transport.in_form(spec.fragments["openai"]["request"], "json_object")
    options = {**real_model.SAMPLING, "response_format": shape["response_format"]}
    client = openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0)
    aclient = openai.AsyncOpenAI(base_url=server.base_url, api_key="none", max_retries=0)
    llm = adapters.openai_llm(client, server.model, **options)
    allm = adapters.aopenai_llm(aclient, server.model, **options)
    spec, step, sent, seconds = run(name, form, pkg, llm, allm)
    tally.add(f"official SDK ({form})", _is_step(pkg, step), len(sent), seconds)
    assert_valid(spec, pkg, step, sent)
