"""The generated client's async forms (`aclassify` beside `classify`), run over the same
scenarios as the sync forms: each test takes `form`, the sync or the async way of calling a
function with a scripted model, and both must give the same steps, turns and errors."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conftest import examples_package, write_python_package

GOOD = '{"sentiment": "positive", "score": 0.9}'


@pytest.fixture(scope="module")
def pkg(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    with examples_package(examples_output) as modules:
        yield modules


class Script:
    """A model answering from a list (an exception in it is raised), every request kept."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> Any:
        self.requests.append(json.loads(json.dumps(request)))
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


Call = Callable[..., Any]  # call(function, script, **kwargs) -> the step


def _sync(function: Callable[..., Any], script: Script, **kwargs: Any) -> Any:
    return function(**kwargs, llm=script)


def _async(function: Callable[..., Any], script: Script, **kwargs: Any) -> Any:
    """The function's async form (`a` + its name), awaited with an async callback that
    yields to the event loop before it answers."""
    module = sys.modules[function.__module__]
    asynchronous = getattr(module, f"a{function.__name__}")
    assert asyncio.iscoroutinefunction(asynchronous)

    async def llm(request: dict[str, Any]) -> Any:
        await asyncio.sleep(0)
        return script(request)

    return asyncio.run(asynchronous(**kwargs, llm=llm))


@pytest.fixture(params=["sync", "async"])
def call(request: pytest.FixtureRequest) -> Call:
    return {"sync": _sync, "async": _async}[request.param]


def test_success(pkg: dict[str, ModuleType], call: Call) -> None:
    script = Script({"content": f"```json\n{GOOD}\n```", "tokens": {"input": 9, "output": 4}})
    step = call(pkg["sentiment"].classify, script, text="I love it")
    assert step.return_.sentiment == "positive" and step.return_.score == 0.9
    assert step.usage == {"input": 9, "output": 4} and step.fail is None
    assert len(step.turns) == 1 and "I love it" in script.requests[0]["messages"][0]["content"]
    assert step.field_descriptions["score"] == "Confidence between 0.0 and 1.0"


def test_retry_turns_carry_the_feedback(pkg: dict[str, ModuleType], call: Call) -> None:
    script = Script(
        {"content": '{"sentiment": "happy", "score": 2}', "tokens": {"input": 7}},
        {"content": GOOD, "tokens": {"input": 9}},
    )
    step = call(pkg["sentiment"].classify, script, text="I love it")
    assert step.return_.sentiment == "positive" and step.usage == {"input": 16}
    assert [p for p, _ in step.turns[0].errors] == ["sentiment", "score"]
    assert step.turns[1].errors == []
    retry = script.requests[1]["messages"]
    assert retry[1] == {"role": "assistant", "content": '{"sentiment": "happy", "score": 2}'}
    assert "- score: 2 is greater than the maximum 1" in retry[2]["content"]


def test_failure_after_max_turns(pkg: dict[str, ModuleType], call: Call) -> None:
    script = Script(*["I cannot answer that."] * 3)
    with pytest.raises(pkg["sentiment"].JsonEnforcementError) as caught:
        call(pkg["sentiment"].classify, script, text="meh")
    assert len(script.requests) == 3 and len(caught.value.step.turns) == 3  # @max_turns(3)
    assert "3 turns" in str(caught.value) and caught.value.step.fail is not None
    with pytest.raises(pkg["sentiment"].JsonEnforcementError):
        call(pkg["sentiment"].classify, Script("no", "no"), text="meh", max_turns=2)


def test_arguments_are_checked_before_any_call(pkg: dict[str, ModuleType], call: Call) -> None:
    script = Script(GOOD)
    with pytest.raises(ValueError, match="text"):
        call(pkg["sentiment"].classify, script, text="")  # @min_length(1)
    with pytest.raises(ValueError, match="max_turns must be at least 1"):
        call(pkg["sentiment"].classify, script, text="x", max_turns=0)
    assert script.requests == []


def test_tool_mode(pkg: dict[str, ModuleType], call: Call) -> None:
    answer = {"id": "1", "name": "respond", "arguments": {"sentiment": "negative", "score": 0.1}}
    script = Script({"content": None, "tool_calls": [answer]})
    step = call(pkg["sentiment"].classify, script, text="bad", structured="tool")
    assert step.return_.sentiment == "negative"
    assert script.requests[0]["tool_choice"] == {"tool": "respond"}


def test_text_mode(pkg: dict[str, ModuleType], call: Call) -> None:
    script = Script({"content": "not json at all", "tokens": {"input": 1, "output": 2}})
    step = call(pkg["summary"].summarize, script, document="Doc body", focus=["cost"])
    assert step.return_ == "not json at all" and step.usage == {"input": 1, "output": 2}
    assert len(script.requests) == 1 and script.requests[0]["output"] == "text"
    assert "Focus on: cost" in script.requests[0]["messages"][0]["content"]


def test_a_refusal_ends_the_call(pkg: dict[str, ModuleType], call: Call) -> None:
    client = pkg["_client"]
    for function, kwargs in (
        (pkg["sentiment"].classify, {"text": "x"}),
        (pkg["summary"].summarize, {"document": "d"}),
    ):
        script = Script({"content": None, "refusal": "no, sorry"})
        with pytest.raises(client.RefusalError, match="no, sorry"):
            call(function, script, **kwargs)
        assert len(script.requests) == 1


def test_pipelines(pkg: dict[str, ModuleType], call: Call) -> None:
    script = Script(
        {"content": GOOD, "tokens": {"input": 5}},
        '{"action": "cheer"}',  # a retry turn in the second step
        {"content": '{"action": "thank"}', "tokens": {"input": 6}},
    )
    step = call(pkg["sentiment"].triage, script, text="Great")
    assert step.return_.action == "thank" and step.return_.priority == 3
    assert len(step.turns) == 3 and step.usage == {"input": 11}
    signatures = [r["signature"] for r in script.requests]
    assert signatures == ["classify", "act_on_sentiment", "act_on_sentiment"]
    second = script.requests[1]["messages"][0]["content"]
    assert "classified as positive (confidence 0.9)" in second
    assert "- sentiment: One of: positive, negative, neutral" in second


class Broken(RuntimeError):
    pass


def test_a_raising_callback_raises_through(pkg: dict[str, ModuleType], call: Call) -> None:
    """The callback's own exception, as it is, on the first turn or a retry."""
    with pytest.raises(Broken, match="down"):
        call(pkg["sentiment"].classify, Script(Broken("down")), text="x")
    script = Script("not json", Broken("down again"))
    with pytest.raises(Broken, match="down again"):
        call(pkg["sentiment"].classify, script, text="x")
    assert len(script.requests) == 2
    with pytest.raises(Broken):
        call(pkg["sentiment"].triage, Script(GOOD, Broken("step 2")), text="x")


def test_a_bad_reply_is_a_callback_error(pkg: dict[str, ModuleType], call: Call) -> None:
    with pytest.raises(pkg["_client"].CallbackError, match="llm callback returned int"):
        call(pkg["sentiment"].classify, Script(42), text="x")


def test_both_forms_give_equal_steps(pkg: dict[str, ModuleType]) -> None:
    replies = ['{"sentiment": "Positive", "score": 1.5}', f"Sure:\n```json\n{GOOD},\n```"]
    steps = [
        form(pkg["sentiment"].classify, Script(*replies), text="t") for form in (_sync, _async)
    ]
    assert steps[0] == steps[1] and len(steps[0].turns) == 2 and steps[0].turns[1].repairs


# -- a callback of the other kind ---------------------------------------------------------------


def test_an_async_callback_given_to_a_sync_form_points_at_the_async_form(
    pkg: dict[str, ModuleType],
) -> None:
    client = pkg["_client"]

    async def llm(request: dict[str, Any]) -> str:
        return GOOD

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the coroutine is closed, not left to warn
        with pytest.raises(client.CallbackError) as caught:
            pkg["sentiment"].classify(text="x", llm=llm)
        with pytest.raises(client.CallbackError, match="`asummarize"):
            pkg["summary"].summarize(document="x", llm=llm)
        with pytest.raises(client.CallbackError, match="`aclassify"):
            pkg["sentiment"].triage(text="x", llm=llm)
    message = str(caught.value)
    assert "`classify` takes a sync llm callback" in message
    assert "it returned coroutine" in message and "await `aclassify(...)`" in message
    assert isinstance(caught.value, TypeError)


def test_a_sync_callback_given_to_an_async_form_points_at_the_sync_form(
    pkg: dict[str, ModuleType],
) -> None:
    client = pkg["_client"]
    with pytest.raises(client.CallbackError) as caught:
        asyncio.run(pkg["sentiment"].aclassify(text="x", llm=lambda request: GOOD))
    message = str(caught.value)
    assert "`aclassify` takes an async llm callback (`async def llm(request)`)" in message
    assert "returned str" in message and "call `classify(...)`" in message
    with pytest.raises(client.CallbackError, match="`asummarize` takes an async"):
        asyncio.run(pkg["summary"].asummarize(document="x", llm=lambda request: "text"))


def test_the_runtime_functions_have_both_forms(pkg: dict[str, ModuleType]) -> None:
    """`run_json`/`arun_json` and `run_text`/`arun_text` for callers with specs of their own,
    and `json_turns`, the generator both drive, for a caller with a loop of its own."""
    client = pkg["_client"]
    spec = pkg["sentiment"].CLASSIFY_SPEC
    validators = importlib.import_module("signatures.sentiment")
    models = importlib.import_module("signatures.models.sentiment")
    args = (spec, {"text": "x"})
    parse, convert = validators.parse_classify, models.ClassifyOutput.model_validate

    async def answer(request: dict[str, Any]) -> str:
        return GOOD

    sync = client.run_json(*args, lambda request: GOOD, parse, convert)
    asynchronous = asyncio.run(client.arun_json(*args, answer, parse, convert))
    assert sync == asynchronous and sync.return_.score == 0.9
    with pytest.raises(client.CallbackError, match="`run_json` takes a sync"):
        client.run_json(*args, answer, parse, convert)
    with pytest.raises(client.CallbackError, match="`arun_json` takes an async"):
        asyncio.run(client.arun_json(*args, lambda request: GOOD, parse, convert))
    text_spec = pkg["summary"].SUMMARIZE_SPEC
    values = {"document": "d", "audience": "a", "max_words": 5, "focus": []}
    assert asyncio.run(client.arun_text(text_spec, values, answer)).return_ == GOOD
    assert client.run_text(text_spec, values, lambda request: "t").return_ == "t"

    # Driven by hand: requests out, replies in, the step as the generator's return value.
    turns = client.json_turns(spec, {"text": "x"}, parse, convert)
    first = next(turns)
    second = turns.send("no json here")
    assert second["messages"][:1] == first["messages"] and len(second["messages"]) == 3
    with pytest.raises(StopIteration) as done:
        turns.send(GOOD)
    assert done.value.value.return_.sentiment == "positive" and len(done.value.value.turns) == 2


def test_async_calls_run_concurrently(pkg: dict[str, ModuleType]) -> None:
    """Ten calls gathered: every request is out before any reply comes back."""
    in_flight: list[int] = []
    release = asyncio.Event()

    async def llm(request: dict[str, Any]) -> str:
        in_flight.append(1)
        if len(in_flight) == 10:
            release.set()
        await release.wait()
        return GOOD

    async def main() -> list[Any]:
        calls = [pkg["sentiment"].aclassify(text=f"t{i}", llm=llm) for i in range(10)]
        return await asyncio.wait_for(asyncio.gather(*calls), timeout=10)

    steps = asyncio.run(main())
    assert [s.return_.score for s in steps] == [0.9] * 10


# -- names ------------------------------------------------------------------------------------

CLASHES = """\
signature classify(text :string) -> {text :string}
signature aclassify(text :string) -> {text :string, n :int}
signature sync(text :string) -> {n :int}
signature AsyncLlm(text :string) -> {n :int}
@output(text)
signature wait(text :string) -> :string
signature opts(options :map = {}) -> {n :int}
pipeline both = classify |> aclassify
pipeline aboth = aclassify |> classify
"""


@pytest.fixture
def clashes(tmp_path: Path) -> Iterator[ModuleType]:
    folder, _ = write_python_package(tmp_path, CLASHES, "clashpkg")
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("clashpkg.client.p")
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == "clashpkg" or m.startswith("clashpkg.")]:
            del sys.modules[name]


def test_a_taken_async_name_gets_a_number_and_sync_names_stay(clashes: ModuleType) -> None:
    """A signature `aclassify` beside `classify` keeps its name; `classify`'s async form is
    then `aclassify_2` (and the pipeline `aboth` beside `both` likewise). A keyword (`async`,
    `await`) or a name the module imports (`AsyncLlm`) is never an async form's name."""
    sync = {"classify", "aclassify", "sync", "AsyncLlm_", "wait", "both", "aboth", "opts"}
    forms = {
        "classify": "aclassify_2",
        "aclassify": "aaclassify",
        "sync": "async_2",
        "AsyncLlm_": "aAsyncLlm_",
        "wait": "await_2",
        "both": "aboth_2",
        "aboth": "aaboth",
        "opts": "aopts",
    }
    exported = set(clashes.__all__) - {"JsonEnforcementError", "Step"}
    # The json signatures' stream forms (tests/test_stream.py): NAME_stream, aNAME_stream.
    json_sigs = ("classify", "aclassify", "sync", "AsyncLlm_", "opts")
    streams = {f"{n}_stream" for n in json_sigs} | {f"{forms[n]}_stream" for n in json_sigs}
    assert exported == sync | set(forms.values()) | streams
    for name, asynchronous in forms.items():
        assert not asyncio.iscoroutinefunction(getattr(clashes, name)), name
        assert asyncio.iscoroutinefunction(getattr(clashes, asynchronous)), asynchronous
        assert f"The async form of `{name}`" in str(getattr(clashes, asynchronous).__doc__)
    assert clashes.CLASSIFY_SPEC.async_function == "aclassify_2"

    async def llm(request: dict[str, Any]) -> str:
        return '{"text": "t", "n": 1}' if request["signature"] == "aclassify" else '{"text": "x"}'

    assert asyncio.run(clashes.aclassify_2(text="t", llm=llm)).return_.text == "x"
    assert asyncio.run(clashes.aaclassify(text="t", llm=llm)).return_.n == 1
    step = asyncio.run(clashes.aboth_2(text="t", llm=llm))
    assert step.return_.n == 1 and len(step.turns) == 2
    with pytest.raises(TypeError, match="await `aclassify_2"):
        clashes.classify(text="t", llm=llm)
    # A map param left at None: its default, filled in by the validator, reaches the prompt.
    seen: list[str] = []

    async def count(request: dict[str, Any]) -> str:
        seen.append(request["messages"][0]["content"])
        return '{"n": 2}'

    assert asyncio.run(clashes.aopts(llm=count)).return_.n == 2
    assert asyncio.run(clashes.aopts(options={"k": "v"}, llm=count)).return_.n == 2
    assert "{}" in seen[0] and '"k"' in seen[1]


def test_a_pipeline_awaits_the_async_steps_of_another_module(tmp_path: Path) -> None:
    """The async form of a step in another file is named by that file's own names."""
    from sigspec import load
    from sigspec.compiler.generate import compile_project

    (tmp_path / "steps.sig").write_text(
        "signature first(text :string) -> {text :string}\n"
        "signature afirst(text :string) -> {text :string}\n",
        encoding="utf-8",
    )
    (tmp_path / "flow.sig").write_text(
        'import "steps.sig"\nsignature last(text :string) -> {text :string}\n'
        "pipeline flow = first |> afirst |> last\n",
        encoding="utf-8",
    )
    loaded = load([tmp_path / "steps.sig", tmp_path / "flow.sig"])
    assert not loaded.has_errors, loaded.diagnostics
    result = compile_project(loaded.project, ["python"], {"python": {"package": "xmod"}}, inputs={})
    for artifact in result.files:
        path = tmp_path / "out" / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path / "out" / "python"))
    try:
        flow = importlib.import_module("xmod.client.flow")
        seen: list[str] = []

        async def llm(request: dict[str, Any]) -> str:
            seen.append(request["signature"])
            return '{"text": "ok"}'

        step = asyncio.run(flow.aflow(text="t", llm=llm))
        assert step.return_.text == "ok" and seen == ["first", "afirst", "last"]
        source = Path(str(flow.__file__)).read_text(encoding="utf-8")
        assert ".afirst_2(" in source and ".aafirst(" in source
    finally:
        sys.path.pop(0)
        for name in [m for m in sys.modules if m == "xmod" or m.startswith("xmod.")]:
            del sys.modules[name]


def test_any_awaitable_and_any_event_loop(pkg: dict[str, ModuleType]) -> None:
    """A sync callable that returns an awaitable (a future, a task) is an async callback;
    and the async forms need no asyncio: driven here by hand, as trio or anyio would, every
    value a callback's awaitable yields reaches the loop driving the call."""

    async def main() -> Any:
        loop = asyncio.get_running_loop()

        def llm(request: dict[str, Any]) -> asyncio.Future[str]:
            future: asyncio.Future[str] = loop.create_future()
            loop.call_soon(future.set_result, GOOD)
            return future

        return await pkg["sentiment"].aclassify(text="x", llm=llm)

    assert asyncio.run(main()).return_.score == 0.9

    class Tick:
        def __await__(self) -> Iterator[str]:
            yield "tick"  # what the loop sees
            return None

    async def llm(request: dict[str, Any]) -> str:
        await Tick()
        return GOOD if request["signature"] == "classify" else '{"action": "ignore"}'

    coroutine = pkg["sentiment"].atriage(text="x", llm=llm)
    yielded: list[Any] = []
    while True:
        try:
            yielded.append(coroutine.send(None))
        except StopIteration as done:
            step = done.value
            break
    assert yielded == ["tick", "tick"] and len(step.turns) == 2
