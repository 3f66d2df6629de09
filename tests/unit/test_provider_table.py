"""The table of what each provider enforces (docs/providers.md) is printed from the dialects;
tests/unit/test_docs_generated.py holds the committed page to it."""

from __future__ import annotations

import pytest

from sigspec.lower.providers import NAMES, provider
from sigspec.lower.providers.table import ROWS, SIGSPEC, enforcement_table


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
