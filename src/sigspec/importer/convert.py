"""One JSON Schema → sigspec type text, with a diagnostic for what the language cannot say.

`Converter.piece` reads a schema into a `Piece`: a type expression, whether it also accepts
null (written `?` or `| null` by the caller, which knows whether a key is required), and the
field attributes its constraints become. Constraints live on fields only in sigspec, so a
constraint anywhere else is `import-unsupported`. Every diagnostic names the schema's JSON
Pointer.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from sigspec.diagnostics import Diagnostic, codes
from sigspec.importer.document import Document, pointer, valid_name
from sigspec.importer.keywords import (
    CONSTRAINTS,
    DROPPED,
    FIELD_NOTES,
    MAX_SCHEMA_DEPTH,
    ORDER,
    PRIMS,
    SILENT,
    STRUCTURE,
    UNSUPPORTED,
    attribute,
    finite,
    json_value,
    value_text,
)
from sigspec.semantics.ir import fold
from sigspec.syntax import ast
from sigspec.syntax.fmt.literals import encode, scalar


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    binding: str = "atom"  # "atom", "union" (of types), "literals" (of values), "optional"
    nullable: bool = False  # also accepts null, not written in `text`
    attrs: tuple[str, ...] = ()  # field attributes holding this schema's constraints
    literal: bool = False  # an `enum` or `const`: a union flattens it into its own literals


ANY = Piece(":any")


def optional(piece: Piece) -> str:
    """`T?`, grouped when `T` binds looser than an atom."""
    return f"({piece.text})?" if piece.binding != "atom" else f"{piece.text}?"


@dataclass(slots=True)
class Converter:
    document: Document
    diags: list[Diagnostic] = field(default_factory=list)
    depth: int = 0

    # ---- diagnostics -----------------------------------------------------------------------
    def unsupported(self, at: str, what: str) -> None:
        self.diags.append(codes.IMPORT_UNSUPPORTED.at(self.document.source, None, what=what, at=at))

    def approximated(self, at: str, what: str) -> None:
        self.diags.append(
            codes.IMPORT_APPROXIMATED.at(self.document.source, None, what=what, at=at)
        )

    def check_keywords(self, schema: dict[str, Any], at: str, notes: bool) -> None:
        for key, value in schema.items():
            if key in STRUCTURE or key in CONSTRAINTS or key in SILENT:
                continue
            if key in FIELD_NOTES and notes:
                continue
            if key in UNSUPPORTED:
                self.unsupported(f"{at}/{key}", f"`{key}` cannot be expressed")
            elif key in FIELD_NOTES or key in DROPPED:
                self.approximated(f"{at}/{key}", f"`{key}` is not kept here")
            elif key == "uniqueItems" and value is True:
                self.unsupported(f"{at}/{key}", "`uniqueItems` cannot be expressed")
            else:
                self.approximated(f"{at}/{key}", f"unknown keyword `{key}` ignored")

    # ---- schemas ---------------------------------------------------------------------------
    def piece(self, schema: Any, at: str, notes: bool = False) -> Piece:
        if self.depth >= MAX_SCHEMA_DEPTH:
            self.unsupported(at, f"a schema nested more than {MAX_SCHEMA_DEPTH} deep")
            return ANY
        self.depth += 1
        try:
            return self.read(schema, at, notes)
        finally:
            self.depth -= 1

    def read(self, schema: Any, at: str, notes: bool) -> Piece:
        if schema is True:
            return ANY
        if schema is False:
            self.unsupported(at, "the schema `false` (no value) cannot be expressed")
            return ANY
        if not isinstance(schema, dict):
            self.unsupported(at, "not a schema (an object or a boolean)")
            return ANY
        self.check_keywords(schema, at, notes)
        if "allOf" in schema:
            return self.all_of(schema, at)
        if "$ref" in schema:
            return self.constrained(self.ref(schema["$ref"], at), schema, at, kind=None)
        if "anyOf" in schema or "oneOf" in schema:
            return self.constrained(self.union(schema, at), schema, at, kind=None)
        if "enum" in schema or "const" in schema:
            return self.constrained(self.literals(schema, at), schema, at, kind=None)
        return self.typed(schema, at)

    def all_of(self, schema: dict[str, Any], at: str) -> Piece:
        parts = schema["allOf"]
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], dict):
            clash = (set(parts[0]) & set(rest)) - SILENT - FIELD_NOTES
            if not clash:
                return self.piece({**parts[0], **rest}, at, notes=True)
        self.unsupported(f"{at}/allOf", "`allOf` other than one schema to merge")
        return self.piece(rest, at, notes=True)

    def ref(self, ref: Any, at: str) -> Piece:
        from urllib.parse import unquote

        if not isinstance(ref, str) or not ref.startswith("#"):
            what = f"the remote reference `{ref}` cannot be followed"
            self.diags.append(
                codes.IMPORT_UNRESOLVED_REF.at(self.document.source, None, what=what, at=at)
            )
            return ANY
        if ref == "#" and self.document.root is not None:
            return Piece(self.document.root_name)
        found = self.document.named.get(ref) or self.document.named.get(unquote(ref))
        if found is None:
            what = f"`{ref}` names no schema of `$defs`, `definitions` or `components.schemas`"
            self.diags.append(
                codes.IMPORT_UNRESOLVED_REF.at(self.document.source, None, what=what, at=at)
            )
            return ANY
        return Piece(found[0])

    def union(self, schema: dict[str, Any], at: str) -> Piece:
        key = "anyOf" if "anyOf" in schema else "oneOf"
        members = schema[key]
        if not isinstance(members, list) or not members:
            self.unsupported(f"{at}/{key}", f"`{key}` is not a list of schemas")
            return ANY
        if key == "oneOf":
            self.approximated(
                f"{at}/oneOf",
                "`oneOf` read as a union: a value matching several branches is accepted",
            )
        if "type" in schema or "enum" in schema or "properties" in schema:
            self.unsupported(at, f"`{key}` beside `type`, `enum` or `properties`")
        pieces = [self.piece(m, f"{at}/{key}/{i}") for i, m in enumerate(members)]
        for i, p in enumerate(pieces):
            if p.attrs:
                self.unsupported(f"{at}/{key}/{i}", "constraints inside a union branch")
        if len(members) == 2 and members[1] == {"type": "null"}:
            first = pieces[0]
            if first.nullable:  # `anyOf: [anyOf: [X, null], null]`: `(X | null)?`
                inner = f"({first.text})" if first.binding in ("union", "optional") else first.text
                return Piece(f"{inner} | null", "union", True)
            return Piece(first.text, first.binding, True)
        texts = []
        for i, p in enumerate(pieces):
            if p.text == "null" and i < len(pieces) - 1:
                texts.append("null?")  # a branch of its own, where it stands (not the last)
            elif p.nullable:
                texts.append(optional(p))
            elif p.literal and _takes_null(p):
                # Its own branch, as sigspec writes `(null | "a")?`: flattened, its literals
                # would join the union's one literal branch.
                texts.append(f"({p.text})?")
            else:
                texts.append(f"({p.text})" if p.binding in ("union", "optional") else p.text)
        return Piece(" | ".join(texts), "union" if len(texts) > 1 else pieces[0].binding)

    def literals(self, schema: dict[str, Any], at: str) -> Piece:
        values = [schema["const"]] if "const" in schema else schema["enum"]
        key = "const" if "const" in schema else "enum"
        if not isinstance(values, list) or not values:
            self.unsupported(f"{at}/{key}", f"`{key}` is not a list of values")
            return ANY
        kept = [v for v in values if v is None or isinstance(v, (str, bool)) or finite(v)]
        if len(kept) < len(values):
            self.unsupported(f"{at}/{key}", "lists and objects as enum values")
        if not kept:
            return ANY
        nullable = len(kept) > 1 and kept[-1] is None and None not in kept[:-1]
        if nullable:
            kept = kept[:-1]
        texts = [encode(v) if isinstance(v, str) else scalar(v) for v in kept]
        binding = "literals" if len(texts) > 1 else "atom"
        return Piece(" | ".join(texts), binding, nullable, literal=True)

    def typed(self, schema: dict[str, Any], at: str) -> Piece:
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if kind is not None else []
        if not all(isinstance(k, str) for k in kinds):
            self.unsupported(f"{at}/type", "`type` is not a name or a list of names")
            return ANY
        kinds = list(dict.fromkeys(kinds))
        nullable = "null" in kinds or schema.get("nullable") is True
        kinds = [k for k in kinds if k != "null"]
        if not kinds:
            kinds = _implied_kind(schema)
        if len(kinds) > 1:
            pieces = [self.typed({"type": k}, at) for k in kinds]
            if set(schema) & CONSTRAINTS:
                self.unsupported(at, "constraints on a schema of several types")
            return Piece(" | ".join(p.text for p in pieces), "union", nullable)
        if not kinds:
            if nullable:
                return Piece("null")
            if set(schema) & CONSTRAINTS:
                self.unsupported(at, "constraints on a schema with no `type`")
            return ANY
        base = self.kind(kinds[0], schema, at)
        return self.constrained(Piece(base.text, base.binding, nullable), schema, at, kinds[0])

    def kind(self, kind: Any, schema: dict[str, Any], at: str) -> Piece:
        if kind == "string" and schema.get("format") == "date-time":
            return Piece(":datetime")
        if kind in PRIMS:
            return Piece(PRIMS[kind])
        if kind == "array":
            items = schema.get("items", True)
            if isinstance(items, list):
                self.unsupported(f"{at}/items", "a list of `items` (a tuple)")
                return Piece("[:any]")
            item = self.piece(items, f"{at}/items")
            if item.attrs:
                self.unsupported(f"{at}/items", "constraints on a list's items")
            text = optional(item) if item.nullable else item.text
            return Piece(f"[{text}]")
        if kind == "object":
            return self.object(schema, at)
        if kind == "null":
            return Piece("null")
        self.unsupported(f"{at}/type", f"unknown type `{kind}`")
        return ANY

    def object(self, schema: dict[str, Any], at: str) -> Piece:
        props = schema.get("properties", {})
        required = schema.get("required", [])
        extra = schema.get("additionalProperties", True)
        if (
            not isinstance(props, dict)
            or not isinstance(required, list)
            or not all(isinstance(r, str) for r in required)
        ):
            self.unsupported(at, "`properties` or `required` of the wrong shape")
            return Piece(":map")
        if not {"properties", "required", "additionalProperties"} & set(schema):
            return Piece(":map")
        missing = [r for r in required if r not in props]
        if missing:
            self.unsupported(f"{at}/required", f"required keys without a schema: {missing}")
        if extra not in (True, False, {}):
            self.unsupported(
                f"{at}/additionalProperties",
                "a schema for the extra keys: sigspec's open maps accept any extra value",
            )
        fields = []
        seen: set[str] = set()
        for name, sub in props.items():
            ptr = f"{at}/properties/{pointer(name)[2:]}"
            fields.append(self.field(name, sub, name in required, ptr, seen))
        if extra is not False:
            fields.append("...")
        return Piece("{" + ", ".join(fields) + "}")

    def field(self, name: str, schema: Any, required: bool, at: str, seen: set[str]) -> str:
        key = name
        if not ast.NAME.fullmatch(name) or fold(name) in seen:
            key = valid_name(name)
            n = 1
            while fold(key) in seen:
                n += 1
                key = f"{valid_name(name)}_{n}"
            self.unsupported(at, f"the key `{name}` is not a sigspec name; imported as `{key}`")
        seen.add(fold(key))
        piece = self.piece(schema, at, notes=True)
        notes = schema if isinstance(schema, dict) else {}
        has_default = "default" in notes and json_value(notes["default"])
        if "default" in notes and not has_default:
            self.unsupported(f"{at}/default", "a default that is not a JSON value")
        if required and has_default:
            self.unsupported(at, "a required key with a default: the default makes it optional")
        if piece.nullable and not required:
            text = optional(piece)
        elif piece.nullable:
            text = (
                f"({piece.text}) | null"
                if piece.binding in ("union", "optional")
                else (f"{piece.text} | null")
            )
        elif required or has_default:
            text = piece.text
        else:
            if not _takes_null(piece):
                self.approximated(at, "an optional key: sigspec's optional fields also accept null")
            text = optional(piece)
        parts = [key, text]
        if has_default:
            parts.append("= " + value_text(notes["default"]))
        parts += piece.attrs
        if notes.get("deprecated") is True:
            parts.append("@deprecated")
        if isinstance(notes.get("description"), str):
            parts.append(encode(notes["description"]))
        return " ".join(parts)

    def constrained(self, piece: Piece, schema: dict[str, Any], at: str, kind: Any) -> Piece:
        """`piece` with the field attributes for `schema`'s constraints (of its `kind`)."""
        found = [k for k in schema if k in CONSTRAINTS]
        if not found:
            return piece
        if self.document.draft7 and "$ref" in schema:
            return piece  # draft-07 ignores the keywords beside `$ref`
        attrs: list[str] = []
        for key in found:
            attr = attribute(key, schema[key], kind)
            if attr is None:
                self.unsupported(f"{at}/{key}", f"`{key}` on a {kind or 'non-scalar'} schema")
            elif attr:
                attrs.append(attr)
        attrs.sort(key=lambda a: ORDER.index(a[1:].partition("(")[0]))
        return replace(piece, attrs=tuple(attrs))


def _takes_null(piece: Piece) -> bool:
    """`piece` accepts null already: `T?` says nothing more."""
    return piece.text == ":any" or "null" in piece.text.split(" | ")


def _implied_kind(schema: dict[str, Any]) -> list[str]:
    """Structure keywords say an object or an array when `type` is left out."""
    if {"properties", "required", "additionalProperties"} & set(schema):
        return ["object"]
    if "items" in schema:
        return ["array"]
    return []
