"""The semantic pass: parsed files → resolved, checked project and its diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from sigspec.diagnostics import Diagnostic, codes
from sigspec.semantics import ir
from sigspec.semantics.cycles import render_cycle, unguarded_cycles
from sigspec.semantics.pipelines import check_pipeline
from sigspec.semantics.prompt import Placement, check_template, template_attrs
from sigspec.semantics.resolve import resolve_files
from sigspec.semantics.rules import (
    Defaults,
    SlowPatterns,
    check_field,
    check_infinite_types,
    check_modes,
    check_tools,
    check_type_graphs,
)
from sigspec.semantics.scope import ParsedFile, build_table
from sigspec.semantics.testcases import check_tests
from sigspec.semantics.types import inhabited_types
from sigspec.syntax import ast


def check_project(files: Sequence[ParsedFile]) -> tuple[ir.Project, tuple[Diagnostic, ...]]:
    table, diags = build_table(files)
    resolved = resolve_files(files, table)
    diags += resolved.diagnostics
    project, found = _break_unguarded_cycles(resolved.project)
    diags += found
    defaults = Defaults(project.types)
    patterns = SlowPatterns()
    for site in resolved.sites:
        diags += check_field(site, project.types, defaults, patterns)
    diags += check_infinite_types(resolved.project)  # before the loops stood in for `:any`
    diags += check_type_graphs(project)
    tools = {ir.fold(t.name): t.name for t in project.tools}
    decls = _syntax_by_origin(files)
    for sig in (*project.signatures, *project.tools):
        syntax = decls.get(_key(sig.origin))
        if isinstance(syntax, ast.SignatureDecl):
            diags += check_modes(sig, syntax, project.types)
            diags += check_tools(sig, syntax, tools)
            diags += _check_prompts(sig, syntax, project)
    for pipeline in project.pipelines:
        syntax = decls.get(_key(pipeline.origin))
        if isinstance(syntax, ast.PipelineDecl):
            diags += check_pipeline(pipeline, syntax, project)
    tests, found = check_tests(files, table, project)
    diags += found
    return replace(project, tests=tests), tuple(diags)


def _break_unguarded_cycles(project: ir.Project) -> tuple[ir.Project, list[Diagnostic]]:
    """Report types recursive through `?` and `|` only, and stand `:any` in for them (as for
    an unknown name), so that no later check unfolds them forever."""
    cycles = unguarded_cycles(project.types)
    if not cycles:
        return project, []
    good = inhabited_types(project.types)  # a loop with no value at all is `infinite-type`
    diags: list[Diagnostic] = []
    types = dict(project.types)
    for cycle in cycles:
        for name in cycle.names:
            typedef = types[name]
            if name in good:
                path = render_cycle(_rotate(cycle.path, name))
                diags.append(
                    codes.UNGUARDED_RECURSION.at_origin(typedef.origin, name=name, cycle=path)
                )
            types[name] = replace(typedef, type=ir.Prim("any"))
    return replace(project, types=types), diags


def _rotate(path: tuple[str, ...], name: str) -> tuple[str, ...]:
    """The cycle read from `name` when it lies on it (`B -> A -> B` for `A -> B -> A`)."""
    ring = path[:-1]
    if name not in ring:
        return path
    at = ring.index(name)
    return (*ring[at:], *ring[:at], name)


def _key(origin: ir.Origin | None) -> tuple[str, int] | None:
    return (origin.source.path, origin.span.start) if origin is not None else None


def _syntax_by_origin(files: Sequence[ParsedFile]) -> dict[tuple[str, int] | None, ast.Decl]:
    return {(f.source.path, d.span.start): d for f in files for d in f.module.decls}


def _check_prompts(
    sig: ir.Signature, syntax: ast.SignatureDecl, project: ir.Project
) -> list[Diagnostic]:
    if sig.origin is None:
        return []
    source = sig.origin.source
    attrs = {a.name: a for a in syntax.attrs}
    used: set[str] = set()
    diags: list[Diagnostic] = []
    for attr, template in template_attrs(sig):
        at = Placement(template, source, attrs[attr])
        names, found = check_template(template, sig, project.types, source, at)
        used |= names
        diags += found
    if sig.prompt is not None and sig.mode in ("json", "text") and not diags:
        for param, node in zip(sig.params, syntax.params, strict=True):
            if ir.fold(param.name) not in used:
                diags.append(
                    codes.UNUSED_PARAM.at(
                        source, node.name_span, name=param.name, signature=sig.name
                    )
                )
    return diags
