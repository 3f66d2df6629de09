"""Atomic output: a compile killed at any moment leaves the old or the new output, never a mix."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from conftest import run_cli, tree


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


def snapshot(tmp_path: Path, version: int) -> dict[str, bytes]:
    write_version(tmp_path / "src", version)
    ref = tmp_path / f"ref{version}"
    assert run_cli("compile", "src", "-o", str(ref), cwd=tmp_path).returncode == 0
    return tree(ref)


def test_killed_compiles_leave_old_or_new_output(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    refs = [snapshot(tmp_path, 0), snapshot(tmp_path, 1)]
    assert refs[0] != refs[1]
    write_version(tmp_path / "src", 0)
    start = time.perf_counter()
    assert run_cli("compile", "src", "-o", "out", cwd=tmp_path).returncode == 0
    duration = time.perf_counter() - start
    (tmp_path / "out" / "mine.txt").write_text("hand written")
    rng = random.Random(20261122)
    states = set()
    for attempt in range(10):
        write_version(tmp_path / "src", (attempt + 1) % 2)
        process = subprocess.Popen(
            compile_cmd(), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.3, 1.1) * duration)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        now = tree(tmp_path / "out")
        assert now.pop("mine.txt") == b"hand written"
        assert now in refs, f"attempt {attempt}: output is a mix of two compiles"
        states.add(refs.index(now))
    # A clean compile afterwards finishes the job and clears what killed runs left behind.
    assert run_cli("compile", "src", "-o", "out", cwd=tmp_path).returncode == 0
    assert not [
        p for p in tmp_path.iterdir() if p.name.startswith((".sigspec-stage-", ".sigspec-trash-"))
    ]
    assert (tmp_path / "out" / "mine.txt").read_text() == "hand written"


def test_a_failed_write_in_either_writer_leaves_the_old_output(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Large outputs are written by two threads; an error in either (a full disk, say)
    reaches the caller and the folder keeps its previous complete output."""
    import pytest

    from sigspec.compiler import output
    from sigspec.emit.base import MANIFEST, Artifact
    from sigspec.infra.digest import digest

    def files(version: int) -> list[Artifact]:
        texts = [Artifact(f"d/f{i}.txt", f"v{version} {i}", "") for i in range(100)]
        owned = {a.path: digest(a.text) for a in texts}
        manifest = json.dumps({"generator": "sigspec test", "files": owned})
        return [Artifact(MANIFEST, manifest, ""), *texts]

    out = tmp_path / "out"
    output.write(out, files(0))
    before = tree(out)
    real = output._write_file
    for broken in ("d/f10.txt", "d/f11.txt"):  # one in each thread's half

        def failing(path: Path, data: bytes, broken: str = broken) -> None:
            if path.as_posix().endswith(broken):
                raise OSError(28, "No space left on device")
            real(path, data)

        monkeypatch.setattr(output, "_write_file", failing)
        with pytest.raises(OSError, match="No space"):
            output.write(out, files(1))
        assert tree(out) == before
        assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no stage left behind
