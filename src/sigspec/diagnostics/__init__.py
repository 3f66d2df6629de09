"""Diagnostics: the one channel through which every stage reports problems."""

from sigspec.diagnostics.codes import CODES, Code
from sigspec.diagnostics.model import (
    LOAD_PHASES,
    Diagnostic,
    Fix,
    Label,
    Phase,
    Severity,
    has_errors,
    sort_diagnostics,
)

__all__ = [
    "CODES",
    "LOAD_PHASES",
    "Code",
    "Diagnostic",
    "Fix",
    "Label",
    "Phase",
    "Severity",
    "has_errors",
    "sort_diagnostics",
]
