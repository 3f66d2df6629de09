"""The LICENSE file: MIT, as `pyproject.toml`'s `license` says, and shipped with the package
(`license-files`; `.ci/run` checks that the built wheel carries it)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_license_is_mit_and_the_package_ships_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == "MIT"
    assert project["project"]["license-files"] == ["LICENSE"]
    assert "LICENSE" in project["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    lines = (ROOT / "LICENSE").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "MIT License"
    assert lines[2] == "Copyright (c) 2026 the sigspec authors"
    assert "Permission is hereby granted, free of charge" in lines[4]
