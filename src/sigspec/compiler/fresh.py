"""Is the output folder already what a compile would write? Answered without parsing.

The manifest records the inputs' hashes and the configuration; the user's cache records the
stat of every file the last compile wrote or verified (like git's index), so an unchanged
stat skips re-reading the file. Only a compile by this very build of sigspec is trusted.
Light on purpose: the no-op compile imports none of the front end.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sigspec.compiler.output import OutputError, interrupted, read_file, read_manifest
from sigspec.compiler.paths import discover, source_name
from sigspec.infra.cache import user_cache
from sigspec.infra.digest import digest

StatCache = dict[str, list[int]]


def inputs(paths: Sequence[Path], root: Path) -> dict[str, str]:
    """Each input file's hash by its path relative to the project root (`..` for a file under
    an import root beside it: the manifest is the same on every machine)."""
    return {source_name(p, root): digest(p.read_bytes()) for p in paths}


def _recorded_inputs(recorded: Sequence[str], root: Path) -> dict[str, str] | None:
    """The hashes of the inputs an existing manifest names, read as regular files only (a
    manifest is untrusted: a name of a fifo or a device must not make the check wait); None
    when one is missing or anything else."""
    found = {}
    for rel in recorded:
        path = (root / rel).resolve()
        data = read_file(path.parent, path.name)
        if data is None:
            return None
        found[source_name(path, root)] = digest(data)
    return found


def stat_key(path: Path) -> list[int]:
    st = path.lstat()  # a link put where a generated file was is not that file
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _key(out: Path) -> str:
    return f"{zlib.crc32(str(out.resolve()).encode('utf-8')):08x}"


def compiler_id() -> str:
    """Which build of sigspec this is: its version alone would let an editable install, or a
    rebuilt wheel of the same version, call output up to date that it would now write
    differently. The sizes and times of its own files (code, grammar, templates), no reads."""
    import hashlib

    from sigspec.infra.resources import package_root, resource_path
    from sigspec.infra.version import VERSION

    entries = [VERSION]
    for root in (package_root(), resource_path("grammar"), resource_path("templates")):
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".ts", ".j2", ".lark") and "__pycache__" not in path.parts:
                stat = path.stat()
                entries.append(f"{path.relative_to(root)} {stat.st_size} {stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(entries).encode("utf-8")).hexdigest()


def remember(out: Path, stats: StatCache) -> None:
    """Record the stat of the files just written to `out`."""
    data = json.dumps({"compiler": compiler_id(), "files": stats})
    user_cache().put("outputs", _key(out), data.encode("utf-8"), ".json")


def written(out: Path, paths: Sequence[str]) -> None:
    """Record the files a compile just wrote to `out`."""
    remember(out, {rel: stat_key(out / rel) for rel in paths})


def _recall(out: Path) -> StatCache | None:
    """The stat cache of `out`'s files as the last compile wrote them, or None when no compile
    by this very build of sigspec is on record (then nothing is taken as up to date)."""
    raw = user_cache().get("outputs", _key(out), ".json")
    try:
        data = json.loads(raw) if raw is not None else None
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("compiler") != compiler_id():
        return None
    files = data.get("files")
    return files if isinstance(files, dict) else None


def up_to_date(
    out: Path,
    current: Mapping[str, str],
    config: Mapping[str, Any],
    generator: str,
    known: StatCache,
) -> StatCache | None:
    """Same inputs, same configuration, and every owned file as written. Returns the stats to
    remember, or None."""
    try:
        manifest = read_manifest(out)
    except OutputError:
        return None
    if manifest is None or manifest.generator != generator:
        return None
    if manifest.config != config or manifest.inputs != current:
        return None
    fresh: StatCache = {}
    for rel, expected in manifest.files.items():
        path = out / rel
        try:
            key = stat_key(path)
        except OSError:
            return None
        if known.get(rel) != key:
            data = read_file(out, rel)
            if data is None or digest(data) != expected:
                return None
        fresh[rel] = key
    return fresh


def is_fresh(out: Path, roots: Sequence[Path], root: Path, config: Mapping[str, Any]) -> bool:
    """Nothing changed since the last compile into `out`: same inputs (and no new file among
    `roots`), same configuration, every file as written."""
    from sigspec.infra.version import VERSION

    if interrupted(out):  # a replacement was under way: only a compile can tell what is there
        return False
    try:
        manifest = read_manifest(out)
        if manifest is None:
            return False
        recorded = {(root / rel).resolve() for rel in manifest.inputs}
        if not {p.resolve() for p in discover(roots)} <= recorded:
            return False
        current = _recorded_inputs(list(manifest.inputs), root)
    except (OSError, ValueError, OutputError):  # ValueError: a NUL in a recorded name
        return False
    if current is None:
        return False
    known = _recall(out)
    if known is None:
        return False
    fresh = up_to_date(out, current, config, f"sigspec {VERSION}", known)
    if fresh is None:
        return False
    remember(out, fresh)
    return True
