"""The real `sigspec` command in a subprocess: exit codes, output formats, file handling."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

import pytest

from conftest import EXAMPLES, run_cli

BAD = 'signature f() -> {s Sentimnt}\ntype Sentiment = "a" | "b"\n'
GOOD = 'type Sentiment = "a" | "b"\n\nsignature f() -> {s Sentiment}\n'


def test_lint_examples_is_clean() -> None:
    result = run_cli("lint", str(EXAMPLES))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
    assert "0 errors" in result.stderr


def test_lint_error_exits_1_with_rustc_style_text(tmp_path: Path) -> None:
    (tmp_path / "bad.sig").write_text(BAD)
    result = run_cli("lint", "bad.sig", cwd=tmp_path)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0] == "bad.sig:1:21: error[unknown-type]: unknown type `Sentimnt`"
    assert lines[2] == "1 | signature f() -> {s Sentimnt}"
    assert lines[3] == "  |                     ^^^^^^^^"
    assert lines[4] == "  = help: did you mean `Sentiment`?"
    assert "\x1b[" not in result.stderr  # not a TTY: no colour


def test_lint_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_cli("lint", str(tmp_path / "missing")).returncode == 2
    assert run_cli("lint", str(tmp_path)).returncode == 2  # no .sig files at all
    assert run_cli("lint", "--format", "xml", str(EXAMPLES)).returncode == 2
    assert run_cli("frobnicate").returncode == 2


def test_the_pyproject_form_in_sigspec_toml_says_where_the_keys_go(tmp_path: Path) -> None:
    (tmp_path / "sigspec.toml").write_text('[tool.sigspec]\nproviders = ["openai"]\n')
    (tmp_path / "a.sig").write_text("type A = :int\n")
    result = run_cli("lint", "a.sig", cwd=tmp_path)
    assert result.returncode == 2
    assert "sigspec.toml takes its keys at the top level" in result.stderr


def test_lint_json_format(tmp_path: Path) -> None:
    (tmp_path / "bad.sig").write_text(BAD)
    result = run_cli("lint", "--format", "json", "bad.sig", cwd=tmp_path)
    assert result.returncode == 1
    [diag] = json.loads(result.stdout)
    assert diag == {
        "path": "bad.sig",
        "line": 1,
        "column": 21,
        "end_line": 1,
        "end_column": 29,
        "severity": "error",
        "code": "unknown-type",
        "message": "unknown type `Sentimnt`",
        "hints": ["did you mean `Sentiment`?"],
        "fixes": [{"line": 1, "column": 21, "end_line": 1, "end_column": 29, "text": "Sentiment"}],
        "labels": [],
    }


def test_lint_github_format_escapes(tmp_path: Path) -> None:
    (tmp_path / "a,b.sig").write_text(BAD)
    result = run_cli("lint", "--format", "github", "a,b.sig", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.startswith(
        "::error file=a%2Cb.sig,line=1,col=21,endLine=1,endColumn=29,"
        "title=sigspec (unknown-type)::unknown type `Sentimnt`%0Ahelp: did you mean"
    )


def test_lint_sarif_format(tmp_path: Path) -> None:
    (tmp_path / "bad.sig").write_text(BAD)
    result = run_cli("lint", "--format", "sarif", "bad.sig", cwd=tmp_path)
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    [res] = run["results"]
    assert res["ruleId"] == "unknown-type" and res["level"] == "error"
    assert run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == "unknown-type"
    region = res["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 21, "endLine": 1, "endColumn": 29}


def test_lint_sarif_names_awkward_files_by_uri(tmp_path: Path) -> None:
    """Each result's URI, resolved against the project root (the `uriBaseId`), names the
    file it is about, whatever characters the file's name holds."""
    names = ["dir with space/b é.sig", "a,b:c%.sig", "x#y?.sig", "sub/[1] & 2.sig"]
    for number, name in enumerate(names):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(f"signature f{number}() -> {{s Nope}}\n")
    result = run_cli("lint", "--format", "sarif", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    [run] = json.loads(result.stdout)["runs"]
    found = set()
    for res in run["results"]:
        artifact = res["locations"][0]["physicalLocation"]["artifactLocation"]
        assert artifact["uriBaseId"] == "PROJECTROOT"
        assert " " not in artifact["uri"] and "#" not in artifact["uri"]
        assert (tmp_path / unquote(artifact["uri"])).is_file()
        found.add(unquote(artifact["uri"]))
    assert found == set(names)


def test_lint_follows_imports_and_reports_cycles(tmp_path: Path) -> None:
    (tmp_path / "a.sig").write_text('import "b.sig"\ntype A = B\n')
    (tmp_path / "b.sig").write_text('import "a.sig"\ntype B = :int\n')
    result = run_cli("lint", "a.sig", cwd=tmp_path)
    assert result.returncode == 1
    assert "error[import-cycle]: import cycle: a.sig -> b.sig -> a.sig" in result.stderr


def test_lint_never_prints_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "junk.sig").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "deep.sig").write_text("type A = " + "[" * 5000 + ":int" + "]" * 5000)
    result = run_cli("lint", str(tmp_path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "invalid-encoding" in result.stderr and "nesting-too-deep" in result.stderr


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {}])
def test_no_colour_without_tty(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "bad.sig").write_text(BAD)
    assert "\x1b[" not in run_cli("lint", "bad.sig", cwd=tmp_path, env=env).stderr


def test_fmt_check_diff_and_write(tmp_path: Path) -> None:
    path = tmp_path / "x.sig"
    path.write_text("type   A={a:int}\n")
    check = run_cli("fmt", "--check", "x.sig", cwd=tmp_path)
    assert check.returncode == 1 and "would reformat x.sig" in check.stdout
    diff = run_cli("fmt", "--diff", "x.sig", cwd=tmp_path)
    assert diff.returncode == 1 and "+type A = {a :int}" in diff.stdout
    assert path.read_text() == "type   A={a:int}\n"  # neither mode writes
    written = run_cli("fmt", "x.sig", cwd=tmp_path)
    assert written.returncode == 0 and path.read_text() == "type A = {a :int}\n"
    assert run_cli("fmt", "--check", "x.sig", cwd=tmp_path).returncode == 0


def test_fmt_leaves_broken_files_alone(tmp_path: Path) -> None:
    path = tmp_path / "x.sig"
    path.write_text("type A = {a :int\n")
    result = run_cli("fmt", "x.sig", cwd=tmp_path)
    assert result.returncode == 1 and "syntax-error" in result.stderr
    assert path.read_text() == "type A = {a :int\n"


def test_fmt_stdin_to_stdout() -> None:
    result = run_cli("fmt", "-", stdin="type A={a:int}")
    assert result.returncode == 0 and result.stdout == "type A = {a :int}\n"


def test_explain() -> None:
    result = run_cli("explain", "duplicate-field")
    assert result.returncode == 0
    assert "duplicate-field (error)" in result.stdout
    assert "signature f() -> {a_ :int, a- :int}" in result.stdout
    wrong = run_cli("explain", "duplicate-feld")
    assert wrong.returncode == 2 and "did you mean `duplicate-field`" in wrong.stderr


def test_validate_a_reply_file(tmp_path: Path) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text('Sure!\n```json\n{"sentiment": "Negative", "score": "0.25"}\n```')
    result = run_cli("validate", str(EXAMPLES / "sentiment.sig") + ":classify", str(reply))
    assert result.returncode == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["value"] == {"sentiment": "negative", "score": 0.25}
    assert {r["path"] for r in body["repairs"]} == {"sentiment", "score"}
    reply.write_text('{"sentiment": "happy", "score": 2}')
    result = run_cli("validate", str(EXAMPLES / "sentiment.sig") + ":classify", str(reply))
    assert result.returncode == 1
    errors = json.loads(result.stdout)["errors"]
    assert [e["path"] for e in errors] == ["sentiment", "score"]


def test_validate_jsonl_matches_the_generated_parser() -> None:
    lines = [
        {"id": "a", "text": '{"sentiment": "positive", "score": 0.5}'},
        {"id": "b", "text": "no answer here"},
        {"id": "c", "text": "{sentiment: 'neutral', score: 1}"},
    ]
    stdin = "\n".join(json.dumps(line) for line in lines) + "\nnot json\n"
    result = run_cli(
        "validate", str(EXAMPLES / "sentiment.sig") + ":classify", "--jsonl", stdin=stdin
    )
    assert result.returncode == 1  # some lines failed
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["id"] for o in out] == ["a", "b", "c", 4]
    assert [o["ok"] for o in out] == [True, False, True, False]
    assert out[2]["value"] == {"sentiment": "neutral", "score": 1}
    assert out[1]["reason"] == "no JSON found in the reply"


def test_validate_usage_errors() -> None:
    assert run_cli("validate", "nosuchspec").returncode == 2
    assert run_cli("validate", str(EXAMPLES / "sentiment.sig") + ":nope", "x").returncode == 2


def test_suppressing_a_provider_warning_in_compile(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.sig").write_text(
        "signature f() -> {\n"
        "  # sigspec: ignore[provider-loss] we only call OpenAI, which checks the pattern\n"
        '  code :string @pattern("^[A-Z]+$")\n'
        "}\n"
        "signature g() -> {n :string @min_length(1)} # sigspec: ignore[provider-loss] fine\n"
        "signature h() -> :int # sigspec: ignore[provider-loss] nothing to silence\n"
    )
    result = run_cli("compile", "src", "-o", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning[provider-loss]" not in result.stderr
    assert "a.sig:6:23: warning[unused-suppression]" in result.stderr and not result.stdout
    assert "unused-suppression" not in run_cli("lint", "src", cwd=tmp_path).stderr


def test_breaking_between_files_and_against_git(tmp_path: Path) -> None:
    import subprocess

    (tmp_path / "old.sig").write_text('signature a() -> {x "a" | "b"}\n')
    (tmp_path / "new.sig").write_text('signature a() -> {x "a" | "b" | "c"}\n')
    result = run_cli("breaking", "old.sig", "new.sig", cwd=tmp_path)
    assert result.returncode == 1 and "error[widened-output-type]" in result.stderr
    assert run_cli("breaking", "old.sig", "old.sig", cwd=tmp_path).returncode == 0
    assert run_cli("breaking", "old.sig", cwd=tmp_path).returncode == 2

    repo = tmp_path / "repo"
    (repo / "sigs").mkdir(parents=True)
    for args in (
        ["init", "-q"],
        ["config", "user.email", "t@example.invalid"],
        ["config", "user.name", "t"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "sigs" / "a.sig").write_text("signature a(x :int) -> {y :int}\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "v1"], cwd=repo, check=True)
    (repo / "sigs" / "a.sig").write_text("signature a(x :int, z :int) -> {y :int}\n")
    result = run_cli("breaking", "sigs", "--against", "HEAD", cwd=repo)
    assert result.returncode == 1 and "error[added-required-param]" in result.stderr
    # Paths are relative to the project root: without a configuration, the folder given.
    assert result.stderr.startswith("a.sig:1:")
    (repo / "sigspec.toml").write_text("")  # now the root is the repository's top
    assert run_cli("breaking", "sigs", "--against", "HEAD", cwd=repo).stderr.startswith("sigs/a")
    (repo / "sigspec.toml").write_text('breaking_ignore = ["added-required-param"]\n')
    assert run_cli("breaking", "sigs", "--against", "HEAD", cwd=repo).returncode == 0
    bad_ref = run_cli("breaking", "sigs", "--against", "no-such-ref", cwd=repo)
    assert bad_ref.returncode == 2 and "cannot read" in bad_ref.stderr


def test_compile_watch_recompiles_and_survives_broken_files(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.sig").write_text("signature a() -> {x :int}\n")
    manifest = tmp_path / "out" / "manifest.json"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sigspec",
            "compile",
            "src",
            "-o",
            "out",
            "--watch",
            "--interval",
            "0.05",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def wait_for(condition: object, limit: float = 30) -> bool:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if condition():  # type: ignore[operator]
                return True
            time.sleep(0.05)
        return False

    try:
        assert wait_for(manifest.exists)
        (src / "a.sig").write_text("signature a() -> {x Missing}\n")  # broken: reported
        time.sleep(1)
        assert process.poll() is None  # still watching
        assert '"name": "b"' not in manifest.read_text()
        (src / "a.sig").write_text("signature a() -> {x :int}\nsignature b() -> :int\n")
        assert wait_for(lambda: '"name": "b"' in manifest.read_text())
    finally:
        os.kill(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "error[unknown-type]" in err and not out
    # The first two rounds have reported; the third is proven by the manifest above (it may be
    # interrupted between writing the output and printing its line).
    assert err.count("[watch] compiled") >= 2
