"""The registries: every target is usable from the configuration and the command line, every
provider's fragments are compiled, written and read back, and each diagnostic code's phase
decides which run judges a suppression of it."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

import sigspec
from conftest import run_cli
from sigspec.emit.registry import TARGETS
from sigspec.lower.providers import NAMES as PROVIDERS
from sigspec.syntax.ast import per_primitive

SIG = (
    "## Classify a review.\n"
    'signature classify(text :string) -> {label "good" | "bad", score :float @min(0)}\n'
    "## Look things up.\n"
    "tool search(query :string, limit :int = 10) -> [{title :string}]\n"
)
# The folder each target writes below the output folder.
FOLDERS = {
    "jsonschema": "jsonschema",
    "providers": "providers",
    "prompts": "prompts",
    "python": "python",
    "typescript": "typescript",
}


def test_every_target_has_its_folder_here() -> None:
    assert sorted(FOLDERS) == sorted(TARGETS)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_target_is_accepted_by_the_configuration_and_the_command_line(
    tmp_path: Path, target: str
) -> None:
    """`targets = ["typescript"]` once failed with "unknown target": the configuration had
    its own list. Both now read the registry."""
    (tmp_path / "sigs").mkdir()
    (tmp_path / "sigs" / "a.sig").write_text(SIG)
    (tmp_path / "sigspec.toml").write_text(f'sources = ["sigs"]\ntargets = ["{target}"]\n')
    configured = run_cli("compile", "-o", "from-config", cwd=tmp_path)
    assert configured.returncode == 0, configured.stderr
    flagged = run_cli("compile", "sigs", "--target", target, "-o", "from-flag", cwd=tmp_path)
    assert flagged.returncode == 0, flagged.stderr
    for out in ("from-config", "from-flag"):
        written = {p.relative_to(tmp_path / out).parts[0] for p in (tmp_path / out).rglob("*")}
        assert written == {FOLDERS[target], "manifest.json"}, (out, written)
        manifest = json.loads((tmp_path / out / "manifest.json").read_text())
        assert manifest["config"]["targets"] == [target]


def test_help_lists_every_target_and_its_options() -> None:
    from sigspec.emit.options import describe

    shown = run_cli("compile", "--help").stdout
    for target in TARGETS.values():
        assert f"{target.name:<11} {target.summary}" in shown
        for name, default, _ in describe(target.options):
            assert f"{name} = {default}:" in shown


# Minimal replies in each provider's own response format, for its reader.
REPLIES = {
    "openai": {"choices": [{"message": {"content": '{"label": "good", "score": 1}'}}]},
    "anthropic": {"content": [{"type": "text", "text": '{"label": "good", "score": 1}'}]},
    "gemini": {"candidates": [{"content": {"parts": [{"text": '{"label": "good", "score": 1}'}]}}]},
    "ollama": {"message": {"content": '{"label": "good", "score": 1}'}},
}


def test_every_provider_is_compiled_written_and_read_back(tmp_path: Path) -> None:
    """Each registered provider's fragments reach the providers file; each one's schema is
    valid JSON Schema; where the runtime has a payload builder and a reader for it, the
    written fragment goes into a request body and a reply comes back out."""
    from sigspec.lower.providers import provider
    from sigspec.runtime import client

    (tmp_path / "a.sig").write_text(SIG)
    assert (
        run_cli("compile", "a.sig", "--target", "providers", "-o", "out", cwd=tmp_path).returncode
        == 0
    )
    written = {
        name: json.loads((tmp_path / "out" / "providers" / f"{name}.json").read_text())
        for name in ("classify", "search")
    }
    with_runtime = []
    for name in PROVIDERS:
        entry = written["classify"]["providers"][name]
        tool = written["search"]["providers"][name]["tool"]
        assert "request" in entry and tool, name
        schemas = _schemas(entry["request"])
        assert schemas, name
        for schema in schemas:
            jsonschema.Draft202012Validator.check_schema(schema)
        registered = provider(name)
        if registered.payload is None:
            continue
        with_runtime.append(name)
        request = {
            "output": "json",
            "messages": [{"role": "user", "content": "hi"}],
            "system": "",
            "fragments": {name: entry},
        }
        build = getattr(client, registered.payload)
        body = build(request) if name == "gemini" else build(request, "m")
        assert json.dumps(entry["request"])[1:-1] in json.dumps(body), name
        assert getattr(client, str(registered.reader))(REPLIES[name])["content"].startswith("{")
    assert sorted(with_runtime) == sorted(REPLIES)


def _schemas(value: object) -> list[dict[str, object]]:
    """The outermost JSON Schemas inside a request fragment: objects with `properties`."""
    if isinstance(value, dict):
        if "properties" in value:
            return [value]
        return [s for item in value.values() for s in _schemas(item)]
    if isinstance(value, list):
        return [s for item in value for s in _schemas(item)]
    return []


BIG_INT_FIELD = "signature f() -> {n :int = 9007199254740993}\n"


def test_a_compile_phase_code_is_suppressed_and_not_reported_unused(tmp_path: Path) -> None:
    """`ignore[typescript-unsupported]` once silenced the warning yet both `lint` and
    `compile` called it unused: the list of compile codes was kept by hand."""
    (tmp_path / "a.sig").write_text(
        "# sigspec: ignore[typescript-unsupported] the number is only exact in Python\n"
        + BIG_INT_FIELD
    )
    lint = run_cli("lint", "a.sig", "--format", "json", cwd=tmp_path)
    compiled = run_cli("compile", "a.sig", "--format", "json", cwd=tmp_path)
    assert lint.returncode == 0 and json.loads(lint.stdout) == []
    assert compiled.returncode == 0
    codes = [d["code"] for d in json.loads(compiled.stdout)]
    assert "typescript-unsupported" not in codes and "unused-suppression" not in codes


def test_an_unused_suppression_is_reported_by_the_run_that_judges_its_code(tmp_path: Path) -> None:
    (tmp_path / "a.sig").write_text(
        "# sigspec: ignore[typescript-unsupported] nothing here needs it\n"
        "signature f() -> {code :string}\n"
        "# sigspec: ignore[invalid-default] nothing here needs it either\n"
        "signature g() -> {n :int = 1}\n"
    )
    lint = json.loads(run_cli("lint", "a.sig", "--format", "json", cwd=tmp_path).stdout)
    assert [(d["code"], d["line"]) for d in lint] == [("unused-suppression", 3)]
    compiled = run_cli(
        "compile", "a.sig", "--target", "typescript", "--format", "json", cwd=tmp_path
    )
    found = [(d["code"], d["line"]) for d in json.loads(compiled.stdout)]
    assert ("unused-suppression", 1) in found and ("unused-suppression", 3) in found


def test_a_breaking_change_code_is_not_suppressed_in_a_file(tmp_path: Path) -> None:
    (tmp_path / "a.sig").write_text(
        "# sigspec: ignore[removed-param] we know\nsignature f() -> :int\n"
    )
    found = json.loads(run_cli("lint", "a.sig", "--format", "json", cwd=tmp_path).stdout)
    assert [d["code"] for d in found] == ["invalid-suppression"]
    assert "breaking_ignore" in found[0]["message"]


def test_lint_and_fmt_never_load_the_generators(tmp_path: Path) -> None:
    """datamodel-code-generator is imported by the Python models step only (and Jinja by the
    targets that render templates): checking and formatting must not pay for them."""
    (tmp_path / "a.sig").write_text(SIG)
    script = (
        "import sys\n"
        "from sigspec.cli import main\n"
        "for args in (['lint', 'a.sig'], ['fmt', '--check', 'a.sig']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = ('datamodel_code_generator', 'jinja2', 'pydantic', 'sigspec.lower.views')\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_every_per_primitive_table_is_complete() -> None:
    """Tables keyed by the primitive types are checked when their module is imported:
    importing every module proves them all complete."""
    for module in pkgutil.walk_packages(sigspec.__path__, "sigspec."):
        if module.name != "sigspec.__main__" and not module.name.startswith("sigspec.commands.lsp"):
            importlib.import_module(module.name)
    with pytest.raises(AssertionError, match="no entry for the primitive"):
        per_primitive({"string": 1})  # type: ignore[dict-item]
