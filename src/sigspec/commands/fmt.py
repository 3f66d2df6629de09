"""File handling for `sigspec fmt`: read, format, prove, and write back atomically or report.

Before any file is written (or reported as one that would change), the formatted texts are
proved to mean what the files meant: the project is loaded as it is and as it would be, and
every file's declarations and diagnostics must be the same (`compiler/meaning.py`). A file
whose reprint fails that proof is left as it is, with an error: that is a bug in `fmt`.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sigspec.compiler.paths import display_path
from sigspec.compiler.project import read_source
from sigspec.diagnostics import Diagnostic
from sigspec.diagnostics.render import human
from sigspec.diagnostics.source import SourceFile
from sigspec.diagnostics.words import counted
from sigspec.infra.atomic import write_atomic
from sigspec.syntax.fmt.run import format_source
from sigspec.syntax.limits import SourceLimits

if TYPE_CHECKING:
    from sigspec.compiler.meaning import FileMeaning

STDIN_NAME = "stdin.sig"  # where standard input's imports are looked for: the working folder


@dataclass(frozen=True, slots=True)
class Change:
    path: Path  # resolved
    before: str
    after: str


def _report(diagnostics: Sequence[Diagnostic], color: bool) -> None:
    text = human.render(diagnostics, color)
    if text:
        click.echo(text, nl=False, err=True)


def _refuse(shown: str, reason: str) -> None:
    click.echo(
        f"error: {shown}: not reformatted, left as it is: {reason}. "
        "This is a bug in sigspec fmt; please report it with the file.",
        err=True,
    )


def _limits() -> SourceLimits | int:
    """The configuration's source limits (as `lint` applies them), or exit code 2."""
    from sigspec.compiler.config import ConfigError, load_config

    try:
        return load_config(Path.cwd()).source_limits
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2


def format_files(files: Sequence[Path], *, check: bool, diff: bool, color: bool) -> int:
    limits = _limits()
    if isinstance(limits, int):
        return limits
    failed = 0
    texts: dict[Path, str] = {}
    changes: list[Change] = []
    for path in files:
        source, diags = read_source(path, limits=limits)
        if source is None:
            _report(diags, color)
            failed += 1
            continue
        texts[path.resolve()] = source.text
        result = format_source(source, limits)
        if result.refused is not None:
            _refuse(display_path(path), result.refused)
            failed += 1
        elif result.text is None:
            _report(result.diagnostics, color)
            failed += 1
        elif result.text != source.text:
            changes.append(Change(path.resolve(), source.text, result.text))
    refused = prove(changes, texts)
    for change in changes:
        shown = display_path(change.path)
        if change.path in refused:
            _refuse(shown, refused[change.path])
        elif diff:
            click.echo(
                "".join(
                    difflib.unified_diff(
                        change.before.splitlines(keepends=True),
                        change.after.splitlines(keepends=True),
                        f"a/{shown}",
                        f"b/{shown}",
                    )
                ),
                nl=False,
            )
        elif check:
            click.echo(f"would reformat {shown}")
        else:
            write_atomic(change.path, change.after.encode("utf-8"))
            click.echo(f"reformatted {shown}")
    changed = len(changes) - len(refused)
    failed += len(refused)
    verb = "would be reformatted" if check or diff else "reformatted"
    click.echo(
        f"{counted(changed, 'file')} {verb}, "
        f"{len(files) - changed - failed} unchanged, {failed} not parsed or refused",
        err=True,
    )
    if failed or ((check or diff) and changed):
        return 1
    return 0


def prove(changes: Sequence[Change], texts: Mapping[Path, str]) -> dict[Path, str]:
    """The changes that would alter what some file means, each with what it alters.

    `texts` holds every file as read (the changed ones and the others), so that the project
    is loaded from what was formatted rather than read again. All changes are proved at
    once; only when that fails is each tried alone, to name the file at fault.
    """
    if not changes:
        return {}
    before_texts = {**texts, **{c.path: c.before for c in changes}}
    paths = sorted(before_texts)
    before = _meanings(paths, before_texts)
    if isinstance(before, str):
        return {c.path: before for c in changes}
    after = _meanings(paths, {**before_texts, **{c.path: c.after for c in changes}})
    if not isinstance(after, str) and not _differences(before, after):
        return {}
    refused: dict[Path, str] = {}
    for change in changes:
        alone = _meanings(paths, {**before_texts, change.path: change.after})
        problems = [alone] if isinstance(alone, str) else _differences(before, alone)
        if problems:
            refused[change.path] = "the formatted text changes what it means: " + "; ".join(
                problems
            )
    # Changes that pass alone but not together: refuse them all rather than guess.
    return refused or {c.path: "the formatted files change what they mean" for c in changes}


def _differences(before: Mapping[str, FileMeaning], after: Mapping[str, FileMeaning]) -> list[str]:
    from sigspec.compiler.meaning import difference

    paths = sorted({*before, *after})
    return [f"in {p}, {d}" for p in paths if (d := difference(before.get(p), after.get(p)))]


def _meanings(paths: Sequence[Path], texts: Mapping[Path, str]) -> dict[str, FileMeaning] | str:
    """Every file's meaning, loading `texts` in place of the files; or why it failed."""
    from sigspec.compiler.config import ConfigError, load_config, project_root
    from sigspec.compiler.meaning import meanings
    from sigspec.compiler.paths import common_root
    from sigspec.compiler.project import load

    try:
        root = project_root(load_config(Path.cwd()), paths)
    except ConfigError:  # fmt needs no configuration; the common folder will do
        root = common_root(paths)
    try:
        return meanings(load(paths, root=root, overlay=texts))
    except Exception as exc:  # a checker bug must not let an unproved text through
        return f"the check of the formatted text failed ({type(exc).__name__}: {exc})"


def format_stdin() -> int:
    limits = _limits()
    if isinstance(limits, int):
        return limits
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        click.echo("error: standard input is not valid UTF-8", err=True)
        return 1
    result = format_source(SourceFile("<stdin>", text), limits)
    if result.refused is not None:
        _refuse("<stdin>", result.refused)
        return 1
    if result.text is None:
        _report(result.diagnostics, False)
        return 1
    if result.text != text:
        path = (Path.cwd() / STDIN_NAME).resolve()
        refused = prove([Change(path, text, result.text)], {path: text})
        if refused:
            _refuse("<stdin>", refused[path])
            return 1
    click.echo(result.text, nl=False)
    return 0
