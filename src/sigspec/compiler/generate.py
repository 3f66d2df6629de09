"""The compile step, pure: a checked project and the chosen targets → files and diagnostics.

The project is lowered once; every chosen target writes each .sig file's files, then the
files that belong to the whole project; the manifest comes last and records them all.
Nothing is emitted when the project has errors; no file is touched here (`output.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sigspec.diagnostics import Diagnostic, has_errors, sort_diagnostics
from sigspec.emit.base import Artifact, EmitContext, EmitResult, Memo, no_memo
from sigspec.emit.manifest import manifest_file
from sigspec.emit.options import parse_options
from sigspec.emit.registry import TARGETS, Target, config_record, selected
from sigspec.lower.views import Lowered, Module
from sigspec.semantics import ir


@dataclass(frozen=True, slots=True)
class CompileResult:
    files: tuple[Artifact, ...]  # empty when there are errors
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        return not has_errors(self.diagnostics)


# From this many declarations, one forked child emits half of the files (both cores work);
# below it a fork costs more than it saves.
PARALLEL_FROM = 200

Chosen = list[tuple[Target, Any]]


def _emit_modules(
    lowered: Lowered, chosen: Chosen, modules: Sequence[Module], context: EmitContext
) -> list[EmitResult]:
    """Each target's files of these .sig files (one result per target)."""
    results = []
    for target, options in chosen:
        result = EmitResult()
        for module in modules:
            result += target.emit_module(lowered, module, options, context)
        results.append(result)
    return results


def _emit_all_modules(lowered: Lowered, chosen: Chosen, context: EmitContext) -> list[EmitResult]:
    modules = lowered.modules
    size = len(lowered.project.signatures) + len(lowered.project.tools)
    if size < PARALLEL_FROM or len(modules) < 2:
        return _emit_modules(lowered, chosen, modules, context)
    from sigspec.infra.parallel import fork_map

    half = _halfway(modules, size)
    first, second = fork_map(
        lambda part: _emit_modules(lowered, chosen, part, context), modules[:half], modules[half:]
    )
    return [a + b for a, b in zip(first, second, strict=True)]


def _halfway(modules: Sequence[Module], size: int) -> int:
    """Where to cut the files so that each half holds about half of the declarations."""
    seen = 0
    for index, module in enumerate(modules):
        seen += len(module.signatures) + len(module.tools)
        if seen * 2 >= size:
            return max(1, min(index + 1, len(modules) - 1))
    return len(modules) // 2


def compile_project(
    project: ir.Project,
    targets: Sequence[str],
    options: Mapping[str, Mapping[str, Any]],
    *,
    inputs: Mapping[str, str],
    memo: Memo = no_memo,
) -> CompileResult:
    """`options` holds each target's table as the configuration gives it (checked there;
    a bad one raises ValueError here)."""
    names = selected(list(targets))
    chosen: Chosen = [(TARGETS[n], parse_options(TARGETS[n], options.get(n, {}))) for n in names]
    lowered = Lowered(project)
    context = EmitContext(memo)
    results = _emit_all_modules(lowered, chosen, context)
    results += [target.emit_common(lowered, opts, context) for target, opts in chosen]
    files = tuple(f for r in results for f in r.files)
    # A named type's loss is found by each process that lowers it: sorting reports it once.
    found = sort_diagnostics(d for r in results for d in r.diagnostics)
    if has_errors(found):
        return CompileResult((), found)
    config = config_record(names, options)
    return CompileResult((*files, manifest_file(project, files, inputs, config)), found)
