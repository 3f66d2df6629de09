"""`sigspec explain CODE`: the long explanation of a diagnostic code, with an example."""

from __future__ import annotations

import click


def run(code: str) -> int:
    from sigspec.diagnostics.codes import CODES
    from sigspec.diagnostics.explain import explain_text
    from sigspec.diagnostics.suggest import did_you_mean

    entry = CODES.get(code.removeprefix("error[").removesuffix("]"))
    if entry is None:
        hint = " ".join(did_you_mean(code, CODES))
        raise click.UsageError(f"unknown diagnostic code `{code}`. {hint}".strip())
    click.echo(explain_text(entry), nl=False)
    return 0
