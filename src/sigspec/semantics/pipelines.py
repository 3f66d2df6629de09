"""`pipeline p = a |> b`: a's output map must supply every required param of b."""

from __future__ import annotations

from collections.abc import Iterator

from sigspec.diagnostics import Diagnostic, codes
from sigspec.semantics import ir
from sigspec.semantics.types import Types, assignable, deref
from sigspec.syntax import ast


def check_pipeline(
    pipeline: ir.Pipeline, syntax: ast.PipelineDecl, project: ir.Project
) -> Iterator[Diagnostic]:
    if pipeline.origin is None:
        return
    source = pipeline.origin.source
    steps = [project.signature(name) for name in pipeline.steps]
    for index in range(1, len(steps)):
        before, after = steps[index - 1], steps[index]
        if before is None or after is None:
            continue  # an unknown step was reported already
        span = syntax.steps[index].span
        for param, reason in _unsupplied(before, after, project.types):
            yield codes.PIPELINE_MISMATCH.at(
                source, span, step=after.name, param=param, reason=reason
            )


def _unsupplied(
    before: ir.Signature, after: ir.Signature, types: Types
) -> Iterator[tuple[str, str]]:
    output = deref(before.output, types)
    if not isinstance(output, ir.MapOf):
        if any(p.required for p in after.params):
            yield (
                next(p.name for p in after.params if p.required),
                f"but `{before.name}` returns `{ir.render_type(before.output)}`, not a map",
            )
        return
    fields = {ir.fold(f.name): f for f in output.fields}
    for param in after.params:
        given = fields.get(ir.fold(param.name))
        if given is None:
            if param.required:
                yield param.name, f"but `{before.name}` does not return it"
            continue
        source_type = given.type if given.required else ir.Optional(given.type)
        if given.default is not None:
            source_type = given.type  # a default fills the field, so it is always present
        if not assignable(source_type, param.type, types):
            yield (
                param.name,
                f"as `{ir.render_type(param.type)}`, but `{before.name}` returns "
                f"`{ir.render_type(source_type)}`",
            )
