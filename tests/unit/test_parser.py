"""Facts the parser's neighbours rely on."""

from __future__ import annotations

import re
from pathlib import Path

from sigspec.syntax import ast


def test_the_name_pattern_is_the_grammars() -> None:
    """`ast.NAME` (rename, import) reads names as the grammar's NAME terminal does."""
    grammar = (Path(__file__).resolve().parents[2] / "grammar" / "sigspec.lark").read_text()
    terminal = re.search(r"(?m)^NAME: /(.*)/$", grammar)
    assert terminal is not None and terminal.group(1) == ast.NAME.pattern
