"""`sigspec test`: run the project's test declarations through the generated Python client,
replayed from cassettes (the default), live (`--live`) or live and recorded (`--record`).

The project is loaded and checked as `lint` checks it (an error: its diagnostics, exit 1,
no model called); the Python target is compiled into a private folder and imported
(`build.py`); each run calls the client function through a callback that records or replays
each turn (`run.py`); each run is judged (`judge.py`) and each test by its pass rate
(`stats.py`); `report.py` prints the results. Exit 0: every test passed; 1: a test failed,
was stale or could not run, or no test was selected; 2: usage or configuration.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sigspec.commands import Report

if TYPE_CHECKING:
    from sigspec.commands.test.build import Client
    from sigspec.commands.test.live import Endpoint
    from sigspec.commands.test.run import Plan, Prepared, RunResult, TestResult
    from sigspec.compiler.config import Config
    from sigspec.compiler.project import LoadResult
    from sigspec.semantics import ir


@dataclass(frozen=True, slots=True)
class Options:
    """The command line's choices."""

    paths: tuple[Path, ...] = ()
    pattern: str | None = None  # -k
    mode: str = "replay"  # "replay", "live" or "record"
    repeat: int | None = None
    jobs: int | None = None
    fmt: str = "table"


def matches(pattern: str, test_id: str, name: str) -> bool:
    """`-k`: a glob (`*`, `?`, `[...]`) matched against `FILE.sig::NAME` or NAME, else a
    substring of `FILE.sig::NAME`."""
    if any(c in pattern for c in "*?["):
        return fnmatch.fnmatchcase(test_id, pattern) or fnmatch.fnmatchcase(name, pattern)
    return pattern in test_id


def selected(
    tests: Sequence[ir.Test], root: Path, paths: Sequence[Path], pattern: str | None
) -> list[ir.Test]:
    """The tests of files below the given paths (all, when none is given) that `pattern`
    matches, in declaration order."""
    from sigspec.commands.test.run import test_id

    chosen = [p.resolve() for p in paths]
    out = []
    for test in tests:
        file = (root / test.origin.source.path).resolve() if test.origin else root
        if chosen and not any(file == p or file.is_relative_to(p) for p in chosen):
            continue
        if pattern is None or matches(pattern, test_id(test), test.name):
            out.append(test)
    return out


def _load(options: Options, report: Report) -> tuple[Config, Path, LoadResult] | int:
    """The configuration, the project root and the checked project, or the exit code after
    saying what is wrong (its diagnostics: 1; the configuration: 2)."""
    from sigspec.compiler.config import ConfigError, load_config, project_root
    from sigspec.compiler.findings import judge, provider_limits
    from sigspec.compiler.project import load
    from sigspec.diagnostics import has_errors
    from sigspec.lower.providers import NAMES

    try:
        config = load_config(Path.cwd())
        roots = options.paths or config.sources or (config.root,)  # as `compile` reads it
        root = project_root(config, roots)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    result = load(roots, root=root)
    front = (*config.warnings, *result.diagnostics)
    found = judge(front, config.severity, chosen=True)
    if not has_errors(found) and config.test.provider in NAMES:
        limits = provider_limits(result.project, (config.test.provider,))
        found = judge((*front, *limits), config.severity, chosen=True)
    if has_errors(found):
        report(found)
        click.echo("error: the project has errors: no test was run", err=True)
        return 1
    return config, root, result


def run(options: Options, report: Report) -> int:
    from sigspec.commands.test.build import BuildError, built
    from sigspec.commands.test.live import Endpoint, SetupError, api_key

    loaded = _load(options, report)
    if isinstance(loaded, int):
        return loaded
    config, root, result = loaded
    tests = selected(result.project.tests, root, options.paths, options.pattern)
    if not tests:
        where = f" matching `{options.pattern}`" if options.pattern else ""
        click.echo(f"error: no tests selected{where}: nothing was run", err=True)
        return 1
    settings = config.test
    if settings.model is None:
        click.echo(
            "error: no model configured: set `model` in [tool.sigspec.test] (pyproject.toml) "
            "or [test] (sigspec.toml)",
            err=True,
        )
        return 2
    try:
        key = api_key(settings.api_key_env) if options.mode != "replay" else None
    except SetupError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    endpoint = Endpoint(settings.provider, settings.model, settings.base_url, settings.params, key)
    plan = _plan(options, config, root, endpoint)
    try:
        with built(result.project, config.options.get("python", {})) as client:
            results = _run(tests, result.project, client, plan)
    except (SetupError, BuildError) as exc:
        click.echo(f"error: {_redacted(str(exc), key)}", err=True)
        return 2
    except KeyboardInterrupt:
        written = "; no cassette was written" if plan.mode == "record" else ""
        click.echo(f"error: interrupted: no further run was started{written}", err=True)
        return 1
    from sigspec.commands.test import report as render

    click.echo(_redacted(render.render(results, options.fmt, plan.mode), key), nl=False)
    click.echo(render.summary(results, plan.mode), err=True)
    return 0 if all(r.outcome == "pass" for r in results) else 1


def _plan(options: Options, config: Config, root: Path, endpoint: Endpoint) -> Plan:
    from sigspec.commands.test.run import Plan

    settings = config.test
    return Plan(
        options.mode,
        endpoint,
        settings.cassettes or root / "cassettes",
        options.repeat,
        options.jobs or settings.concurrency,
        root,
    )


# A key shorter than this is a placeholder (`EMPTY`, `x`) that local servers ignore, not a
# secret: replacing it everywhere would corrupt the output and the cassettes (`k` in `tokens`).
SHORTEST_SECRET = 8


def _redacted(text: str, secret: str | None) -> str:
    """`text` without the API key, should a server or an SDK have echoed it."""
    if secret is None or len(secret) < SHORTEST_SECRET:
        return text
    return text.replace(secret, "[redacted]")


def _run(
    tests: Sequence[ir.Test], project: ir.Project, client: Client, plan: Plan
) -> list[TestResult]:
    from sigspec.commands.test.build import kwargs
    from sigspec.commands.test.live import body_builder, callback
    from sigspec.commands.test.run import (
        Call,
        clashes,
        clashing,
        execute,
        prepare,
        reserved_name,
        test_id,
    )

    body = body_builder(plan.endpoint, client)
    live = callback(plan.endpoint, client) if plan.mode != "replay" else None
    failure = client.runtime["_client"].JsonEnforcementError
    shared = clashes(project.tests, plan)  # all the project's: a -k filter must not hide one
    prepared: list[Prepared] = []
    for test in tests:
        if test_id(test) in shared:
            prepared.append(clashing(test, shared[test_id(test)], plan))
            continue
        if (refused := reserved_name(test)) is not None:
            prepared.append(refused)
            continue
        signature = project.signature(test.signature)
        assert signature is not None  # the checker keeps only tests of known signatures
        function = client.function(signature)
        parse = client.parser(function) if signature.mode == "json" else None
        call = Call(function, kwargs(signature, test.args), parse, failure)
        prepared.append(prepare(test, call, plan, body, live))
    runs = execute(prepared, plan.jobs)
    return [_finished(p, r, plan) for p, r in zip(prepared, runs, strict=True)]


def _finished(prepared: Prepared, runs: list[RunResult], plan: Plan) -> TestResult:
    """The test's result; with `--record`, its cassette written (unless a run could not
    reach the model: the cassette it has is kept)."""
    from sigspec.commands.test.run import judged

    if prepared.done is not None:
        return prepared.done
    result = judged(prepared, runs)
    if plan.mode != "record":
        return result
    if any(r.outcome == "error" for r in runs):
        return replace(result, notes=("cassette not written: a run could not reach the model",))
    try:
        return replace(result, notes=(_record(prepared, plan),))
    except OSError as exc:  # a folder where the file goes, a read-only folder, a full disk
        from sigspec.commands.test.run import cassette_path
        from sigspec.compiler.paths import display_path

        shown = display_path(cassette_path(prepared.test, plan))
        why = exc.strerror or type(exc).__name__
        reason = f"its cassette {shown} could not be written ({why}): the runs were not kept"
        return replace(result, outcome="error", reason=reason)


def _record(prepared: Prepared, plan: Plan) -> str:
    from sigspec.commands.test import cassette as tape
    from sigspec.commands.test.run import cassette_path
    from sigspec.compiler.paths import display_path

    test = prepared.test
    header = tape.Header(
        test.name,
        test.origin.source.path if test.origin else "",
        test.signature,
        plan.endpoint.provider,
        plan.endpoint.model,
    )
    turns = [turn for recorder in prepared.recorders for turn in recorder.turns]
    kept = tape.kept_latencies(turns, prepared.old)
    path = cassette_path(test, plan)
    fresh = tape.Cassette(header, kept)
    text = _redacted(tape.dumps(fresh), plan.endpoint.api_key)
    if prepared.old is not None and tape.dumps(prepared.old) == text:
        return f"cassette unchanged: {display_path(path)}"
    tape.write_text(path, text)
    return f"cassette written: {display_path(path)}"
