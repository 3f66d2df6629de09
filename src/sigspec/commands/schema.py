"""`sigspec schema FILE.sig:NAME`: one signature's JSON Schema or provider fragment."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from sigspec.commands import Report, load_named

if TYPE_CHECKING:
    from sigspec.lower.views import Lowered
    from sigspec.semantics.ir import Signature


def show_schema(spec: str, *, want_input: bool, provider: str | None, report: Report) -> int:
    from sigspec.lower.views import Lowered

    found = load_named(spec, report, tools=True)
    if isinstance(found, int):
        return found
    loaded, sig = found
    lowered = Lowered(loaded.project)
    if provider is not None:
        return _show_fragment(sig, lowered, provider, report)
    schema = lowered.input_schema(sig) if sig.kind == "tool" or want_input else None
    click.echo(json.dumps(schema or lowered.output_schema(sig), indent=2, ensure_ascii=False))
    return 0


def _show_fragment(sig: Signature, lowered: Lowered, provider: str, report: Report) -> int:
    if sig.kind == "signature" and sig.mode != "json":
        click.echo(
            f"error: `{sig.name}` is a {sig.mode}-mode signature: no JSON is asked for", err=True
        )
        return 2
    fragment = lowered.fragment(sig, provider)
    report(fragment.diagnostics)
    if not fragment.available:
        return 1
    click.echo(json.dumps(fragment.entry, indent=2, ensure_ascii=False))
    return 0
