"""AST → IR: resolve names, read attributes, turn defaults and constraints into typed values.

Resolution never stops at the first problem: an unknown name becomes `:any` so that the rest
of the file is still checked, and every problem is returned as a diagnostic.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, assert_never

from sigspec.diagnostics import Diagnostic, Fix, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.runtime.ecma import Unportable, to_python
from sigspec.runtime.formats import CHECKS
from sigspec.semantics import ir
from sigspec.semantics.attributes import FIELD, PIPELINE, SIGNATURE, TOOL, TYPE, read_attributes
from sigspec.semantics.scope import ParsedFile, Table, check_duplicates
from sigspec.syntax import ast

FORMATS = frozenset(
    {
        "date-time",
        "date",
        "time",
        "duration",
        "email",
        "idn-email",
        "hostname",
        "idn-hostname",
        "ipv4",
        "ipv6",
        "uri",
        "uri-reference",
        "iri",
        "iri-reference",
        "uuid",
        "uri-template",
        "json-pointer",
        "relative-json-pointer",
        "regex",
    }
)


@dataclass(frozen=True, slots=True)
class FieldSite:
    """A resolved field with the syntax it came from, for checks that need all types first."""

    field: ir.Field
    syntax: ast.Field
    source: SourceFile


# Unknown names per file that get did-you-mean hints (and the list of names in scope): each
# hint compares the name with every declaration, so hints for all of 5,000 unknown names in a
# file took minutes.
MAX_SUGGESTIONS = 20


@dataclass
class Resolver:
    """Resolves the declarations of one file against the project table."""

    table: Table
    file: ParsedFile
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sites: list[FieldSite] = field(default_factory=list)
    suggestions_left: int = MAX_SUGGESTIONS

    def lookup(self, name: str, kind: str, span: Span, code: codes.Code) -> str | None:
        """The declaration's name, reporting it when unknown."""
        entry, diags = self.table.lookup(
            name, kind, file=self.file, span=span, code=code, suggest=self.suggestions_left > 0
        )
        self.suggestions_left -= len(diags)
        self.diagnostics += diags
        return entry.decl.name if entry is not None else None

    @property
    def source(self) -> SourceFile:
        return self.file.source

    def origin(self, node: Any) -> ir.Origin:
        return ir.Origin(self.source, node.span)

    # ---- types ----

    def type(self, t: ast.TypeExpr) -> ir.TypeRef:
        match t:
            case ast.PrimType(name):
                return ir.Prim(ast.primitive(name) or "any")  # unknown: reported by the parser
            case ast.NamedType(name, span):
                found = self.lookup(name, "type", span, codes.UNKNOWN_TYPE)
                return ir.Ref(found) if found is not None else ir.Prim("any")
            case ast.ListType(item):
                return ir.ListOf(self.type(item))
            case ast.MapType(fields, is_open):
                return ir.MapOf(self.fields(fields, codes.DUPLICATE_FIELD), is_open)
            case ast.OptionalType(inner):
                resolved = self.type(inner)
                return resolved if isinstance(resolved, ir.Optional) else ir.Optional(resolved)
            case ast.UnionType(members):
                return ir.Union(tuple(self._flatten(members)))
            case ast.LiteralType(value):
                return ir.Literal(value)
            case _:
                assert_never(t)

    def _flatten(self, members: tuple[ast.TypeExpr, ...]) -> list[ir.TypeRef]:
        out: list[ir.TypeRef] = []
        for m in members:
            resolved = self.type(m)
            out += resolved.members if isinstance(resolved, ir.Union) else [resolved]
        return out

    # ---- fields ----

    def fields(self, fields: tuple[ast.Field, ...], dup: codes.Code) -> tuple[ir.Field, ...]:
        self.diagnostics += check_duplicates(fields, self.source, dup)
        return tuple(self.field(f) for f in fields)

    def field(self, f: ast.Field) -> ir.Field:
        attrs, diags = read_attributes(f.attrs, FIELD, self.source)
        self.diagnostics += diags
        resolved = ir.Field(
            name=f.name,
            type=self.type(f.type),
            default=ir.Default(to_json(f.default)) if f.default is not None else None,
            constraints=self.constraints(attrs.values, f),
            clamp=ir.Clamp(*attrs.get("clamp")) if "clamp" in attrs.values else None,
            fallback=bool(attrs.get("fallback", False)),
            deprecated=attrs.get("deprecated"),
            description=str(f.description.value) if f.description is not None else None,
            origin=self.origin(f),
        )
        self.sites.append(FieldSite(resolved, f, self.source))
        return resolved

    def constraints(self, values: dict[str, Any], f: ast.Field) -> tuple[ir.Constraint, ...]:
        out: list[ir.Constraint] = []
        if "min" in values or "max" in values:
            out.append(ir.Range(values.get("min"), values.get("max")))
        if "min_length" in values or "max_length" in values:
            out.append(ir.Length(values.get("min_length"), values.get("max_length")))
        if "min_items" in values or "max_items" in values:
            out.append(ir.Items(values.get("min_items"), values.get("max_items")))
        if "pattern" in values and self._pattern_compiles(values["pattern"], f):
            out.append(ir.Pattern(values["pattern"]))
        if "format" in values:
            name = values["format"]
            if name not in FORMATS:
                self.diagnostics.append(self._unknown_format(name, f))
            elif name not in CHECKS:
                span = next(a.span for a in f.attrs if a.name == "format")
                self.diagnostics.append(codes.UNCHECKED_FORMAT.at(self.source, span, name=name))
            out.append(ir.Format(name))
        return tuple(out)

    def _unknown_format(self, name: str, f: ast.Field) -> Diagnostic:
        from sigspec.diagnostics.suggest import suggest

        attr = next(a for a in f.attrs if a.name == "format")
        found = suggest(name, sorted(FORMATS))
        arg = attr.args[0] if attr.args else None  # what a fix replaces: a string or a name
        fixes: tuple[Fix, ...] = ()
        if isinstance(arg, ast.ScalarValue | ast.NameArg):
            quoted = isinstance(arg, ast.ScalarValue)
            fixes = tuple(
                Fix(arg.span, json.dumps(text) if quoted else text) for text in found.replacements
            )
        return codes.UNKNOWN_FORMAT.at(
            self.source, attr.span, name=name, hints=found.hints, fixes=fixes
        )

    def _pattern_compiles(self, regex: str, f: ast.Field) -> bool:
        """Report a pattern that is no ECMA-262 pattern, or lies outside the subset the
        engines share (`runtime/ecma.py`), or whose Python translation does not compile; the
        IR leaves it out, so that no later stage (the default's check, the targets) ever
        reads it again."""
        span = next(a.span for a in f.attrs if a.name == "pattern")
        try:
            with warnings.catch_warnings():
                # Python warns about syntax it may change (nested sets); not the user's concern.
                warnings.simplefilter("ignore")
                re.compile(to_python(regex))
        except Unportable as exc:
            self.diagnostics.append(
                codes.UNPORTABLE_PATTERN.at(self.source, span, what=exc.what, part=exc.part)
            )
            return False
        except re.error as exc:  # lookbehind of varying length
            reason = f"Python cannot run it: {exc}"
            self.diagnostics.append(codes.INVALID_PATTERN.at(self.source, span, reason=reason))
            return False
        except (ValueError, RecursionError, OverflowError) as exc:
            self.diagnostics.append(codes.INVALID_PATTERN.at(self.source, span, reason=exc))
            return False
        return True

    # ---- declarations ----

    def typedef(self, d: ast.TypeDecl) -> ir.TypeDef:
        attrs, diags = read_attributes(d.attrs, TYPE, self.source)
        self.diagnostics += diags
        return ir.TypeDef(d.name, self.type(d.type), d.doc, attrs.get("deprecated"), self.origin(d))

    def signature(self, d: ast.SignatureDecl) -> ir.Signature:
        attrs, diags = read_attributes(
            d.attrs, SIGNATURE if d.kind == "signature" else TOOL, self.source
        )
        self.diagnostics += diags
        return ir.Signature(
            name=d.name,
            params=self.fields(d.params, codes.DUPLICATE_PARAM),
            output=self.type(d.output),
            kind=d.kind,
            mode=attrs.get("output", "json"),
            prompt=attrs.get("prompt"),
            system=attrs.get("system"),
            max_turns=attrs.get("max_turns", 5),
            allow_extra_keys="allow_extra_keys" in attrs.values,
            no_output_instructions="no_output_instructions" in attrs.values,
            tools=attrs.get("tools", ()),
            compression="compression" in attrs.values,
            deprecated=attrs.get("deprecated"),
            doc=d.doc,
            origin=self.origin(d),
        )

    def pipeline(self, d: ast.PipelineDecl) -> ir.Pipeline:
        attrs, diags = read_attributes(d.attrs, PIPELINE, self.source)
        self.diagnostics += diags
        steps: list[str] = []
        for step in d.steps:
            found = self.lookup(step.name, "signature", step.span, codes.UNKNOWN_SIGNATURE)
            steps.append(found if found is not None else step.name)
        return ir.Pipeline(d.name, tuple(steps), d.doc, attrs.get("deprecated"), self.origin(d))


def to_json(value: ast.Value) -> Any:
    match value:
        case ast.ScalarValue(v):
            return v
        case ast.ListValue(items):
            return [to_json(i) for i in items]
        case ast.MapValue(entries):
            return {k: to_json(v) for k, v in entries}
        case _:
            assert_never(value)


@dataclass(frozen=True, slots=True)
class Resolved:
    project: ir.Project
    sites: tuple[FieldSite, ...]
    diagnostics: tuple[Diagnostic, ...]


@dataclass
class _Declarations:
    """What resolution collects, in declaration order (files in load order)."""

    types: dict[str, ir.TypeDef] = field(default_factory=dict)
    signatures: list[ir.Signature] = field(default_factory=list)
    tools: list[ir.Signature] = field(default_factory=list)
    pipelines: list[ir.Pipeline] = field(default_factory=list)

    def add(self, r: Resolver, decl: ast.Decl) -> None:
        match decl:
            case ast.ImportDecl(attrs=attrs):
                for attr in attrs:
                    r.diagnostics.append(
                        codes.MISPLACED_ATTRIBUTE.at(
                            r.source, attr.span, name=attr.name, place="an import"
                        )
                    )
            case ast.TypeDecl():
                self.types[decl.name] = r.typedef(decl)
            case ast.SignatureDecl(kind="tool"):
                self.tools.append(r.signature(decl))
            case ast.SignatureDecl():
                self.signatures.append(r.signature(decl))
            case ast.PipelineDecl():
                self.pipelines.append(r.pipeline(decl))
            case ast.TestDecl():
                pass  # checked once the whole project is resolved (`testcases.py`)
            case _:
                assert_never(decl)


def resolve_files(files: Sequence[ParsedFile], table: Table) -> Resolved:
    found = _Declarations()
    diags: list[Diagnostic] = []
    sites: list[FieldSite] = []
    for file in files:
        r = Resolver(table, file)
        for decl in file.module.decls:
            if isinstance(
                decl, ast.TypeDecl | ast.SignatureDecl | ast.PipelineDecl
            ) and not _is_first(table, decl):
                continue  # a duplicate declaration: reported already, and not resolved twice
            found.add(r, decl)
        diags += r.diagnostics
        sites += r.sites
    project = ir.Project(
        files=tuple(f.source.path for f in files),
        types=found.types,
        signatures=tuple(found.signatures),
        tools=tuple(found.tools),
        pipelines=tuple(found.pipelines),
    )
    return Resolved(project, tuple(sites), tuple(diags))


def _is_first(table: Table, decl: ast.TypeDecl | ast.SignatureDecl | ast.PipelineDecl) -> bool:
    entry = table.entries.get(ir.fold(decl.name))
    return entry is not None and entry.decl is decl
