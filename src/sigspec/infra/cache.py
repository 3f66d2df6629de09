"""The one cache: values stored under a key that names everything that determines them.

It lives in the user's private cache folder (`$XDG_CACHE_HOME/sigspec`, else
`~/.cache/sigspec`, created with mode 0o700: the parser cache is a pickle, which must never
come from a place other users can write). Callers choose the key (a hash of the inputs and of
the versions involved), so an entry is never stale: a new input is a new key. A cache that
cannot be read or written costs speed, never results: every error is a miss.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def user_cache_dir() -> Path:
    """sigspec's folder in the user's cache (`$XDG_CACHE_HOME/sigspec`, else ~/.cache/sigspec)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sigspec"


@dataclass(frozen=True, slots=True)
class Cache:
    """Entries are files named `<kind>-<key><suffix>` in `folder`."""

    folder: Path

    def path(self, kind: str, key: str, suffix: str = "") -> Path:
        return self.folder / f"{kind}-{key}{suffix}"

    def get(self, kind: str, key: str, suffix: str = "") -> bytes | None:
        with contextlib.suppress(OSError):
            return self.path(kind, key, suffix).read_bytes()
        return None

    def put(self, kind: str, key: str, data: bytes, suffix: str = "") -> None:
        from sigspec.infra.atomic import write_atomic  # here: reading the cache writes nothing

        with contextlib.suppress(OSError):
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomic(self.path(kind, key, suffix), data, mode=0o600)

    def memo(self, kind: str, key: str, compute: Callable[[], str]) -> str:
        """The text stored under `key`, else `compute()`, stored for next time."""
        found = self.get(kind, key)
        if found is not None:
            with contextlib.suppress(UnicodeDecodeError):
                return found.decode("utf-8")
        value = compute()
        self.put(kind, key, value.encode("utf-8"))
        return value


def user_cache() -> Cache:
    return Cache(user_cache_dir())
