"""`sigspec compile` (and `--watch`): configuration, loading, emitting, and the output.

A command: it reads and writes files and returns exit codes (0 clean, 1 findings, 2 usage or
configuration), so that the command line stays a thin argument parser.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from sigspec.commands import RootedReport
from sigspec.compiler.config import Config, ConfigError, load_config, project_root
from sigspec.compiler.output import OutputError
from sigspec.diagnostics.words import counted


@dataclass(frozen=True)
class Request:
    paths: tuple[Path, ...]
    out: Path | None
    targets: tuple[str, ...]
    check: bool = False
    clean: bool = False
    providers: tuple[str, ...] = ()  # `--provider`: overrides the configuration's choice
    quiet: bool = False  # no summary lines (the report leaves the warnings out)


@dataclass(frozen=True)
class Plan:
    roots: tuple[Path, ...]
    out: Path
    targets: tuple[str, ...]
    options: dict[str, dict[str, Any]]
    root: Path  # the project root: every path shown or recorded is relative to it
    config: Config
    providers: tuple[str, ...] | None  # None: no choice made (every provider, summed up)


def plan(request: Request) -> Plan:
    config = load_config(Path.cwd())
    roots = request.paths or config.sources or (config.root,)
    out = request.out or config.out or Path("build")
    providers = request.providers or config.providers
    options = config.options
    if providers is not None:  # the providers target writes the chosen ones' fragments
        table = {**options.get("providers", {}), "providers": list(providers)}
        options = {**options, "providers": table}
    return Plan(
        tuple(roots),
        out,
        request.targets or config.targets,
        options,
        project_root(config, roots),
        config,
        providers,
    )


def run(request: Request, report: RootedReport) -> int:
    try:
        p = plan(request)
        return _run(request, p, report)
    except (ConfigError, OutputError) as exc:
        click.echo(f"error: {exc}", err=True)
        return 2


def _fingerprint(p: Plan) -> dict[str, Any]:
    """The configuration as the manifest records it."""
    from sigspec.emit.registry import config_record, selected

    return config_record(selected(p.targets), p.options)


def _run(request: Request, p: Plan, report: RootedReport) -> int:
    from sigspec.compiler import fresh, output
    from sigspec.compiler.paths import discover

    roots = discover(p.roots)
    output.guard(p.out, roots)
    if request.clean:
        output.recover(p.out)  # the owned files to delete may be in a folder left beside it
        cleaned = output.clean(p.out)
        removed = cleaned.removed
        click.echo(f"removed {counted(removed, 'file')} from {p.out}", err=True)
        for rel in cleaned.kept:
            click.echo(f"kept {p.out / rel}: not the file sigspec wrote there", err=True)
        return 0
    if not roots:
        raise ConfigError("no .sig files found in " + ", ".join(str(r) for r in p.roots))
    if not request.check:
        output.recover(p.out)  # what a killed run left beside the folder, before anything else
    if not request.check and fresh.is_fresh(p.out, p.roots, p.root, _fingerprint(p)):
        _say(request, f"{p.out} is up to date")
        return 0
    from sigspec.compiler.findings import judge
    from sigspec.compiler.generate import compile_project
    from sigspec.compiler.project import load
    from sigspec.diagnostics import has_errors

    loaded = load(roots, root=p.root)
    chosen = p.providers is not None
    front = judge((*p.config.warnings, *loaded.diagnostics), p.config.severity, chosen=chosen)
    if has_errors(front):
        report(front, p.root)
        return 1
    sources = [p.root / s.path for s in loaded.sources]
    inputs = fresh.inputs(sources, p.root)
    from sigspec.infra.cache import user_cache

    result = compile_project(
        loaded.project, p.targets, p.options, inputs=inputs, memo=user_cache().memo
    )
    from sigspec.compiler import suppress
    from sigspec.diagnostics import Phase

    found = suppress.apply(
        result.diagnostics, loaded.suppressions, phases=frozenset({Phase.COMPILE})
    )
    everything = judge(
        (*p.config.warnings, *loaded.diagnostics, *found), p.config.severity, chosen=chosen
    )
    report(everything, p.root)
    if not result.ok or has_errors(everything):
        return 1
    if request.check:
        return _check(p.out, result.files, request)
    changed = output.write(p.out, result.files)
    fresh.written(p.out, [a.path for a in result.files])
    _say(request, f"wrote {counted(len(result.files), 'file')} to {p.out} ({changed} changed)")
    return 0


def _say(request: Request, text: str) -> None:
    if not request.quiet:
        click.echo(text, err=True)


def _check(out: Path, files: Sequence[Any], request: Request) -> int:
    from sigspec.compiler.output import drift, interrupted
    from sigspec.compiler.paths import display_path

    if interrupted(out):  # `out` may be missing or lack the user's newest files: no diff
        click.echo(
            f"{display_path(out)}: an earlier compile was interrupted while replacing the "
            "output; run `sigspec compile` to repair it",
            err=True,
        )
        return 1
    found = drift(out, files)
    for label, paths in (
        ("stale", found.stale),
        ("missing", found.missing),
        ("orphaned", found.orphaned),
    ):
        for rel in paths:
            click.echo(f"{label}: {display_path(out / rel)}")
    if found.clean:
        _say(request, f"{display_path(out)} is up to date")
        return 0
    click.echo(f"{display_path(out)} is not up to date; run `sigspec compile`", err=True)
    return 1


def _snapshot(request: Request) -> dict[str, tuple[int, int]]:
    """What a change is measured against: each source file's and config file's stat."""
    from sigspec.compiler.config import find_config
    from sigspec.compiler.paths import discover

    try:
        p = plan(request)
    except ConfigError:
        p = None
    files = list(discover(p.roots)) if p is not None else []
    found = find_config(Path.cwd().resolve()) if p is not None else None
    if found is not None:
        files.append(found[0])
    out: dict[str, tuple[int, int]] = {}
    for path in files:
        try:
            st = path.stat()
        except OSError:
            continue
        out[str(path)] = (st.st_mtime_ns, st.st_size)
    return out


def watch(request: Request, report: RootedReport, *, interval: float) -> int:
    """Compile now and again after every change, until interrupted. Never stops on a broken
    file or configuration: the problem is reported and the next change tried."""
    import time
    import traceback

    seen: dict[str, tuple[int, int]] | None = None
    try:
        while True:
            now = _snapshot(request)
            if now != seen:
                seen = now
                try:
                    code = run(request, report)
                except Exception:  # a bug in sigspec: show it, keep watching
                    traceback.print_exc()
                    code = 70
                click.echo(f"[watch] compiled (exit {code}); waiting for changes", err=True)
            time.sleep(interval)
    except KeyboardInterrupt:
        return 0
