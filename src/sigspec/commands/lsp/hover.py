"""What the editor shows over a name (Markdown): a declaration as `sigspec fmt` prints it,
its doc comment, and a signature's or tool's JSON Schema; a test's call and what it checks,
in words; a param's or field's type, description, default and constraints (also over a
test's argument or a check's subject, which name them); what a primitive type accepts.
Free of pygls."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sigspec.commands.lsp.symbols import Declaration, Index, PrimitiveUse
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.semantics import ir
from sigspec.syntax import ast
from sigspec.syntax.fmt.printer import format_module

# A declaration longer than this many lines is shown cut in the middle.
MAX_LINES = 24
MAX_SCHEMA_LINES = 80

PRIMITIVE_HELP: Mapping[ast.PrimKind, str] = ast.per_primitive(
    {
        "string": "`:string`: any text (a JSON string).",
        "int": "`:int`: a whole number (a JSON integer).",
        "float": "`:float`: any number, whole or not (a JSON number).",
        "bool": "`:bool` (also `:boolean`): `true` or `false`.",
        "keyword": "`:keyword`: a short identifier-like string (a JSON string).",
        "datetime": "`:datetime`: a date and time as an RFC 3339 string "
        '(JSON Schema `"format": "date-time"`).',
        "map": "`:map`: a JSON object with any keys and values.",
        "any": "`:any`: any JSON value at all.",
    }
)


@dataclass(frozen=True, slots=True)
class Hover:
    markdown: str
    span: Span  # the name hovered


Schemas = Callable[[ir.Signature], Mapping[str, object]]


def hover(
    index: Index, project: ir.Project, schemas: Schemas, path: str, offset: int
) -> Hover | None:
    """The hover text over `offset` in a file; None over anything but a name. `schemas`
    gives a signature's output schema (a tool's argument schema), as `sigspec schema` does."""
    site = index.at(path, offset)
    if site is None:
        return None
    if isinstance(site, PrimitiveUse):
        return Hover(PRIMITIVE_HELP[site.kind], site.span)
    found = index.declaration_of(site)
    if found is None:
        return None
    if found.kind in ("param", "field"):
        return Hover(_member(index, found), site.span)
    if found.kind == "test":
        return Hover(_test(index, found), site.span)
    return Hover(_declaration(index, project, schemas, found), site.span)


def _declaration(index: Index, project: ir.Project, schemas: Schemas, found: Declaration) -> str:
    file = index.files[found.path]
    node = found.node
    assert not isinstance(node, ast.Field)
    parts = [f"**{found.kind}** `{found.name}` — {found.path}", _code(_printed(file.source, node))]
    if node.doc:
        parts.append(node.doc)
    sig = _signature(project, found) if found.kind in ("signature", "tool") else None
    if sig is not None:
        parts.append(_schema(sig, schemas(sig)))
    return "\n\n".join(parts)


def _schema(sig: ir.Signature, schema: Mapping[str, object]) -> str:
    """The schema `sigspec schema` prints for it, its first lines when long."""
    if sig.kind == "tool":
        what = "Arguments (JSON Schema)"
    elif sig.mode == "json":
        what = "Output (JSON Schema)"
    else:
        what = f"Output ({sig.mode} mode; its value's JSON Schema)"
    lines = json.dumps(schema, indent=2, ensure_ascii=False).split("\n")
    more = ""
    if len(lines) > MAX_SCHEMA_LINES:
        more = f"\n\n({len(lines) - MAX_SCHEMA_LINES} more lines: `sigspec schema FILE:{sig.name}`)"
        lines = [*lines[:MAX_SCHEMA_LINES], "…"]
    text = "\n".join(lines)
    return f"{what}:\n\n```json\n{text}\n```{more}"


def _printed(source: SourceFile, node: ast.Decl) -> str:
    """The declaration as `sigspec fmt` prints it, without its doc comment (shown apart),
    cut in the middle when long."""
    from dataclasses import replace

    text = format_module(source, ast.Module((replace(node, doc=None),), ())).rstrip("\n")
    lines = text.split("\n")
    if len(lines) <= MAX_LINES:
        return text
    head = MAX_LINES - 2
    return "\n".join([*lines[:head], "  …", lines[-1]])


def _code(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}sigspec\n{text}\n{fence}"


def _signature(project: ir.Project, found: Declaration) -> ir.Signature | None:
    """The resolved signature declared there (not a duplicate, which is not resolved)."""
    for sig in (*project.signatures, *project.tools):
        origin = sig.origin
        if origin is None or origin.source.path != found.path:
            continue
        if origin.span.start == found.node.span.start:
            return sig
    return None


def _member(index: Index, found: Declaration) -> str:
    file = index.files[found.path]
    text = file.source.text
    node = found.node
    assert isinstance(node, ast.Field)
    owner = index.declarations.get(found.parent) if found.parent else None
    where = f" of {owner.kind} `{owner.name}`" if owner is not None else ""
    parts = [f"**{found.kind}** `{found.name}`{where}"]
    written = " ".join(text[node.type.span.start : node.type.span.end].split())
    parts.append(_code(f"{node.name} {written}"))
    if node.description is not None and isinstance(node.description.value, str):
        parts.append(node.description.value)
    facts = []
    if node.default is not None:
        facts.append(f"- default: `{_slice(text, node.default.span)}`")
    for attr in node.attrs:
        facts.append(f"- `{_slice(text, attr.span)}`")
    if facts:
        parts.append("\n".join(facts))
    return "\n\n".join(parts)


def _slice(text: str, span: Span) -> str:
    return " ".join(text[span.start : span.end].split()).replace("`", "'")


# ---- tests ----------------------------------------------------------------------------------

_OPS: Mapping[str, str] = {
    "==": "is",
    "!=": "is not",
    "<": "is less than",
    "<=": "is at most",
    ">": "is more than",
    ">=": "is at least",
    "in": "is one of",
    "~": "matches the pattern",
}


def _test(index: Index, found: Declaration) -> str:
    """A test as fmt prints it, its doc, and what it runs and checks, in words."""
    file = index.files[found.path]
    node = found.node
    assert isinstance(node, ast.TestDecl)
    text = file.source.text
    parts = [f"**test** `{found.name}` — {found.path}", _code(_printed(file.source, node))]
    if node.doc:
        parts.append(node.doc)
    given = ", ".join(f"`{a.name}`" for a in node.args) or "no arguments"
    parts.append(f"Calls `{node.target.name}` with {given}; {_expected(text, node.expect)}")
    runs = _runs(text, node)
    if runs:
        parts.append(runs)
    return "\n\n".join(parts)


def _expected(text: str, expect: ast.Expectation) -> str:
    match expect:
        case ast.Valid():
            return "passes when the output is valid (any output the signature accepts)."
        case ast.Checks(items):
            checks = "\n".join(f"- {_check_words(text, c)}" for c in items)
            return f"passes when the output is valid and each of these holds:\n\n{checks}"
        case _:
            return (
                "passes when the output equals the value given (once validated: defaults "
                "filled in)."
            )


def _check_words(text: str, check: ast.Check) -> str:
    from sigspec.syntax.fmt.printer import subject_text

    subject = subject_text(check.subject.path)
    what = "the output" if subject == "$" else f"`{subject}`"
    if check.length:
        what = f"the length of {what}"
    return f"{what} {_OPS[check.op]} `{_slice(text, check.value.span)}`"


def _runs(text: str, node: ast.TestDecl) -> str | None:
    """How often `sigspec test` runs it and the share that must pass, as written."""
    written = {
        a.name: _slice(text, a.args[0].span) for a in node.attrs if a.args and len(a.args) == 1
    }
    repeat, rate = written.get("repeat"), written.get("min_pass_rate")
    if repeat is None and rate is None:
        return None
    times = f"Runs {repeat} times" if repeat is not None else "Runs once (unless `--repeat`)"
    share = f"at least {_percent(rate)} of the runs must pass" if rate else "every run must pass"
    return f"{times}; {share}."


def _percent(written: str) -> str:
    try:
        return f"{float(written) * 100:g}%"
    except ValueError:
        return f"`{written}`"  # not a number: the checker says so
