"""`sigspec lint`: check .sig files (and the files they import) for errors.

With `project=True` (`--project`, what the pre-commit hook runs) each given file is checked
with the whole project it belongs to: the project of the nearest configuration above it (its
`sources`, else its folder), or, without one, the working directory (the file's folder when
it lies outside). Names are project-global (a declaration collides with one in a file that
never imports it) and an importer of a renamed or deleted file is only found by reading it,
so checking the staged file and its imports alone would let such a change through.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from sigspec.commands import RootedReport
from sigspec.diagnostics.words import counted

if TYPE_CHECKING:
    from sigspec.compiler.config import Config
    from sigspec.diagnostics import Diagnostic
    from sigspec.diagnostics.source import SourceFile


@dataclass(frozen=True, slots=True)
class Checked:
    """What checking one project found, and how many files it read."""

    diagnostics: tuple[Diagnostic, ...]
    files: int


@dataclass(frozen=True, slots=True)
class Project:
    """One project to check: its configuration, its root, and what to load from it."""

    config: Config
    root: Path
    paths: tuple[Path, ...]


def _summary(diagnostics: Sequence[Diagnostic], files: int, *, shown: bool = True) -> str:
    errors = sum(1 for d in diagnostics if d.is_error)
    warnings = len(diagnostics) - errors
    counts = f"{counted(errors, 'error')}, {counted(warnings, 'warning')}"
    if warnings and not shown:
        counts += " (not shown: run `sigspec lint` without --warnings=summary to see them)"
    return f"{counted(files, 'file')} checked: {counts}"


def check(roots: Sequence[Path], root: Path, config: Config, providers: tuple[str, ...]) -> Checked:
    """The findings of one project's files `roots` (and what they import), judged by its
    configuration; the provider limits once the front end found no error."""
    from sigspec.compiler import suppress
    from sigspec.compiler.findings import judge, provider_limits
    from sigspec.compiler.project import load
    from sigspec.diagnostics import has_errors
    from sigspec.lower.providers import NAMES

    result = load(roots, root=root)
    chosen = providers or config.providers
    front = (*config.warnings, *result.diagnostics)
    found = judge(front, config.severity, chosen=True)
    if not has_errors(found):
        limits = provider_limits(result.project, chosen or NAMES)
        # Suppressed like compile's; never judged unused here (compile judges them).
        limits = suppress.apply(limits, result.suppressions, phases=frozenset())
        found = judge((*front, *limits), config.severity, chosen=True)
    return Checked(found, len(result.sources))


def projects(paths: Sequence[Path], cwd: Path) -> list[Project]:
    """The projects the given files and folders belong to, each once, in the order given;
    raises `ConfigError` for a configuration that cannot be read."""
    from sigspec.compiler.config import load_config, own_files
    from sigspec.compiler.paths import located

    found: dict[Path, Project] = {}
    configs: dict[Path, Config] = {}  # by folder: pre-commit passes many files of one
    for path in paths:
        full = path.resolve() if path.is_dir() else located(path)
        folder = full if path.is_dir() else full.parent
        config = configs.get(folder) or configs.setdefault(folder, load_config(folder))
        if config.path is not None and config.sources:
            root, whole = config.root, config.sources
        else:
            if config.path is not None:
                root = config.root
            else:
                root = cwd if full.is_relative_to(cwd) else (full if path.is_dir() else full.parent)
            whole = own_files(root)
        known = found.get(root)
        if known is None:
            found[root] = Project(config, root, (*whole, full))
        else:
            found[root] = dataclasses.replace(known, paths=(*known.paths, full))
    return list(found.values())


def rebased(diagnostics: Sequence[Diagnostic], prefix: str) -> list[Diagnostic]:
    """The diagnostics with every file named `prefix/NAME`: one report over several projects
    names each file unambiguously, from the working directory."""
    from sigspec.diagnostics.source import SourceFile

    if not prefix:
        return list(diagnostics)
    renamed: dict[int, SourceFile] = {}

    def moved(source: SourceFile) -> SourceFile:
        if id(source) not in renamed:
            renamed[id(source)] = SourceFile(f"{prefix}/{source.path}", source.text)
        return renamed[id(source)]

    out = []
    for d in diagnostics:
        labels = tuple(dataclasses.replace(label, source=moved(label.source)) for label in d.labels)
        source = moved(d.source) if d.source is not None else None
        out.append(dataclasses.replace(d, source=source, labels=labels))
    return out


@dataclass(frozen=True, slots=True)
class Found:
    """What a run found: its diagnostics, the folder their paths are relative to, how many
    files and projects it checked."""

    diagnostics: list[Diagnostic]
    root: Path
    files: int
    projects: int


def _check_projects(paths: tuple[Path, ...], providers: tuple[str, ...]) -> Found | int:
    """Every project of the given paths checked whole, or the exit code 2 after a
    configuration error."""
    from sigspec.compiler.config import ConfigError
    from sigspec.compiler.paths import display_path
    from sigspec.diagnostics import sort_diagnostics

    cwd = Path.cwd().resolve()
    try:
        found = projects(paths, cwd)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    diagnostics: list[Diagnostic] = []
    files = 0
    for project in found:
        checked = check(project.paths, project.root, project.config, providers)
        prefix = "" if len(found) == 1 else display_path(project.root, cwd)
        diagnostics += rebased(checked.diagnostics, "" if prefix == "." else prefix)
        files += checked.files
    root = found[0].root if len(found) == 1 else cwd
    return Found(list(sort_diagnostics(diagnostics)), root, files, len(found))


def _check_given(paths: tuple[Path, ...], providers: tuple[str, ...]) -> Found | int:
    """The given paths (and what they import) checked under the working directory's
    configuration, or the exit code 2 after a configuration error."""
    from sigspec.compiler.config import ConfigError, load_config, project_root

    try:
        config = load_config(Path.cwd())
        root = project_root(config, paths)
    except ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    checked = check(paths, root, config, providers)
    return Found(list(checked.diagnostics), root, checked.files, 1)


def run(
    paths: tuple[Path, ...],
    report: RootedReport,
    *,
    summary: bool,
    providers: tuple[str, ...] = (),
    project: bool = False,
    warnings: str = "show",
) -> int:
    """`providers` (`--provider`) overrides the configuration's choice; the provider limits
    of the chosen providers (of every provider, when none is chosen) are checked as
    `compile` checks them. `project` checks the whole project of each given file;
    `warnings="summary"` reports the errors only and counts the warnings in the summary."""
    from sigspec.compiler.paths import discover
    from sigspec.diagnostics import has_errors

    roots = paths or (Path("."),)
    if not discover(roots):
        raise click.UsageError("no .sig files found in " + ", ".join(str(p) for p in roots))
    done = _check_projects(roots, providers) if project else _check_given(roots, providers)
    if isinstance(done, int):
        return done
    found = done.diagnostics
    shown = warnings == "show"
    report(found if shown else [d for d in found if d.is_error], done.root)
    if summary:
        line = _summary(found, done.files, shown=shown)
        if done.projects > 1:
            line = line.replace(" checked:", f" in {done.projects} projects checked:", 1)
        click.echo(line, err=True)
    return 1 if has_errors(found) else 0
