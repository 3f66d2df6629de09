"""`sigspec explain CODE`: the long explanation of a diagnostic code, with an example."""

from __future__ import annotations

import click


def run(code: str) -> int:
    from sigspec.diagnostics.codes import CODES
    from sigspec.diagnostics.suggest import did_you_mean

    entry = CODES.get(code.removeprefix("error[").removesuffix("]"))
    if entry is None:
        hint = " ".join(did_you_mean(code, CODES))
        raise click.UsageError(f"unknown diagnostic code `{code}`. {hint}".strip())
    click.echo(f"{entry.name} ({entry.severity.value}): {entry.summary}\n")
    click.echo(click.wrap_text(entry.explanation, width=88) + "\n")
    if entry.example:
        click.echo("Example:\n")
        click.echo("".join(f"    {line}\n" for line in entry.example.splitlines()))
    return 0
