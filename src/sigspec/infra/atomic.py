"""The one atomic file write: a file is replaced whole or not at all.

The data goes to a temporary file in the same folder, which then replaces the target in one
`os.replace`: a reader sees the old content or the new, and a kill at any moment leaves no
half-written file (at worst a temporary file, which a later write does not mind).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Replace `path` with `data` in one step. `mode` sets the permissions (default: those of
    the file being replaced, else 0o644)."""
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
