"""Running the selected tests: each run calls the generated client function through a
callback that records each turn (live, `--record`) or answers it from the cassette
(replay), hashing each request body the client makes, so that a changed prompt, schema,
model or parameter is found stale instead of replayed. Runs go through a thread pool of
`jobs` workers; the results keep the declaration order."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sigspec.commands.test import cassette as tape
from sigspec.commands.test import judge
from sigspec.commands.test.live import Body, Endpoint, Llm
from sigspec.commands.test.stats import Rate
from sigspec.diagnostics.words import counted, were
from sigspec.semantics import ir

RERECORD = "run `sigspec test --record`"
OUTCOMES = ("pass", "fail", "stale", "error")


@dataclass(frozen=True, slots=True)
class Plan:
    mode: str  # "replay", "live" or "record"
    endpoint: Endpoint
    cassettes: Path
    repeat: int | None = None  # `--repeat`, over each test's `@repeat`
    jobs: int = 4
    root: Path = Path()  # the project's root: a cassette may be a link to a file below it


@dataclass(frozen=True, slots=True)
class RunResult:
    number: int
    outcome: str  # one of OUTCOMES
    reason: str | None
    turns: int
    tokens: int
    latency_ms: int
    repairs: int
    output: Any = None


@dataclass(frozen=True, slots=True)
class TestResult:
    __test__ = False  # not a pytest test class

    id: str  # FILE.sig::NAME
    test: ir.Test
    outcome: str
    runs: tuple[RunResult, ...]
    reason: str | None = None  # why the test failed as a whole, or its first failed run
    notes: tuple[str, ...] = ()  # what the run did besides (a cassette written)

    @property
    def rate(self) -> Rate:
        return Rate(sum(r.outcome == "pass" for r in self.runs), len(self.runs))

    @property
    def latency_ms(self) -> int | None:
        return int(statistics.median(r.latency_ms for r in self.runs)) if self.runs else None


def test_id(test: ir.Test) -> str:
    file = test.origin.source.path if test.origin else "<unknown>"
    return f"{file}::{test.name}"


class Stale(Exception):
    """The client's request is not the one recorded: said in a sentence."""


@dataclass
class Recorder:
    """One run's callback: it builds and hashes each request body, then answers from the
    recorded turns (`recorded` given) or calls the live callback and keeps the turn."""

    run: int
    body: Body
    live: Llm | None
    recorded: tuple[tape.Turn, ...] | None = None
    turns: list[tape.Turn] = field(default_factory=list)

    def __call__(self, request: dict[str, Any]) -> Any:
        sent = self.body(request)
        digest = tape.digest(sent)
        number = len(self.turns) + 1
        if self.recorded is not None:
            return self._replayed(number, digest)
        assert self.live is not None
        started = time.perf_counter()
        reply = self.live(request)
        elapsed = round((time.perf_counter() - started) * 1000)
        plain = json.loads(json.dumps(reply))  # what the file holds: JSON, nothing else
        self.turns.append(tape.Turn(self.run, number, sent, digest, plain, elapsed))
        return reply

    def _replayed(self, number: int, digest: str) -> Any:
        assert self.recorded is not None
        if number > len(self.recorded):
            raise Stale(
                f"run {self.run}: the client asked for turn {number}, but "
                f"{were(len(self.recorded), 'turn')} recorded"
            )
        turn = self.recorded[number - 1]
        if turn.sha256 != digest:
            raise Stale(
                f"run {self.run}, turn {number}: the request changed since it was recorded "
                "(prompt, schema, model or params)"
            )
        self.turns.append(turn)
        return turn.reply


@dataclass(frozen=True, slots=True)
class Call:
    """What runs one test: the client function, its keyword arguments, the reply parser
    (json signatures) and the runtime's enforcement error."""

    function: Callable[..., Any]
    arguments: dict[str, Any]
    parse: Callable[[str], Any] | None
    failure: type[Exception]


def _usage(step: Any) -> tuple[int, int, int]:
    """(turns, tokens, repairs) of a finished or failed call's `Step`."""
    usage = step.usage
    tokens = usage.get("total") or usage.get("input", 0) + usage.get("output", 0)
    repairs = sum(len(turn.repairs) for turn in step.turns)
    return len(step.turns), int(tokens), repairs


def _output(step: Any, parse: Callable[[str], Any] | None) -> Any:
    """The validated value of a finished call: the reply parsed again by the generated
    parser (the value the runtime validated, as the test's exact value was normalised);
    the output model dumped by alias when the answer came wrapped."""
    if parse is None:
        return step.return_
    try:
        return parse(step.turns[-1].reply.content or "").value
    except ValueError:
        return step.return_.model_dump(mode="json", by_alias=True)


def _fewer(recorder: Recorder) -> bool:
    """A replayed run that ended before its recorded turns did."""
    return recorder.recorded is not None and len(recorder.turns) < len(recorder.recorded)


def _fewer_turns(recorder: Recorder, latency: int) -> RunResult:
    assert recorder.recorded is not None
    reason = (
        f"run {recorder.run}: the client finished after {counted(len(recorder.turns), 'turn')}"
        f", but {were(len(recorder.recorded), 'turn')} recorded"
    )
    return RunResult(recorder.run, "stale", reason, len(recorder.turns), 0, latency, 0)


def one_run(test: ir.Test, call: Call, recorder: Recorder) -> RunResult:
    """One run of `test`, judged."""

    def latency() -> int:
        return sum(t.latency_ms for t in recorder.turns)

    try:
        step = call.function(**call.arguments, llm=recorder)
    except Stale as exc:
        return RunResult(recorder.run, "stale", str(exc), len(recorder.turns), 0, latency(), 0)
    except call.failure as exc:
        if _fewer(recorder):  # a lowered `@max_turns` gave up before the recorded retries
            return _fewer_turns(recorder, latency())
        turns, tokens, repairs = _usage(exc.step)  # type: ignore[attr-defined]
        return RunResult(recorder.run, "fail", str(exc), turns, tokens, latency(), repairs)
    except Exception as exc:  # the transport's, an SDK's: the model could not be asked
        reason = f"{type(exc).__name__}: {exc}"
        return RunResult(recorder.run, "error", reason, len(recorder.turns), 0, latency(), 0)
    if _fewer(recorder):
        return _fewer_turns(recorder, latency())
    turns, tokens, repairs = _usage(step)
    output = _output(step, call.parse)
    why = judge.reason(test.expect, output)
    outcome = "pass" if why is None else "fail"
    return RunResult(recorder.run, outcome, why, turns, tokens, latency(), repairs, output)


# ---- one test's runs ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prepared:
    """A test ready to run: its runs' recorders, or the result it has without running."""

    test: ir.Test
    call: Call | None
    recorders: tuple[Recorder, ...]
    done: TestResult | None = None
    old: tape.Cassette | None = None


def prepare(test: ir.Test, call: Call, plan: Plan, body: Body, live: Llm | None) -> Prepared:
    wanted = plan.repeat or test.repeat
    if plan.mode != "replay":
        recorders = tuple(Recorder(n, body, live) for n in range(1, wanted + 1))
        old = _old(test, plan) if plan.mode == "record" else None
        return Prepared(test, call, recorders, old=old)
    try:
        found = tape.read(cassette_path(test, plan), _shown(test, plan), _allowed(plan))
    except tape.CassetteError as exc:
        return _done(test, "error", f"{exc}: {RERECORD}")
    if found is None:
        return _done(test, "fail", f"no cassette: {RERECORD}")
    header = found.header
    if (header.provider, header.model) != (plan.endpoint.provider, plan.endpoint.model):
        return _done(
            test,
            "stale",
            f"recorded with {header.provider} {header.model}, configured "
            f"{plan.endpoint.provider} {plan.endpoint.model}: {RERECORD}",
        )
    runs = found.runs()
    if len(runs) < wanted:
        return _done(
            test,
            "fail",
            f"{were(len(runs), 'run')} recorded, {wanted} asked: run "
            f"`sigspec test --record --repeat {wanted}`",
        )
    numbers = sorted(runs)[: plan.repeat] if plan.repeat else sorted(runs)
    recorders = tuple(Recorder(n, body, None, runs[n]) for n in numbers)
    return Prepared(test, call, recorders)


def clashes(tests: Sequence[ir.Test], plan: Plan) -> dict[str, str]:
    """Each test whose cassette is the file of an earlier test's on a case-insensitive file
    system (macOS, Windows: `Foo` and `foo`, `A.sig` and `a.sig`), by id: that test's id.
    Recording both would leave one file, holding the other test's runs."""
    first: dict[str, str] = {}
    found: dict[str, str] = {}
    for test in tests:
        key = cassette_path(test, plan).as_posix().casefold()
        seen = first.setdefault(key, test_id(test))
        if seen != test_id(test):
            found[test_id(test)] = seen
    return found


def reserved_name(test: ir.Test) -> Prepared | None:
    """A test that is not run because Windows reserves its cassette's name for a device
    (`con.jsonl` is the console there): an error that says to rename it; else None."""
    from sigspec.lower.names import WINDOWS_RESERVED

    if test.name.lower() not in WINDOWS_RESERVED:
        return None
    reason = (
        f"its cassette {test.name}.jsonl would be a device on Windows, which reserves the "
        f"name `{test.name}`: rename the test"
    )
    return _done(test, "error", reason)


def clashing(test: ir.Test, other: str, plan: Plan) -> Prepared:
    """A test that is not run: its cassette would be `other`'s file."""
    from sigspec.compiler.paths import display_path

    shown = display_path(cassette_path(test, plan))
    reason = (
        f"its cassette {shown} differs from {other}'s only in case, which macOS and Windows "
        "do not tell apart: rename one of the two tests (or files)"
    )
    return _done(test, "error", reason)


def _done(test: ir.Test, outcome: str, reason: str) -> Prepared:
    return Prepared(test, None, (), TestResult(test_id(test), test, outcome, (), reason))


def _old(test: ir.Test, plan: Plan) -> tape.Cassette | None:
    try:
        return tape.read(cassette_path(test, plan), _shown(test, plan), _allowed(plan))
    except tape.CassetteError:
        return None  # replaced by the recording


def cassette_path(test: ir.Test, plan: Plan) -> Path:
    file = test.origin.source.path if test.origin else "unknown.sig"
    return tape.location(plan.cassettes, file, test.name)


def _shown(test: ir.Test, plan: Plan) -> str:
    """The cassette's path as the notes show it (relative to the working folder)."""
    from sigspec.compiler.paths import display_path

    return display_path(cassette_path(test, plan))


def _allowed(plan: Plan) -> tuple[Path, ...]:
    return (plan.cassettes, plan.root)


def judged(prepared: Prepared, runs: Sequence[RunResult]) -> TestResult:
    """The test's result from its runs: an error or a stale run decides it; else its pass
    rate against its minimum."""
    test = prepared.test
    rate = Rate(sum(r.outcome == "pass" for r in runs), len(runs))
    for outcome in ("error", "stale"):
        bad = next((r for r in runs if r.outcome == outcome), None)
        if bad is not None:
            hint = f": {RERECORD}" if outcome == "stale" else ""
            return TestResult(test_id(test), test, outcome, tuple(runs), f"{bad.reason}{hint}")
    first = next((r.reason for r in runs if r.outcome != "pass"), None)
    if rate.meets(test.min_pass_rate):
        return TestResult(test_id(test), test, "pass", tuple(runs), None)
    if len(runs) > 1:  # each failed run's reason is reported with the run
        first = f"pass rate {rate.passed}/{rate.total} is below {test.min_pass_rate:g}"
    return TestResult(test_id(test), test, "fail", tuple(runs), first)


def execute(prepared: Sequence[Prepared], jobs: int) -> list[list[RunResult]]:
    """Every run of every test, `jobs` at a time; each test's runs in run order."""
    units = [(i, p, r) for i, p in enumerate(prepared) for r in p.recorders]
    results: list[list[RunResult]] = [[] for _ in prepared]
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futures = [
            (i, pool.submit(one_run, p.test, p.call, r))  # type: ignore[arg-type]
            for i, p, r in units
        ]
        for index, future in futures:
            results[index].append(future.result())
    except BaseException:
        # Ctrl-C: start no queued run (each a paid call); only those in flight finish.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results
