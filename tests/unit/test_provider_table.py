"""The README's table of what each provider enforces is the one the registry prints."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT
from sigspec.lower.providers import NAMES, provider
from sigspec.lower.providers.table import ROWS, SIGSPEC, enforcement_table

README = ROOT / "README.md"
BLOCK = re.compile(r"(<!-- provider-table:[^\n]*-->\n)(.*?)(<!-- /provider-table -->)", re.S)


def test_readme_holds_the_generated_table(update_goldens: bool) -> None:
    text = README.read_text(encoding="utf-8")
    found = BLOCK.search(text)
    assert found is not None, "README.md lost its provider-table markers"
    if update_goldens:
        text = text[: found.start(2)] + enforcement_table() + text[found.end(2) :]
        README.write_text(text, encoding="utf-8")
        return
    assert found.group(2) == enforcement_table(), (
        "README.md's provider table is stale: run pytest tests/unit/test_provider_table.py "
        "--update-goldens"
    )


def test_one_row_per_constraint_one_column_per_provider() -> None:
    lines = enforcement_table().splitlines()
    assert len(lines) == 2 + len(ROWS)
    assert all(line.count("|") == len(NAMES) + 2 for line in lines)


@pytest.mark.parametrize("name", NAMES)
def test_a_keyword_the_dialect_drops_reads_sigspec(name: str) -> None:
    """Cells follow the dialect: a keyword it enforces reads "both", one it drops "sigspec"."""
    dialect = provider(name).dialect
    row = dict(ROWS)["`@pattern`"]
    assert (row(dialect) == SIGSPEC) == ("pattern" not in dialect.keywords)
