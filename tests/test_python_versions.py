"""The generated Python package runs on Python 3.10, 3.11, 3.12 and 3.13 with pydantic as
its only dependency (issue 23).

The examples (both validator layouts) and a signature using every `@format` are compiled
by the development `sigspec` (the command, in a subprocess); then each interpreter of
SIGSPEC_PYDANTIC_PYTHONS (a venv holding pydantic alone: `.ci/run` makes one per version)
runs `drive_generated_package.py` in isolated mode (`-I`), with only the build folder added
to `sys.path`: it imports every generated module, calls every client function with a
scripted `llm` (a valid reply, a messy one, a retry), every `parse_NAME` and
`validate_NAME`, and checks the values. sigspec itself must not be importable there.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, ROOT, run_cli

VERSIONS = ("3.10", "3.11", "3.12", "3.13")
DRIVER = Path(__file__).with_name("drive_generated_package.py")
EVERY_FORMAT = ROOT / "tests" / "cases" / "formats" / "every_format.sig"

EXAMPLE_CLIENTS = {
    "agent_step",
    "extract_products",
    "read_invoice",
    "rank_results",
    "build_research_request",
    "classify",
    "act_on_sentiment",
    "triage",
    "summarize",
    # The async forms.
    "aagent_step",
    "aextract_products",
    "aread_invoice",
    "arank_results",
    "aclassify",
    "aact_on_sentiment",
    "atriage",
    "asummarize",
    # The stream forms of the json signatures, sync and async.
    *(
        f"{a}{name}_stream"
        for name in (
            "agent_step",
            "extract_products",
            "read_invoice",
            "rank_results",
            "classify",
            "act_on_sentiment",
        )
        for a in ("", "a")
    ),
}
EXAMPLE_PARSERS = {
    "agent_step",
    "extract_products",
    "read_invoice",
    "rank_results",
    "research",
    "classify",
    "act_on_sentiment",
    "summarize",
}


def compile_python(sources: Path, work: Path, validators: str) -> Path:
    """`sources` (a .sig file or a folder) compiled to a Python package by the command,
    with the validator layout given; the folder holding the package."""
    project = work / "project"
    project.mkdir(parents=True)
    target = project / sources.name
    if sources.is_dir():
        shutil.copytree(sources, target)
    else:
        shutil.copy(sources, target)
    (project / "sigspec.toml").write_text(
        f'sources = ["{sources.name}"]\nout = "build"\ntargets = ["python"]\n\n'
        f'[options.python]\nvalidators = "{validators}"\n',
        encoding="utf-8",
    )
    result = run_cli("compile", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    return project / "build" / "python"


@pytest.fixture(scope="session")
def example_builds(examples_output: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The examples' package with each validator layout (fast: the shared build)."""
    compact = compile_python(EXAMPLES, tmp_path_factory.mktemp("compact"), "compact")
    return [examples_output / "python", compact]


@pytest.fixture(scope="session")
def every_format_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_python(EVERY_FORMAT, tmp_path_factory.mktemp("every_format"), "fast")


def drive(python: Path, build: Path, cases: str, cwd: Path) -> dict[str, Any]:
    """The driver's summary, run by `python` on the package in `build`."""
    run = subprocess.run(
        [str(python), "-I", str(DRIVER), str(build), "signatures", cases],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    summary: dict[str, Any] = json.loads(run.stdout)
    return summary


def names(summary: dict[str, Any], key: str) -> set[str]:
    return {entry.split(" ")[0] for entry in summary[key]}


@pytest.mark.parametrize("pydantic_python", VERSIONS, indirect=True)
def test_the_examples_run_with_pydantic_alone(
    pydantic_python: Path, example_builds: list[Path], tmp_path: Path
) -> None:
    """Every client function, parser and validator of the examples, with each validator
    layout, in each version."""
    for build in example_builds:
        summary = drive(pydantic_python, build, "examples", tmp_path)
        assert summary["modules"] >= 20, summary  # runtime, validators, models, clients
        assert names(summary, "clients") == EXAMPLE_CLIENTS, summary
        assert set(summary["validators"]) == EXAMPLE_PARSERS, summary


@pytest.mark.parametrize("pydantic_python", VERSIONS, indirect=True)
def test_every_format_runs_with_pydantic_alone(
    pydantic_python: Path, every_format_build: Path, tmp_path: Path
) -> None:
    """Model fields of date-time, date, time and uuid hold the standard types; every other
    format stays the string the model wrote; an invalid email is retried."""
    summary = drive(pydantic_python, every_format_build, "every_format", tmp_path)
    streams = {"read_record_stream", "aread_record_stream"}
    assert names(summary, "clients") == {"read_record", "aread_record", *streams}, summary
    assert summary["validators"] == ["read_record"], summary


def _opcodes(node: Any) -> Iterator[str]:
    """Every opcode of a parsed pattern (`re._parser`'s tree), nested ones too."""
    from re import _parser  # type: ignore[attr-defined]

    if isinstance(node, _parser.SubPattern):
        node = node.data
    if isinstance(node, list | tuple):
        for item in node:
            if (
                isinstance(item, tuple)
                and len(item) == 2
                and type(item[0]).__name__ == ("_NamedIntConstant")
            ):
                yield str(item[0])
                yield from _opcodes(item[1])
            else:
                yield from _opcodes(item)


def _patterns(value: Any) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _patterns(item)
    elif isinstance(value, list | tuple | frozenset):
        for item in value:
            yield from _patterns(item)


def test_the_runtime_patterns_compile_on_python_3_10() -> None:
    """Python 3.10's `re` has no possessive quantifiers and no atomic groups (`*+`, `(?>`):
    a pattern of the runtime modules (shipped in every generated package) that holds one
    raises `re.error` there. Checked here without a 3.10 interpreter."""
    from re import _parser  # type: ignore[attr-defined]

    import sigspec.runtime

    found: list[str] = []
    checked = 0
    for info in pkgutil.iter_modules(sigspec.runtime.__path__):
        module = importlib.import_module(f"sigspec.runtime.{info.name}")
        for name, value in vars(module).items():
            for pattern in _patterns(value):
                checked += 1
                tree = _parser.parse(pattern.pattern, pattern.flags)
                used = set(_opcodes(tree)) & {"POSSESSIVE_REPEAT", "ATOMIC_GROUP"}
                if used:
                    found.append(f"{info.name}.{name}: {sorted(used)}")
    from sigspec.runtime import formats

    for name, (source, _) in formats._SOURCES.items():  # compiled on first use, so not above
        checked += 1
        used = set(_opcodes(_parser.parse(source))) & {"POSSESSIVE_REPEAT", "ATOMIC_GROUP"}
        if used:
            found.append(f"formats.{name}: {sorted(used)}")
    assert checked > 20, checked
    assert found == []
