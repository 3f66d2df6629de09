"""The output folder against hostile and careless contents: nothing is written or deleted
outside it, no link is followed that sigspec did not make, nothing is deleted that the
manifest does not list and its hash does not prove, and the folder keeps what it is (a link
stays a link; modes and owners stay).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run_cli, tree
from sigspec.compiler import output
from sigspec.emit.base import MANIFEST, Artifact
from sigspec.infra.digest import digest

A = "signature a(text :string) -> {x :int}\n"
B = "signature b(text :string) -> {y :int}\n"


def compile_into(tmp_path: Path, out: str = "out", *extra: str) -> None:
    result = run_cli("compile", "src", "-o", out, "--target", "jsonschema", *extra, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr


def project(tmp_path: Path, *texts: str) -> None:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    for old in src.glob("*.sig"):
        old.unlink()
    for i, text in enumerate(texts):
        (src / f"f{i}.sig").write_text(text)


def sigspec_leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob(".sigspec-*"))


# ---- 1. writes outside the folder ------------------------------------------------------------


@pytest.mark.parametrize("kind", ["absolute", "relative"])
def test_a_dangling_link_named_like_a_new_file_is_not_written_through(
    tmp_path: Path, kind: str
) -> None:
    """b's schema is new in the second compile; a link waits at its name. The compile refuses
    (the link is the user's), writes nothing where it points and leaves it as it was."""
    project(tmp_path, A)
    compile_into(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "target.json"
    link = tmp_path / "out" / "jsonschema" / "b.input.json"
    link.symlink_to(target if kind == "absolute" else "../../elsewhere/target.json")
    project(tmp_path, A, B)
    result = run_cli("compile", "src", "-o", "out", "--target", "jsonschema", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "does not own: jsonschema/b.input.json" in result.stderr
    assert list(elsewhere.iterdir()) == []
    assert link.is_symlink() and os.readlink(link) == str(
        target if kind == "absolute" else "../../elsewhere/target.json"
    )
    assert sigspec_leftovers(tmp_path) == []


def test_a_link_where_a_generated_folder_goes_is_not_written_through(tmp_path: Path) -> None:
    project(tmp_path, A)
    compile_into(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "out" / "providers").symlink_to(elsewhere)
    result = run_cli("compile", "src", "-o", "out", cwd=tmp_path)  # every target: providers/ too
    assert result.returncode == 2, result.stderr
    assert "does not own: providers" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_generated_file_replaced_by_a_link_is_replaced_not_followed(tmp_path: Path) -> None:
    """A listed file that became a link to a file elsewhere: the link is the user's, so the
    compile refuses, and the file it points to keeps its content."""
    project(tmp_path, A)
    compile_into(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("keep me")
    path = tmp_path / "out" / "jsonschema" / "a.input.json"
    path.unlink()
    path.symlink_to(secret)
    result = run_cli("compile", "src", "-o", "out", "--target", "jsonschema", cwd=tmp_path)
    assert result.returncode == 2 and "does not own: jsonschema/a.input.json" in result.stderr
    assert secret.read_text() == "keep me"


def test_an_unsafe_artifact_path_is_refused(tmp_path: Path) -> None:
    files = [Artifact(MANIFEST, json.dumps({"generator": "sigspec t", "files": {}}), "")]
    for bad in ("../escape.txt", "/abs.txt", "a/../../b.txt"):
        with pytest.raises(output.OutputError, match="outside the output folder"):
            output.write(tmp_path / "out", [*files, Artifact(bad, "x", "")])
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "out").exists()


# ---- 2. deletes outside the folder -----------------------------------------------------------


def test_clean_never_deletes_through_a_link_to_a_folder(tmp_path: Path) -> None:
    """The generated folder replaced by a link to a folder holding the same files (and the
    user's own): --clean deletes nothing there, keeps the link, and ends without a traceback."""
    project(tmp_path, A)
    compile_into(tmp_path)
    victim = tmp_path / "victim"
    (tmp_path / "out" / "jsonschema").rename(victim)
    (victim / "precious.txt").write_text("mine")
    (tmp_path / "out" / "jsonschema").symlink_to("../victim")
    before = tree(victim)
    result = run_cli("compile", "src", "-o", "out", "--clean", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert tree(victim) == before
    assert (tmp_path / "out" / "jsonschema").is_symlink()
    assert "kept out/jsonschema/a.input.json" in result.stderr


def test_clean_deletes_only_files_whose_hash_proves_sigspec_wrote_them(tmp_path: Path) -> None:
    project(tmp_path, A, B)
    compile_into(tmp_path)
    out = tmp_path / "out"
    (out / "jsonschema" / "a.input.json").write_text("edited by hand")
    outside = tmp_path / "outside.json"
    outside.write_text((out / "jsonschema" / "b.input.json").read_text())
    (out / "jsonschema" / "b.input.json").unlink()
    (out / "jsonschema" / "b.input.json").symlink_to(outside)
    result = run_cli("compile", "src", "-o", "out", "--clean", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (out / "jsonschema" / "a.input.json").read_text() == "edited by hand"
    assert (out / "jsonschema" / "b.input.json").is_symlink() and outside.exists()
    assert not (out / "jsonschema" / "a.output.json").exists()
    assert not (out / "jsonschema" / "b.output.json").exists()
    assert not (out / MANIFEST).exists()
    assert "removed 3 files" in result.stderr  # two schemas and the manifest


def test_a_recompile_keeps_an_orphan_the_user_changed(tmp_path: Path) -> None:
    """b is removed: its unchanged files go, its changed one is kept as the user's."""
    project(tmp_path, A, B)
    compile_into(tmp_path)
    out = tmp_path / "out"
    (out / "jsonschema" / "b.input.json").write_text("edited by hand")
    project(tmp_path, A)
    compile_into(tmp_path)
    assert (out / "jsonschema" / "b.input.json").read_text() == "edited by hand"
    assert not (out / "jsonschema" / "b.output.json").exists()
    manifest = json.loads((out / MANIFEST).read_text())
    assert "jsonschema/b.input.json" not in manifest["files"]


def test_the_manifest_records_each_files_hash(tmp_path: Path) -> None:
    project(tmp_path, A)
    compile_into(tmp_path)
    out = tmp_path / "out"
    files = json.loads((out / MANIFEST).read_text())["files"]
    assert files == {rel: digest(data) for rel, data in tree(out).items() if rel != MANIFEST}


# ---- 3. the folder keeps what it is ----------------------------------------------------------


def test_an_output_folder_that_is_a_link_stays_a_link(tmp_path: Path) -> None:
    """The link stays, its target is replaced (keeping its mode), the user's link to a folder
    and 0700 folder inside stay as they were, and nothing of sigspec's is left anywhere."""
    project(tmp_path, A)
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to("real")
    compile_into(tmp_path, "link")
    os.chmod(real, 0o750)
    (real / "private").mkdir(mode=0o700)
    os.chmod(real / "private", 0o700)
    (real / "private" / "notes.txt").write_text("mine")
    userdir = tmp_path / "userdir"
    userdir.mkdir()
    (userdir / "kept.txt").write_text("mine")
    (real / "mylink").symlink_to("../userdir")
    project(tmp_path, A, B)
    compile_into(tmp_path, "link")
    assert (tmp_path / "link").is_symlink() and os.readlink(tmp_path / "link") == "real"
    assert (real / "jsonschema" / "b.input.json").is_file()
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o750
    assert stat.S_IMODE(os.stat(real / "private").st_mode) == 0o700
    assert (real / "private" / "notes.txt").read_text() == "mine"
    assert (real / "mylink").is_symlink() and os.readlink(real / "mylink") == "../userdir"
    assert (userdir / "kept.txt").read_text() == "mine"
    assert sigspec_leftovers(tmp_path) == []
    clean = run_cli("compile", "src", "-o", "link", "--clean", cwd=tmp_path)
    assert clean.returncode == 0
    assert (tmp_path / "link").is_symlink() and (real / "private" / "notes.txt").exists()


def test_a_dangling_output_link_is_refused(tmp_path: Path) -> None:
    project(tmp_path, A)
    (tmp_path / "link").symlink_to("missing")
    result = run_cli("compile", "src", "-o", "link", cwd=tmp_path)
    assert result.returncode == 2 and "which does not exist" in result.stderr
    assert not (tmp_path / "missing").exists()


@pytest.fixture
def umask() -> Iterator[None]:
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


@pytest.mark.usefixtures("umask")
@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o755), (0o027, 0o750)])
def test_a_new_output_folder_follows_the_umask(tmp_path: Path, mask: int, mode: int) -> None:
    project(tmp_path, A)
    os.umask(mask)
    compile_into(tmp_path, "out")
    assert stat.S_IMODE(os.stat(tmp_path / "out").st_mode) == mode
    assert stat.S_IMODE(os.stat(tmp_path / "out" / "jsonschema").st_mode) == mode


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_the_replacement_keeps_the_owner_of_each_folder(tmp_path: Path) -> None:
    project(tmp_path, A)
    compile_into(tmp_path)
    out = tmp_path / "out"
    (out / "mine").mkdir()
    for folder in (out, out / "jsonschema", out / "mine"):
        os.chown(folder, 4242, 4343)
    project(tmp_path, A, B)
    compile_into(tmp_path)
    for folder in (out, out / "jsonschema", out / "mine"):
        st = os.stat(folder)
        assert (st.st_uid, st.st_gid) == (4242, 4343), folder


def test_a_read_only_folder_of_the_users_stays_read_only(tmp_path: Path) -> None:
    project(tmp_path, A)
    compile_into(tmp_path)
    os.chmod(tmp_path / "out" / "jsonschema", 0o555)
    project(tmp_path, A, B)
    try:
        compile_into(tmp_path)
        assert stat.S_IMODE(os.stat(tmp_path / "out" / "jsonschema").st_mode) == 0o555
        assert (tmp_path / "out" / "jsonschema" / "b.input.json").is_file()
    finally:
        os.chmod(tmp_path / "out" / "jsonschema", 0o755)


# ---- 4. manifests of the wrong shape ---------------------------------------------------------

BAD_MANIFESTS = {
    "files-a-number": {"generator": "sigspec 1", "files": 5},
    "files-a-list": {"generator": "sigspec 1", "files": ["jsonschema/a.input.json"]},
    "hash-not-a-string": {"generator": "sigspec 1", "files": {"jsonschema/a.input.json": 5}},
    "parent-path": {"generator": "sigspec 1", "files": {"../../canary.txt": "sha256:0"}},
    "absolute-path": {"generator": "sigspec 1", "files": {"/canary.txt": "sha256:0"}},
    "inputs-a-number": {"generator": "sigspec 1", "files": {}, "inputs": 5},
    "a-list": ["sigspec"],
    "a-string": "sigspec",
}


@pytest.mark.parametrize("name", sorted(BAD_MANIFESTS))
@pytest.mark.parametrize("flag", ["", "--check", "--clean"])
def test_a_manifest_of_the_wrong_shape_is_not_sigspecs(
    tmp_path: Path, name: str, flag: str
) -> None:
    project(tmp_path, A)
    compile_into(tmp_path)
    canary = tmp_path / "canary.txt"
    canary.write_text("alive")
    manifest = BAD_MANIFESTS[name]
    if name == "parent-path":
        manifest = {"generator": "sigspec 1", "files": {"../canary.txt": digest("alive")}}
    if name == "absolute-path":
        manifest = {"generator": "sigspec 1", "files": {str(canary): digest("alive")}}
    (tmp_path / "out" / MANIFEST).write_text(json.dumps(manifest))
    before = tree(tmp_path / "out")
    args = ["compile", "src", "-o", "out", *([flag] if flag else [])]
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "was not written by sigspec" in result.stderr
    assert canary.read_text() == "alive"
    assert tree(tmp_path / "out") == before


@pytest.mark.parametrize("flag", ["--check", "--clean"])
def test_a_manifest_path_that_would_drive_the_terminal_is_refused(
    tmp_path: Path, flag: str
) -> None:
    """`--check` and `--clean` print the manifest's paths: one holding an escape sequence (a
    file sigspec never writes) makes the manifest foreign, and nothing of it is printed."""
    project(tmp_path, A)
    compile_into(tmp_path)
    evil = "\x1b]0;PWNED\x07x\x1b[2J.json"
    (tmp_path / "out" / evil).write_text("{}")
    manifest = json.loads((tmp_path / "out" / MANIFEST).read_text())
    manifest["files"][evil] = digest("{}")
    (tmp_path / "out" / MANIFEST).write_text(json.dumps(manifest))
    result = run_cli("compile", "src", "-o", "out", flag, cwd=tmp_path)
    assert result.returncode == 2 and "was not written by sigspec" in result.stderr
    assert "\x1b" not in result.stdout + result.stderr and "\x07" not in result.stderr
    assert (tmp_path / "out" / evil).read_text() == "{}"


def test_a_manifest_that_is_a_link_is_not_sigspecs(tmp_path: Path) -> None:
    project(tmp_path, A)
    compile_into(tmp_path)
    other = tmp_path / "other.json"
    (tmp_path / "out" / MANIFEST).rename(other)
    (tmp_path / "out" / MANIFEST).symlink_to(other)
    result = run_cli("compile", "src", "-o", "out", "--clean", cwd=tmp_path)
    assert result.returncode == 2 and "not a regular file" in result.stderr
    assert (tmp_path / "out" / "jsonschema" / "a.input.json").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no fifos on this system")
def test_fifos_in_the_output_and_the_manifest_never_hang(tmp_path: Path) -> None:
    """A generated file replaced by a fifo, and a fifo named as an input in the manifest: the
    up-to-date check, the compile, --check and --clean finish (a reader opening a fifo waits
    for a writer forever) and leave the fifo alone."""
    project(tmp_path, A)
    compile_into(tmp_path)
    out = tmp_path / "out"
    os.mkfifo(tmp_path / "src" / "pipe.sig.in")
    fifo = out / "jsonschema" / "a.input.json"
    fifo.unlink()
    os.mkfifo(fifo)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["inputs"]["src/pipe.sig.in"] = "sha256:0"
    (out / MANIFEST).write_text(json.dumps(manifest))
    command = [sys.executable, "-m", "sigspec", "compile", "src", "-o", "out"]
    for flag, code in (([], 2), (["--check"], 1), (["--clean"], 0)):
        result = subprocess.run(
            [*command, *flag], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
        )
        assert result.returncode == code, result.stderr
        assert "Traceback" not in result.stderr
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize(
    ("rel", "ok"),
    [
        ("a.json", True),
        ("python/pkg/a.py", True),
        ("../a", False),
        ("a/../../b", False),
        ("/a", False),
        ("", False),
        ("a//b", False),
        ("./a", False),
        ("a\\..\\b", False),
        ("C:/a", False),
        ("a\0b", False),
        (5, False),
    ],
)
def test_safe_rel(rel: object, ok: bool) -> None:
    assert output.safe_rel(rel) is ok


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no fifos on this system")
def test_read_file_takes_only_regular_files_through_real_folders(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "f").write_bytes(b"data")
    os.mkfifo(tmp_path / "d" / "pipe")
    (tmp_path / "d" / "link").symlink_to("f")
    (tmp_path / "via").symlink_to("d")
    done = threading.Event()

    def read_all() -> None:
        assert output.read_file(tmp_path, "d/f") == b"data"
        assert output.read_file(tmp_path, "d/pipe") is None
        assert output.read_file(tmp_path, "d/link") is None
        assert output.read_file(tmp_path, "via/f") is None
        assert output.read_file(tmp_path, "d") is None
        assert output.read_file(tmp_path, "d/missing") is None
        done.set()

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    reader.join(timeout=60)
    assert done.is_set()


# ---- 6. package names from the configuration -------------------------------------------------


@pytest.mark.parametrize(
    "package", ["../../../escape_pkg", "/abs", "a/b", "a..b", "", "con", "acme.LPT1", "class"]
)
def test_a_package_name_that_is_not_dotted_is_a_config_error(tmp_path: Path, package: str) -> None:
    """`package` is joined to the output folder's python/: a path in it would write above the
    output folder (or anywhere, absolute). It must be a dotted identifier."""
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    project(work, A)
    (work / "sigspec.toml").write_text(
        f'sources = ["src"]\nout = "out"\n[options.python]\npackage = {json.dumps(package)}\n'
    )
    result = run_cli("compile", cwd=work)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "package" in result.stderr and "sigspec.toml" in result.stderr
    assert not (work / "out").exists()
    assert not any(p.name == "escape_pkg" for p in tmp_path.rglob("*"))
    assert not Path("/abs").exists()
