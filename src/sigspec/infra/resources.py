"""Files that ship with sigspec: the grammar and the templates.

In a wheel they sit inside the package (pyproject's force-include); in an editable install
or a source checkout they sit at the repository root, beside `src/`. Plain paths rather than
importlib.resources: wheels are always unpacked, and importing importlib.resources (and the
zipfile machinery behind it) costs `sigspec lint` several milliseconds of start-up.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parents[1]  # src/sigspec, or site-packages/sigspec


def package_root() -> Path:
    return _PACKAGE


def resource_path(*parts: str) -> Path:
    packaged = _PACKAGE.joinpath(*parts)
    if packaged.exists():
        return packaged
    return _PACKAGE.parents[1].joinpath(*parts)


def read_resource(*parts: str) -> str:
    return resource_path(*parts).read_text(encoding="utf-8")
