"""Finding .sig files and naming them: light enough for the up-to-date check of `compile`.

Every path a user sees or a generated file records (diagnostics, module names, headers, the
manifest) is relative to the project root: the folder of the configuration file when there is
one (`compiler/config.py`), else the common folder of the paths given on the command line.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path


def display_path(path: Path, root: Path | None = None) -> str:
    """Relative to `root` (the working directory by default) when below it, so that paths in
    messages and generated headers are the same on every machine."""
    base = (root or Path.cwd()).resolve()
    full = path.resolve()
    return full.relative_to(base).as_posix() if full.is_relative_to(base) else full.as_posix()


def source_name(path: Path, root: Path) -> str:
    """A source file's name as diagnostics, generated code and the manifest show it: relative
    to the project root, with `..` for a file under an import root beside it (the same on
    every machine); absolute only where no relative path exists (another drive). An absolute
    path without `..` is taken as resolved: the loader passes thousands of those."""
    full = path if path.is_absolute() and ".." not in path.parts else path.resolve()
    if full.is_relative_to(root):
        return full.relative_to(root).as_posix()
    try:
        return Path(os.path.relpath(full, root)).as_posix()
    except ValueError:
        return full.as_posix()


def located(path: Path) -> Path:
    """`path` made absolute with its folders resolved but its own name kept: a link to a
    file stays a link, so that where it points can be checked (`admit`)."""
    full = path.absolute()
    return full.parent.resolve() / full.name


def admit(path: Path, allowed: Sequence[Path]) -> tuple[Path, str | None]:
    """(the file the `located` path is, links resolved; None) when that file may be read as
    a source: a regular file below one of the `allowed` folders (resolved). Else the reason,
    which quotes nothing of the file: "outside", or what kind of file it is. A path that does
    not exist is let through: reading it says so."""
    try:
        mode: int | None = os.lstat(path).st_mode
    except (OSError, ValueError):
        mode = None
    target = path
    if mode is not None and stat.S_ISLNK(mode):  # only a link costs a resolution
        target = Path(os.path.realpath(path))
        try:
            mode = os.stat(target).st_mode
        except (OSError, ValueError):
            mode = None
    if not any(target.is_relative_to(folder) for folder in allowed):
        return target, "outside"
    if mode is None or stat.S_ISREG(mode):
        return target, None
    return target, kind_of(mode)


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, for a message."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a fifo"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def common_root(paths: Sequence[Path]) -> Path:
    """The folder holding every given path (a folder holds itself, a file its folder: the
    folder of a link, not of the file it points to); the working directory when none is
    given."""
    folders = [p.resolve() if p.is_dir() else located(p).parent for p in paths]
    if not folders:
        return Path.cwd().resolve()
    return Path(os.path.commonpath(folders))


def discover(paths: Iterable[Path], root: Path | None = None) -> list[Path]:
    """The .sig files named or found below the given folders, sorted, without hidden folders.
    Each is `located`: a link is returned as the link, for the reader to `admit`."""
    found: set[Path] = set()
    folders: dict[Path, Path] = {}  # each folder resolved once, not once per file in it

    def place(path: Path) -> Path:
        full = path.absolute()
        folder = folders.get(full.parent)
        if folder is None:
            folder = folders[full.parent] = full.parent.resolve()
        return folder / full.name

    for path in paths:
        if path.is_dir():
            for candidate in path.rglob("*.sig"):
                rel = candidate.relative_to(path).parts
                # Not only regular files: a fifo, a folder or a link named *.sig is reported
                # when read, rather than passed over in silence.
                if not any(p.startswith(".") for p in rel[:-1]):
                    found.add(place(candidate))
        else:
            found.add(place(path))
    return sorted(found, key=lambda p: display_path(p, root))


__all__ = ["admit", "common_root", "discover", "display_path", "located", "source_name"]
