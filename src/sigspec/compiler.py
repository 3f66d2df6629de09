"""The compile step, pure: a checked project and the chosen targets → files and diagnostics.

Nothing is emitted when the project has errors; no file is touched here (see `output.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sigspec.diagnostics import Diagnostic, has_errors, sort_diagnostics
from sigspec.emit import TARGETS
from sigspec.emit.base import Artifact, EmitContext
from sigspec.semantics import ir
from sigspec.targets import selected


@dataclass(frozen=True, slots=True)
class CompileResult:
    files: tuple[Artifact, ...]  # empty when there are errors
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


def compile_project(
    project: ir.Project,
    targets: Sequence[str],
    options: Mapping[str, Mapping[str, Any]],
    *,
    inputs: Mapping[str, str],
) -> CompileResult:
    files: list[Artifact] = []
    diagnostics: list[Diagnostic] = []
    names = selected(targets)
    config = {"targets": names, "options": {k: dict(v) for k, v in sorted(options.items())}}
    for name in names:
        target_options = dict(options.get(name, {}))
        if name == "manifest":
            target_options.update(inputs=inputs, config=config)
        result = TARGETS[name].emit(project, EmitContext(target_options, tuple(files)))
        files += result.files
        diagnostics += result.diagnostics
    found = sort_diagnostics(diagnostics)
    return CompileResult(() if has_errors(found) else tuple(files), found)
