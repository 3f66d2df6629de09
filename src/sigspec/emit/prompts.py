"""The `prompts` target: each signature's prompt templates (lowered in `lower/prompts/`) as
Mustache files, each starting with a header comment that renders to nothing. The only
target that puts a header into prompt text: clients hold the templates without one."""

from __future__ import annotations

from sigspec.emit.base import HEADER, Artifact, EmitContext, EmitResult
from sigspec.emit.layout import prompt_paths
from sigspec.emit.options import NoOptions
from sigspec.lower.prompts.escape import comment
from sigspec.lower.views import Lowered, Module


def header_line(source: str) -> str:
    """The first line of every template file: a standalone Mustache comment (it renders to
    nothing) saying the file is generated."""
    return comment(HEADER.format(source=source))


def emit_module(
    lowered: Lowered, module: Module, options: NoOptions, context: EmitContext
) -> EmitResult:
    header = header_line(module.source) + "\n"
    files = [
        Artifact(prompt_paths(sig)[role], header + text, module.source)
        for sig in module.signatures
        for role, text in lowered.prompts(sig).by_role().items()
    ]
    return EmitResult(tuple(files))


def emit_common(lowered: Lowered, options: NoOptions, context: EmitContext) -> EmitResult:
    return EmitResult()
