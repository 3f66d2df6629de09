"""Diagnostics: the one channel through which every stage reports problems."""

from sigspec.diagnostics.codes import CODES, Code
from sigspec.diagnostics.model import Diagnostic, Label, Severity, has_errors, sort_diagnostics

__all__ = ["CODES", "Code", "Diagnostic", "Label", "Severity", "has_errors", "sort_diagnostics"]
