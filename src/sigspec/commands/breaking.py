"""`sigspec breaking OLD NEW` and `sigspec breaking [PATHS] --against GIT_REF` (CLI layer)."""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

import click

from sigspec.commands import Report
from sigspec.compiler.config import Config, ConfigError, load_config, project_root
from sigspec.compiler.paths import common_root
from sigspec.diagnostics.words import counted


def _stderr(text: str) -> None:
    click.echo(text, err=True)


def run(
    paths: tuple[Path, ...],
    ref: str | None,
    report: Report,
    say: Callable[[str], None] = _stderr,
) -> int:
    """`say` prints the summary line (nothing with `--quiet`)."""
    try:
        config = load_config(Path.cwd())
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    if ref is None:
        if len(paths) != 2:
            click.echo(
                "error: give OLD and NEW (files or folders), or PATHS --against GIT_REF", err=True
            )
            return 2
        old_root, new_root = common_root([paths[0]]), common_root([paths[1]])
        return _compare(
            [paths[0]], [paths[1]], (old_root, new_root), config, report=report, say=say
        )
    current = paths or config.sources or (config.root,)
    try:
        root = project_root(config, current)
        top = Path(_git(Path.cwd(), "rev-parse", "--show-toplevel").decode().strip())
        archive = _git(top, "archive", "--format=tar", ref)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    except (OSError, subprocess.CalledProcessError) as exc:
        stderr = getattr(exc, "stderr", b"") or b""
        click.echo(
            f"error: cannot read {ref!r} from git: {stderr.decode().strip() or exc}", err=True
        )
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")  # the data filter refuses links and escapes
        olds = [Path(tmp) / p.resolve().relative_to(top) for p in current]
        existing = [p for p in olds if p.exists()]
        roots = (Path(tmp) / root.relative_to(top), root)
        return _compare(existing, list(current), roots, config, report=report, say=say)


def _git(cwd: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True).stdout


def _compare(
    old: list[Path],
    new: list[Path],
    roots: tuple[Path, Path],
    config: Config,
    *,
    report: Report,
    say: Callable[[str], None],
) -> int:
    """Compare the project at `old` (below the root roots[0]) with the one at `new`."""
    from sigspec.compiler.breaking import compare
    from sigspec.compiler.findings import judge
    from sigspec.compiler.project import load
    from sigspec.diagnostics import has_errors
    from sigspec.semantics.ir import Project

    before = load(old, root=roots[0]) if old else None
    after = load(new, root=roots[1])
    for label, loaded in (("old", before), ("new", after)):
        if loaded is not None and loaded.has_errors:
            click.echo(f"error: the {label} version has errors:", err=True)
            report(loaded.diagnostics)
            return 1
    project = before.project if before is not None else Project((), {}, (), (), ())
    changes = [d for d in compare(project, after.project) if d.code not in config.breaking_ignore]
    found = judge(changes, config.severity, chosen=True)
    report(found)
    say(counted(len(found), "breaking change"))
    return 1 if has_errors(found) else 0
