"""File handling for `sigspec fmt`: read, format, and write back atomically or report."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from sigspec.compiler.paths import display_path
from sigspec.compiler.project import read_source
from sigspec.diagnostics import Diagnostic
from sigspec.diagnostics.render import human
from sigspec.diagnostics.source import SourceFile
from sigspec.infra.atomic import write_atomic
from sigspec.syntax.fmt.run import format_source


def _report(diagnostics: Sequence[Diagnostic], color: bool) -> None:
    text = human.render(diagnostics, color)
    if text:
        click.echo(text, nl=False, err=True)


def format_files(files: Sequence[Path], *, check: bool, diff: bool, color: bool) -> int:
    failed = changed = 0
    for path in files:
        source, diags = read_source(path)
        if source is None:
            _report(diags, color)
            failed += 1
            continue
        result = format_source(source)
        if result.text is None:
            _report(result.diagnostics, color)
            failed += 1
            continue
        if result.text == source.text:
            continue
        changed += 1
        if diff:
            click.echo(
                "".join(
                    difflib.unified_diff(
                        source.text.splitlines(keepends=True),
                        result.text.splitlines(keepends=True),
                        f"a/{source.path}",
                        f"b/{source.path}",
                    )
                ),
                nl=False,
            )
        elif check:
            click.echo(f"would reformat {display_path(path)}")
        else:
            write_atomic(path, result.text.encode("utf-8"))
            click.echo(f"reformatted {display_path(path)}")
    verb = "would be reformatted" if check or diff else "reformatted"
    click.echo(
        f"{changed} file{'s' if changed != 1 else ''} {verb}, "
        f"{len(files) - changed - failed} unchanged, {failed} not parsed",
        err=True,
    )
    if failed or ((check or diff) and changed):
        return 1
    return 0


def format_stdin() -> int:
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        click.echo("error: standard input is not valid UTF-8", err=True)
        return 1
    result = format_source(SourceFile("<stdin>", text))
    if result.text is None:
        _report(result.diagnostics, False)
        return 1
    click.echo(result.text, nl=False)
    return 0
