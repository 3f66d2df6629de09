"""Names of generated files that would break somewhere: two .sig files that would generate
one module, outputs that differ only in case (macOS and Windows ignore it), names Windows
reserves for devices, and paths holding characters no generated comment may show. Found by
`lint`, before anything is written."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence

from sigspec.diagnostics import Diagnostic, Label, codes
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.emit.layout import prompt_paths, provider_path, schema_paths
from sigspec.lower.names import WINDOWS_RESERVED, module_collisions, module_path
from sigspec.lower.quoting import visible
from sigspec.semantics import ir

_START = Span(0, 0)
# The longest file name most file systems take (ext4, APFS, NTFS: 255 bytes or UTF-16 units).
MAX_FILE_NAME = 255

# Bidirectional controls: they make text show in another order than it is read
# ("Trojan Source", CVE-2021-42574).
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Controls (newline, CR, NUL, ESC, ...), lone surrogates (what an undecodable byte of a file
# name becomes: no UTF-8 file can hold one), the line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})


def reserved(name: str) -> bool:
    """Windows refuses a file whose name, up to its first dot, is a device's."""
    return name.split(".", 1)[0].lower() in WINDOWS_RESERVED


def unsafe_character(path: str) -> str | None:
    """The first character of `path` that no generated comment or docstring may hold as it
    is (one that ends a line in some language, or reorders what is shown), or None."""
    for char in path:
        if char in _BIDI or unicodedata.category(char) in _REFUSED_CATEGORIES:
            return char
    return None


def _describe(char: str) -> str:
    category = unicodedata.category(char)
    if category == "Cs":
        return "a byte of the file name that is not UTF-8"
    return "a control character" if category == "Cc" else unicodedata.name(char).lower()


def check_names(project: ir.Project, sources: Sequence[SourceFile]) -> list[Diagnostic]:
    return [*_paths(sources), *_modules(sources), *_declarations(project)]


def _paths(sources: Sequence[SourceFile]) -> Iterator[Diagnostic]:
    for source in sorted(sources, key=lambda s: s.path):
        char = unsafe_character(source.path)
        if char is not None:
            shown = f"U+{ord(char):04X} ({_describe(char)})"
            yield codes.UNSAFE_PATH.at(source, _START, name=visible(source.path), char=shown)


def _modules(sources: Sequence[SourceFile]) -> Iterator[Diagnostic]:
    by_path = {s.path: s for s in sources}
    for first, second, module in module_collisions(by_path):
        label = Label(by_path[first], _START, "this file")
        yield codes.MODULE_COLLISION.at(
            by_path[second], _START, first=first, second=second, module=module, labels=(label,)
        )
    seen: dict[str, SourceFile] = {}
    for source in sorted(sources, key=lambda s: s.path):
        path = module_path(source.path)
        dotted = ".".join(path)
        other = seen.setdefault(dotted.casefold(), source)
        if other is not source and ".".join(module_path(other.path)) != dotted:
            label = Label(other, _START, "this file")
            yield codes.CASE_COLLISION.at(
                source, _START, name=source.path, other=other.path, labels=(label,)
            )
        if any(reserved(part) for part in path):
            yield codes.RESERVED_NAME.at(source, _START, name=source.path)


def _declarations(project: ir.Project) -> Iterator[Diagnostic]:
    """Signatures and tools name their files (`jsonschema/NAME.input.json`, ...)."""
    seen: dict[str, ir.Signature] = {}
    for sig in (*project.signatures, *project.tools):
        other = seen.setdefault(ir.fold(sig.name).casefold(), sig)
        if other is not sig:
            labels = _label(other)
            yield codes.CASE_COLLISION.at_origin(
                sig.origin, name=sig.name, other=other.name, labels=labels
            )
        if reserved(sig.name):
            yield codes.RESERVED_NAME.at_origin(sig.origin, name=sig.name)
        longest = max(_file_names(sig), key=_size)
        if _size(longest) > MAX_FILE_NAME:
            yield codes.NAME_TOO_LONG.at_origin(
                sig.origin, name=sig.name, file=longest, size=_size(longest), limit=MAX_FILE_NAME
            )


def _file_names(sig: ir.Signature) -> Iterator[str]:
    """Each folder and file name below a target's folder in the paths of `sig`'s files."""
    paths = [*schema_paths(sig).values(), provider_path(sig), *prompt_paths(sig).values()]
    for path in paths:
        yield from path.split("/")[1:]


def _size(name: str) -> int:
    return len(name.encode("utf-8", "surrogatepass"))


def _label(sig: ir.Signature) -> tuple[Label, ...]:
    if sig.origin is None:
        return ()
    return (Label(sig.origin.source, sig.origin.span, "this one"),)
