"""Drives a generated Python package the way a user does, in an interpreter that holds
pydantic alone: `test_python_versions.py` runs it under Python 3.10 to 3.13.

    python -I drive_generated_package.py BUILD PACKAGE SET

BUILD is the folder holding the package (`<out>/python`), PACKAGE its name, SET which table
of cases below applies ("examples" or "every_format"). It imports every generated module,
calls every client function with a scripted `llm` (a valid reply; a messy one the parser
must repair; an invalid one, then a valid one: the retry), and its async form (`aNAME`, with
an async `llm` and `asyncio.run`) the same way, every `parse_NAME`, and every
`validate_NAME`, and checks the values that come back. Prints a JSON summary of what it
ran; any failure is an exception (a traceback and a non-zero exit).

Standard library and pydantic only, and code that runs on Python 3.10: sigspec itself must
not be importable here, so that this shows the package runs without it.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import importlib
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from uuid import UUID

UTC = dt.timezone(dt.timedelta(0))  # `datetime.UTC` is Python 3.11's


@dataclass(frozen=True)
class Case:
    """One signature: its arguments, a valid output (as the model writes it), what the
    output model then holds (`model_dump(mode="json")`, or with `typed` the Python values
    of `model_dump()`), and an invalid output with the path of an error it must give."""

    kwargs: dict[str, Any]
    valid: Any
    expected: Any
    invalid: Any = None
    invalid_path: str = ""
    mode: str = "json"  # "json", "text", or "ptc" (PTC-Lisp: a request and a result check)
    prompt_holds: tuple[str, ...] = ()  # text the first request's user message must hold
    typed: bool = False


SOURCE = {"title": "Llamas", "url": "https://example.com/llamas"}
AGENT_DEFAULTS = {
    "reasoning": "",
    "confidence": 0.8,
    "files": [],
    "sub_tasks": [],
    "needs_more_info": False,
    "next_action": "finalize",
    "error": None,
}
INVOICE = {
    "invoice_number": "INV-42",
    "issue_date": "2024-02-29",
    "currency": "EUR",
    "line_items": [{"description": "Bolts", "quantity": 3, "unit_price": 1.5, "total": 4.5}],
    "total": 4.5,
}

EXAMPLES = {
    "classify": Case(
        kwargs={"text": "Great product, works as described."},
        valid={"sentiment": "positive", "score": 0.9},
        expected={"sentiment": "positive", "score": 0.9},
        invalid={"sentiment": "ecstatic", "score": 0.9},
        invalid_path="sentiment",
        prompt_holds=("Great product, works as described.",),
    ),
    "act_on_sentiment": Case(
        kwargs={"sentiment": "negative", "score": 0.25},
        valid={"action": "escalate", "note": "Unhappy customer"},
        expected={"action": "escalate", "priority": 3, "note": "Unhappy customer"},
        invalid={"action": "celebrate"},
        invalid_path="action",
        prompt_holds=("classified as negative (confidence 0.25)",),
    ),
    "extract_products": Case(
        kwargs={"article": "The Widget costs 9.50; the Gadget is new."},
        valid={
            "products": [
                {"name": "Widget", "price": 9.5, "tags": ["tools"]},
                {"name": "Gadget"},
            ],
            "main_topic": "gear",
        },
        expected={
            "products": [
                {"name": "Widget", "price": 9.5, "tags": ["tools"]},
                {"name": "Gadget", "price": None, "tags": []},
            ],
            "main_topic": "gear",
        },
        invalid={"products": [{"name": "Widget", "price": -1}], "main_topic": "gear"},
        invalid_path="products.0.price",
        prompt_holds=("The Widget costs 9.50",),
    ),
    "read_invoice": Case(
        kwargs={"document": "Invoice INV-42 of 29 February 2024"},
        valid=INVOICE,
        expected={**INVOICE, "due_date": None},
        invalid={**INVOICE, "invoice_number": "inv 42"},
        invalid_path="invoice_number",
        prompt_holds=("Invoice INV-42",),
    ),
    "rank_results": Case(
        kwargs={"query": "llamas", "results": [SOURCE]},
        valid=[{**SOURCE, "score": 0.75}],
        expected=[{**SOURCE, "score": 0.75}],
        invalid=[{"title": "Llamas", "score": 0.75}],
        invalid_path="0.url",
        prompt_holds=('"llamas"', "- Llamas (https://example.com/llamas)"),
    ),
    "research": Case(
        kwargs={"topic": "llamas"},
        valid={"summary": "Llamas hum.", "sources": [SOURCE]},
        expected={"summary": "Llamas hum.", "sources": [SOURCE]},
        invalid={"summary": "Llamas hum.", "sources": [{"title": "Llamas"}]},
        invalid_path="sources.0.url",
        mode="ptc",
        prompt_holds=("llamas",),
    ),
    "summarize": Case(
        kwargs={"document": "The quarterly report.", "focus": ["cost", "risk"]},
        valid="Costs fell; risks rose.",
        expected="Costs fell; risks rose.",
        mode="text",
        prompt_holds=("Focus on: cost\n", "Focus on: risk\n", "The quarterly report."),
    ),
    "agent_step": Case(
        kwargs={"query": "Find the bug"},
        valid={"conclusion": "It is in the parser.", "confidence": 0.5},
        expected={**AGENT_DEFAULTS, "conclusion": "It is in the parser.", "confidence": 0.5},
        invalid={"reasoning": "No conclusion yet."},
        invalid_path="conclusion",
        prompt_holds=("Find the bug",),
    ),
}
PIPELINES = {"triage": ("classify", "act_on_sentiment")}

RECORD = {
    "stamp": "2024-01-02T03:04:05.5Z",
    "date_time": "2024-01-02T03:04:05.25+01:00",
    "day": "2024-02-29",
    "clock": "12:34:56.5Z",
    "period": "P1DT2H",
    "email": "ada@example.com",
    "host": "example.com",
    "address4": "192.0.2.1",
    "address6": "2001:db8::1",
    "uri": "https://example.com/a?b=c#d",
    "reference": "../a#b",
    "id": "123e4567-e89b-12d3-a456-426614174000",
    "pointer": "/a/b~1c",
    "relative": "0/a",
    "template": "https://example.com/{id}",
}
EVERY_FORMAT = {
    "read_record": Case(
        kwargs={"text": "the record"},
        valid=RECORD,
        # date-time, date, time and uuid as the standard types; every other format a
        # string, as the model wrote it.
        expected={
            **RECORD,
            "stamp": dt.datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=UTC),
            "date_time": dt.datetime(
                2024, 1, 2, 3, 4, 5, 250000, tzinfo=dt.timezone(dt.timedelta(hours=1))
            ),
            "day": dt.date(2024, 2, 29),
            "clock": dt.time(12, 34, 56, 500000, tzinfo=UTC),
            "id": UUID("123e4567-e89b-12d3-a456-426614174000"),
        },
        invalid={**RECORD, "email": "ada.example.com"},
        invalid_path="email",
        prompt_holds=("the record",),
        typed=True,
    )
}
SETS = {"examples": (EXAMPLES, PIPELINES), "every_format": (EVERY_FORMAT, {})}


class Script:
    """The `llm` callback: the replies to give, by signature, in order; every request
    kept."""

    def __init__(self, replies: dict[str, list[Any]]) -> None:
        self.replies = {name: list(queue) for name, queue in replies.items()}
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> Any:
        self.requests.append(request)
        queue = self.replies[request["signature"]]
        assert queue, f"an unexpected call of {request['signature']}"
        return queue.pop(0)

    def done(self) -> None:
        left = {name: queue for name, queue in self.replies.items() if queue}
        assert not left, f"replies never asked for: {left}"


def reply(value: Any) -> str:
    return json.dumps(value)


def messy(value: Any) -> str:
    """The value as models often write it: prose around a fenced block whose JSON has a
    trailing comma (after the last member, or after a scalar)."""
    text = json.dumps(value, indent=2)
    if text[-1] in "]}":
        text = text[:-1].rstrip() + ",\n" + text[-1]
    else:
        text += ","
    return f"Sure! Here is the answer:\n\n```json\n{text}\n```\n\nAnything else?"


def dumped(value: Any, typed: bool) -> Any:
    """A model as JSON data, or as Python values (`typed`); anything else as it is."""
    dump = getattr(value, "model_dump", None)
    if not callable(dump):
        return value
    return dump() if typed else dump(mode="json")


def user_message(request: dict[str, Any]) -> str:
    content: str = request["messages"][0]["content"]
    return content


def check_value(name: str, got: Any, case: Case) -> None:
    value = dumped(got, case.typed)
    assert value == case.expected, f"{name}: {value!r} != {case.expected!r}"


def run_json(name: str, function: Any, case: Case) -> int:
    """The three scenarios of a JSON signature's client function, and its tool mode."""
    script = Script({name: [reply(case.valid)]})
    step = function(**case.kwargs, llm=script)
    script.done()
    check_value(name, step.return_, case)
    assert len(step.turns) == 1 and not step.turns[0].repairs, step.turns
    first = script.requests[0]
    assert first["output"] == "json" and first["schema"], first
    for text in case.prompt_holds:
        assert text in user_message(first), (text, user_message(first))

    script = Script({name: [messy(case.valid)]})
    step = function(**case.kwargs, llm=script)
    check_value(name, step.return_, case)
    repairs = [message for _, message in step.turns[0].repairs]
    assert "removed a trailing comma" in repairs, repairs

    script = Script({name: [reply(case.invalid), reply(case.valid)]})
    step = function(**case.kwargs, llm=script)
    script.done()
    check_value(name, step.return_, case)
    assert len(step.turns) == 2, step.turns
    errors = step.turns[0].errors
    assert case.invalid_path in [path for path, _ in errors], errors
    retry = script.requests[1]["messages"]
    assert len(retry) == 3 and retry[1]["content"] == reply(case.invalid), retry
    assert errors[0][1] in retry[2]["content"], (errors, retry[2]["content"])

    call = {"name": "respond", "arguments": case.valid}
    script = Script({name: [{"content": None, "tool_calls": [call], "tokens": {"in": 7}}]})
    step = function(**case.kwargs, llm=script, structured="tool")
    check_value(name, step.return_, case)
    assert step.usage == {"in": 7}, step.usage
    assert script.requests[0]["tool_choice"] == {"tool": "respond"}, script.requests[0]
    return 4


def run_text(name: str, function: Any, case: Case) -> int:
    script = Script({name: [case.valid]})
    step = function(**case.kwargs, llm=script)
    script.done()
    assert step.return_ == case.expected, step.return_
    request = script.requests[0]
    assert request["output"] == "text" and request["schema"] is None, request
    for text in case.prompt_holds:
        assert text in user_message(request), (text, user_message(request))
    return 1


def run_pipeline(name: str, function: Any, stages: tuple[str, ...], cases: Any) -> int:
    """A pipeline: each stage's valid reply, the last stage's after a retry."""
    first, last = cases[stages[0]], cases[stages[-1]]
    replies = {stage: [reply(cases[stage].valid)] for stage in stages}
    replies[stages[-1]].insert(0, reply(last.invalid))
    script = Script(replies)
    step = function(**first.kwargs, llm=script)
    script.done()
    check_value(name, step.return_, last)
    assert len(step.turns) == len(stages) + 1, step.turns
    # The next stage's arguments are the previous stage's output.
    piped = user_message(script.requests[1])
    assert script.requests[1]["signature"] == stages[1], script.requests[1]
    assert all(str(v) in piped for v in cases[stages[0]].valid.values()), piped
    return 1


def run_ptc(module: Any, name: str, case: Case) -> int:
    """A PTC-Lisp signature: its first request, and its result checked and typed."""
    request = getattr(module, f"build_{name}_request")(**case.kwargs)
    assert request["signature"] == name, request
    for text in case.prompt_holds:
        assert text in user_message(request), (text, user_message(request))
    check = getattr(module, f"validate_{name}_output")
    check_value(name, check(case.valid), case)
    try:
        check(case.invalid)
    except ValueError:
        pass
    else:
        raise AssertionError(f"{name}: {case.invalid!r} was accepted")
    return 2


def chunks(answer: Any) -> list[Any]:
    """A plain callback's answer as a streaming callback sends it: the text (or the forced
    tool's arguments) in pieces of 5 characters, then the token counts."""
    if isinstance(answer, str):
        return [answer[i : i + 5] for i in range(0, len(answer), 5)]
    out: list[Any] = [piece for text in [answer.get("content") or ""] for piece in chunks(text)]
    for call in answer.get("tool_calls") or []:
        arguments = call["arguments"]
        text = arguments if isinstance(arguments, str) else json.dumps(arguments)
        out.append({"tool": call["name"]})
        out += [{"arguments": text[i : i + 5]} for i in range(0, len(text), 5)]
    return [*out, {"tokens": answer.get("tokens") or {}}]


def streamed(function: Any, asynchronous: bool) -> Any:
    """A stream form called as the plain function: its `llm` (a script of whole answers)
    made a streaming callback, every partial read, the `Step` returned."""

    def call(**kwargs: Any) -> Any:
        script = kwargs.pop("llm")
        if not asynchronous:
            stream = function(**kwargs, llm=lambda request: iter(chunks(script(request))))
            for _ in stream:
                pass
            return stream.step

        async def llm(request: dict[str, Any]) -> Any:
            for chunk in chunks(script(request)):
                await asyncio.sleep(0)
                yield chunk

        async def drain() -> Any:
            stream = function(**kwargs, llm=llm)
            async for _ in stream:
                pass
            return await stream.result()

        return asyncio.run(drain())

    return call


def awaited(function: Any) -> Any:
    """An async client function called as a sync one: its `llm` made async (answering after
    a turn of the event loop), the call run by `asyncio.run`."""

    def call(**kwargs: Any) -> Any:
        script = kwargs.pop("llm")

        async def llm(request: dict[str, Any]) -> Any:
            await asyncio.sleep(0)
            return script(request)

        return asyncio.run(function(**kwargs, llm=llm))

    return call


def run_clients(package: str, modules: list[Any], cases: Any, pipelines: Any) -> list[str]:
    """Every function a client module exports, by name; each must have a case."""
    ran: list[str] = []
    for module in modules:
        # A client module per .sig file, below `client` (folders of .sig files are
        # packages there too, which export nothing).
        if not module.__name__.startswith(f"{package}.client."):
            continue
        for export in getattr(module, "__all__", ()):
            function = getattr(module, export)
            if getattr(function, "__module__", None) != module.__name__:
                continue  # re-exported runtime names (Step, JsonEnforcementError)
            name, function = plain_form(module, export, function)
            if export.startswith("build_") and export.endswith("_request"):
                name = export[len("build_") : -len("_request")]
            if export.startswith("validate_") and export.endswith("_output"):
                continue  # run with its build_NAME_request
            if name in pipelines:
                calls = run_pipeline(name, function, pipelines[name], cases)
            else:
                assert name in cases, f"no case for the client function {export}"
                case = cases[name]
                runs = {"json": run_json, "text": run_text}
                if case.mode == "ptc":
                    calls = run_ptc(module, name, case)
                else:
                    calls = runs[case.mode](name, function, case)
            ran.append(f"{export} x{calls}")
    return ran


def plain_form(module: Any, export: str, function: Any) -> tuple[str, Any]:
    """The plain function an export is a form of (no clashes here), and the export called
    as that function: `aNAME` awaited, `NAME_stream` and `aNAME_stream` read to the end."""
    if export.endswith("_stream"):
        name = export[: -len("_stream")]
        asynchronous = asyncio.iscoroutinefunction(getattr(module, name))
        if asynchronous:
            name = name[1:]
        assert name in module.__all__, f"{export} is no stream form"
        return name, streamed(function, asynchronous)
    if asyncio.iscoroutinefunction(function):
        assert export[1:] in module.__all__, f"{export} is no async form"
        return export[1:], awaited(function)
    return export, function


def run_validators(package: str, modules: list[Any], cases: Any) -> list[str]:
    """Every `parse_NAME`, `validate_NAME` and `validate_NAME_input` of the validator
    modules (a module per .sig file, outside `client` and `models`; runtime copies
    aside)."""
    ran: list[str] = []
    for module in modules:
        parts = module.__name__.split(".")
        if parts[1:2] in (["client"], ["models"]) or parts[-1].startswith("_"):
            continue
        for export in sorted(vars(module)):
            if not export.startswith("parse_"):
                continue
            name = export[len("parse_") :]
            assert name in cases, f"no case for {module.__name__}.{export}"
            case = cases[name]
            parse = getattr(module, export)
            validate = getattr(module, f"validate_{name}")
            for text in (reply(case.valid), messy(case.valid)):
                check_parsed(export, parse(text).value, case)
            check_parsed(f"validate_{name}", validate(case.valid), case)
            inputs = getattr(module, f"validate_{name}_input")(case.kwargs)
            assert inputs == {**inputs, **case.kwargs}, inputs
            ran.append(name)
    return ran


def check_parsed(name: str, got: Any, case: Case) -> None:
    """What a parser or validator returns: the output model (checked as a client's
    result), or plain JSON data that holds the valid output (defaults filled in)."""
    if callable(getattr(got, "model_dump", None)):
        check_value(name, got, case)
    else:
        assert holds(got, case.valid), f"{name}: {got!r} does not hold {case.valid!r}"


def holds(got: Any, want: Any) -> bool:
    """`got` is `want`, or a map that has `want`'s members (and more) all the way down."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(
            key in got and holds(got[key], value) for key, value in want.items()
        )
    if isinstance(want, list):
        return (
            isinstance(got, list)
            and len(got) == len(want)
            and all(holds(g, w) for g, w in zip(got, want, strict=True))
        )
    return type(got) is type(want) and bool(got == want)


def import_all(root: Path, package: str) -> list[Any]:
    """Every module of the package: validators, models, clients and the runtime copies."""
    names = sorted(
        ".".join((package, *path.relative_to(root).with_suffix("").parts))
        for path in root.rglob("*.py")
    )
    return [importlib.import_module(name.removesuffix(".__init__")) for name in names]


def main() -> None:
    build, package, which = sys.argv[1:4]
    for name in ("sigspec", "email_validator"):
        found = importlib.util.find_spec(name)
        assert found is None, f"{name} is importable here: {found.origin}"
    sys.path.insert(0, build)
    modules = import_all(Path(build) / package, package)
    cases, pipelines = SETS[which]
    clients = run_clients(package, modules, cases, pipelines)
    validators = run_validators(package, modules, cases)
    summary = {
        "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        "modules": len(modules),
        "clients": clients,
        "validators": validators,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
