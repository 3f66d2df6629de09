"""Names the targets share: each .sig file's module path, and each signature's input and
output type names. Per-language names are `lower/names/python.py` and `typescript.py`.

A file's module path depends on its own path (relative to the project root) only, never on
which other files exist: `billing/types.sig` is the module `billing.types` (Python) and
`billing/types.ts` (TypeScript), whatever else the project holds.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from sigspec.semantics import ir

# Names a generated package's top level uses itself: a .sig file so named gets a trailing `_`.
RESERVED_MODULES = frozenset(
    {
        "__init__",
        "_common",
        "_formats",
        "_runtime",
        "_reply",
        "_client",
        "_mustache",
        "models",
        "client",
    }
)

# Device names Windows refuses as a file or folder name, whatever the extension.
WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{n}" for n in range(1, 10)}
    | {f"lpt{n}" for n in range(1, 10)}
)

ModulePath = tuple[str, ...]


def _part(text: str) -> str:
    """One folder or file name as an identifier (Python's rules, which TypeScript's accept)."""
    name = re.sub(r"\W", "_", text, flags=re.ASCII)
    name = f"_{name}" if not name or name[0].isdigit() else name
    return f"{name}_" if keyword.iskeyword(name) else name


def module_path(source: str) -> ModulePath:
    """`billing/types.sig` -> ("billing", "types"); `models.sig` and `models/a.sig` ->
    ("models_", ...) (the package's own names are taken at its top); a file named
    `__init__.sig` at any depth -> `__init___` (a folder's own `__init__` is generated)."""
    parts = [_part(p) for p in PurePosixPath(source).with_suffix("").parts]
    if parts[0] in RESERVED_MODULES:
        parts[0] += "_"
    if parts[-1] == "__init__":
        parts[-1] += "_"
    return tuple(parts)


def module_collisions(sources: Iterable[str]) -> list[tuple[str, str, str]]:
    """Pairs of files whose modules would be one (`my-dir/a.sig`, `my_dir/a.sig`), or one
    file's module a package of another's (`a.sig` and `a/b.sig`): (first, second, name)."""
    seen: dict[ModulePath, str] = {}
    packages: dict[ModulePath, str] = {}
    found: list[tuple[str, str, str]] = []
    for source in sorted(sources):
        path = module_path(source)
        for other in (seen.get(path), packages.get(path)):
            if other is not None:
                found.append((other, source, ".".join(path)))
        for depth in range(1, len(path)):
            package = path[:depth]
            packages.setdefault(package, source)
            if package in seen:
                found.append((seen[package], source, ".".join(package)))
        seen.setdefault(path, source)
    return found


def pascal(name: str) -> str:
    """`act_on_sentiment` -> `ActOnSentiment`: the stem of a signature's type names."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", name) if w]
    text = "".join(w[0].upper() + w[1:] for w in words) or "Signature"
    return f"S{text}" if text[0].isdigit() else text


@dataclass(frozen=True, slots=True)
class IoNames:
    """The type names of one signature's input and output (Python models, TypeScript types)."""

    input: str
    output: str


# The Python models step names its JSON Schema document's root so; no other name may be it.
MODELS_ROOT = "SigspecRootDocument"


def io_names(sigs: Sequence[ir.Signature], taken: Iterable[str]) -> Mapping[str, IoNames]:
    """Unique `<Pascal>Input`/`<Pascal>Output` names, clear of named types and of each other."""
    used = {*taken, MODELS_ROOT}
    out: dict[str, IoNames] = {}
    for sig in sigs:
        stem = pascal(sig.name)
        n = 1
        while f"{stem}Input" in used or f"{stem}Output" in used:
            n += 1
            stem = f"{pascal(sig.name)}{n}"
        used.update((f"{stem}Input", f"{stem}Output"))
        out[sig.name] = IoNames(f"{stem}Input", f"{stem}Output")
    return out
