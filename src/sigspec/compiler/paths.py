"""Finding .sig files and naming them: light enough for the up-to-date check of `compile`."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def display_path(path: Path, root: Path | None = None) -> str:
    """Relative to `root` (the working directory by default) when below it, so that paths in
    messages and generated headers are the same on every machine."""
    base = (root or Path.cwd()).resolve()
    full = path.resolve()
    return full.relative_to(base).as_posix() if full.is_relative_to(base) else full.as_posix()


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


__all__ = ["discover", "display_path"]
