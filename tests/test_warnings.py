"""Warnings users control: the chosen providers (`providers = [...]`, `--provider`), losses
summed up or grouped, `--quiet`, `[severity]`, and every command's streams (data on stdout,
text diagnostics on stderr)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_cli

LOSSY = (
    "signature f() -> {score :float @min(0) @max(1), name :string @min_length(1)}\n"
    "signature g() -> {n :int @min(1)}\n"
)
WIDE = "signature wide() -> {" + ", ".join(f"f{i} :int?" for i in range(25)) + "}\n"
TEXT_OUTPUT = "@output(text)\nsignature h() -> {a :int}\n"  # a check warning


def _project(tmp_path: Path, config: str | None = None, sig: str = LOSSY) -> Path:
    (tmp_path / "a.sig").write_text(sig)
    if config is not None:
        (tmp_path / "sigspec.toml").write_text(config)
    return tmp_path


def _losses(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "warning[provider-loss]" in line]


def _fragment_providers(out: Path, name: str = "f") -> list[str]:
    [path] = out.rglob(f"{name}.json")
    return list(json.loads(path.read_text())["providers"])


# ---- no choice made: every provider's fragments, losses summed up ----


def test_examples_greet_a_new_user_with_one_line_per_provider(tmp_path: Path) -> None:
    result = run_cli("compile", str(EXAMPLES), "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    lines = _losses(result.stderr)
    assert 0 < len(lines) <= 5  # 23 warnings (92 lines) before
    for line in lines:
        assert line.startswith("warning[provider-loss]: ")
        assert "set `providers = [...]` in the configuration or pass `--provider`" in line
    assert any("anthropic: 11 constraints in 6 declarations" in line for line in lines)
    # Every line of the report is a loss line or the summary: nothing else.
    assert len(result.stderr.splitlines()) == len(lines) + 1


def test_without_a_choice_every_provider_gets_its_fragment(tmp_path: Path) -> None:
    root = _project(tmp_path)
    assert run_cli("compile", "-o", "out", cwd=root).returncode == 0
    from sigspec.lower.providers import NAMES

    assert _fragment_providers(root / "out") == list(NAMES)


# ---- a choice: fragments, losses and limits of those providers only, grouped ----


def test_top_level_providers_choose_fragments_and_group_losses(tmp_path: Path) -> None:
    root = _project(tmp_path, 'providers = ["anthropic"]\n')
    result = run_cli("compile", "-o", "out", cwd=root)
    assert result.returncode == 0, result.stderr
    assert _fragment_providers(root / "out") == ["anthropic"]
    lines = _losses(result.stderr)
    assert len(lines) == 2  # one per signature and provider
    [f_line] = [line for line in lines if "`f`" in line]
    assert f_line.startswith("a.sig: warning[provider-loss]: anthropic: `f`: 3 constraints")
    assert "`score`: `maximum: 1` is not enforced, `minimum: 0` is not enforced" in f_line
    assert "`name`: " in f_line
    assert "ollama" not in result.stderr


def test_provider_flag_overrides_the_configuration(tmp_path: Path) -> None:
    root = _project(tmp_path, 'providers = ["anthropic"]\n')
    result = run_cli("compile", "-o", "out", "--provider", "openai", cwd=root)
    assert result.returncode == 0, result.stderr
    assert _fragment_providers(root / "out") == ["openai"]
    assert [line.split(": ")[2:4] for line in _losses(result.stderr)] == [["openai", "`f`"]]
    both = run_cli("compile", "-o", "out", "--provider", "ollama", "--provider", "openai", cwd=root)
    assert _fragment_providers(root / "out") == ["ollama", "openai"]
    assert {line.split(": ")[2] for line in _losses(both.stderr)} == {"ollama", "openai"}
    assert "anthropic" not in both.stderr


def test_pyproject_providers(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.sigspec]\nproviders = ["openai"]\n')
    root = _project(tmp_path)
    result = run_cli("compile", "-o", "out", cwd=root)
    assert result.returncode == 0 and _fragment_providers(root / "out") == ["openai"]


def test_the_nested_key_still_works_with_a_deprecation_warning(tmp_path: Path) -> None:
    root = _project(tmp_path, '[options.providers]\nproviders = ["openai"]\n')
    result = run_cli("compile", "-o", "out", cwd=root)
    assert result.returncode == 0, result.stderr
    assert _fragment_providers(root / "out") == ["openai"]
    assert "sigspec.toml:2:1: warning[deprecated-setting]: `[options.providers] providers`" in (
        result.stderr
    )
    assert "use `providers = [...]` at the top level" in result.stderr
    lint = run_cli("lint", "a.sig", cwd=root)
    assert lint.returncode == 0 and "deprecated-setting" in lint.stderr
    ignored = _project(
        tmp_path,
        '[options.providers]\nproviders = ["openai"]\n[severity]\ndeprecated-setting = "ignore"\n',
    )
    assert "deprecated-setting" not in run_cli("lint", "a.sig", cwd=ignored).stderr


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('providers = ["bard"]\n', "unknown provider `bard`; known: openai"),
        ("providers = []\n", "`providers` must name at least one provider"),
        ('providers = "openai"\n', "`providers` must be a list of strings"),
        (
            'providers = ["openai"]\n[options.providers]\nproviders = ["openai"]\n',
            "keep the top-level `providers` only",
        ),
    ],
)
def test_a_bad_provider_choice_is_a_configuration_error(
    tmp_path: Path, config: str, message: str
) -> None:
    root = _project(tmp_path, config)
    for args in (["compile", "-o", "out"], ["lint", "a.sig"]):
        result = run_cli(*args, cwd=root)
        assert result.returncode == 2 and message in result.stderr, result.stderr


def test_an_unknown_provider_flag_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("compile", "--provider", "bard", cwd=_project(tmp_path))
    assert result.returncode == 2 and "bard" in result.stderr


# ---- limits: lint finds what compile refuses, for the chosen providers ----


def test_lint_checks_the_provider_limits_of_the_chosen_providers(tmp_path: Path) -> None:
    root = _project(tmp_path, sig=WIDE)
    lint = run_cli("lint", "a.sig", cwd=root)
    assert lint.returncode == 1
    assert "error[provider-limit]: anthropic: `wide` exceeds a limit: 25 optional" in lint.stderr
    assert run_cli("compile", "-o", "out", cwd=root).returncode == 1  # they agree
    chosen = run_cli("lint", "a.sig", "--provider", "openai", cwd=root)
    assert chosen.returncode == 0, chosen.stderr
    assert run_cli("compile", "-o", "out", "--provider", "openai", cwd=root).returncode == 0
    _project(tmp_path, 'providers = ["openai", "ollama"]\n', WIDE)
    assert run_cli("lint", "a.sig", cwd=root).returncode == 0


def test_a_suppressed_limit_is_suppressed_in_lint_too(tmp_path: Path) -> None:
    sig = "# sigspec: ignore[provider-limit] we never send it to Anthropic\n" + WIDE
    root = _project(tmp_path, sig=sig)
    result = run_cli("lint", "a.sig", cwd=root)
    assert result.returncode == 0, result.stderr
    assert "unused-suppression" not in result.stderr


# ---- --quiet ----


def test_quiet_hides_warnings_and_keeps_errors(tmp_path: Path) -> None:
    root = _project(tmp_path, sig=LOSSY + TEXT_OUTPUT)
    loud = run_cli("compile", "-o", "out", cwd=root)
    assert loud.returncode == 0 and "warning[" in loud.stderr
    quiet = run_cli("compile", "-o", "out", "--quiet", cwd=root)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == ""
    lint = run_cli("lint", "a.sig", "-q", cwd=root)
    assert lint.returncode == 0 and lint.stderr == ""
    schema = run_cli("schema", "a.sig:f", "--provider", "anthropic", "-q", cwd=root)
    assert schema.returncode == 0 and schema.stderr == ""
    json.loads(schema.stdout)
    (root / "b.sig").write_text("signature f() -> {s Nope}\n")
    bad = run_cli("lint", "b.sig", "-q", cwd=root)
    assert bad.returncode == 1 and "error[unknown-type]" in bad.stderr
    assert "checked" not in bad.stderr  # no summary line
    bad_compile = run_cli("compile", "b.sig", "-o", "out2", "-q", cwd=root)
    assert bad_compile.returncode == 1 and "error[unknown-type]" in bad_compile.stderr


def test_quiet_on_validate_and_breaking(tmp_path: Path) -> None:
    (tmp_path / "old.sig").write_text('signature a() -> {x "a" | "b"}\n')
    (tmp_path / "new.sig").write_text('signature a() -> {x "a" | "b" | "c"}\n')
    found = run_cli("breaking", "old.sig", "new.sig", "--quiet", cwd=tmp_path)
    assert found.returncode == 1 and "error[widened-output-type]" in found.stderr
    assert "breaking change" not in found.stderr.splitlines()[-1]
    (tmp_path / "v.sig").write_text("signature v() -> {x :int}\n")
    (tmp_path / "reply.txt").write_text('{"x": 1}')
    ok = run_cli("validate", "v.sig:v", "reply.txt", "--quiet", cwd=tmp_path)
    assert ok.returncode == 0 and json.loads(ok.stdout)["ok"] is True
    assert ok.stderr == ""


# ---- [severity] ----


def test_severity_ignore_and_error(tmp_path: Path) -> None:
    root = _project(tmp_path, '[severity]\nprovider-loss = "ignore"\n')
    quiet = run_cli("compile", "-o", "out", cwd=root)
    assert quiet.returncode == 0 and "provider-loss" not in quiet.stderr
    root = _project(tmp_path, 'providers = ["anthropic"]\n[severity]\nprovider-loss = "error"\n')
    strict = run_cli("compile", "-o", "out2", cwd=root)
    assert strict.returncode == 1
    assert "a.sig: error[provider-loss]: anthropic: `f`" in strict.stderr
    assert not (root / "out2").exists()


def test_severity_raises_a_check_warning_in_lint(tmp_path: Path) -> None:
    root = _project(tmp_path, None, TEXT_OUTPUT)
    assert run_cli("lint", "a.sig", cwd=root).returncode == 0
    _project(tmp_path, '[severity]\ntext-output-ignored = "error"\n', TEXT_OUTPUT)
    result = run_cli("lint", "a.sig", cwd=root)
    assert result.returncode == 1 and "error[text-output-ignored]" in result.stderr


def test_an_allowed_error_can_be_lowered(tmp_path: Path) -> None:
    sig = '@prompt("hello")\nsignature t(a :string) -> {x :int}\n'
    root = _project(tmp_path, None, sig)
    assert run_cli("lint", "a.sig", cwd=root).returncode == 1  # unused-param
    _project(tmp_path, '[severity]\nunused-param = "warn"\n', sig)
    lint = run_cli("lint", "a.sig", cwd=root)
    assert lint.returncode == 0 and "warning[unused-param]" in lint.stderr
    assert run_cli("compile", "-o", "out", cwd=root).returncode == 0
    assert run_cli("schema", "a.sig:t", cwd=root).returncode == 0


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('provider-los = "ignore"', "unknown code `provider-los`. did you mean `provider-loss`?"),
        ('provider-loss = "off"', "`provider-loss` must be one of 'ignore', 'warn', 'error'"),
        ("provider-loss = 1", "must be one of"),
        (
            'unknown-type = "warn"',
            "`unknown-type` is an error that guards the output's correctness and cannot be set",
        ),
        ('provider-limit = "ignore"', "`provider-limit` is an error that guards"),
    ],
)
def test_a_bad_severity_is_a_configuration_error(tmp_path: Path, table: str, message: str) -> None:
    root = _project(tmp_path, f"[severity]\n{table}\n")
    for args in (["lint", "a.sig"], ["compile", "-o", "out"]):
        result = run_cli(*args, cwd=root)
        assert result.returncode == 2 and message in result.stderr, result.stderr


def test_severity_lowers_a_breaking_change(tmp_path: Path) -> None:
    (tmp_path / "old.sig").write_text('signature a() -> {x "a" | "b"}\n')
    (tmp_path / "new.sig").write_text('signature a() -> {x "a" | "b" | "c"}\n')
    (tmp_path / "sigspec.toml").write_text(
        '[severity]\nwidened-output-type = "warn"\nrenamed-module = "ignore"\n'
    )
    result = run_cli("breaking", "old.sig", "new.sig", cwd=tmp_path)
    assert result.returncode == 0 and "warning[widened-output-type]" in result.stderr


# ---- streams: data on stdout, text diagnostics on stderr, for every command ----


def test_compile_streams(tmp_path: Path) -> None:
    root = _project(tmp_path)
    text = run_cli("compile", "-o", "out", cwd=root)
    assert text.stdout == "" and "warning[provider-loss]" in text.stderr
    data = run_cli("compile", "-o", "out2", "--format", "json", cwd=root)
    assert {d["code"] for d in json.loads(data.stdout)} == {"provider-loss"}
    assert "provider-loss" not in data.stderr and "wrote" in data.stderr


def test_lint_streams_and_output_file(tmp_path: Path) -> None:
    root = _project(tmp_path, sig="signature f() -> {s Nope}\n")
    text = run_cli("lint", "a.sig", cwd=root)
    assert text.stdout == "" and "error[unknown-type]" in text.stderr
    data = run_cli("lint", "a.sig", "--format", "sarif", cwd=root)
    assert json.loads(data.stdout)["version"] == "2.1.0"
    assert "unknown-type" not in data.stderr
    written = run_cli("lint", "a.sig", "--format", "json", "--output", "report.json", cwd=root)
    assert written.returncode == 1 and written.stdout == ""
    assert json.loads((root / "report.json").read_text())[0]["code"] == "unknown-type"


def test_schema_streams_pipe_into_a_json_reader(tmp_path: Path) -> None:
    root = _project(tmp_path)
    result = run_cli("schema", "a.sig:f", "--provider", "anthropic", cwd=root)
    assert result.returncode == 0
    assert "anthropic: `f`: 3 constraints" in result.stderr
    assert "wrapped" in json.loads(result.stdout)
    several = run_cli("schema", "a.sig:f", "--provider", "openai", "--provider", "ollama", cwd=root)
    assert list(json.loads(several.stdout)) == ["openai", "ollama"]
    shell = shutil.which("sh")
    assert shell is not None
    piped = subprocess.run(
        [
            shell,
            "-c",
            f'"{sys.executable}" -m sigspec schema a.sig:f --provider openai --provider anthropic'
            f' | "{sys.executable}" -c "import json,sys; print(sorted(json.load(sys.stdin)))"',
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert piped.stdout == "['anthropic', 'openai']\n"
    assert "warning[provider-loss]" in piped.stderr


def test_validate_streams(tmp_path: Path) -> None:
    (tmp_path / "a.sig").write_text("signature v() -> {x Nope}\n")
    broken = run_cli("validate", "a.sig:v", "-", cwd=tmp_path, stdin="{}")
    assert broken.returncode == 1 and broken.stdout == ""
    assert "error[unknown-type]" in broken.stderr
    (tmp_path / "a.sig").write_text("signature v() -> {x :int}\n")
    result = run_cli("validate", "a.sig:v", "-", cwd=tmp_path, stdin='{"x": "no"}')
    assert result.returncode == 1 and json.loads(result.stdout)["ok"] is False
    assert result.stderr == ""


def test_breaking_streams(tmp_path: Path) -> None:
    (tmp_path / "old.sig").write_text("signature a(x :int) -> :int\n")
    (tmp_path / "new.sig").write_text("signature a(x :int, y :int) -> :int\n")
    text = run_cli("breaking", "old.sig", "new.sig", cwd=tmp_path)
    assert text.stdout == "" and "error[added-required-param]" in text.stderr
    data = run_cli("breaking", "old.sig", "new.sig", "--format", "github", cwd=tmp_path)
    assert data.stdout.startswith("::error ") and "added-required-param" not in data.stderr


def test_fmt_streams(tmp_path: Path) -> None:
    (tmp_path / "a.sig").write_text("type   A={a:int}\n")
    (tmp_path / "b.sig").write_text("type B = {a Nope\n")
    check = run_cli("fmt", "--check", "a.sig", "b.sig", cwd=tmp_path)
    assert check.stdout == "would reformat a.sig\n"
    assert "error[syntax-error]" in check.stderr
    stdin = run_cli("fmt", "-", cwd=tmp_path, stdin="type   A={a:int}\n")
    assert stdin.stdout == "type A = {a :int}\n" and stdin.stderr == ""


def test_output_file_on_compile_and_breaking(tmp_path: Path) -> None:
    root = _project(tmp_path, 'providers = ["anthropic"]\n')
    result = run_cli("compile", "-o", "out", "--format", "sarif", "--output", "r.sarif", cwd=root)
    assert result.returncode == 0 and result.stdout == ""
    results = json.loads((root / "r.sarif").read_text())["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"provider-loss"} and len(results) == 2
    (tmp_path / "old.sig").write_text("signature a(x :int) -> :int\n")
    (tmp_path / "new.sig").write_text("signature a(x :int, y :int) -> :int\n")
    found = run_cli(
        "breaking", "old.sig", "new.sig", "--format", "json", "--output", "b.json", cwd=tmp_path
    )
    assert found.returncode == 1 and found.stdout == ""
    assert "added-required-param" in {
        d["code"] for d in json.loads((tmp_path / "b.json").read_text())
    }
    unwritable = run_cli("lint", "a.sig", "--output", "missing/dir/r.txt", cwd=root)
    assert unwritable.returncode != 0 and "Traceback" not in unwritable.stderr
