"""`sigspec schema FILE.sig:NAME`: one signature's JSON Schema or provider fragment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sigspec.commands import Report


def show_schema(spec: str, *, want_input: bool, provider: str | None, report: Report) -> int:
    from sigspec.compiler.project import load
    from sigspec.emit.jsonschema import input_schema, output_schema

    file, sep, name = spec.rpartition(":")
    if not sep or not file or not name:
        click.echo("error: expected FILE.sig:NAME", err=True)
        return 2
    loaded = load([Path(file)])
    if loaded.has_errors:
        report(loaded.diagnostics)
        return 1
    sig = loaded.project.signature(name) or next(
        (t for t in loaded.project.tools if t.name == name), None
    )
    if sig is None:
        click.echo(f"error: no signature or tool `{name}` in {file}", err=True)
        return 2
    if provider is not None:
        return _show_fragment(sig, loaded.project, provider, report)
    if sig.kind == "tool" or want_input:
        click.echo(json.dumps(input_schema(sig, loaded.project), indent=2, ensure_ascii=False))
    else:
        click.echo(json.dumps(output_schema(sig, loaded.project), indent=2, ensure_ascii=False))
    return 0


def _show_fragment(sig: Any, project: Any, provider: str, report: Report) -> int:
    from sigspec.emit.providers import fragment

    body, diagnostics = fragment(sig, project, provider)
    report(diagnostics)
    if body is None:
        return 1
    click.echo(json.dumps(body, indent=2, ensure_ascii=False))
    return 0
