"""A signature's prompts: Mustache templates for the system prompt, the first user message,
the retry feedback, and a first message for engines that do not show the schema to the
model. Every static part is rendered here; only the signature's params stay variables (the
retry message adds `errors` and `reply`). Static text can never become a tag. No header:
the prompts target adds one to its files; clients hold the templates as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import jinja2

from sigspec.lower.prompts.escape import literal
from sigspec.lower.prompts.shape import output_instructions
from sigspec.lower.schema import output_schema
from sigspec.lower.templating import render
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
    """The Response Format block's parameters, derived from the signature's output."""
    out = strip_optional(sig.output, project.types)
    container = {ir.MapOf: "object", ir.ListOf: "array"}.get(type(out), "value")
    article = "an" if container[0] in "aeiou" else "a"
    # The clause stays wherever the validators reject extra keys: a closed map at the root,
    # or as the items of a list at the root.
    item = strip_optional(out.item, project.types) if isinstance(out, ir.ListOf) else None
    closed = any(isinstance(t, ir.MapOf) and not t.open for t in (out, item))
    extra = ". Do not add extra keys." if closed and not sig.allow_extra_keys else "."
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


@dataclass(frozen=True, slots=True)
class PromptSet:
    """A signature's templates by role; which exist depends on its mode and options."""

    system: str | None
    user: str
    retry: str | None = None  # json mode
    user_local: str | None = None  # json mode: the schema in the message, for local engines

    def by_role(self) -> dict[str, str]:
        roles = {"system": self.system, "user": self.user, "retry": self.retry}
        roles["user_local"] = self.user_local
        return {role: text for role, text in roles.items() if text is not None}


def prompt_set(sig: ir.Signature, project: ir.Project, env: jinja2.Environment) -> PromptSet:
    system = sig.system if sig.system is not None else _default_system(sig)
    system_text = (
        render(env, "prompts/system.mustache.j2", body=system) if system is not None else None
    )
    task_text = task(sig, project)
    if sig.mode == "text":
        return PromptSet(system_text, render(env, "prompts/user.text.mustache.j2", task=task_text))
    if sig.mode == "ptc_lisp":
        wanted = {ir.fold(n) for n in sig.tools}
        tools = [_tool_line(t, project) for t in project.tools if ir.fold(t.name) in wanted]
        user = render(
            env,
            "prompts/user.ptc_lisp.mustache.j2",
            task=task_text,
            signature=ptc_signature(sig, project),
            tools=tools,
        )
        return PromptSet(system_text, user)
    return _json(sig, project, env, system_text, task_text)


def _default_system(sig: ir.Signature) -> str | None:
    if sig.mode == "json" and sig.no_output_instructions:
        return None
    return DEFAULT_SYSTEM.get(sig.mode)


def _tool_line(tool: ir.Signature, project: ir.Project) -> str:
    """`name(params) -> T`, with the tool's doc as a Lisp comment."""
    doc = f"  ; {literal(' '.join(tool.doc.split()))}" if tool.doc else ""
    return f"{tool.name}{ptc_signature(tool, project)}{doc}"


def _json(
    sig: ir.Signature, project: ir.Project, env: jinja2.Environment, system: str | None, task: str
) -> PromptSet:
    show = not sig.no_output_instructions
    instructions = literal(output_instructions(sig, project)) if show else ""
    fmt = response_format(sig, project) if show else None
    user = render(
        env,
        "prompts/user.json.mustache.j2",
        task=task,
        instructions=instructions,
        response_format=fmt,
    )
    retry = render(env, "prompts/retry.mustache.j2", instructions=instructions)
    schema = json.dumps(output_schema(sig, project), ensure_ascii=False)
    local = (
        f"Answer in JSON matching this JSON Schema:\n```json\n{literal(schema)}\n```"
        if show
        else ""
    )
    user_local = render(
        env, "prompts/user.json.mustache.j2", task=task, instructions=local, response_format=fmt
    )
    return PromptSet(system, user, retry, user_local)
