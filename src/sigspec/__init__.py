"""sigspec: a compiler for LLM function signatures.

Public API: `parse_signature(text)` for one inline signature, `load(paths)` for .sig files.
Names are imported on first use so that `import sigspec` (and the CLI) stays fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sigspec.infra.version import VERSION

if TYPE_CHECKING:
    from sigspec.compiler.inline import SignatureError, parse_signature
    from sigspec.compiler.project import LoadResult, load
    from sigspec.diagnostics import Diagnostic, Severity
    from sigspec.semantics.ir import Project, Signature

__version__ = VERSION

_EXPORTS = {
    "SignatureError": "sigspec.compiler.inline",
    "parse_signature": "sigspec.compiler.inline",
    "Diagnostic": "sigspec.diagnostics",
    "Severity": "sigspec.diagnostics",
    "LoadResult": "sigspec.compiler.project",
    "load": "sigspec.compiler.project",
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
