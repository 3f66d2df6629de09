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


def run(
    paths: tuple[Path, ...],
    report: Report,
    *,
    summary: bool,
    providers: tuple[str, ...] = (),
) -> int:
    """`providers` (`--provider`) overrides the configuration's choice; the provider limits
    of the chosen providers (of every provider, when none is chosen) are checked as
    `compile` checks them."""
    from sigspec.compiler import suppress
    from sigspec.compiler.config import ConfigError, load_config, project_root
    from sigspec.compiler.findings import judge, provider_limits
    from sigspec.compiler.paths import discover
    from sigspec.compiler.project import load
    from sigspec.diagnostics import has_errors
    from sigspec.lower.providers import NAMES

    roots = paths or (Path("."),)
    if not discover(roots):
        raise click.UsageError("no .sig files found in " + ", ".join(str(p) for p in roots))
    try:
        config = load_config(Path.cwd())
        root = project_root(config, roots)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    result = load(roots, root=root)
    chosen = providers or config.providers
    front = (*config.warnings, *result.diagnostics)
    found = judge(front, config.severity, chosen=True)
    if not has_errors(found):
        limits = provider_limits(result.project, chosen or NAMES)
        # Suppressed like compile's; never judged unused here (compile judges them).
        limits = suppress.apply(limits, result.suppressions, phases=frozenset())
        found = judge((*front, *limits), config.severity, chosen=True)
    report(found)
    if summary:
        click.echo(_summary(found, len(result.sources)), err=True)
    return 1 if has_errors(found) else 0
