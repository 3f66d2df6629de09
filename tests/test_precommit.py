"""The hooks of .pre-commit-hooks.yaml, run by the real `pre-commit try-repo` against a
temporary git repository (pre-commit installs sigspec from this checkout into its own venv)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

GOOD = 'type Label = "a" | "b"\n\nsignature f(text :string) -> {label Label}\n'


def pre_commit() -> str:
    local = Path(os.sys.executable).parent / "pre-commit"
    return str(local) if local.exists() else "pre-commit"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")  # one install of the hooks per run


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.invalid")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "sigs").mkdir()
    (tmp_path / "sigs" / "good.sig").write_text(GOOD)
    (tmp_path / "sigspec.toml").write_text('sources = ["sigs"]\nout = "gen"\n')
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "start")
    return tmp_path


def run_hook(repo: Path, home: Path, hook: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    return subprocess.run(
        [pre_commit(), "try-repo", str(ROOT), hook, "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_lint_hook(repo: Path, home: Path) -> None:
    assert run_hook(repo, home, "sigspec-lint").returncode == 0
    (repo / "sigs" / "bad.sig").write_text("signature g() -> {x Labl}\n")
    git(repo, "add", "-A")
    result = run_hook(repo, home, "sigspec-lint")
    assert result.returncode == 1
    assert "error[unknown-type]" in result.stdout


def test_fmt_hook_rewrites_and_fails_once(repo: Path, home: Path) -> None:
    path = repo / "sigs" / "good.sig"
    path.write_text('type   Label="a"|"b"\nsignature f(text:string)->{label Label}\n')
    git(repo, "add", "-A")
    first = run_hook(repo, home, "sigspec-fmt")
    assert first.returncode == 1 and "files were modified by this hook" in first.stdout
    assert path.read_text() == GOOD
    git(repo, "add", "-A")
    assert run_hook(repo, home, "sigspec-fmt").returncode == 0


def test_check_hook_fails_on_stale_output(repo: Path, home: Path) -> None:
    assert run_hook(repo, home, "sigspec-check").returncode == 1  # nothing compiled yet
    env = {**os.environ}
    subprocess.run(
        [os.sys.executable, "-m", "sigspec", "compile"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )
    git(repo, "add", "-A")
    assert run_hook(repo, home, "sigspec-check").returncode == 0
    (repo / "sigs" / "good.sig").write_text(GOOD.replace("{label Label}", "{label :string}"))
    git(repo, "add", "-A")
    stale = run_hook(repo, home, "sigspec-check")
    assert stale.returncode == 1 and "stale: gen/" in stale.stdout
