"""Files that ship with sigspec: the grammar and the templates.

In a wheel they sit inside the package (pyproject's force-include); in an editable install
or a source checkout they sit at the repository root, beside `src/`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def resource_path(*parts: str) -> Path:
    packaged = resources.files("sigspec").joinpath(*parts)
    if packaged.is_file() or packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2].joinpath(*parts)


def read_resource(*parts: str) -> str:
    return resource_path(*parts).read_text(encoding="utf-8")
