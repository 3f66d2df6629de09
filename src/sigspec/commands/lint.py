"""`sigspec lint`: check .sig files (and the files they import) for errors."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sigspec.commands import Report

if TYPE_CHECKING:
    from sigspec.diagnostics import Diagnostic


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _summary(diagnostics: Sequence[Diagnostic], files: int) -> str:
    errors = sum(1 for d in diagnostics if d.is_error)
    warnings = len(diagnostics) - errors
    counts = f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
    return f"{_plural(files, 'file')} checked: {counts}"


def run(paths: tuple[Path, ...], report: Report, *, summary: bool) -> int:
    from sigspec.compiler.config import ConfigError, load_config, project_root
    from sigspec.compiler.paths import discover
    from sigspec.compiler.project import load

    roots = paths or (Path("."),)
    if not discover(roots):
        raise click.UsageError("no .sig files found in " + ", ".join(str(p) for p in roots))
    try:
        root = project_root(load_config(Path.cwd()), roots)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    result = load(roots, root=root)
    report(result.diagnostics)
    if summary:
        click.echo(_summary(result.diagnostics, len(result.sources)), err=True)
    return 1 if result.has_errors else 0
