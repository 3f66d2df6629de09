"""File handling for `sigspec fmt`: read, format, and write back atomically or report."""

from __future__ import annotations

import difflib
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import click

from sigspec.diagnostics import Diagnostic
from sigspec.diagnostics.render import human
from sigspec.fmt.run import format_source
from sigspec.paths import display_path
from sigspec.project import read_source
from sigspec.source import SourceFile


def write_atomic(path: Path, text: str) -> None:
    """Replace a file's content in one step, keeping its permissions."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
            write_atomic(path, result.text)
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
