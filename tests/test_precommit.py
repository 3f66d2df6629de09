"""The hooks of .pre-commit-hooks.yaml, run by the real `pre-commit` against temporary git
repositories. pre-commit installs sigspec from this checkout, as `pre-commit try-repo` would
(uncommitted changes included), once for the whole module: `try-repo` would install it anew
for every run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

GOOD = 'type Label = "a" | "b"\n\nsignature f(text :string) -> {label Label}\n'


def pre_commit() -> str:
    local = Path(os.sys.executable).parent / "pre-commit"
    return str(local) if local.exists() else "pre-commit"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pre-commit home whose configuration pins the hooks to a commit of this checkout as
    it is on disk: a clone with the working tree's changes copied in and committed."""
    home = tmp_path_factory.mktemp("pre-commit-home")
    shadow = home / "sigspec"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(shadow)], check=True)
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, shadow / name
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        elif target.is_file():  # deleted in the working tree
            target.unlink()
    git(shadow, "add", "-A")
    git(
        shadow,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-qm",
        "working tree",
        "--allow-empty",
    )
    rev = git(shadow, "rev-parse", "HEAD").strip()
    hooks = ("sigspec-lint", "sigspec-fmt", "sigspec-check")
    (home / "config.yaml").write_text(
        f"repos:\n  - repo: {shadow.as_uri()}\n    rev: {rev}\n    hooks:\n"
        + "".join(f"      - id: {hook}\n" for hook in hooks)
    )
    return home


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


def run_hook(
    repo: Path, home: Path, hook: str, *, staged: bool = False
) -> subprocess.CompletedProcess[str]:
    """The hook over every file, or (`staged`) over the staged files only, as at commit."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    config = str(home / "config.yaml")
    return subprocess.run(
        [pre_commit(), "run", "-c", config, hook, *(() if staged else ("--all-files",))],
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


# The scenario: `sentiment.sig` imports `common.sig`; many files carry warnings.
COMMON = 'type Sentiment = "pos" | "neg"\n'
IMPORTER = (
    'import "common.sig"\n\n@prompt("Classify {{text}}")\n'
    "signature classify(text :string) -> {s Sentiment}\n"
)
NOISY = '@prompt("Do {{{{text}}}}")\nsignature w{0}(text :string) -> {{x :string @format("iri")}}\n'


def project(folder: Path, noisy: int = 0) -> None:
    (folder / "sigs").mkdir(parents=True, exist_ok=True)
    (folder / "sigspec.toml").write_text('sources = ["sigs"]\n')
    (folder / "sigs" / "common.sig").write_text(COMMON)
    (folder / "sigs" / "sentiment.sig").write_text(IMPORTER)
    for i in range(noisy):  # each an `unchecked-format` warning
        (folder / "sigs" / f"w{i}.sig").write_text(NOISY.format(i))


def commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")


def test_lint_hook_fails_on_a_broken_importer_with_the_error_first(repo: Path, home: Path) -> None:
    project(repo, noisy=12)
    commit(repo)
    (repo / "sigs" / "common.sig").write_text(COMMON.replace("Sentiment", "Mood"))
    git(repo, "add", "sigs/common.sig")  # the importer is not staged
    result = run_hook(repo, home, "sigspec-lint", staged=True)
    assert result.returncode == 1, result.stdout
    out = result.stdout
    assert "sigs/sentiment.sig:4:40: error[unknown-type]: unknown type `Sentiment`" in out
    assert "warning[" not in out  # the 12 warnings are counted, not printed
    assert "1 error, 12 warnings (not shown: run `sigspec lint`" in out
    assert out.index("error[unknown-type]") < out.index("12 warnings")


def test_lint_hook_passes_a_clean_change_with_warnings(repo: Path, home: Path) -> None:
    project(repo, noisy=3)
    commit(repo)
    (repo / "sigs" / "common.sig").write_text(COMMON + 'type Extra = "x" | "y"\n')
    git(repo, "add", "sigs/common.sig")
    result = run_hook(repo, home, "sigspec-lint", staged=True)
    assert result.returncode == 0, result.stdout  # warnings alone do not fail


def test_lint_hook_checks_each_project_with_its_own_configuration(repo: Path, home: Path) -> None:
    # Both projects declare `Sentiment` (no clash: names are global within a project), and
    # `b` makes `unchecked-format` an error where `a` keeps it a warning.
    project(repo / "a", noisy=2)
    project(repo / "b", noisy=1)
    (repo / "b" / "sigspec.toml").write_text(
        'sources = ["sigs"]\n\n[severity]\nunchecked-format = "error"\n'
    )
    git(repo, "add", "-A")
    result = run_hook(repo, home, "sigspec-lint")
    assert result.returncode == 1, result.stdout
    assert "duplicate-declaration" not in result.stdout
    assert "b/sigs/w0.sig:2:" in result.stdout and "error[unchecked-format]" in result.stdout
    assert "a/sigs/w" not in result.stdout  # a's warnings are only counted
    assert "in 3 projects checked: 1 error, 2 warnings" in result.stdout  # the root's too
    (repo / "b" / "sigspec.toml").write_text('sources = ["sigs"]\n')
    commit(repo)
    (repo / "a" / "sigs" / "common.sig").write_text("type Other = :string\n")
    (repo / "b" / "sigs" / "w0.sig").write_text(NOISY.format(7))
    git(repo, "add", "-A")
    result = run_hook(repo, home, "sigspec-lint", staged=True)
    assert result.returncode == 1, result.stdout
    assert "a/sigs/sentiment.sig:4:40: error[unknown-type]" in result.stdout
    assert "in 2 projects checked: 1 error, 3 warnings" in result.stdout


def test_lint_hook_catches_the_importers_of_a_renamed_file(repo: Path, home: Path) -> None:
    project(repo)
    commit(repo)
    git(repo, "mv", "sigs/common.sig", "sigs/base.sig")  # pre-commit passes base.sig only
    result = run_hook(repo, home, "sigspec-lint", staged=True)
    assert result.returncode == 1, result.stdout
    assert "sigs/sentiment.sig:1:8: error[import-not-found]" in result.stdout


# `sigspec lint --project` and `--warnings=summary` themselves, without pre-commit.


def test_project_finds_what_the_given_files_alone_do_not(tmp_path: Path) -> None:
    project(tmp_path)
    (tmp_path / "sigs" / "common.sig").write_text(COMMON.replace("Sentiment", "Mood"))
    (tmp_path / "sigs" / "other.sig").write_text('type Mood = "a"\n')  # imports nothing
    alone = run_cli("lint", "sigs/common.sig", cwd=tmp_path)
    assert alone.returncode == 0, alone.stderr
    # Run from below the project root: paths stay relative to the root.
    whole = run_cli("lint", "--project", "common.sig", cwd=tmp_path / "sigs")
    assert whole.returncode == 1
    assert "sigs/sentiment.sig:4:40: error[unknown-type]" in whole.stderr
    assert "sigs/other.sig:1:6: error[duplicate-declaration]" in whole.stderr
    assert "3 files checked: 2 errors, 0 warnings" in whole.stderr


def test_warnings_summary_reports_errors_only_and_counts_the_rest(tmp_path: Path) -> None:
    project(tmp_path, noisy=3)
    clean = run_cli("lint", "--warnings=summary", "--format", "json", "sigs", cwd=tmp_path)
    assert clean.returncode == 0  # warnings alone: 0, as before
    assert json.loads(clean.stdout) == []
    assert "0 errors, 3 warnings (not shown" in clean.stderr
    shown = run_cli("lint", "sigs", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stderr.count("warning[unchecked-format]") == 3
    (tmp_path / "sigs" / "common.sig").write_text("type Mood = :string\n")
    broken = run_cli("lint", "--warnings=summary", "--format", "json", "sigs", cwd=tmp_path)
    assert broken.returncode == 1
    assert [d["code"] for d in json.loads(broken.stdout)] == ["unknown-type"]
    quiet = run_cli("lint", "--warnings=summary", "-q", "sigs", cwd=tmp_path)
    assert quiet.returncode == 1 and "checked:" not in quiet.stderr
    assert run_cli("lint", "--warnings=some", "sigs", cwd=tmp_path).returncode == 2


def test_several_projects_name_files_from_the_working_directory(tmp_path: Path) -> None:
    for name in ("a", "b"):
        project(tmp_path / name)
        (tmp_path / name / "sigs" / "dup.sig").write_text(COMMON)  # clashes within its own
    result = run_cli(
        "lint", "--project", "--format", "json", "a/sigs/common.sig", "b/sigs", cwd=tmp_path
    )
    assert result.returncode == 1
    found = [(d["path"], d["code"]) for d in json.loads(result.stdout)]
    assert found == [
        ("a/sigs/dup.sig", "duplicate-declaration"),
        ("b/sigs/dup.sig", "duplicate-declaration"),
    ]
    text = run_cli("lint", "--project", "a/sigs/common.sig", "b/sigs/dup.sig", cwd=tmp_path)
    assert "first declared here at a/sigs/common.sig:1:6" in text.stderr  # labels too
    assert "6 files in 2 projects checked: 2 errors" in text.stderr


def test_project_without_configuration_is_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "common.sig").write_text(COMMON.replace("Sentiment", "Mood"))
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "use.sig").write_text(IMPORTER.replace("common.sig", "../x/common.sig"))
    result = run_cli("lint", "--project", "x/common.sig", cwd=tmp_path)
    assert result.returncode == 1
    assert "y/use.sig:4:40: error[unknown-type]" in result.stderr
    # A file outside the working directory: its own folder is the project.
    outside = run_cli("lint", "--project", str(tmp_path / "x" / "common.sig"), cwd=tmp_path / "y")
    assert outside.returncode == 0, outside.stderr


def test_a_project_below_is_not_part_of_the_one_above(tmp_path: Path) -> None:
    # `inner/` and `pkg/` hold configurations of their own: other projects, other names.
    project(tmp_path / "inner")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text("[tool.sigspec]\n")
    (tmp_path / "pkg" / "same.sig").write_text(COMMON)
    (tmp_path / "top.sig").write_text(COMMON)  # `Sentiment` again, in another project
    result = run_cli("lint", "--project", "top.sig", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 file checked" in result.stderr
    # A configuration without `sources` leaves out a project below it the same way.
    (tmp_path / "sigspec.toml").write_text("")
    assert run_cli("lint", "--project", "top.sig", cwd=tmp_path).returncode == 0


def test_project_with_a_broken_configuration_exits_2(tmp_path: Path) -> None:
    project(tmp_path)
    (tmp_path / "sigspec.toml").write_text("sources = [\n")
    result = run_cli("lint", "--project", "sigs/common.sig", cwd=tmp_path)
    assert result.returncode == 2
    assert "cannot read the configuration" in result.stderr
    assert "Traceback" not in result.stderr
