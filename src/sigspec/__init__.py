"""sigspec: a compiler for LLM function signatures.

Public API: `parse_signature(text)` for one inline signature, `load(paths)` for .sig files.
"""

from __future__ import annotations

from sigspec.api import SignatureError, parse_signature
from sigspec.diagnostics import Diagnostic, Severity
from sigspec.project import LoadResult, load
from sigspec.semantics.ir import Project, Signature

__all__ = [
    "Diagnostic",
    "LoadResult",
    "Project",
    "Severity",
    "Signature",
    "SignatureError",
    "load",
    "parse_signature",
]
__version__ = "0.1.0"
