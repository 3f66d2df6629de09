"""The `prompts` target: per signature, Mustache templates for the system prompt, the first
user message, the retry feedback and a variant for engines that do not show the schema to
the model. Every static part is rendered here; only the signature's params stay variables
(the retry message adds `errors` and `reply`). Static text can never become a tag.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import jinja2

from sigspec.emit.base import HEADER, Artifact, EmitContext, EmitResult, source_of
from sigspec.emit.jsonschema import output_schema
from sigspec.emit.layout import prompt_paths
from sigspec.emit.prompts.shape import output_instructions
from sigspec.emit.templating import environment, render
from sigspec.runtime.client import retry_values
from sigspec.runtime.mustache import comment, literal
from sigspec.semantics import ir
from sigspec.semantics.types import inline_refs, is_scalar, strip_optional

DEFAULT_SYSTEM = {
    "json": "Answer with JSON only, in the form the user's message asks for. No explanations.",
    "text": "You are a helpful assistant.",
}


@dataclass(frozen=True, slots=True)
class ResponseFormat:
    article: str
    container: str
    extra_clause: str


def response_format(sig: ir.Signature, project: ir.Project) -> ResponseFormat:
    """Seed 002's block parameters, derived from the signature's output."""
    out = strip_optional(sig.output, project.types)
    container = {ir.MapOf: "object", ir.ListOf: "array"}.get(type(out), "value")
    article = "an" if container[0] in "aeiou" else "a"
    open_map = isinstance(out, ir.MapOf) and out.open
    extra = (
        "."
        if sig.allow_extra_keys or open_map or container != "object"
        else (". Do not add extra keys.")
    )
    return ResponseFormat(article, container, extra)


def _tag(name: str) -> str:
    return "{{" + name + "}}"


def _section(name: str, body: str) -> str:
    return "{{#" + name + "}}" + body + "{{/" + name + "}}"


def _input_line(param: ir.Field, project: ir.Project) -> str:
    t = strip_optional(param.type, project.types)
    if isinstance(t, ir.ListOf) and is_scalar(t.item, project.types):
        return f"- {param.name}: " + _section(param.name, _tag(".") + "; ")
    item = strip_optional(t.item, project.types) if isinstance(t, ir.ListOf) else None
    if isinstance(item, ir.MapOf) and all(is_scalar(f.type, project.types) for f in item.fields):
        row = ", ".join(f"{f.name}: {_tag(f.name)}" for f in item.fields)
        return f"- {param.name}:" + _section(param.name, f"\n  - {row}")
    # Scalars print as they are; other values print as JSON (the renderer's rule).
    return f"- {param.name}: {_tag(param.name)}"


def task(sig: ir.Signature, project: ir.Project) -> str:
    """The `@prompt` template, or a generated task: the doc comment and the inputs."""
    if sig.prompt is not None:
        return sig.prompt.rstrip("\n")  # the template decides the spacing that follows
    parts = [literal(sig.doc)] if sig.doc else []
    if sig.params:
        parts.append("Inputs:\n" + "\n".join(_input_line(p, project) for p in sig.params))
    return "\n\n".join(parts) or f"Produce the output of {sig.name}."


def ptc_signature(sig: ir.Signature, project: ir.Project) -> str:
    expanded = ir.Signature(
        sig.name,
        tuple(ir.Field(p.name, inline_refs(p.type, project.types)) for p in sig.params),
        inline_refs(sig.output, project.types),
    )
    return expanded.render()


def header_line(source: str) -> str:
    """The first line of every template file: a standalone Mustache comment (it renders to
    nothing) saying the file is generated."""
    return comment(HEADER.format(source=source))


class _Prompts:
    def __init__(self, project: ir.Project, env: jinja2.Environment) -> None:
        self.project = project
        self.env = env

    def artifacts(self, sig: ir.Signature) -> Iterator[Artifact]:
        source = source_of(sig)
        header = header_line(source)
        paths = prompt_paths(sig)
        system = sig.system if sig.system is not None else self._default_system(sig)
        if system is not None:
            yield Artifact(
                paths["system"],
                render(self.env, "prompts/system.mustache.j2", header=header, body=system),
                source,
            )
        yield from self._user(sig, paths, header, source)

    def _default_system(self, sig: ir.Signature) -> str | None:
        if sig.mode == "json" and sig.no_output_instructions:
            return None
        return DEFAULT_SYSTEM.get(sig.mode)

    def _user(
        self, sig: ir.Signature, paths: dict[str, str], header: str, source: str
    ) -> Iterator[Artifact]:
        view: dict[str, Any] = {"header": header, "task": task(sig, self.project)}
        if sig.mode == "text":
            yield Artifact(
                paths["user"], render(self.env, "prompts/user.text.mustache.j2", **view), source
            )
            return
        if sig.mode == "ptc_lisp":
            wanted = {ir.fold(n) for n in sig.tools}
            tools = [self._tool_line(t) for t in self.project.tools if ir.fold(t.name) in wanted]
            yield Artifact(
                paths["user"],
                render(
                    self.env,
                    "prompts/user.ptc_lisp.mustache.j2",
                    **view,
                    signature=ptc_signature(sig, self.project),
                    tools=tools,
                ),
                source,
            )
            return
        yield from self._json(sig, paths, view, source)

    def _tool_line(self, tool: ir.Signature) -> str:
        """`name(params) -> T`, with the tool's doc as a Lisp comment."""
        doc = f"  ; {literal(' '.join(tool.doc.split()))}" if tool.doc else ""
        return f"{tool.name}{ptc_signature(tool, self.project)}{doc}"

    def _json(
        self, sig: ir.Signature, paths: dict[str, str], view: dict[str, Any], source: str
    ) -> Iterator[Artifact]:
        show = not sig.no_output_instructions
        instructions = literal(output_instructions(sig, self.project)) if show else ""
        fmt = response_format(sig, self.project) if show else None
        yield Artifact(
            paths["user"],
            render(
                self.env,
                "prompts/user.json.mustache.j2",
                **view,
                instructions=instructions,
                response_format=fmt,
            ),
            source,
        )
        yield Artifact(
            paths["retry"],
            render(
                self.env,
                "prompts/retry.mustache.j2",
                header=view["header"],
                instructions=instructions,
            ),
            source,
        )
        schema = json.dumps(output_schema(sig, self.project), ensure_ascii=False)
        local = (
            f"Answer in JSON matching this JSON Schema:\n```json\n{literal(schema)}\n```"
            if show
            else ""
        )
        yield Artifact(
            paths["user_local"],
            render(
                self.env,
                "prompts/user.json.mustache.j2",
                **view,
                instructions=local,
                response_format=fmt,
            ),
            source,
        )


class PromptsEmitter:
    name = "prompts"

    def emit(self, project: ir.Project, context: EmitContext) -> EmitResult:
        prompts = _Prompts(project, environment())
        files = tuple(a for sig in project.signatures for a in prompts.artifacts(sig))
        return EmitResult(files)


EMITTER = PromptsEmitter()


def prompt_texts(
    sig: ir.Signature, project: ir.Project, env: jinja2.Environment | None = None
) -> dict[str, str]:
    """A signature's templates by role (system, user, retry, user_local), as the files hold them."""
    role = {path: name for name, path in prompt_paths(sig).items()}
    prompts = _Prompts(project, env or environment())
    return {role[a.path]: a.text for a in prompts.artifacts(sig)}


__all__ = ["EMITTER", "header_line", "prompt_paths", "prompt_texts", "retry_values"]
