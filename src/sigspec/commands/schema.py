"""`sigspec schema FILE.sig:NAME`: one signature's JSON Schema or provider fragments.

The JSON is the data, on standard output; diagnostics go to the report (standard error).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from sigspec.commands import Report, load_named

if TYPE_CHECKING:
    from sigspec.compiler.project import LoadResult
    from sigspec.diagnostics import Diagnostic
    from sigspec.lower.views import Lowered
    from sigspec.semantics.ir import Signature


def show_schema(spec: str, *, want_input: bool, providers: Sequence[str], report: Report) -> int:
    """`providers`: one prints its fragment entry; several, an object of entries by name."""
    from sigspec.lower.views import Lowered

    found = load_named(spec, report, tools=True)
    if isinstance(found, int):
        return found
    loaded, sig = found
    lowered = Lowered(loaded.project)
    if providers:
        return _show_fragments(loaded, sig, lowered, providers, report)
    schema = lowered.input_schema(sig) if sig.kind == "tool" or want_input else None
    click.echo(json.dumps(schema or lowered.output_schema(sig), indent=2, ensure_ascii=False))
    return 0


def _show_fragments(
    loaded: LoadResult,
    sig: Signature,
    lowered: Lowered,
    providers: Sequence[str],
    report: Report,
) -> int:
    from pathlib import Path

    from sigspec.compiler import suppress
    from sigspec.compiler.config import load_config
    from sigspec.compiler.findings import judge
    from sigspec.diagnostics import has_errors

    if sig.kind == "signature" and sig.mode != "json":
        click.echo(
            f"error: `{sig.name}` is a {sig.mode}-mode signature: no JSON is asked for", err=True
        )
        return 2
    config = load_config(Path.cwd())  # `load_named` has read it: it is well formed
    entries: dict[str, Any] = {}
    found: list[Diagnostic] = []
    for name in providers:
        fragment = lowered.fragment(sig, name)
        found += fragment.diagnostics
        if fragment.available:
            entries[name] = fragment.entry
    found = suppress.apply(found, loaded.suppressions, phases=frozenset())
    judged = judge((*config.warnings, *found), config.severity, chosen=True)
    report(judged)
    if len(entries) < len(providers):
        return 1
    shown = entries[providers[0]] if len(providers) == 1 else entries
    click.echo(json.dumps(shown, indent=2, ensure_ascii=False))
    return 1 if has_errors(judged) else 0
