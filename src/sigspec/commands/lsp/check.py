"""Checking one open document: the same library call as `sigspec lint`, over the open buffers.

Free of pygls: a check runs off the server's event loop on a `Snapshot` taken on it, so that
edits arriving meanwhile cannot change the texts under it.
"""

from __future__ import annotations

import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sigspec.compiler.config import Config, ConfigError, load_config, own_files
from sigspec.compiler.findings import apply_severity
from sigspec.compiler.paths import display_path
from sigspec.compiler.project import load
from sigspec.diagnostics import Diagnostic, Severity, codes
from sigspec.diagnostics.source import SourceFile, Span

INTERNAL_ERROR = "internal-error"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One document to check and every open buffer, as they were when its check started."""

    path: Path  # resolved
    text: str
    overlay: Mapping[Path, str]  # resolved path -> buffer text, this document's included
    workspace: Path | None


@dataclass(frozen=True, slots=True)
class Checked:
    """A document's own findings, and what a change to which file could change them."""

    diagnostics: tuple[Diagnostic, ...]
    root: Path  # the project root: paths in the diagnostics are relative to it
    # Every file the check read (the document's import closure); None when unknown.
    reads: frozenset[Path] | None
    # An import named a file that does not exist: creating any file could resolve it.
    unresolved: bool = False


def configured(path: Path) -> Config | None:
    """The configuration whose folder holds the file, if any."""
    try:
        config = load_config(path.parent)
    except ConfigError:  # a broken configuration: `sigspec lint` reports it, not the editor
        return None
    if config.path is not None and path.is_relative_to(config.root):
        return config
    return None


def project_root(path: Path, workspace: Path | None) -> Path:
    """The project root of a file, as the command line finds it: the folder of the nearest
    configuration above it; else the workspace folder holding the file, else its folder."""
    config = configured(path)
    if config is not None:
        return config.root
    if workspace is not None and path.is_relative_to(workspace):
        return workspace
    return path.parent


def project_sources(path: Path, root: Path) -> tuple[Path, ...]:
    """The files and folders that make up the project of the file at `path` under `root`:
    the configuration's `sources` when it names them, else the files below the root but not
    in another project's folder (`own_files`)."""
    config = configured(path)
    if config is not None and config.sources:
        return config.sources
    return own_files(root)


def lint_document(snapshot: Snapshot) -> Checked:
    """The document's findings from checking it and its imports, buffers over the disk."""
    root = project_root(snapshot.path, snapshot.workspace)
    shown = display_path(snapshot.path, root)
    result = load([snapshot.path], root=root, overlay=snapshot.overlay, parallel=False)
    config = configured(snapshot.path)
    found = apply_severity(result.diagnostics, config.severity if config is not None else {})
    return Checked(
        diagnostics=tuple(d for d in found if d.path == shown),  # `[severity]` as lint
        root=root,
        # Resolved: a file under an import root is named `../shared/x.sig` from the root.
        reads=frozenset((root / source.path).resolve() for source in result.sources),
        unresolved=any(d.code == codes.IMPORT_NOT_FOUND.name for d in result.diagnostics),
    )


def internal_error(snapshot: Snapshot, error: BaseException, version: str) -> Diagnostic:
    """What the editor shows on a document whose check failed: that sigspec is at fault and
    how to report it. The exception's message is left out: it may quote other files."""
    return Diagnostic(
        code=INTERNAL_ERROR,
        severity=Severity.ERROR,
        message=(
            f"internal error in sigspec {version} while checking this file "
            f"({_kind(error)}); this is a bug in sigspec, not in the file"
        ),
        source=SourceFile(snapshot.path.name, snapshot.text),
        span=Span(0, 0),
        hints=(
            "please report it to the sigspec maintainers with this file and the language "
            "server's log; other files are still checked",
        ),
    )


def failure_log(snapshot: Snapshot, error: BaseException) -> str:
    """For the server's log: where in sigspec the check failed. Frames and the exception's
    type only; its message and the texts it came from stay out."""
    stack = traceback.TracebackException.from_exception(error).stack.format()
    return (
        f"checking {snapshot.path} failed with {_kind(error)}; "
        f"traceback (most recent call last):\n{''.join(stack)}"
    )


def _kind(error: BaseException) -> str:
    """The exception's type, qualified unless built in (`re.error`, `RecursionError`)."""
    kind = type(error)
    module = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
    return f"{module}{kind.__qualname__}"
