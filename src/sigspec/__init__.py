"""sigspec: a compiler for LLM function signatures.

Public API: `parse_signature(text)` for one inline signature, `load(paths)` for .sig files.
Names are imported on first use so that `import sigspec` (and the CLI) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sigspec.api import SignatureError, parse_signature
    from sigspec.diagnostics import Diagnostic, Severity
    from sigspec.project import LoadResult, load
    from sigspec.semantics.ir import Project, Signature

__version__ = "0.1.0"

_EXPORTS = {
    "SignatureError": "sigspec.api",
    "parse_signature": "sigspec.api",
    "Diagnostic": "sigspec.diagnostics",
    "Severity": "sigspec.diagnostics",
    "LoadResult": "sigspec.project",
    "load": "sigspec.project",
    "Project": "sigspec.semantics.ir",
    "Signature": "sigspec.semantics.ir",
}

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


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sigspec' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
