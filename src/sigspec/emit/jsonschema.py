"""The `jsonschema` target: each signature's input and output schema, each tool's params, as
draft 2020-12 files (the schemas themselves are lowered in `lower/schema.py`)."""

from __future__ import annotations

from sigspec.emit.base import Artifact, EmitContext, EmitResult, dump_json, with_header
from sigspec.emit.layout import schema_paths
from sigspec.emit.options import NoOptions
from sigspec.lower.schema import DRAFT, JsonSchema
from sigspec.lower.views import Lowered, Module


def schema_file(source: str, schema: JsonSchema) -> str:
    return dump_json(with_header(source, {"$schema": DRAFT, **schema}))


def emit_module(
    lowered: Lowered, module: Module, options: NoOptions, context: EmitContext
) -> EmitResult:
    files: list[Artifact] = []
    for sig in (*module.signatures, *module.tools):
        paths = schema_paths(sig)
        files.append(
            Artifact(
                paths["input"], schema_file(module.source, lowered.input_schema(sig)), module.source
            )
        )
        if sig.kind == "signature":
            text = schema_file(module.source, lowered.output_schema(sig))
            files.append(Artifact(paths["output"], text, module.source))
    return EmitResult(tuple(files))


def emit_common(lowered: Lowered, options: NoOptions, context: EmitContext) -> EmitResult:
    return EmitResult()
