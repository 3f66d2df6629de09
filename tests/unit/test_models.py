"""The models modules (emit/python/models.py, reprint.py): pydantic alone, lint- and
type-clean as ruff, ruff format and mypy --strict see them, the same bytes every time."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, write_python_package
from sigspec.emit.python.reprint import reprint

CASES = ROOT / "tests" / "cases" / "formats"
RUFF = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("models")
    folder, _ = write_python_package(root, (CASES / "models.sig").read_text("utf-8"), "shapes")
    return folder / "shapes" / "models" / "p.py"


def test_ruff_finds_nothing(models: Path) -> None:
    rules = "E4,E7,E9,F,I,B,UP,SIM"
    lint = [RUFF, "check", "--isolated", "--select", rules, "--target-version", "py310"]
    done = subprocess.run([*lint, str(models)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout
    fmt = [RUFF, "format", "--isolated", "--target-version", "py310", "--diff", str(models)]
    done = subprocess.run(fmt, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout


def test_mypy_strict_finds_nothing(models: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "shapes/models/p.py"],
        cwd=models.parents[2],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout


_IMPORT = """
import sys
sys.modules["email_validator"] = None  # not installed: importing it fails
sys.path.insert(0, sys.argv[1])
from shapes.models.p import Node, Scores
node = Node(label="x")
assert node.scores == Scores(a=1, b=2) and node.kind == 'a"b', node
assert node.format is None and Node.model_fields["format"].annotation == str | None
print("ok")
"""


def test_the_models_import_and_build_defaults(models: Path) -> None:
    command = [sys.executable, "-c", _IMPORT, str(models.parents[2])]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.stdout == "ok\n", done.stderr


def test_imports_are_the_used_ones_sorted() -> None:
    generated = (
        "from __future__ import annotations\n"
        "from typing import Annotated, Any, Literal\n"
        "from pydantic import BaseModel, ConfigDict, Field, RootModel\n"
        "from uuid import UUID\n"
        "from datetime import date, datetime\n"
        "class B(BaseModel):\n"
        "    model_config = ConfigDict(\n        extra='forbid',\n    )\n"
        "    when: datetime\n    id: UUID\n    kind: Literal['a', 'b'] = 'a'\n"
    )
    assert reprint(generated, "# header") == (
        "# header\n\n"
        "from __future__ import annotations\n\n"
        "from datetime import datetime\n"
        "from typing import Literal\n"
        "from uuid import UUID\n\n"
        "from pydantic import BaseModel, ConfigDict\n\n\n"
        "class B(BaseModel):\n"
        '    model_config = ConfigDict(extra="forbid")\n'
        "    when: datetime\n"
        "    id: UUID\n"
        '    kind: Literal["a", "b"] = "a"\n'
    )


def test_unexpected_code_is_refused() -> None:
    with pytest.raises(RuntimeError, match="unexpected"):
        reprint("import os\nos.system('x')\n", "# header")
    with pytest.raises(RuntimeError, match="unexpected"):
        reprint("def f():\n    pass\n", "# header")
