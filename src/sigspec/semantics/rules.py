"""Semantic rules over the resolved IR, one small function each. They collect, never raise."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.source import Span
from sigspec.semantics import ir
from sigspec.semantics.resolve import FieldSite
from sigspec.semantics.types import (
    Types,
    deref,
    inhabited_types,
    is_numeric,
    is_stringy,
    reachable_fields,
    referenced_names,
    strip_optional,
)
from sigspec.syntax import ast

if TYPE_CHECKING:
    from sigspec.semantics.redos import Finding


def _attr_span(site: FieldSite, *names: str) -> Span:
    for attr in site.syntax.attrs:
        if attr.name in names:
            return attr.span
    return site.syntax.span


class Defaults:
    """Defaults are checked by the runtime's validator, the one meaning of a valid value. The
    runtime and the named types' descriptors load at the first default a check meets."""

    def __init__(self, types: Types) -> None:
        self._types = types
        self._runtime_types: dict[str, Any] | None = None

    def problems(self, f: ir.Field) -> list[str]:
        """What the runtime's strict validator finds wrong with a field's default, in its
        words; a clamp it would apply counts too (a default must already be in range)."""
        from sigspec.runtime.validate import check
        from sigspec.semantics import descriptors

        assert f.default is not None
        if self._runtime_types is None:
            self._runtime_types = descriptors.named_descriptors(self._types)
        own = descriptors.field(f, fallback=False)
        value = {f.name: f.default.value}
        _, errors, repairs = check(("map", (own,), True), value, self._runtime_types)
        found = [*errors, *((path, f"it would be changed: {note}") for path, note in repairs)]
        return [
            message if path == f.name else f"{path.removeprefix(f.name + '.')}: {message}"
            for path, message in found
        ]


class SlowPatterns:
    """The ReDoS analysis of each distinct pattern, once per run (a file may repeat one
    pattern on thousands of fields)."""

    def __init__(self) -> None:
        self._found: dict[str, Finding | None] = {}

    def finding(self, regex: str) -> Finding | None:
        from sigspec.semantics.redos import analyse

        if regex not in self._found:
            self._found[regex] = analyse(regex)
        return self._found[regex]


def check_field(
    site: FieldSite, types: Types, defaults: Defaults, patterns: SlowPatterns | None = None
) -> list[Diagnostic]:
    patterns = patterns or SlowPatterns()
    return [
        *_constraint_targets(site, types),
        *_contradictions(site),
        *_default(site, defaults),
        *_fallback(site),
        *_slow_pattern(site, patterns),
    ]


_TARGETS = {
    "min": ("numbers", is_numeric),
    "max": ("numbers", is_numeric),
    "clamp": ("numbers", is_numeric),
    "min_length": ("strings", is_stringy),
    "max_length": ("strings", is_stringy),
    "pattern": ("strings", is_stringy),
    "format": ("strings", is_stringy),
    "min_items": ("lists", lambda t, types: isinstance(strip_optional(t, types), ir.ListOf)),
    "max_items": ("lists", lambda t, types: isinstance(strip_optional(t, types), ir.ListOf)),
}


def _constraint_targets(site: FieldSite, types: Types) -> Iterator[Diagnostic]:
    for attr in site.syntax.attrs:
        target = _TARGETS.get(attr.name)
        if target is not None and not target[1](site.field.type, types):
            yield codes.CONSTRAINT_TYPE_MISMATCH.at(
                site.source,
                attr.span,
                name=attr.name,
                expected=target[0],
                type=ir.render_type(site.field.type),
            )


def _contradictions(site: FieldSite) -> Iterator[Diagnostic]:
    f = site.field
    pairs: list[tuple[str, str, float | int | None, float | int | None]] = []
    for c in f.constraints:
        match c:
            case ir.Range(lo, hi):
                pairs.append(("min", "max", lo, hi))
            case ir.Length(lo, hi):
                pairs.append(("min_length", "max_length", lo, hi))
            case ir.Items(lo, hi):
                pairs.append(("min_items", "max_items", lo, hi))
    if f.clamp is not None:
        pairs.append(("clamp", "clamp", f.clamp.low, f.clamp.high))
    for low_name, high_name, lo, hi in pairs:
        if lo is not None and hi is not None and lo > hi:
            lower = f"@{low_name}({lo})" if low_name != "clamp" else f"the clamp low {lo}"
            upper = f"@{high_name}({hi})" if high_name != "clamp" else f"its high {hi}"
            yield codes.CONTRADICTORY_CONSTRAINTS.at(
                site.source, _attr_span(site, low_name), lower=lower, upper=upper
            )


def _default(site: FieldSite, defaults: Defaults) -> Iterator[Diagnostic]:
    f = site.field
    if f.default is None or site.syntax.default is None:
        return
    reasons = defaults.problems(f)
    if reasons:
        yield codes.INVALID_DEFAULT.at(
            site.source,
            site.syntax.default.span,
            type=ir.render_type(f.type),
            reason="; ".join(reasons[:3]),
        )


def _slow_pattern(site: FieldSite, patterns: SlowPatterns) -> Iterator[Diagnostic]:
    """Patterns a crafted reply can make backtrack for seconds or forever (ReDoS). (Syntax
    outside the portable subset never reaches the IR: `resolve` reports it.)"""
    for c in site.field.constraints:
        if isinstance(c, ir.Pattern) and (found := patterns.finding(c.regex)) is not None:
            if not found.analysed:
                code = codes.PATTERN_NOT_ANALYSED
            elif found.exponential:
                code = codes.SLOW_PATTERN
            else:
                code = codes.POLYNOMIAL_PATTERN
            yield code.at(site.source, _attr_span(site, "pattern"), reason=found.reason)


def _fallback(site: FieldSite) -> Iterator[Diagnostic]:
    if site.field.fallback and site.field.default is None:
        yield codes.FALLBACK_WITHOUT_DEFAULT.at(
            site.source, _attr_span(site, "fallback"), name=site.field.name
        )


def check_infinite_types(project: ir.Project) -> Iterator[Diagnostic]:
    good = inhabited_types(project.types)
    for name, typedef in project.types.items():
        if name not in good and typedef.origin is not None:
            yield codes.INFINITE_TYPE.at(typedef.origin.source, typedef.origin.span, name=name)


def check_modes(sig: ir.Signature, syntax: ast.SignatureDecl, types: Types) -> Iterator[Diagnostic]:
    """The output-mode rules: what each of `json`, `text` and `ptc_lisp` allows."""
    if sig.origin is None or sig.kind != "signature":
        return
    source = sig.origin.source
    spans = {a.name: a.span for a in syntax.attrs}
    if sig.mode in ("json", "text"):
        if sig.tools:
            yield codes.TOOLS_NOT_ALLOWED.at(source, spans["tools"], mode=sig.mode)
        if sig.compression:
            yield codes.COMPRESSION_NOT_ALLOWED.at(source, spans["compression"], mode=sig.mode)
    if sig.mode == "json":
        for f in firewall_fields(sig.output, types):
            span = f.origin.span if f.origin is not None else syntax.name_span
            where = f.origin.source if f.origin is not None else source
            yield codes.FIREWALL_FIELD.at(where, span, name=f.name)
    if sig.mode == "text" and deref(sig.output, types) != ir.Prim("string"):
        yield codes.TEXT_OUTPUT_IGNORED.at(
            source, syntax.output.span, type=ir.render_type(sig.output)
        )


def firewall_fields(t: ir.TypeRef, types: Types) -> list[ir.Field]:
    found = [f for f in reachable_fields(t, types) if f.name.startswith("_")]
    return sorted(found, key=lambda f: f.origin.span.start if f.origin else 0)


def check_tools(
    sig: ir.Signature, syntax: ast.SignatureDecl, tools: Mapping[str, str]
) -> list[Diagnostic]:
    """Each `@tools` name that names no tool (`tools`: folded name -> declared name)."""
    if sig.origin is None or not sig.tools:
        return []
    attr = next(a for a in syntax.attrs if a.name == "tools")
    args = {a.name: a.span for a in attr.args or () if isinstance(a, ast.NameArg)}
    from sigspec.diagnostics.suggest import suggest

    out = []
    for name in sig.tools:
        if ir.fold(name) in tools:
            continue
        found = suggest(name, tools.values(), scope="tools in scope")
        span = args.get(name)  # none for a name written as a string: no fix, the attribute
        fixes = found.fixes(span) if span is not None else ()
        where = span if span is not None else attr.span
        out.append(
            codes.UNKNOWN_TOOL.at(
                sig.origin.source, where, name=name, hints=found.hints, fixes=fixes
            )
        )
    return out


def check_type_graphs(project: ir.Project) -> Iterator[Diagnostic]:
    """Types too deep or too large once their named types are followed (semantics/graphs.py):
    each reported once, where the excess starts (a chain's first type, not all of them)."""
    from sigspec.semantics.cycles import render_cycle
    from sigspec.semantics.graphs import MAX_EXPANDED_NODES, MAX_TYPE_DEPTH, TypeGraph

    graph = TypeGraph(project.types)
    deep = {n for n in project.types if graph.named(n).depth - 1 > MAX_TYPE_DEPTH}
    inner = {r for n in deep for r in referenced_names(project.types[n].type)}
    for name in (n for n in project.types if n in deep and n not in inner):
        m = graph.named(name)
        yield codes.TYPE_TOO_DEEP.at_origin(
            project.types[name].origin,
            subject=f"type `{name}`",
            depth=m.depth - 1,
            limit=MAX_TYPE_DEPTH,
            chain=render_cycle(graph.chain(name)),
        )
    for sig in (*project.signatures, *project.tools):
        parts = [(f"parameter `{p.name}` of `{sig.name}`", p.type) for p in sig.params]
        for subject, t in [*parts, (f"the output of `{sig.name}`", sig.output)]:
            m = graph.measure(t)
            # `-> T` is as deep as T's declaration, which is checked (and reported) above.
            if m.depth > MAX_TYPE_DEPTH and not isinstance(t, ir.Ref) and m.via not in deep:
                yield codes.TYPE_TOO_DEEP.at_origin(
                    sig.origin,
                    subject=subject,
                    depth=m.depth,
                    limit=MAX_TYPE_DEPTH,
                    chain=render_cycle(graph.chain(m.via)) or "(no named type)",
                )
            if m.size > MAX_EXPANDED_NODES:
                yield codes.TYPE_TOO_LARGE.at_origin(
                    sig.origin, subject=subject, limit=MAX_EXPANDED_NODES
                )
