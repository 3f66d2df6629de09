"""The output folder: ownership, `--check`, and atomic replacement. The only writer of output.

sigspec owns exactly the files listed in the folder's manifest.json (and the manifest). The
rules, which hold for whatever an attacker or a careless user put in the folder:

- The output folder is where `OUT` really is: a link to a folder stays, and its target is what
  gets replaced. The replacement keeps the folder's mode and owner (and those of every folder
  in it); a new folder follows the umask like any other.
- Every path is relative, below `OUT`, and reached through real folders only: no link is
  followed that sigspec did not create. A link, a fifo or a folder where sigspec would write
  a file is the user's, and the compile refuses to write over it.
- A manifest must be a regular file of the right shape (`Manifest`), else the folder is not
  sigspec's and nothing in it is touched.
- Nothing is deleted unless the manifest lists it and its content still hashes to what sigspec
  wrote (`--clean`, and files a compile no longer generates). A listed file the compile writes
  anew is replaced: editing a generated file does not make it the user's.
- Outside `OUT` sigspec writes only its own stage, ready, old and trash folders beside it, and
  removes them.

A new output is built beside the folder `OUT`, each step leaving a state recognisable by name
(`T` is one run's random token, never containing a dot):

1. `.sigspec-stage-OUT.T`: the stage. The user's files are hard-linked in, the manifest is
   written first (so whoever finds a stage can tell generated files from the user's), then
   every generated file. A stage is never promoted: nothing says it is complete.
2. `.sigspec-ready-OUT.T`: the stage renamed once its last file is written. The name is the
   proof of completeness: the rename is atomic and comes after every write has returned.
3. The swap (`infra.atomic.swap_folders`): with a native call, one exchange of ready and `OUT`
   (the old tree is then under the ready name); else `OUT` -> `.sigspec-old-OUT.T`, then ready
   -> `OUT`, with `OUT` absent in between (never a mix of two outputs).
4. Files the user created in the old tree meanwhile are moved back; the old tree is renamed
   `.sigspec-trash-OUT.T...` (nothing is ever salvaged from trash), then deleted.

`recover` repairs whatever a kill left, before every compile: with `OUT` missing, a complete
(ready) folder is promoted, the one whose old side folder is there first (finishing the
interrupted swap), else an old side folder is put back (undoing it); then, with `OUT` present,
every stage, ready or old folder beside it gives back the user files `OUT` lacks and is
discarded; trash is deleted. A ready or old folder beside `OUT` means a replacement was
interrupted (`interrupted`): `--check` says so instead of comparing files, and the no-op fast
path never calls such a folder up to date.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from sigspec.compiler.portable import unsafe_character
from sigspec.emit.base import MANIFEST, Artifact
from sigspec.infra.atomic import FolderSwap, folder_swap, swap_folders, write_atomic
from sigspec.infra.digest import digest

STAGE_PREFIX = ".sigspec-stage-"  # being built: never promoted
READY_PREFIX = ".sigspec-ready-"  # complete (or, after a native exchange, the previous output)
OLD_PREFIX = ".sigspec-old-"  # the previous output, moved aside by the two-rename swap
# A folder whose useful contents were salvaged is renamed to this first, in one atomic step:
# its deletion may then be interrupted at any point without anything being salvaged from it.
TRASH_PREFIX = ".sigspec-trash-"

# Opening a file never follows a link in its last name, nor waits on a fifo, where the system
# has these flags. Windows has neither flag nor fifos; it has links and junctions, which the
# lstat checks below see as links (a junction, as a folder: git checks out none, so a
# junction in an output folder is one its owner made there).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | _NOFOLLOW
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | _NOFOLLOW


class OutputError(Exception):
    """The output folder cannot be used as asked: reported with exit code 2."""


@dataclass(frozen=True, slots=True)
class Drift:
    stale: tuple[str, ...]
    missing: tuple[str, ...]
    orphaned: tuple[str, ...]

    @property
    def clean(self) -> bool:
        return not (self.stale or self.missing or self.orphaned)


@dataclass(frozen=True, slots=True)
class Manifest:
    """What a manifest.json says about its folder, checked for shape: `files` maps each
    generated file's relative path to the hash of what sigspec wrote there."""

    generator: str
    files: Mapping[str, str]
    inputs: Mapping[str, str]
    config: Any


def safe_rel(rel: object) -> bool:
    """A relative POSIX path below its folder: no `..`, `.` or empty part, not absolute, no
    drive or backslash (which Windows would read as a separator), and no character that a
    terminal or a log would act on when the path is printed (`--check`, `--clean`)."""
    if not isinstance(rel, str) or not rel or "\\" in rel or unsafe_character(rel):
        return False
    parts = rel.split("/")
    return all(p not in ("", ".", "..") for p in parts) and ":" not in parts[0]


def read_manifest(out: Path) -> Manifest | None:
    """The manifest of `out`, None when there is none; OutputError when it is not sigspec's."""
    path = out / MANIFEST
    if not os.path.lexists(path):
        return None
    data = read_file(out, MANIFEST)
    if data is None:
        raise OutputError(f"{path} is not a regular file; refusing to touch {out}")
    try:
        parsed: Any = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        parsed = None
    problem = _manifest_problem(parsed)
    if problem is not None:
        raise OutputError(
            f"{path} exists and was not written by sigspec ({problem}); refusing to touch it "
            "(delete it if the folder is yours)"
        )
    return Manifest(
        parsed["generator"], parsed["files"], parsed.get("inputs", {}), parsed.get("config")
    )


def _manifest_problem(data: Any) -> str | None:
    """What makes `data` not a manifest sigspec wrote, or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if not str(data.get("generator", "")).startswith("sigspec"):
        return "no sigspec generator"
    for key in ("files", "inputs"):
        table = data.get(key, {})
        if not isinstance(table, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in table.items()
        ):
            return f"`{key}` is not a map of paths to hashes"
    unsafe = sorted(k for k in data.get("files", {}) if not safe_rel(k) or k == MANIFEST)
    if unsafe:
        return f"`files` names a path sigspec never writes: {unsafe[0]!r}"
    return None


def owned(manifest: Manifest | None) -> set[str]:
    """The paths the manifest lists, and the manifest itself."""
    if manifest is None:
        return set()
    return {*manifest.files, MANIFEST}


def real_folder(out: Path) -> Path:
    """Where the output folder really is: a link to it is followed (the link itself is the
    user's and stays), so the replacement and its side folders happen at the target."""
    return Path(os.path.realpath(out.absolute()))


def _usable(out: Path) -> Path:
    """`real_folder(out)`, or OutputError when `out` cannot be an output folder."""
    real = real_folder(out)
    if os.path.lexists(out) and not real.exists():
        raise OutputError(f"{out} is a link to {real}, which does not exist")
    if real.exists() and not real.is_dir():
        raise OutputError(f"{out} is not a folder")
    return real


def _mode(path: str | Path) -> int | None:
    """The path's own mode (a link's, not its target's); None when there is nothing."""
    try:
        return os.lstat(path).st_mode
    except (OSError, ValueError):
        return None


def _through_folders(top: str, rel: str) -> bool:
    """Every folder between `top` and the file `rel` exists and is a real folder, no link.
    (Strings, not Paths: this runs for each of thousands of files.)"""
    folder = top
    for part in rel.split("/")[:-1]:
        folder = os.path.join(folder, part)
        mode = _mode(folder)
        if mode is None or not stat.S_ISDIR(mode):
            return False
    return True


def read_file(top: Path, rel: str) -> bytes | None:
    """The bytes of the regular file `rel` below `top`, reached through no link; None when it
    is missing or anything else (a link, a folder, a fifo, a device)."""
    base = os.fspath(top)
    if not safe_rel(rel) or not _through_folders(base, rel):
        return None
    try:
        fd = os.open(os.path.join(base, rel), _READ_FLAGS)
    except (OSError, ValueError):
        return None
    try:
        regular = stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        regular = False
    if not regular:
        os.close(fd)
        return None
    with open(fd, "rb") as handle:  # sized by the file's length: one read for a small file
        try:
            return handle.read()
        except OSError:
            return None


def proven(out: Path, manifest: Manifest | None) -> set[str]:
    """The listed files whose content still hashes to what sigspec wrote: the only ones it
    may delete."""
    if manifest is None:
        return set()
    found = set()
    for rel, expected in manifest.files.items():
        data = read_file(out, rel)
        if data is not None and digest(data) == expected:
            found.add(rel)
    return found


def guard(out: Path, sources: Iterable[Path]) -> None:
    """Refuse folders that hold the inputs, a repository, or the working directory."""
    target = out.resolve()
    if target == Path(target.anchor) or Path.cwd().resolve().is_relative_to(target):
        raise OutputError(
            f"refusing to use {out} as the output folder: it holds the working directory"
        )
    if (target / ".git").exists():
        raise OutputError(f"refusing to use {out} as the output folder: it is a repository")
    for source in sources:
        if source.resolve().is_relative_to(target):
            raise OutputError(
                f"refusing to use {out} as the output folder: it holds the input {source}"
            )


def conflicts(out: Path, files: Iterable[Artifact], mine: set[str]) -> list[str]:
    """Paths the new output would write over that sigspec does not own: a file it did not
    list, or anything but a regular file (a link, a folder, a fifo) where it writes a file,
    or anything but a real folder where it needs one."""
    if not out.is_dir():  # a new folder: nothing to write over
        return []
    base = os.fspath(out)
    found: set[str] = set()
    folders: dict[str, int | None] = {}
    for artifact in files:
        parts = artifact.path.split("/")
        blocked = None
        for i in range(1, len(parts)):
            rel = "/".join(parts[:i])
            if rel not in folders:
                folders[rel] = _mode(os.path.join(base, rel))
            mode = folders[rel]
            if mode is None:
                break
            if not stat.S_ISDIR(mode):
                blocked = rel
                break
        if blocked is not None:
            found.add(blocked)
            continue
        mode = _mode(os.path.join(base, artifact.path))
        if mode is not None and (artifact.path not in mine or not stat.S_ISREG(mode)):
            found.add(artifact.path)
    return sorted(found)


def drift(out: Path, files: Iterable[Artifact]) -> Drift:
    out = real_folder(out)
    manifest = read_manifest(out)
    stale, missing = [], []
    wanted = {a.path: a.text for a in files}
    for rel, text in sorted(wanted.items()):
        data = read_file(out, rel)
        if data is None:
            missing.append(rel)
        elif data != text.encode("utf-8"):
            stale.append(rel)
    listed = set(manifest.files) if manifest is not None else set()
    orphaned = sorted(p for p in listed - set(wanted) if read_file(out, p) is not None)
    return Drift(tuple(stale), tuple(missing), tuple(orphaned))


# ---- writing ---------------------------------------------------------------------------------


def write(out: Path, files: Iterable[Artifact], *, swap: FolderSwap | None = None) -> int:
    """Replace sigspec's files in `out` with `files`, atomically. Returns how many changed.
    `swap` is how to replace the folder (default: the best this system offers)."""
    out = _usable(out)
    manifest = read_manifest(out)
    mine = owned(manifest)
    artifacts = list(files)
    unsafe = sorted(a.path for a in artifacts if not safe_rel(a.path))
    if unsafe:  # a bug in a target, never the user's doing: still, nothing lands outside
        raise OutputError("refusing to write outside the output folder: " + ", ".join(unsafe))
    clash = conflicts(out, artifacts, mine)
    if clash:
        raise OutputError("refusing to overwrite files sigspec does not own: " + ", ".join(clash))
    # Into a new folder every file is new: no need to look for 3,000 files one by one.
    changed = (
        sum(1 for a in artifacts if read_file(out, a.path) != a.text.encode("utf-8"))
        if out.exists()
        else len(artifacts)
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    recover(out)
    before = os.stat(out) if out.exists() else None
    stage = _make_stage(out)
    ready = _as(stage, READY_PREFIX)
    try:
        if before is not None:
            _keep_owner(before, stage, out)
            gone = _replaced(out, manifest, {a.path for a in artifacts})
            _mirror_foreign(out, stage, gone)
        _write_stage(stage, artifacts)
        if before is not None:  # last: a read-only folder of the user's is still written into
            _keep_folders(out, stage)
        os.rename(stage, ready)  # the proof that the stage is complete
    except BaseException:
        if stage.exists():
            _discard(stage)
        raise
    if before is None:
        os.rename(ready, out)
        return changed
    previous = _replace(ready, out, swap or folder_swap())  # the commit point
    # Killed from here on, the old tree is left beside `out` for `recover` to salvage.
    _salvage(previous, out, mine)
    _discard(previous)
    return changed


def _make_stage(out: Path) -> Path:
    """A new folder beside `out`, made as the user would make one: the umask applies (a
    temporary folder's 0o700 would become the output's mode)."""
    import secrets  # here: the up-to-date check never writes

    while True:
        stage = out.with_name(f"{STAGE_PREFIX}{out.name}.{secrets.token_hex(6)}")
        try:
            os.mkdir(stage, 0o777)
        except FileExistsError:
            continue
        except OSError as exc:  # the folder beside `out` (its target, for a link) is closed
            raise OutputError(f"cannot write beside {out}: {exc.strerror or exc}") from exc
        return stage


def _keep_owner(was: os.stat_result, folder: Path, shown: Path) -> None:
    """Give `folder` the owner of the folder it replaces, or refuse when that is not ours to
    give (another user's folder that we may write in)."""
    if not hasattr(os, "chown"):  # Windows: ownership is not a mode bit to carry over
        return
    now = os.lstat(folder)
    if (now.st_uid, now.st_gid) == (was.st_uid, was.st_gid):
        return
    try:
        os.chown(folder, was.st_uid, was.st_gid, follow_symlinks=False)
    except PermissionError as exc:
        raise OutputError(
            f"cannot replace {shown}: it belongs to user {was.st_uid} group {was.st_gid}, "
            f"and a folder made by this user cannot ({exc.strerror})"
        ) from exc


def _keep_folders(out: Path, stage: Path) -> None:
    """Every folder of the stage that replaces a real folder of `out` gets its owner and mode."""
    for folder, _dirs, _names in os.walk(stage):
        rel = Path(folder).relative_to(stage)
        try:
            was = os.lstat(out / rel)
        except OSError:
            continue
        if stat.S_ISDIR(was.st_mode):
            _keep_owner(was, Path(folder), out / rel)
    for folder, _dirs, _names in os.walk(stage):
        rel = Path(folder).relative_to(stage)
        mode = _mode(out / rel)
        if mode is not None and stat.S_ISDIR(mode):
            os.chmod(folder, stat.S_IMODE(mode))


def _replaced(out: Path, manifest: Manifest | None, wanted: set[str]) -> set[str]:
    """The files of `out` the new output does not carry over: the manifest, each listed file
    written anew, and each listed file no longer generated whose content proves sigspec wrote
    it. A listed file the user changed and the compile no longer writes is kept as theirs."""
    if manifest is None:
        return set()
    gone = {MANIFEST}
    for rel, expected in manifest.files.items():
        if rel in wanted:  # a regular file, or nothing: `conflicts` refused anything else
            gone.add(rel)
            continue
        data = read_file(out, rel)
        if data is not None and digest(data) == expected:
            gone.add(rel)
    return gone


def _replace(ready: Path, out: Path, swap: FolderSwap) -> Path:
    """Swap the complete `ready` folder in for `out`; returns where the old tree is now."""
    aside = _as(ready, OLD_PREFIX)
    try:
        return swap_folders(ready, out, aside, swap)
    except OSError as exc:
        if out.exists():  # nothing was replaced: the old output stays, the new one goes
            _discard(ready)
        raise OutputError(f"cannot replace {out} ({swap.name}): {exc.strerror or exc}") from exc


def _as(folder: Path, prefix: str) -> Path:
    """The same run's folder of another kind: `.sigspec-stage-OUT.T` -> `prefix` + `OUT.T`."""
    kind = next(p for p in _PREFIXES if folder.name.startswith(p))
    return folder.with_name(prefix + folder.name.removeprefix(kind))


def _tag(name: str, prefix: str, out_name: str) -> str | None:
    """The run's token in `name` if it is `prefix` + `out_name` + "." + token (a token holds
    no dot, so the leftovers of an output `a` are never taken for those of `a.b`)."""
    head = f"{prefix}{out_name}."
    if not name.startswith(head):
        return None
    tag = name[len(head) :]
    return tag if tag and "." not in tag else None


def _discard(folder: Path) -> None:
    # One run's old and ready folders share a token: the trash name keeps their kinds apart.
    kind = next(p for p in _PREFIXES if folder.name.startswith(p))
    trash = _as(folder, TRASH_PREFIX)
    trash = trash.with_name(f"{trash.name}_{kind.removeprefix('.sigspec-').strip('-')}")
    os.rename(folder, trash)
    shutil.rmtree(trash, ignore_errors=True)


THREADED_FROM = 64  # files; below this a second writer thread costs more than it saves


def _write_stage(stage: Path, artifacts: list[Artifact]) -> None:
    """The manifest goes in first, whole: if this run is killed, whoever recovers the stage
    can tell the generated files in it from the hard-linked files of the user."""
    manifest = next(a for a in artifacts if a.path == MANIFEST)
    write_atomic(stage / MANIFEST, manifest.text.encode("utf-8"))
    for folder in sorted({a.path.rpartition("/")[0] for a in artifacts} - {""}):
        _make_folders(stage, folder)
    rest = [a for a in artifacts if a is not manifest]
    if len(rest) < THREADED_FROM:
        _write_files(stage, rest)
        return
    # Two writers: creating a file waits on the file system's journal, which on a busy disk
    # takes most of the time (3,000 files: 1.8 -> 0.9 s measured here), and the wait releases
    # the GIL. The stage is invisible until the swap, so the order of writing is free.
    import threading

    failed: list[BaseException] = []

    def write_half(part: list[Artifact]) -> None:
        try:
            _write_files(stage, part)
        except BaseException as exc:  # re-raised below, in the caller's thread
            failed.append(exc)

    helper = threading.Thread(target=write_half, args=(rest[1::2],))
    helper.start()
    write_half(rest[0::2])
    helper.join()
    if failed:
        raise failed[0]


def _write_files(stage: Path, artifacts: list[Artifact]) -> None:
    for artifact in artifacts:
        _write_file(stage / artifact.path, artifact.text.encode("utf-8"))


def _write_file(path: Path, data: bytes) -> None:
    """`open(path, "xb").write(data)` without the io layers: a third faster for thousands of
    small files (the same mode: 0o666 less the umask). A new file only: whatever is already
    in the stage at that name (a link of the user's, say) is never written through."""
    try:
        fd = os.open(path, _CREATE_FLAGS, 0o666)
    except FileExistsError as exc:
        raise OutputError(f"refusing to overwrite {path.name}: sigspec does not own it") from exc
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class Cleaned:
    removed: int
    kept: tuple[str, ...]  # listed paths that are no longer the files sigspec wrote


def clean(out: Path) -> Cleaned:
    """Delete every file the manifest lists whose content proves sigspec wrote it, then the
    manifest, and folders that become empty. Nothing is reached through a link."""
    out = real_folder(out)
    manifest = read_manifest(out)
    if manifest is None:
        return Cleaned(0, ())
    removed, kept = 0, []
    for rel in sorted(manifest.files):
        if rel not in proven(out, _only(manifest, rel)):
            if os.path.lexists(out / rel):  # changed, or a link (or below one): not sigspec's
                kept.append(rel)
            continue
        os.unlink(out / rel)
        removed += 1
        _prune_empty(out, rel)
    os.unlink(out / MANIFEST)  # last: until here, a rerun knows what is sigspec's
    return Cleaned(removed + 1, tuple(kept))


def _only(manifest: Manifest, rel: str) -> Manifest:
    return Manifest(manifest.generator, {rel: manifest.files[rel]}, {}, None)


@dataclass(frozen=True, slots=True)
class Leftovers:
    """What runs that were killed (or failed) left beside an output folder, by kind."""

    stages: tuple[Path, ...] = ()
    ready: tuple[Path, ...] = ()
    old: tuple[Path, ...] = ()
    trash: tuple[Path, ...] = ()

    @property
    def interrupted(self) -> bool:
        """A replacement of the output was under way: `out` may be missing, or the user's
        newest files may still be in the old tree."""
        return bool(self.ready or self.old)


_PREFIXES = (STAGE_PREFIX, READY_PREFIX, OLD_PREFIX, TRASH_PREFIX)


def leftovers(out: Path) -> Leftovers:
    out = real_folder(out)
    found: dict[str, list[Path]] = {prefix: [] for prefix in _PREFIXES}
    try:
        names = sorted(entry.name for entry in os.scandir(out.parent))
    except OSError:  # no parent folder: nothing beside it either
        return Leftovers()
    for name in names:
        for prefix in _PREFIXES:
            if _tag(name, prefix, out.name) is not None:
                found[prefix].append(out.parent / name)
    return Leftovers(*(tuple(found[prefix]) for prefix in _PREFIXES))


def interrupted(out: Path) -> bool:
    """An earlier compile was killed while replacing `out`; `recover` repairs it."""
    return leftovers(out).interrupted


def recover(out: Path) -> None:
    """Finish what killed runs left beside `out` (the rules are in the module's docstring)."""
    out = real_folder(out)
    try:
        _recover(out, leftovers(out))
    except OSError as exc:
        message = f"cannot repair what an interrupted compile left beside {out}: {exc}"
        raise OutputError(message) from exc


def _recover(out: Path, found: Leftovers) -> None:
    for trash in found.trash:
        shutil.rmtree(trash, ignore_errors=True)
    if not os.path.lexists(out):
        _restore(out, found)
    for leftover in (*found.old, *found.ready, *found.stages):
        if not leftover.exists():  # promoted to `out` just now
            continue
        if leftover.is_dir() and out.exists():
            _salvage(leftover, out, _owned_anywhere(out, leftover))
        _discard(leftover)


def _restore(out: Path, found: Leftovers) -> None:
    """`out` is missing: finish the interrupted swap (promote the complete new folder), else
    undo it (put the old one back, whatever it holds: it was the user's folder). A stage is
    never promoted: it may be incomplete."""
    swapped = {_as(old, READY_PREFIX) for old in found.old}
    paired = [ready for ready in found.ready if ready in swapped]
    for candidate in (*paired, *found.ready, *found.old):
        if candidate.is_dir() and not candidate.is_symlink():
            os.rename(candidate, out)
            return


def _owned_anywhere(out: Path, other: Path) -> set[str]:
    result = set()
    for folder in (out, other):
        with contextlib.suppress(OutputError):
            result |= owned(read_manifest(folder))
    return result


def _make_folders(top: Path, rel: str) -> None:
    """Make the folder `rel` below `top` and its parents, each a real folder: never through
    a link or over anything that is not a folder."""
    folder = top
    for part in rel.split("/"):
        folder = folder / part
        try:
            os.mkdir(folder)
        except FileExistsError:
            mode = _mode(folder)
            if mode is None or not stat.S_ISDIR(mode):
                raise OutputError(
                    f"refusing to write below {folder.name}: it is not a folder sigspec made"
                ) from None


def _copy_entry(out: Path, stage: Path, rel: Path) -> None:
    """Put the user's file, link or special file `rel` into the stage as it is: a hard link
    to it, never to what a link points to."""
    if rel.parent != Path("."):
        _make_folders(stage, rel.parent.as_posix())
    try:
        os.link(out / rel, stage / rel, follow_symlinks=False)
    except (OSError, NotImplementedError):  # no hard links here: copy (a link as a link)
        shutil.copy2(out / rel, stage / rel, follow_symlinks=False)


def _mirror_foreign(out: Path, stage: Path, gone: set[str]) -> None:
    """Put everything in `out` that does not go into the stage, so the swap keeps it: files,
    links (to files or folders) and folders, which get their modes at the end."""
    generated = {p.rpartition("/")[0] for p in gone} - {""}
    made = {str(p) for g in generated for p in PurePosixPath(g).parents} | generated
    for folder, dirs, names in os.walk(out):  # never enters a link to a folder
        rel_dir = Path(folder).relative_to(out).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        for name in dirs:
            rel = prefix + name
            if os.path.islink(os.path.join(folder, name)):
                _copy_entry(out, stage, Path(rel))
            elif rel not in made:  # a folder of sigspec's goes when emptied
                _make_folders(stage, rel)
        for name in names:
            rel = prefix + name
            if rel not in gone:
                _copy_entry(out, stage, Path(rel))


def _salvage(old: Path, out: Path, mine: set[str]) -> None:
    """Move back files that are not sigspec's and exist only in the old tree (created by the
    user while the stage was built)."""
    for folder, _dirs, names in os.walk(old):
        rel_dir = Path(folder).relative_to(old)
        for name in names:
            rel = rel_dir / name
            if rel.as_posix() in mine or os.path.lexists(out / rel):
                continue
            if rel_dir != Path("."):
                try:
                    _make_folders(out, rel_dir.as_posix())
                except OutputError:  # something of the user's is in the way: leave it be
                    continue
            os.rename(old / rel, out / rel)


def _prune_empty(top: Path, rel: str) -> None:
    """Remove the folders of `rel` below `top` that are empty, deepest first (real folders
    only: a link is never removed)."""
    parts = rel.split("/")[:-1]
    while parts:
        folder = top.joinpath(*parts)
        mode = _mode(folder)
        if mode is None or not stat.S_ISDIR(mode):
            return
        with os.scandir(folder) as entries:
            if any(entries):
                return
        folder.rmdir()
        parts.pop()
