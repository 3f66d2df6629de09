"""TypeScript names for names from .sig files.

Every name the generated code makes up for itself starts with `$` (`$rt`, `$m_triage`,
`$SPEC_classify`), which no .sig name can contain, so a user's name never collides with
one of them. Users' names that are reserved in TypeScript get a trailing `_`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Reserved words, strict-mode restrictions, the primitive type names, and `Promise` (an async
# function's return type must be the global one, so no declaration may shadow it).
RESERVED = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "implements",
        "interface",
        "let",
        "package",
        "private",
        "protected",
        "public",
        "static",
        "yield",
        "await",
        "arguments",
        "eval",
        "as",
        "async",
        "from",
        "get",
        "of",
        "set",
        "declare",
        "module",
        "namespace",
        "type",
        "require",
        "any",
        "bigint",
        "boolean",
        "never",
        "number",
        "object",
        "string",
        "symbol",
        "undefined",
        "unknown",
        "Promise",
    ]
)


def ident(name: str) -> str:
    """A .sig name as a TypeScript identifier: `-` becomes `_`, reserved words get `_`."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    return f"{text}_" if text in RESERVED else text


def camel(name: str) -> str:
    """`act_on_sentiment` / `act-on-sentiment` as `actOnSentiment` (leading `_` kept)."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    lead = len(text) - len(text.lstrip("_"))
    head, *rest = text[lead:].split("_")
    out = "_" * lead + head + "".join(part[:1].upper() + part[1:] for part in rest)
    return f"_{out}" if not out or out[0].isdigit() else out


class Namer:
    """Unique names in one declaration space: a taken name gets `_` until it is free."""

    def __init__(self, taken: Iterable[str] = ()) -> None:
        self._used = set(taken)

    def take(self, wanted: str) -> str:
        name = wanted
        while name in self._used or name in RESERVED:
            name += "_"
        self._used.add(name)
        return name
