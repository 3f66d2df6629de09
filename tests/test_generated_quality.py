"""The generated Python package is product code: every file of it passes ruff (its default
rules plus I, B, UP and SIM, for Python 3.10, the package's lowest version), `ruff format`,
mypy --strict and pyright in strict mode. Checked on the examples (both validator layouts), a
project of awkward shapes (`tests/cases/quality/everything.sig`) and a random project.

Each tool runs once over all the packages; pyright comes from the Node packages the tests
install (`npm ci --prefix tests/node`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

NODE = ROOT / "tests" / "node" / "node_modules" / ".bin"
RUFF_RULES = "E4,E7,E9,F,I,B,UP,SIM"


def _compile(source: Path, out: Path, package: str, validators: str = "fast") -> None:
    project = out.parent.parent / f"{package}-project"
    project.mkdir(parents=True)
    if source.is_dir():
        shutil.copytree(source, project / "src")
    else:
        (project / "src").mkdir()
        shutil.copy(source, project / "src" / source.name)
    config = 'sources = ["src"]\nout = "build"\ntargets = ["python"]\n\n'
    config += f'[options.python]\npackage = "{package}"\nvalidators = "{validators}"\n'
    (project / "sigspec.toml").write_text(config, encoding="utf-8")
    result = run_cli("compile", cwd=project)
    assert result.returncode == 0, result.stderr
    shutil.move(project / "build" / "python" / package, out)


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages side by side below one folder (`<folder>/<package>/...`)."""
    tmp = tmp_path_factory.mktemp("quality")
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from generate import generate

        generate(tmp / "random", files=4, per_file=5, distinct=True)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    everything = ROOT / "tests" / "cases" / "quality"
    projects = [
        (ROOT / "examples", "examples_fast", "fast"),
        (ROOT / "examples", "examples_compact", "compact"),
        (everything, "everything_fast", "fast"),
        (everything, "everything_compact", "compact"),
        (tmp / "random", "random_fast", "fast"),
    ]
    folder = tmp / "packages"
    folder.mkdir()
    for source, package, validators in projects:
        _compile(source, folder / package, package, validators)
    return folder


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed (it comes with the test extras)")
    return found


def test_ruff_check_passes(packages: Path) -> None:
    command = [_tool("ruff"), "check", "--isolated", "--select", RUFF_RULES]
    result = _run([*command, "--target-version", "py310", "."], packages)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_every_file_as_it_is(packages: Path) -> None:
    command = [_tool("ruff"), "format", "--isolated", "--target-version", "py310"]
    result = _run([*command, "--check", "--diff", "."], packages)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr


def test_mypy_strict_passes(packages: Path) -> None:
    names = sorted(p.name for p in packages.iterdir())
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental"]
    result = _run([*command, "--python-version", "3.10", *names], packages)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr


def test_pyright_strict_passes(packages: Path) -> None:
    pyright = NODE / "pyright"
    if not pyright.exists():
        pytest.skip("pyright is missing: run `npm ci --prefix tests/node`")
    config = {"typeCheckingMode": "strict", "pythonVersion": "3.10"}
    (packages / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    result = _run([str(pyright), "--pythonpath", sys.executable, "."], packages)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr
