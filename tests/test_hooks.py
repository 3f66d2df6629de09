"""What a call reports and what it may spend: the per-turn hook, the log records, the
OpenTelemetry span (with a real SDK tracer and an in-memory exporter), the token and cost
budget, and the generated functions' `limits`; each through the sync and the async forms of
the examples' generated functions."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from conftest import examples_package
from test_async_client import GOOD, Call, Script, _async, _sync

BAD = '{"sentiment": "happy", "score": 2}'


@pytest.fixture(scope="module")
def pkg(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    with examples_package(examples_output) as modules:
        yield modules


@pytest.fixture(params=["sync", "async"])
def call(request: pytest.FixtureRequest) -> Call:
    return {"sync": _sync, "async": _async}[request.param]


def reply(content: str, given: int, taken: int) -> dict[str, Any]:
    return {"content": content, "tokens": {"input": given, "output": taken}}


def test_the_hook_sees_every_turn(pkg: dict[str, ModuleType], call: Call) -> None:
    events: list[Any] = []
    hooks = pkg["_client"].Hooks(on_turn=events.append)
    script = Script(reply(BAD, 10, 5), reply(f"```json\n{GOOD}\n```", 12, 6))
    step = call(pkg["sentiment"].classify, script, text="I love it", hooks=hooks)
    assert [e.number for e in events] == [1, 2]
    assert [e.valid for e in events] == [False, True]
    assert [e.signature for e in events] == ["classify", "classify"]
    assert [p for p, _ in events[0].turn.errors] == ["sentiment", "score"]
    assert events[1].turn.repairs == step.turns[1].repairs
    assert events[0].turn.request == script.requests[0]
    assert events[0].usage == {"input": 10, "output": 5}
    assert events[1].usage == step.usage == {"input": 22, "output": 11}
    assert all(e.seconds >= 0 for e in events)


def test_the_hook_times_the_callback(pkg: dict[str, ModuleType]) -> None:
    events: list[Any] = []

    async def slow(request: dict[str, Any]) -> str:
        await asyncio.sleep(0.05)
        return GOOD

    hooks = pkg["_client"].Hooks(on_turn=events.append)
    asyncio.run(pkg["sentiment"].aclassify(text="x", llm=slow, hooks=hooks))
    assert events[0].seconds >= 0.05


def test_what_the_hook_raises_ends_the_call(pkg: dict[str, ModuleType], call: Call) -> None:
    def refuse(event: Any) -> None:
        raise RuntimeError("stop here")

    hooks = pkg["_client"].Hooks(on_turn=refuse)
    script = Script(BAD, GOOD)
    with pytest.raises(RuntimeError, match="stop here"):
        call(pkg["sentiment"].classify, script, text="x", hooks=hooks)
    assert len(script.requests) == 1


def test_text_signatures_and_pipelines_report_too(pkg: dict[str, ModuleType], call: Call) -> None:
    events: list[Any] = []
    hooks = pkg["_client"].Hooks(on_turn=events.append)
    call(pkg["summary"].summarize, Script("A summary."), document="Long text.", hooks=hooks)
    assert [(e.signature, e.valid) for e in events] == [("summarize", True)]
    events.clear()
    action = '{"action": "thank", "priority": 2, "note": null}'
    call(pkg["sentiment"].triage, Script(GOOD, action), text="I love it", hooks=hooks)
    assert [e.signature for e in events] == ["classify", "act_on_sentiment"]


def test_turns_are_logged(
    pkg: dict[str, ModuleType], call: Call, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="sigspec.client")
    call(pkg["sentiment"].classify, Script(reply(BAD, 3, 4), GOOD), text="secret review")
    records = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert records[0][0] == "INFO" and records[0][1].startswith("classify turn 1: no valid")
    assert "(2 errors, first sentiment: expected one of" in records[0][1]
    assert "7 tokens" in records[0][1]
    assert records[1][0] == "DEBUG" and records[1][1].startswith("classify turn 2: answered")
    assert not any("secret review" in message for _, message in records)  # no prompt text


@pytest.fixture
def tracing() -> tuple[Any, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter


def test_a_span_per_call_with_the_turns_and_usage(
    pkg: dict[str, ModuleType], call: Call, tracing: tuple[Any, InMemorySpanExporter]
) -> None:
    tracer, exporter = tracing
    hooks = pkg["_client"].Hooks(tracer=tracer)
    script = Script(reply(BAD, 10, 5), reply(GOOD, 12, 6))
    call(pkg["sentiment"].classify, script, text="x", hooks=hooks)
    (span,) = exporter.get_finished_spans()
    assert span.name == "sigspec classify"
    assert span.attributes is not None
    assert span.attributes["sigspec.signature"] == "classify"
    assert span.attributes["sigspec.turns"] == 2
    assert span.attributes["gen_ai.usage.input_tokens"] == 22
    assert span.attributes["gen_ai.usage.output_tokens"] == 11
    turns = [e.attributes for e in span.events if e.name == "sigspec.turn"]
    assert [t["sigspec.turn.valid"] for t in turns if t is not None] == [False, True]
    assert span.status.status_code is StatusCode.UNSET


def test_a_failed_call_marks_its_span(
    pkg: dict[str, ModuleType], call: Call, tracing: tuple[Any, InMemorySpanExporter]
) -> None:
    tracer, exporter = tracing
    hooks = pkg["_client"].Hooks(tracer=tracer)
    with pytest.raises(pkg["sentiment"].JsonEnforcementError):
        call(pkg["sentiment"].classify, Script(BAD, BAD), text="x", hooks=hooks, max_turns=2)
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR
    assert "no valid answer after 2 turns" in (span.status.description or "")
    assert span.attributes is not None and span.attributes["sigspec.turns"] == 2
    assert [e.name for e in span.events][-1] == "exception"


def test_the_callbacks_spans_are_children_of_the_call(
    pkg: dict[str, ModuleType], tracing: tuple[Any, InMemorySpanExporter]
) -> None:
    """An SDK's HTTP span (here the callback's own) nests under the call's span, in the sync
    form and in concurrent async calls alike."""
    tracer, exporter = tracing
    hooks = pkg["_client"].Hooks(tracer=tracer)

    def llm(request: dict[str, Any]) -> str:
        with tracer.start_as_current_span("http"):
            return GOOD

    async def allm(request: dict[str, Any]) -> str:
        with tracer.start_as_current_span("http"):
            await asyncio.sleep(0.01)
            return GOOD

    pkg["sentiment"].classify(text="x", llm=llm, hooks=hooks)

    async def both() -> None:
        classify = pkg["sentiment"].aclassify
        await asyncio.gather(*(classify(text="x", llm=allm, hooks=hooks) for _ in range(2)))

    asyncio.run(both())
    spans = exporter.get_finished_spans()
    calls = {s.context.span_id: s for s in spans if s.name == "sigspec classify"}
    children = [s for s in spans if s.name == "http"]
    assert len(calls) == 3 and len(children) == 3
    assert {c.parent.span_id for c in children if c.parent} == set(calls)


def test_a_token_budget_stops_the_retries(pkg: dict[str, ModuleType], call: Call) -> None:
    client = pkg["_client"]
    script = Script(*[reply(BAD, 400, 200)] * 5)
    with pytest.raises(client.JsonEnforcementError) as caught:
        call(
            pkg["sentiment"].classify,
            script,
            text="x",
            max_turns=5,
            budget=client.Budget(tokens=1000),
        )
    assert len(script.requests) == 2  # 600 tokens left a second turn; 1,200 none
    fail = caught.value.step.fail
    assert fail.reason == "token budget spent (1,200 of 1,000 tokens)"
    assert "token budget spent" in str(caught.value) and "2 turns" in str(caught.value)


def test_an_answer_over_the_budget_is_kept(pkg: dict[str, ModuleType], call: Call) -> None:
    client = pkg["_client"]
    script = Script(reply(GOOD, 5000, 900))
    step = call(pkg["sentiment"].classify, script, text="x", budget=client.Budget(tokens=10))
    assert step.return_.sentiment == "positive" and step.usage["input"] == 5000


def test_a_cost_budget(pkg: dict[str, ModuleType], call: Call) -> None:
    client = pkg["_client"]
    budget = client.Budget(cost=0.01, prices={"input": 2e-06, "output": 8e-06})
    script = Script(*[reply(BAD, 1000, 500)] * 4)  # 0.006 a turn
    with pytest.raises(client.JsonEnforcementError) as caught:
        call(pkg["sentiment"].classify, script, text="x", max_turns=4, budget=budget)
    assert len(script.requests) == 2
    assert caught.value.step.fail.reason == "cost budget spent (0.012 of 0.01)"


def test_a_pipeline_shares_its_budget(pkg: dict[str, ModuleType], call: Call) -> None:
    """The second step gets what the first left: its first turn runs, no retry follows."""
    client = pkg["_client"]
    script = Script(reply(GOOD, 600, 300), reply('{"action": "shout"}', 50, 60), GOOD)
    with pytest.raises(client.JsonEnforcementError) as caught:
        call(pkg["sentiment"].triage, script, text="x", budget=client.Budget(tokens=1000))
    assert len(script.requests) == 2
    assert caught.value.signature == "act_on_sentiment"
    assert caught.value.step.fail.reason == "token budget spent (110 of 100 tokens)"


def test_a_step_whose_budget_is_spent_sends_nothing(pkg: dict[str, ModuleType], call: Call) -> None:
    client = pkg["_client"]
    script = Script(reply(GOOD, 900, 300), GOOD)
    with pytest.raises(client.JsonEnforcementError) as caught:
        call(pkg["sentiment"].triage, script, text="x", budget=client.Budget(tokens=1000))
    assert len(script.requests) == 1  # classify spent it all: act_on_sentiment sent nothing
    assert caught.value.signature == "act_on_sentiment" and caught.value.step.turns == ()
    assert caught.value.step.fail.reason == "token budget spent (0 of 0 tokens)"


def test_budgets_are_checked(pkg: dict[str, ModuleType]) -> None:
    budget = pkg["_client"].Budget
    with pytest.raises(ValueError, match="tokens must not be negative"):
        budget(tokens=-1)
    with pytest.raises(ValueError, match="needs `prices`"):
        budget(cost=1.0)
    with pytest.raises(ValueError, match="must not be negative"):
        budget(cost=1.0, prices={"input": -1.0})
    assert budget(tokens=100).after({"input": 30, "output": 20}).tokens == 50
    assert budget(tokens=100).after({"input": 300}).tokens == 0


def test_the_functions_take_reply_limits(pkg: dict[str, ModuleType], call: Call) -> None:
    limits = pkg["_runtime"].Limits(reply_chars=20)
    padded = GOOD + " " * 40
    with pytest.raises(pkg["sentiment"].JsonEnforcementError) as caught:
        call(pkg["sentiment"].classify, Script(padded), text="x", max_turns=1, limits=limits)
    assert "20 characters" in str(caught.value)
    step = call(pkg["sentiment"].classify, Script(padded), text="x")
    assert step.return_.sentiment == "positive"


def test_the_stream_forms_report_and_spend_alike(pkg: dict[str, ModuleType]) -> None:
    """`classify_stream` runs the same loop: the hook sees its turns, the budget stops it."""
    client, sentiment = pkg["_client"], pkg["sentiment"]
    events: list[Any] = []
    bad = [BAD[:9], BAD[9:], {"tokens": {"input": 700, "output": 400}}]

    def llm(request: dict[str, Any]) -> Iterator[Any]:
        yield from bad

    stream = sentiment.classify_stream(
        text="x",
        llm=llm,
        max_turns=3,
        hooks=client.Hooks(on_turn=events.append),
        budget=client.Budget(tokens=1000),
    )
    with pytest.raises(client.JsonEnforcementError) as caught:
        list(stream)
    assert [e.number for e in events] == [1]
    assert caught.value.step.fail.reason == "token budget spent (1,100 of 1,000 tokens)"


def test_a_streams_span_stays_out_of_the_callers_loop(
    pkg: dict[str, ModuleType], tracing: tuple[Any, InMemorySpanExporter]
) -> None:
    """The call's span is current for the streaming callback, never in the caller's loop
    between partials; two streams read in turn leave no span current after them (the span
    made current inside a generator leaked to its caller, and reading two streams in turn
    left a finished span current for good)."""
    from opentelemetry import trace

    tracer, exporter = tracing
    hooks = pkg["_client"].Hooks(tracer=tracer)
    seen: list[str] = []

    def current() -> str:
        return str(getattr(trace.get_current_span(), "name", None))

    def llm(request: dict[str, Any]) -> Iterator[str]:
        seen.append(current())
        yield '{"sentiment": "positive", '
        seen.append(current())
        yield '"score": 0.9}'

    async def allm(request: dict[str, Any]) -> Any:
        for piece in llm(request):
            await asyncio.sleep(0)
            yield piece

    sentiment = pkg["sentiment"]
    first = sentiment.classify_stream(text="x", llm=llm, hooks=hooks)
    second = sentiment.classify_stream(text="y", llm=llm, hooks=hooks)
    next(first), next(second)
    assert current() == "None"
    first.result(), second.result()
    assert current() == "None"

    async def both() -> None:
        one = sentiment.aclassify_stream(text="x", llm=allm, hooks=hooks)
        two = sentiment.aclassify_stream(text="y", llm=allm, hooks=hooks)
        await one.__anext__(), await two.__anext__()
        assert current() == "None"
        await one.result(), await two.result()
        assert current() == "None"
        left = sentiment.aclassify_stream(text="z", llm=allm, hooks=hooks)
        await left.__anext__()
        await left.aclose()

    asyncio.run(both())
    assert current() == "None"
    assert seen and set(seen) == {"sigspec classify"}
    assert len([s for s in exporter.get_finished_spans() if s.name == "sigspec classify"]) == 5
