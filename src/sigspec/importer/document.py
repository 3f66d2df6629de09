"""What an imported document holds: its kind, its named schemas and its root.

A JSON Schema (draft 2020-12, 2019-09 or draft-07) keeps named schemas in `$defs` or
`definitions`; an OpenAPI 3.x document in `components.schemas`, with no root. Each named
schema gets a sigspec name: valid in the grammar and unique after `-`/`_` folding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.source import SourceFile
from sigspec.semantics.ir import fold

_INVALID = re.compile(r"[^A-Za-z0-9_-]")
_RESERVED = frozenset({"true", "false", "null"})  # in a type position they are literals
# Keywords that say nothing about the values a root schema accepts: a document holding only
# these and its named schemas has no root type.
_NOT_ROOT = frozenset(
    {"$schema", "$id", "$defs", "definitions", "title", "description", "$comment", "examples"}
)


class NotASchema(ValueError):
    """The document is neither a JSON Schema nor an OpenAPI document (a usage error)."""


@dataclass(frozen=True, slots=True)
class Document:
    source: SourceFile  # the display path; the text is not kept
    root: Any | None  # the root schema, or None (OpenAPI, or only named schemas)
    root_name: str
    named: dict[str, tuple[str, Any]]  # pointer -> (sigspec name, schema)
    draft7: bool
    openapi: bool


def pointer(*parts: str) -> str:
    """A JSON Pointer fragment (`#/$defs/Order`), `~` and `/` escaped."""
    return "#" + "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def valid_name(name: str) -> str:
    out = _INVALID.sub("_", name) or "_"
    if out[0].isdigit() or out[0] == "-":
        out = "_" + out
    return out + "_" if out in _RESERVED else out


def read_document(
    value: Any, path: str, name: str | None, stem: str
) -> tuple[Document, list[Diagnostic]]:
    """The document's parts; raises `NotASchema` when `value` is neither kind."""
    source = SourceFile(path, "")
    if isinstance(value, bool):
        value = {} if value else {"not": {}}
    if not isinstance(value, dict):
        raise NotASchema("not a JSON Schema: the document is not an object")
    openapi = isinstance(value.get("openapi"), str)
    if openapi:
        schemas = (
            value.get("components", {}).get("schemas")
            if isinstance(value.get("components"), dict)
            else None
        )
        if not isinstance(schemas, dict):
            raise NotASchema("an OpenAPI document without `components.schemas`")
        entries = [(pointer("components", "schemas", k), k, v) for k, v in schemas.items()]
        root = None
    else:
        entries = []
        for key in ("$defs", "definitions"):
            defs = value.get(key, {})
            if not isinstance(defs, dict):
                raise NotASchema(f"`{key}` is not an object")
            entries += [(pointer(key, k), k, v) for k, v in defs.items()]
        root = value if set(value) - _NOT_ROOT or not entries else None
        if root is not None and name is None and _names_a_def(root, entries):
            root = None  # Pydantic's self-referencing model: the root is its own `$defs` entry
    wanted = name or (value.get("title") if isinstance(value.get("title"), str) else None) or stem
    names = _Names(source)
    diags: list[Diagnostic] = []
    root_name = names.claim(wanted, "#", diags) if root is not None else ""
    named = {ptr: (names.claim(k, ptr, diags), v) for ptr, k, v in entries}
    schema_uri = str(value.get("$schema", ""))
    draft7 = any(d in schema_uri for d in ("draft-07", "draft-06", "draft-04"))
    return Document(source, root, root_name, named, draft7, openapi), diags


def _names_a_def(root: dict[str, Any], entries: list[tuple[str, str, Any]]) -> bool:
    """The root is only a `$ref` to one of the named schemas."""
    return set(root) - _NOT_ROOT == {"$ref"} and any(p == root["$ref"] for p, _, _ in entries)


@dataclass(slots=True)
class _Names:
    source: SourceFile
    taken: set[str] | None = None

    def claim(self, wanted: str, at: str, diags: list[Diagnostic]) -> str:
        taken = self.taken = self.taken if self.taken is not None else set()
        base = valid_name(wanted)
        name, n = base, 1
        while fold(name) in taken:
            n += 1
            name = f"{base}_{n}"
        taken.add(fold(name))
        if name != wanted:
            diags.append(codes.IMPORT_RENAMED.at(self.source, None, old=wanted, new=name, at=at))
        return name
