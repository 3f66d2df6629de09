"""`[limits]` in the configuration: the front end's limits reach every command that loads
files, the reply limits reach `sigspec validate`, and a bad value is a configuration error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli

FOUR = "".join(f"signature s{i}() -> :int\n" for i in range(4))


def _project(tmp_path: Path, limits: str) -> Path:
    (tmp_path / "sigspec.toml").write_text(f'sources = ["a.sig"]\n\n[limits]\n{limits}\n')
    (tmp_path / "a.sig").write_text(FOUR + "signature deep() -> :any\n")
    return tmp_path


def test_declarations_and_file_size_come_from_the_configuration(tmp_path: Path) -> None:
    assert run_cli("lint", "a.sig", cwd=_project(tmp_path, "tags = 5")).returncode == 0
    few = run_cli("lint", "a.sig", cwd=_project(tmp_path, "declarations = 3"))
    assert few.returncode == 1 and "too-many-declarations" in few.stderr
    assert "the limit for a .sig file is 3" in few.stderr
    small = run_cli("compile", "-o", "out", cwd=_project(tmp_path, "sig_file_bytes = 40"))
    assert small.returncode == 1 and "file-too-large" in small.stderr
    assert not (tmp_path / "out").exists()
    # fmt reads files as lint does: what lint refuses, fmt leaves alone.
    for flag in ("--check", ""):
        _project(tmp_path, "declarations = 3").joinpath("a.sig").write_text(FOUR + " ")
        refused = run_cli("fmt", *([flag] if flag else []), "a.sig", cwd=tmp_path)
        assert refused.returncode == 1 and "too-many-declarations" in refused.stderr
        assert (tmp_path / "a.sig").read_text() == FOUR + " "
    stdin = run_cli("fmt", "-", cwd=tmp_path, stdin=FOUR)
    assert stdin.returncode == 1 and "too-many-declarations" in stdin.stderr


def test_validate_takes_the_reply_limits_of_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "reply.json").write_text(json.dumps([[[[[1]]]]]))
    _project(tmp_path, "")
    assert run_cli("validate", "a.sig:deep", "reply.json", cwd=tmp_path).returncode == 0
    _project(tmp_path, "depth = 3")
    shallow = run_cli("validate", "a.sig:deep", "reply.json", cwd=tmp_path)
    assert shallow.returncode == 1 and "nesting-depth limit" in shallow.stdout
    _project(tmp_path, "reply_chars = 5")
    short = run_cli("validate", "a.sig:deep", "reply.json", cwd=tmp_path)
    assert short.returncode == 1 and "reply-size limit" in short.stdout


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ("depth = 0", "limit `depth` must be a positive integer"),
        ('tags = "many"', "limit `tags` must be a positive integer"),
        ("declarations = true", "limit `declarations` must be a positive integer"),
        ("speed = 3", "unknown limit `speed`"),
        # Deeper, the validators themselves would run out of stack on a value within it.
        ("depth = 100000", "limit `depth` can be at most 256"),
    ],
)
def test_a_bad_limit_is_a_configuration_error(tmp_path: Path, limits: str, message: str) -> None:
    result = run_cli("lint", cwd=_project(tmp_path, limits))
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
