"""Atomic output: a compile killed at any moment leaves the old or the new output, never a mix.

Every way of replacing the folder runs here, on Linux: renameat2 natively; macOS's renamex_np
by a Python stand-in with its signature and errno behaviour (built on renameat2); the
two-rename fallback by the SIGSPEC_FOLDER_SWAP=rename switch, as on a system with neither.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli, tree
from sigspec.compiler import output
from sigspec.emit.base import MANIFEST, Artifact
from sigspec.infra import atomic
from sigspec.infra.digest import digest

INTERRUPTED = "an earlier compile was interrupted while replacing the output"


def write_version(src: Path, version: int) -> None:
    """Two versions that differ in every file's content, and in which signatures exist."""
    for old in src.glob("*.sig"):
        old.unlink()
    for f in range(25):
        sigs = []
        for i in range(10 if version == 0 else 7):
            extra = ", note :string?" if version else ""
            sigs.append(f"signature s{f}_{i}(text :string) -> {{label :string, n :int{extra}}}")
        (src / f"f{f}.sig").write_text("\n".join(sigs) + "\n")


def compile_cmd() -> list[str]:
    return [sys.executable, "-m", "sigspec", "compile", "src", "-o", "out"]


def swap_env(mode: str) -> dict[str, str]:
    """The environment of a compile that replaces its output natively, or by two renames."""
    return {**os.environ, atomic.SWAP_SWITCH: mode}  # any value but "rename" means native


def beside(folder: Path) -> list[str]:
    """What sigspec left beside the output folder `folder`/out."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".sigspec-"))


def everything(folder: Path) -> dict[str, bytes | None]:
    """Every path below `folder` (dot-folders too), with a file's bytes: to prove nothing moved."""
    return {
        p.relative_to(folder).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def snapshot(tmp_path: Path, version: int) -> dict[str, bytes]:
    write_version(tmp_path / "src", version)
    ref = tmp_path / f"ref{version}"
    assert run_cli("compile", "src", "-o", str(ref), cwd=tmp_path).returncode == 0
    return tree(ref)


@pytest.mark.parametrize("mode", ["native", "rename"])
def test_killed_compiles_leave_old_or_new_output(tmp_path: Path, mode: str) -> None:
    """SIGKILL at random moments: the folder is the old or the new complete output, or (two
    renames only) an interrupted replacement that `--check` reports without writing and the
    next compile repairs; a hand-written file survives all of it."""
    (tmp_path / "src").mkdir()
    refs = [snapshot(tmp_path, 0), snapshot(tmp_path, 1)]
    assert refs[0] != refs[1]
    write_version(tmp_path / "src", 0)
    env = swap_env(mode)
    start = time.perf_counter()
    assert run_cli("compile", "src", "-o", "out", cwd=tmp_path, env=env).returncode == 0
    duration = time.perf_counter() - start
    (tmp_path / "out" / "mine.txt").write_text("hand written")
    rng = random.Random(20261122)
    states = set()
    for attempt in range(10):
        version = (attempt + 1) % 2
        write_version(tmp_path / "src", version)
        process = subprocess.Popen(
            compile_cmd(),
            cwd=tmp_path,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.3, 1.1) * duration)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        if output.interrupted(tmp_path / "out"):
            assert_check_reports_interruption(tmp_path, env)
            assert run_cli("compile", "src", "-o", "out", cwd=tmp_path, env=env).returncode == 0
            assert tree(tmp_path / "out") == {**refs[version], "mine.txt": b"hand written"}
            states.add("interrupted")
        now = tree(tmp_path / "out")
        assert now.pop("mine.txt") == b"hand written"
        assert now in refs, f"attempt {attempt}: output is a mix of two compiles"
        states.add(refs.index(now))
    # A clean compile afterwards finishes the job and clears what killed runs left behind.
    assert run_cli("compile", "src", "-o", "out", cwd=tmp_path, env=env).returncode == 0
    assert beside(tmp_path) == []
    assert (tmp_path / "out" / "mine.txt").read_text() == "hand written"


def assert_check_reports_interruption(tmp_path: Path, env: dict[str, str] | None = None) -> None:
    """`--check` in an interrupted state: exit 1, the reason on stderr, no file listed as
    missing, and nothing written or moved."""
    before = everything(tmp_path)
    check = run_cli("compile", "src", "-o", "out", "--check", cwd=tmp_path, env=env)
    assert check.returncode == 1, check.stderr
    assert f"out: {INTERRUPTED}; run `sigspec compile` to repair it" in check.stderr
    assert "missing:" not in check.stdout
    assert everything(tmp_path) == before


def artifacts(version: int, count: int = 100) -> list[Artifact]:
    """An output of `count` files (from 64 they are written by two threads) and its manifest."""
    texts = [Artifact(f"d/f{i}.txt", f"v{version} {i}", "") for i in range(count)]
    owned = {a.path: digest(a.text) for a in texts}
    manifest = json.dumps({"generator": "sigspec test", "files": owned})
    return [Artifact(MANIFEST, manifest, ""), *texts]


def generated(version: int) -> dict[str, bytes]:
    return {a.path: a.text.encode("utf-8") for a in artifacts(version)}


HAND = b"hand written"


def test_a_failed_write_in_either_writer_leaves_the_old_output(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Large outputs are written by two threads; an error in either (a full disk, say)
    reaches the caller and the folder keeps its previous complete output."""
    out = tmp_path / "out"
    output.write(out, artifacts(0))
    before = tree(out)
    real = output._write_file
    for broken in ("d/f10.txt", "d/f11.txt"):  # one in each thread's half

        def failing(path: Path, data: bytes, broken: str = broken) -> None:
            if path.as_posix().endswith(broken):
                raise OSError(28, "No space left on device")
            real(path, data)

        monkeypatch.setattr(output, "_write_file", failing)
        with pytest.raises(OSError, match="No space"):
            output.write(out, artifacts(1))
        assert tree(out) == before
        assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no stage left behind


# ---- each way of swapping the folder ---------------------------------------------------------


def simulated_renamex_np(calls: list[tuple[bytes, bytes, int]]) -> Callable[..., int]:
    """A stand-in for macOS's `renamex_np(from, to, flags)`: RENAME_SWAP exchanges the two
    paths (done here by Linux's exchange); failures return -1 with errno set, as libc does."""
    libc = ctypes.CDLL(None, use_errno=True)

    def renamex_np(source: bytes, target: bytes, flags: int) -> int:
        calls.append((source, target, flags))
        if flags != 0x2:  # the only flag sigspec may pass is RENAME_SWAP
            ctypes.set_errno(errno.EINVAL)
            return -1
        return int(libc.renameat2(-100, source, -100, target, 2))

    return renamex_np


def refusing(code: int, calls: list[int]) -> Callable[..., int]:
    """A native swap on a file system that cannot swap: -1 with errno `code`, nothing done."""

    def native(*args: Any) -> int:
        calls.append(len(args))
        ctypes.set_errno(code)
        return -1

    return native


def test_linux_has_renameat2_and_the_switch_forces_two_renames(monkeypatch: Any) -> None:
    monkeypatch.delenv(atomic.SWAP_SWITCH, raising=False)
    assert atomic.folder_swap().name == "renameat2"
    monkeypatch.setenv(atomic.SWAP_SWITCH, "rename")
    assert atomic.folder_swap() == atomic.RENAMES


def replace_with(tmp_path: Path, swap: atomic.FolderSwap | None) -> None:
    """Write v0, add a hand-written file, replace by v1 with `swap`: v1 and the file remain."""
    out = tmp_path / "out"
    output.write(out, artifacts(0), swap=swap)
    (out / "d" / "mine.txt").write_bytes(HAND)
    assert output.write(out, artifacts(1), swap=swap) == 101  # every file and the manifest
    assert tree(out) == {**generated(1), "d/mine.txt": HAND}
    assert beside(tmp_path) == []


def test_renameat2_replaces_the_output(tmp_path: Path) -> None:
    replace_with(tmp_path, atomic.probe_swap())


def test_renamex_np_replaces_the_output(tmp_path: Path) -> None:
    calls: list[tuple[bytes, bytes, int]] = []
    replace_with(tmp_path, atomic.renamex_np_swap(simulated_renamex_np(calls)))
    [(source, target, flags)] = calls  # one swap: the first write made a new folder
    assert flags == atomic.RENAME_SWAP == 0x2
    assert source.startswith(os.fsencode(tmp_path / ".sigspec-ready-out."))
    assert target == os.fsencode(tmp_path / "out")


def test_two_renames_replace_the_output(tmp_path: Path) -> None:
    replace_with(tmp_path, atomic.RENAMES)


@pytest.mark.parametrize("code", [errno.EINVAL, errno.ENOSYS, errno.ENOTSUP])
@pytest.mark.parametrize("wrap", [atomic.renameat2_swap, atomic.renamex_np_swap])
def test_a_native_swap_the_file_system_refuses_falls_back_to_two_renames(
    tmp_path: Path, wrap: Callable[[Callable[..., int]], atomic.FolderSwap], code: int
) -> None:
    """EINVAL (a file system without the exchange), ENOSYS, ENOTSUP: two renames instead of
    the error (exit 2) a compile used to end with."""
    calls: list[int] = []
    replace_with(tmp_path, wrap(refusing(code, calls)))
    assert calls == [5 if wrap is atomic.renameat2_swap else 3]


def test_a_native_swap_failing_otherwise_keeps_the_old_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    output.write(out, artifacts(0))
    before = tree(out)
    denied = atomic.renameat2_swap(refusing(errno.EACCES, []))
    with pytest.raises(output.OutputError, match=r"cannot replace .*out \(renameat2\): Permission"):
        output.write(out, artifacts(1), swap=denied)
    assert tree(out) == before
    assert beside(tmp_path) == []


# ---- recovery from each state a kill can leave -----------------------------------------------

TOKEN = "k1lled"  # one run's token, as tempfile makes it (no dot)


def ready_name(tmp_path: Path) -> Path:
    return tmp_path / f".sigspec-ready-out.{TOKEN}"


def old_name(tmp_path: Path) -> Path:
    return tmp_path / f".sigspec-old-out.{TOKEN}"


def between_the_renames(tmp_path: Path, new: Path) -> None:
    """Two renames, killed after the first: `out` is missing."""
    os.rename(tmp_path / "out", old_name(tmp_path))
    (old_name(tmp_path) / "late.txt").write_bytes(HAND)  # written after the stage was built
    os.rename(new, ready_name(tmp_path))


def after_the_second_rename(tmp_path: Path, new: Path) -> None:
    """Two renames done, killed before the old folder was salvaged and deleted."""
    os.rename(tmp_path / "out", old_name(tmp_path))
    (old_name(tmp_path) / "late.txt").write_bytes(HAND)
    os.rename(new, tmp_path / "out")


def after_a_native_exchange(tmp_path: Path, new: Path) -> None:
    """One exchange done: the old tree is under the ready name."""
    os.rename(tmp_path / "out", ready_name(tmp_path))
    (ready_name(tmp_path) / "late.txt").write_bytes(HAND)
    os.rename(new, tmp_path / "out")


def ready_but_not_swapped(tmp_path: Path, new: Path) -> None:
    os.rename(new, ready_name(tmp_path))
    (tmp_path / "out" / "late.txt").write_bytes(HAND)


def stage_unfinished(tmp_path: Path, new: Path) -> None:
    """Killed while writing the stage: the manifest and a few files only."""
    stage = tmp_path / f".sigspec-stage-out.{TOKEN}"
    (stage / "d").mkdir(parents=True)
    shutil.copy(new / MANIFEST, stage / MANIFEST)
    shutil.copy(new / "d" / "f1.txt", stage / "d" / "f1.txt")
    os.link(tmp_path / "out" / "mine.txt", stage / "mine.txt")
    (tmp_path / "out" / "late.txt").write_bytes(HAND)


def first_compile_not_promoted(tmp_path: Path, new: Path) -> None:
    """A first compile, killed between finishing its stage and renaming it into place."""
    shutil.rmtree(tmp_path / "out")
    (new / "late.txt").write_bytes(HAND)
    os.rename(new, ready_name(tmp_path))


def new_folder_lost(tmp_path: Path, new: Path) -> None:
    """The old folder moved aside and the new one gone (deleted by hand): put the old back."""
    os.rename(tmp_path / "out", old_name(tmp_path))
    (old_name(tmp_path) / "late.txt").write_bytes(HAND)


def users_own_folder_moved_aside(tmp_path: Path, new: Path) -> None:
    """A first compile into the user's existing folder (no manifest), killed between the
    renames, the new folder gone: every file in it is the user's and comes back."""
    shutil.rmtree(tmp_path / "out")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine.txt").write_bytes(HAND)
    (tmp_path / "out" / "late.txt").write_bytes(HAND)
    os.rename(tmp_path / "out", old_name(tmp_path))


def trash_half_deleted(tmp_path: Path, new: Path) -> None:
    os.rename(new, tmp_path / f".sigspec-trash-out.{TOKEN}_old")
    (tmp_path / "out" / "late.txt").write_bytes(HAND)


USERS = {"mine.txt": HAND, "late.txt": HAND}

# (the state, whether it is an interrupted replacement, the output `recover` makes of it)
STATES = [
    (between_the_renames, True, {**generated(1), **USERS}),
    (after_the_second_rename, True, {**generated(1), **USERS}),
    (after_a_native_exchange, True, {**generated(1), **USERS}),
    (ready_but_not_swapped, True, {**generated(0), **USERS}),
    (stage_unfinished, False, {**generated(0), **USERS}),
    (first_compile_not_promoted, True, {**generated(1), **USERS}),
    (new_folder_lost, True, {**generated(0), **USERS}),
    (users_own_folder_moved_aside, True, USERS),
    (trash_half_deleted, False, {**generated(0), **USERS}),
]


@pytest.mark.parametrize(
    ("make", "broken", "repaired"), STATES, ids=lambda v: getattr(v, "__name__", "")
)
def test_recover_repairs_each_interrupted_state(
    tmp_path: Path,
    make: Callable[[Path, Path], None],
    broken: bool,
    repaired: dict[str, bytes],
) -> None:
    """Built by hand from real folders: `interrupted` tells the state, `recover` leaves one
    complete output with every hand-written file and nothing beside it, and the next write
    is the new output with those files."""
    out = tmp_path / "out"
    output.write(out, artifacts(0))
    (out / "mine.txt").write_bytes(HAND)
    new = tmp_path / "new"
    output.write(new, artifacts(1))
    os.link(out / "mine.txt", new / "mine.txt")  # as the stage hard-links the user's files
    make(tmp_path, new)
    assert output.interrupted(out) is broken
    output.recover(out)
    assert tree(out) == repaired
    assert beside(tmp_path) == []
    output.write(out, artifacts(1))
    assert tree(out) == {**generated(1), **USERS}
    assert beside(tmp_path) == []


def test_recover_leaves_another_outputs_leftovers_alone(tmp_path: Path) -> None:
    """`out.b`'s leftovers share the prefix `.sigspec-old-out.`: they are not `out`'s."""
    output.write(tmp_path / "out", artifacts(0))
    other = tmp_path / ".sigspec-old-out.b.k1lled"
    other.mkdir()
    (other / "mine.txt").write_bytes(HAND)
    assert not output.interrupted(tmp_path / "out")
    output.recover(tmp_path / "out")
    assert (other / "mine.txt").read_bytes() == HAND


# ---- the command in an interrupted state -----------------------------------------------------


def compiled_pair(tmp_path: Path) -> Path:
    """`out` compiled from version 0 with a hand-written file; `ref1` is version 1 (the sources
    now), hand-written file included, as a finished stage would hold it."""
    (tmp_path / "src").mkdir()
    write_version(tmp_path / "src", 1)
    assert run_cli("compile", "src", "-o", "ref1", cwd=tmp_path).returncode == 0
    write_version(tmp_path / "src", 0)
    assert run_cli("compile", "src", "-o", "out", cwd=tmp_path).returncode == 0
    (tmp_path / "out" / "mine.txt").write_bytes(HAND)
    os.link(tmp_path / "out" / "mine.txt", tmp_path / "ref1" / "mine.txt")
    write_version(tmp_path / "src", 1)
    return tmp_path / "ref1"


@pytest.mark.parametrize("make", [between_the_renames, after_the_second_rename, new_folder_lost])
def test_check_reports_an_interrupted_swap_and_compile_repairs_it(
    tmp_path: Path, make: Callable[[Path, Path], None]
) -> None:
    new = compiled_pair(tmp_path)
    expected = tree(new) | {"late.txt": HAND}
    make(tmp_path, new)
    assert_check_reports_interruption(tmp_path)
    result = run_cli("compile", "src", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert tree(tmp_path / "out") == expected
    assert beside(tmp_path) == []
    check = run_cli("compile", "src", "-o", "out", "--check", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_fast_path_never_calls_an_interrupted_output_up_to_date(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Two renames done, the old folder (with the user's newest file) still beside: the
    output's files are all current, yet it is not "up to date" until repaired."""
    from sigspec.commands.compile import Request, _fingerprint, plan
    from sigspec.compiler import fresh

    (tmp_path / "src").mkdir()
    write_version(tmp_path / "src", 0)
    assert run_cli("compile", "src", "-o", "out", cwd=tmp_path).returncode == 0
    monkeypatch.chdir(tmp_path)
    p = plan(Request((Path("src"),), Path("out"), ()))

    def is_fresh() -> bool:
        return fresh.is_fresh(p.out, p.roots, p.root, _fingerprint(p))

    assert is_fresh()
    old = old_name(tmp_path)
    shutil.copytree(tmp_path / "out", old)
    (old / "late.txt").write_bytes(HAND)
    assert not is_fresh()


def test_write_atomic_follows_no_link(tmp_path: Path) -> None:
    """A link at the path is replaced by the file; what it pointed to is untouched (`fmt`
    writes a linked source through its resolved path, tests/test_source_files.py)."""
    (tmp_path / "real.sig").write_bytes(b"old")
    (tmp_path / "link.sig").symlink_to("real.sig")
    atomic.write_atomic(tmp_path / "link.sig", b"new")
    assert not (tmp_path / "link.sig").is_symlink()
    assert (tmp_path / "link.sig").read_bytes() == b"new"
    assert (tmp_path / "real.sig").read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.sig", "real.sig"]


def stat_mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777
