"""SARIF 2.1.0, the format code-scanning services ingest.

What GitHub code scanning reads is what shapes the log: every rule carries its short and full
descriptions and its `help` (the page `sigspec explain CODE` prints, as text and Markdown),
the rules are the whole table of codes (the same in every run, as GitHub asks), and a file is
named by an RFC 3986 URI reference relative to the project root (`uriBaseId`), which is how
GitHub reads a relative path: from the root of the repository it was run in. When the renderer
is told the project root and that lies below the root of a git repository (the nearest
folder above holding `.git`), every URI is relative to the repository root instead
(`REPOROOT`), with `PROJECTROOT` defined from it: GitHub, which reads `uri` from the
repository root whatever its base, then finds the file too. An absolute path
(a file outside the root with no relative way to it) becomes a `file:` URI. A result in a file
carries GitHub's `primaryLocationLineHash` (`fingerprint.py`), so that an alert stays one alert
from commit to commit however the log is uploaded. `informationUri` is the page the package's
metadata names, and absent while it names none; no rule has a `helpUri` (no public page).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes

from sigspec.diagnostics.codes import CODES, Code
from sigspec.diagnostics.explain import explain_markdown, explain_text
from sigspec.diagnostics.model import Diagnostic, Severity
from sigspec.diagnostics.render.common import region
from sigspec.diagnostics.render.fingerprint import line_hashes
from sigspec.diagnostics.source import SourceFile

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
ROOT = "PROJECTROOT"
REPOSITORY = "REPOROOT"
_ROOT_DESCRIPTION = (
    "The sigspec project root: the folder of the configuration file (sigspec.toml or "
    "pyproject.toml), else the common folder of the paths given on the command line."
)
_REPOSITORY_DESCRIPTION = "The root of the git repository holding the sigspec project."
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
_DRIVE = re.compile(r"[A-Za-z]:/")


@dataclass(frozen=True, slots=True)
class Base:
    """Where the project lies in its repository: `prefix` is the project root relative to
    the repository root (POSIX, ending in `/`), `project` the project root."""

    prefix: str
    project: Path


def repository_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding `.git` (a folder, or the file a
    worktree or submodule has): the root of the repository, read without running git."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def base_of(root: Path) -> Base | None:
    """The project root `root` placed in its repository; None when it is the repository
    root or lies in no repository (paths are then relative to the project root)."""
    full = root.resolve()
    repository = repository_root(full)
    if repository is None or repository == full:
        return None
    return Base(full.relative_to(repository).as_posix() + "/", full)


def artifact_location(path: str, base: Base | None = None) -> dict[str, str] | None:
    """The `artifactLocation` of a source's display path: None for a text that is no file
    (`<stdin>`, an inline signature). With a `base`, a relative path is named from the
    repository root (a file outside the repository by its `file:` URI)."""
    if not path or (path.startswith("<") and path.endswith(">")):
        return None
    if base is not None and not path.startswith("/") and not _DRIVE.match(path):
        joined = posixpath.normpath(base.prefix + path)
        if not joined.startswith("../"):
            return {"uri": _encode(joined), "uriBaseId": REPOSITORY}
        path = (base.project / path).resolve().as_posix()
    if _DRIVE.match(path):  # C:/x/a.sig -> file:///C:/x/a.sig (RFC 8089)
        return {"uri": "file:///" + path[:2] + _encode(path[2:])}
    if path.startswith("/"):  # /x/a.sig -> file:///x/a.sig; //host/share/a.sig -> file://host/..
        return {"uri": "file:" + ("" if path.startswith("//") else "//") + _encode(path)}
    return {"uri": _encode(path), "uriBaseId": ROOT}


def _encode(path: str) -> str:
    """Percent-encode everything but unreserved characters and `/`, from the UTF-8 bytes of
    the name (a POSIX name that is not UTF-8 arrives with its bytes as surrogate escapes)."""
    try:
        data = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = path.encode("utf-8", "surrogatepass")
    return quote_from_bytes(data, safe="/")


def _result(
    d: Diagnostic,
    rule_index: int,
    hashes: Mapping[SourceFile, list[str]],
    base: Base | None,
) -> dict[str, Any]:
    text = " ".join([d.message, *(f"({h})" for h in d.hints)])
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[d.severity],
        "message": {"text": text},
    }
    artifact = artifact_location(d.path, base)
    if artifact is not None:
        location: dict[str, Any] = {"artifactLocation": artifact}
        r = region(d)
        if r is not None:
            location["region"] = {
                "startLine": r.line,
                "startColumn": r.column,
                "endLine": r.end_line,
                "endColumn": r.end_column,
            }
        result["locations"] = [{"physicalLocation": location}]
        if r is not None and d.source is not None:
            line_hash = hashes[d.source][r.line - 1]
            result["partialFingerprints"] = {"primaryLocationLineHash": line_hash}
    return result


def _line_hashes(diagnostics: Sequence[Diagnostic]) -> dict[SourceFile, list[str]]:
    """Each file's line hashes, as far as its last result's first line."""
    last: dict[SourceFile, int] = {}
    for d in diagnostics:
        r = region(d)
        if d.source is not None and r is not None:
            last[d.source] = max(last.get(d.source, 0), r.line)
    return {source: line_hashes(source.text, lines) for source, lines in last.items()}


def rule(entry: Code) -> dict[str, Any]:
    """One code as a `reportingDescriptor`. No `helpUri`: sigspec has no public page per
    code; the help is the page itself."""
    return {
        "id": entry.name,
        "shortDescription": {"text": entry.summary},
        "fullDescription": {"text": entry.explanation},
        "help": {"text": explain_text(entry), "markdown": explain_markdown(entry)},
        "defaultConfiguration": {"level": _LEVEL[entry.severity]},
    }


def driver() -> dict[str, Any]:
    from sigspec.infra.version import VERSION, home_page

    found: dict[str, Any] = {"name": "sigspec", "version": VERSION, "semanticVersion": VERSION}
    information = home_page()
    if information is not None:
        found["informationUri"] = information
    found["rules"] = [rule(CODES[code]) for code in sorted(CODES)]
    return found


def _bases(base: Base | None) -> dict[str, Any]:
    """`originalUriBaseIds`: the project root, defined from the repository root when known."""
    project: dict[str, Any] = {"description": {"text": _ROOT_DESCRIPTION}}
    if base is None:
        return {ROOT: project}
    repository = {"description": {"text": _REPOSITORY_DESCRIPTION}}
    return {
        REPOSITORY: repository,
        ROOT: {"uri": _encode(base.prefix), "uriBaseId": REPOSITORY, **project},
    }


def render(diagnostics: Sequence[Diagnostic], color: bool, root: Path | None = None) -> str:
    """The log of `diagnostics`, whose paths are relative to the project root `root` (when
    given, URIs are made relative to the root of the git repository holding it)."""
    base = base_of(root) if root is not None else None
    index = {code: i for i, code in enumerate(sorted(CODES))}
    hashes = _line_hashes(diagnostics)
    log = {
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [
            {
                "tool": {"driver": driver()},
                "originalUriBaseIds": _bases(base),
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index[d.code], hashes, base) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
