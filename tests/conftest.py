"""Shared fixtures: the repository root, a helper that runs the real `sigspec` command, one
that writes a generated Python package, one that imports the examples' package, and the
interpreters that run generated packages with pydantic alone."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lsp_editor import editor, sigspec_lsp  # noqa: F401  (the language server's fixtures)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
# The interpreters a generated package runs on, each a venv's python holding pydantic alone,
# their paths joined by ":". `.ci/run` sets it, one for each of Python 3.10 to 3.13.
PYDANTIC_PYTHONS = "SIGSPEC_PYDANTIC_PYTHONS"


def write_python_package(
    root: Path, text: str, package: str, validators: str = "fast"
) -> tuple[Path, Any]:
    """Compile `text` (as `root/p.sig`) with the python target: (the folder to import from,
    the project)."""
    from sigspec import load
    from sigspec.compiler.generate import compile_project

    (root / "p.sig").write_text(text, encoding="utf-8")
    loaded = load([root / "p.sig"])
    assert not loaded.has_errors, loaded.diagnostics
    options = {"python": {"package": package, "validators": validators}}
    result = compile_project(loaded.project, ["python"], options, inputs={})
    for artifact in result.files:
        path = root / "out" / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text, encoding="utf-8")
    return root / "out" / "python", loaded.project


def run_cli(
    *args: str, cwd: Path | None = None, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m sigspec ARGS` in a subprocess, as a user's shell would."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "sigspec", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        check=False,
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        help="Rewrite tests/golden from the current compiler output.",
    )


@pytest.fixture(scope="session")
def examples_output(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples compiled once with every target, by the real command (the goldens hold
    the same files, less the runtime copies: test_compile checks both)."""
    out = tmp_path_factory.mktemp("examples") / "out"
    result = run_cli("compile", "examples", "-o", str(out), cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    return out


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens"))


def tree(root: Path) -> dict[str, bytes]:
    """Every file below `root`, by relative POSIX path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def write_files(tmp_path: Path):  # type: ignore[no-untyped-def]
    def write(files: dict[str, str | bytes]) -> Path:
        for name, content in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return tmp_path

    return write


@pytest.fixture(scope="session")
def pydantic_pythons() -> dict[str, Path]:
    """The interpreters of SIGSPEC_PYDANTIC_PYTHONS, by version ("3.10"). Skips, naming the
    variable, when it is unset or names a path that does not exist."""
    value = os.environ.get(PYDANTIC_PYTHONS, "")
    if not value:
        pytest.skip(
            f"{PYDANTIC_PYTHONS} is not set: no interpreters with pydantic alone to run"
            " the generated package on (.ci/run sets it)"
        )
    found: dict[str, Path] = {}
    for entry in value.split(os.pathsep):
        path = Path(entry)
        if not path.is_file():
            pytest.skip(f"{PYDANTIC_PYTHONS} names {entry}, which does not exist")
        version = subprocess.run(
            [str(path), "-I", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        found[version] = path
    return found


@pytest.fixture
def pydantic_python(request: pytest.FixtureRequest, pydantic_pythons: dict[str, Path]) -> Path:
    """The interpreter of SIGSPEC_PYDANTIC_PYTHONS for the version the test is parametrized
    with (`indirect`); skips, naming the variable, when it holds none."""
    version: str = request.param
    if version not in pydantic_pythons:
        pytest.skip(
            f"{PYDANTIC_PYTHONS} holds no Python {version}"
            f" (it holds {', '.join(sorted(pydantic_pythons)) or 'none'})"
        )
    return pydantic_pythons[version]


EXAMPLE_MODULES = ("sentiment", "summary", "research", "agent", "extraction")


@contextmanager
def examples_package(examples_output: Path) -> Iterator[dict[str, ModuleType]]:
    """The examples' generated package, imported without writing bytecode: its client
    modules by file name, and its runtime modules by their own names (`_client`,
    `_adapters`, `_transport`, ...); removed from `sys.modules` afterwards, so that another
    test may import another package named `signatures`."""
    sys.dont_write_bytecode, before = True, sys.dont_write_bytecode
    folder = examples_output / "python"
    sys.path.insert(0, str(folder))
    try:
        modules = {n: importlib.import_module(f"signatures.client.{n}") for n in EXAMPLE_MODULES}
        for runtime in sorted((folder / "signatures").glob("_*.py")):
            if runtime.stem != "__init__":
                modules[runtime.stem] = importlib.import_module(f"signatures.{runtime.stem}")
        modules["models"] = importlib.import_module("signatures.models.sentiment")
        yield modules
    finally:
        sys.path.remove(str(folder))
        sys.dont_write_bytecode = before
        for name in [m for m in sys.modules if m == "signatures" or m.startswith("signatures.")]:
            del sys.modules[name]
