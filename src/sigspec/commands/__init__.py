"""The commands behind `sigspec SUBCOMMAND`: each reads and writes files, reports through the
`Report` it is given, and returns the exit code (0 clean, 1 findings, 2 usage or config)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a command that reports nothing must not load the diagnostics machinery
    from sigspec.diagnostics import Diagnostic

Report = Callable[[Sequence["Diagnostic"]], None]
