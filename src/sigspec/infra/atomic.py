"""Atomic replacement: of one file, and of a whole folder by another.

A file: the data goes to a temporary file in the same folder, which then replaces the target
in one `os.replace`: a reader sees the old content or the new, and a kill at any moment leaves
no half-written file (at worst a temporary file, which a later write does not mind).

A folder: `swap_folders` puts a complete new folder where the old one was, in the best way the
system offers, chosen by `folder_swap`:

- Linux: `renameat2(RENAME_EXCHANGE)` swaps the two names in one step;
- macOS: `renamex_np(RENAME_SWAP)` does the same;
- elsewhere (Windows, or a file system that refuses the native call with EINVAL, ENOSYS or
  ENOTSUP): two renames, the old folder to a side name, then the new one into place. Between
  them the target is absent, never a mix of old and new; the caller must recognise that state
  (a side folder beside a missing target) and finish or undo it. `os.rename` onto an existing
  folder fails on Windows, so the fallback never renames onto one.

The native call is found by probing the C library (ctypes), never by the OS's name.
`SIGSPEC_FOLDER_SWAP=rename` forces the two renames (unset, or any other value: the probe): a
test and diagnostic switch that lets the fallback run on a system that has a native swap.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def write_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace `path` with `data` in one step. `mode` sets the permissions (default: those of
    the file being replaced, else 0o644). No link is followed: a link at `path` is replaced by
    the file. A caller that means a link's target (`fmt`, on a source it admitted) passes the
    resolved path."""
    import tempfile  # here: `sigspec lint` never writes, and tempfile costs start-up time

    if mode is None:
        try:
            mode = path.stat().st_mode & 0o7777
        except OSError:
            mode = 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# ---- folders ---------------------------------------------------------------------------------

SWAP_SWITCH = "SIGSPEC_FOLDER_SWAP"  # test/diagnostic switch: "rename" forces the fallback

RENAME_EXCHANGE = 0x2  # <linux/fs.h>
RENAME_SWAP = 0x2  # <stdio.h> on macOS
_AT_FDCWD = -100  # <fcntl.h> on Linux: paths relative to the working directory
# What a native swap answers on a file system (or kernel) that cannot do it: use two renames.
UNSUPPORTED = frozenset({errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP})

NativeSwap = Callable[[bytes, bytes], int]  # swaps two paths; returns 0 or the failure's errno


@dataclass(frozen=True, slots=True)
class FolderSwap:
    """One way of replacing a folder. `native` swaps two paths in one step; None where the
    system has no such call (then two renames)."""

    name: str
    native: NativeSwap | None = None


RENAMES = FolderSwap("rename")


def renameat2_swap(renameat2: Callable[..., Any]) -> FolderSwap:
    """The swap through a C function with Linux `renameat2`'s signature (called with errno
    captured, as `ctypes.CDLL(..., use_errno=True)` does)."""

    def native(a: bytes, b: bytes) -> int:
        if renameat2(_AT_FDCWD, a, _AT_FDCWD, b, RENAME_EXCHANGE) == 0:
            return 0
        return _last_errno()

    return FolderSwap("renameat2", native)


def renamex_np_swap(renamex_np: Callable[..., Any]) -> FolderSwap:
    """The swap through a C function with macOS `renamex_np`'s signature."""

    def native(a: bytes, b: bytes) -> int:
        if renamex_np(a, b, RENAME_SWAP) == 0:
            return 0
        return _last_errno()

    return FolderSwap("renamex_np", native)


def _last_errno() -> int:
    import ctypes

    # A call that failed without setting errno must not pass for success, nor for EINVAL.
    return ctypes.get_errno() or errno.EIO


def folder_swap() -> FolderSwap:
    """The swap to use here: the switch, when set to force the fallback, else what the C
    library offers."""
    if os.environ.get(SWAP_SWITCH) == RENAMES.name:
        return RENAMES
    return probe_swap()


@functools.cache
def probe_swap() -> FolderSwap:
    """Linux's renameat2, else macOS's renamex_np, else two renames. Cached: the C library
    does not change while the process runs."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except (OSError, TypeError):  # Windows: no C library to open by None
        return RENAMES
    found = getattr(libc, "renameat2", None)
    if found is not None:
        return renameat2_swap(found)
    found = getattr(libc, "renamex_np", None)
    if found is not None:
        return renamex_np_swap(found)
    return RENAMES


def swap_folders(new: Path, target: Path, aside: Path, swap: FolderSwap) -> Path:
    """Put the folder `new` at `target` (which exists); returns where the old `target` is now:
    at `new` after a native swap, at `aside` (which must not exist) after two renames."""
    if swap.native is not None:
        failure = swap.native(os.fsencode(new), os.fsencode(target))
        if failure == 0:
            return new
        if failure not in UNSUPPORTED:
            raise OSError(failure, os.strerror(failure), str(new), None, str(target))
    os.rename(target, aside)
    try:
        os.rename(new, target)
    except OSError:
        os.rename(aside, target)  # undo: never leave the target absent when we can help it
        raise
    return aside
