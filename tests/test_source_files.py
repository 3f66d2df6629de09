"""Which files sigspec reads as sources: regular files below the project root or an import
root named in the configuration, links resolved and checked. Anything else (a link out of
the project, a fifo, a device, a folder named x.sig) is an error that quotes nothing of it,
in every command that reads sources, and a fifo never makes a command wait.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli

SECRET = "hunter2-do-not-print"
GOOD = "signature a(text :string) -> {x :int}\n"

# Every command that reads sources, with the file under test as FILE.
COMMANDS = [
    ("lint", "FILE"),
    ("lint", "."),
    ("compile", "FILE", "-o", "out"),
    ("fmt", "--check", "FILE"),
    ("fmt", "FILE"),
    ("validate", "FILE:a", "reply.json"),
    ("breaking", "FILE", "good.sig"),
    ("breaking", "good.sig", "FILE"),
]


def run(tmp: Path, command: tuple[str, ...], name: str) -> subprocess.CompletedProcess[str]:
    """The command in the project `tmp/proj`, finished within a minute (a fifo would hang it),
    with the secret in its environment."""
    args = [a.replace("FILE", name) for a in command]
    return subprocess.run(
        [sys.executable, "-m", "sigspec", *args],
        cwd=tmp / "proj",
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "SIGSPEC_TEST_SECRET": SECRET},
        check=False,
    )


def make_project(tmp: Path) -> Path:
    proj = tmp / "proj"
    proj.mkdir()
    (proj / "good.sig").write_text(GOOD)
    (proj / "reply.json").write_text('{"x": 1}')
    outside = tmp / "outside"
    outside.mkdir()
    (outside / "secrets.env").write_text(f"API_KEY={SECRET} signature\n")
    return proj


def assert_refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    said = result.stdout + result.stderr
    assert result.returncode == 1, said
    assert "Traceback" not in said
    assert SECRET not in said and "API_KEY" not in said
    for word in words:
        assert word in said, said


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_link_to_a_secrets_file_outside_is_refused_unread(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    proj = make_project(tmp_path)
    (proj / "s.sig").symlink_to("../outside/secrets.env")
    before = (tmp_path / "outside" / "secrets.env").read_text()
    assert_refused(run(tmp_path, command, "s.sig"), "outside-root", "s.sig ->")
    assert (tmp_path / "outside" / "secrets.env").read_text() == before
    assert (proj / "s.sig").is_symlink()


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="no /proc here")
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_link_to_the_process_environment_is_refused_unread(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    proj = make_project(tmp_path)
    (proj / "e.sig").symlink_to("/proc/self/environ")
    assert_refused(run(tmp_path, command, "e.sig"), "outside-root")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no fifos on this system")
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_fifo_is_refused_without_waiting(tmp_path: Path, command: tuple[str, ...]) -> None:
    proj = make_project(tmp_path)
    os.mkfifo(proj / "pipe.sig")
    assert_refused(run(tmp_path, command, "pipe.sig"), "it is a fifo, not a regular file")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_a_link_to_a_device_inside_the_allowed_folders_is_refused(tmp_path: Path) -> None:
    """/dev is made an import root so that only the kind of file is left to refuse."""
    proj = make_project(tmp_path)
    (proj / "sigspec.toml").write_text('import_roots = ["/dev"]\n')
    (proj / "z.sig").symlink_to("/dev/zero")
    assert_refused(run(tmp_path, ("lint", "z.sig"), ""), "it is a device, not a regular file")


def test_a_folder_named_like_a_source_is_an_error(tmp_path: Path) -> None:
    proj = make_project(tmp_path)
    (proj / "dir.sig").mkdir()
    assert_refused(run(tmp_path, ("lint", "."), ""), "dir.sig", "it is a folder")
    (proj / "imports.sig").write_text('import "dir.sig"\n')
    (proj / "dir.sig").rmdir()
    (proj / "dir.sig").mkdir()
    result = run(tmp_path, ("lint", "imports.sig"), "")
    assert result.returncode == 1 and "import-not-found" in result.stdout + result.stderr


def test_an_import_through_a_link_out_of_the_project_is_refused(tmp_path: Path) -> None:
    proj = make_project(tmp_path)
    (proj / "s.sig").symlink_to("../outside/secrets.env")
    (proj / "a.sig").write_text('import "s.sig"\n' + GOOD)
    assert_refused(run(tmp_path, ("lint", "a.sig"), ""), "outside-root")


def test_a_link_inside_the_project_is_read_and_fmt_writes_its_target(tmp_path: Path) -> None:
    proj = make_project(tmp_path)
    (proj / "real").mkdir()
    (proj / "real" / "b.sig").write_text("signature   b(text :string) -> {y :int}\n")
    (proj / "b.sig").symlink_to("real/b.sig")
    for command in (("lint", "b.sig"), ("lint", "."), ("compile", "b.sig", "-o", "out")):
        result = run(tmp_path, command, "")
        assert result.returncode == 0, result.stdout + result.stderr
    assert run(tmp_path, ("fmt", "b.sig"), "").returncode == 0
    assert (proj / "b.sig").is_symlink()
    assert (proj / "real" / "b.sig").read_text() == "signature b(text :string) -> {y :int}\n"


# ---- import roots --------------------------------------------------------------------------

MONEY = "type Money = {amount :int, currency :string}\n"
PAY = 'import "../../shared/money.sig"\nsignature pay(m Money) -> {ok :bool}\n'


def shared_project(tmp: Path, config: str) -> Path:
    proj = tmp / "proj"
    (proj / "src").mkdir(parents=True)
    (tmp / "shared").mkdir()
    (tmp / "shared" / "money.sig").write_text(MONEY)
    (proj / "src" / "a.sig").write_text(PAY)
    (proj / "sigspec.toml").write_text(f'sources = ["src"]\nout = "build"\n{config}')
    return proj


def test_an_import_root_admits_files_beside_the_project(tmp_path: Path) -> None:
    proj = shared_project(tmp_path, 'import_roots = ["../shared"]\n')
    assert run_cli("lint", cwd=proj).returncode == 0
    result = run_cli("compile", cwd=proj)
    assert result.returncode == 0, result.stdout + result.stderr
    manifest = (proj / "build" / "manifest.json").read_text()
    assert '"../shared/money.sig"' in manifest and str(tmp_path) not in manifest
    assert "is up to date" in run_cli("compile", cwd=proj).stderr
    (proj / "src" / "b.sig").symlink_to("../../shared/money.sig")
    assert run_cli("lint", cwd=proj).returncode == 0


def test_without_the_import_root_the_import_is_outside_the_root(tmp_path: Path) -> None:
    proj = shared_project(tmp_path, "")
    result = run_cli("lint", cwd=proj)
    assert result.returncode == 1 and "outside-root" in result.stderr


def test_an_import_root_that_is_not_a_folder_is_a_config_error(tmp_path: Path) -> None:
    proj = shared_project(tmp_path, 'import_roots = ["../missing"]\n')
    for command in (("lint",), ("compile",)):
        result = run_cli(*command, cwd=proj)
        assert result.returncode == 2, result.stderr
        assert "import root `../missing` is not a folder" in result.stderr
    (proj / "sigspec.toml").write_text("import_roots = 5\n")
    result = run_cli("lint", cwd=proj)
    assert result.returncode == 2 and "`import_roots` must be a list of strings" in result.stderr
