"""TypeScript names for names from .sig files.

Every name the generated code makes up for itself starts with `$` (`$rt`, `$m_triage`,
`$SPEC_classify`), which no .sig name can contain, so a user's name never collides with
one of them. Users' names that are reserved in TypeScript get a trailing `_`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from sigspec.lower.names import IoNames
from sigspec.semantics import ir

if TYPE_CHECKING:
    from sigspec.lower.views import Lowered

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


@dataclass(frozen=True, slots=True)
class SigNames:
    """The names one signature gets: its module, client function and helpers, and types."""

    module: str
    client: str
    validate: str
    validate_input: str
    parse: str
    types: IoNames
    stream: str | None = None  # json mode only: `NAMEStream` and its `NAMEPartial` type
    partial: str | None = None


@dataclass
class Names:
    """Every name the target uses, decided once for the whole project."""

    types: dict[str, str]  # named type -> TypeScript name
    type_module: dict[str, str]  # named type -> the module that declares it
    sigs: dict[str, SigNames] = field(default_factory=dict)  # folded name -> names
    pipelines: dict[str, str] = field(default_factory=dict)  # pipeline name -> function


def project_names(lowered: Lowered) -> Names:
    type_namer = Namer()
    project = lowered.project
    names = Names(
        {name: type_namer.take(ident(name)) for name in project.types},
        {n: lowered.module_of(t).dotted for n, t in project.types.items()},
    )
    for io in lowered.io.values():
        type_namer.take(io.input)
        type_namer.take(io.output)
    for module in lowered.modules:
        values = Namer()
        # Client functions first, so that they keep the plainest names: `act_on_sentiment`
        # becomes `actOnSentiment`, with `validateActOnSentiment` and `parseActOnSentiment`.
        clients = {s.name: values.take(camel(s.name)) for s in module.signatures}
        for p in module.pipelines:
            names.pipelines[p.name] = values.take(camel(p.name))
        for sig in module.signatures:
            io = lowered.io[sig.name]
            stem = io.input.removesuffix("Input")
            names.sigs[ir.fold(sig.name)] = SigNames(
                module.dotted,
                clients[sig.name],
                values.take(f"validate{stem}"),
                values.take(f"validate{stem}Input"),
                values.take(f"parse{stem}"),
                io,
            )
        # The streaming forms last, so that adding them renamed nothing that was there.
        for sig in module.signatures:
            if sig.mode == "json":
                old = names.sigs[ir.fold(sig.name)]
                stem = old.types.input.removesuffix("Input")
                stream = values.take(f"{camel(sig.name)}Stream")
                partial = type_namer.take(f"{stem}Partial")
                names.sigs[ir.fold(sig.name)] = replace(old, stream=stream, partial=partial)
    return names
