"""The commands behind `sigspec SUBCOMMAND`: each reads and writes files, reports through the
`Report` it is given, and returns the exit code (0 clean, 1 findings, 2 usage or config)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a command that reports nothing must not load the diagnostics machinery
    from sigspec.compiler.project import LoadResult
    from sigspec.diagnostics import Diagnostic
    from sigspec.semantics.ir import Signature

Report = Callable[[Sequence["Diagnostic"]], None]
# A report told the folder the findings' paths are relative to (a SARIF log names files from
# the root of the repository holding it): `lint` and `compile`, which find the project root.
RootedReport = Callable[[Sequence["Diagnostic"], Path], None]


def load_named(
    spec: str, report: Report, *, tools: bool = False
) -> tuple[LoadResult, Signature] | int:
    """`FILE.sig:NAME`: the loaded project and its signature (or tool) NAME, or the exit
    code after saying what is wrong (1: the file has errors; 2: usage)."""
    import click

    from sigspec.compiler.config import ConfigError, load_config, project_root
    from sigspec.compiler.findings import judge
    from sigspec.compiler.project import load
    from sigspec.diagnostics import has_errors

    file, sep, name = spec.rpartition(":")
    if not sep or not file or not name:
        click.echo("error: expected FILE.sig:NAME", err=True)
        return 2
    try:
        config = load_config(Path.cwd())
        root = project_root(config, [Path(file)])
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    loaded = load([Path(file)], root=root)
    front = judge(loaded.diagnostics, config.severity, chosen=True)  # `[severity]` applied
    if has_errors(front):
        report(front)
        return 1
    found = loaded.project.signature(name)
    if found is None and tools:
        found = next((t for t in loaded.project.tools if t.name == name), None)
    if found is None:
        kind = "signature or tool" if tools else "signature"
        click.echo(f"error: no {kind} `{name}` in {file}", err=True)
        return 2
    return loaded, found
