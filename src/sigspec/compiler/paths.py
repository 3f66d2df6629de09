"""Finding .sig files and naming them: light enough for the up-to-date check of `compile`.

Every path a user sees or a generated file records (diagnostics, module names, headers, the
manifest) is relative to the project root: the folder of the configuration file when there is
one (`compiler/config.py`), else the common folder of the paths given on the command line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path


def display_path(path: Path, root: Path | None = None) -> str:
    """Relative to `root` (the working directory by default) when below it, so that paths in
    messages and generated headers are the same on every machine."""
    base = (root or Path.cwd()).resolve()
    full = path.resolve()
    return full.relative_to(base).as_posix() if full.is_relative_to(base) else full.as_posix()


def common_root(paths: Sequence[Path]) -> Path:
    """The folder holding every given path (a folder holds itself, a file its folder);
    the working directory when none is given."""
    folders = [p.resolve() if p.is_dir() else p.resolve().parent for p in paths]
    if not folders:
        return Path.cwd().resolve()
    return Path(os.path.commonpath(folders))


def discover(paths: Iterable[Path], root: Path | None = None) -> list[Path]:
    """The .sig files named or found below the given folders, sorted, without hidden folders."""
    found: set[Path] = set()
    for path in paths:
        if path.is_dir():
            for candidate in path.rglob("*.sig"):
                rel = candidate.relative_to(path).parts
                if candidate.is_file() and not any(p.startswith(".") for p in rel[:-1]):
                    found.add(candidate.resolve())
        else:
            found.add(path.resolve())
    return sorted(found, key=lambda p: display_path(p, root))


__all__ = ["common_root", "discover", "display_path"]
