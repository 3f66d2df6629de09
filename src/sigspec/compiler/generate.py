"""The compile step, pure: a checked project and the chosen targets → files and diagnostics.

Nothing is emitted when the project has errors; no file is touched here (see `output.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sigspec.diagnostics import Diagnostic, has_errors, sort_diagnostics
from sigspec.emit.base import Artifact, EmitContext
from sigspec.emit.registry import emitter
from sigspec.emit.targets import selected
from sigspec.semantics import ir


@dataclass(frozen=True, slots=True)
class CompileResult:
    files: tuple[Artifact, ...]  # empty when there are errors
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


# Targets whose output is a function of each signature or tool alone (plus the named types):
# emitting them for two halves of the declarations gives the same files as for the whole.
PER_DECLARATION = ("jsonschema", "providers", "prompts")
PARALLEL_FROM = 200  # declarations; below this a fork costs more than it saves


def _emit(
    project: ir.Project, names: list[str], options: Mapping[str, Mapping[str, Any]]
) -> tuple[list[Artifact], list[Diagnostic]]:
    files: list[Artifact] = []
    diagnostics: list[Diagnostic] = []
    for name in names:
        result = emitter(name).emit(project, EmitContext(dict(options.get(name, {})), ()))
        files += result.files
        diagnostics += result.diagnostics
    return files, diagnostics


def _emit_per_declaration(
    project: ir.Project,
    names: list[str],
    options: Mapping[str, Mapping[str, Any]],
) -> tuple[list[Artifact], list[Diagnostic]]:
    if len(project.signatures) + len(project.tools) < PARALLEL_FROM:
        return _emit(project, names, options)
    from dataclasses import replace

    from sigspec.infra.parallel import fork_map

    half_s, half_t = len(project.signatures) // 2, len(project.tools) // 2
    first = replace(project, signatures=project.signatures[:half_s], tools=project.tools[:half_t])
    second = replace(project, signatures=project.signatures[half_s:], tools=project.tools[half_t:])
    (files_a, diags_a), (files_b, diags_b) = fork_map(
        lambda part: _emit(part, names, options), first, second
    )
    return files_a + files_b, diags_a + diags_b


def compile_project(
    project: ir.Project,
    targets: Sequence[str],
    options: Mapping[str, Mapping[str, Any]],
    *,
    inputs: Mapping[str, str],
) -> CompileResult:
    names = selected(targets)
    config = {"targets": names, "options": {k: dict(v) for k, v in sorted(options.items())}}
    split = [n for n in names if n in PER_DECLARATION]
    files, diagnostics = _emit_per_declaration(project, split, options)
    for name in names:
        if name in PER_DECLARATION:
            continue
        target_options = dict(options.get(name, {}))
        if name == "manifest":
            target_options.update(inputs=inputs, config=config)
        result = emitter(name).emit(project, EmitContext(target_options, tuple(files)))
        files += result.files
        diagnostics += result.diagnostics
    found = sort_diagnostics(diagnostics)
    return CompileResult(() if has_errors(found) else tuple(files), found)
