"""SARIF 2.1.0, the format code-scanning services ingest.

What GitHub code scanning reads is what shapes the log: every rule carries its short and full
descriptions and its `help` (the page `sigspec explain CODE` prints, as text and Markdown),
the rules are the whole table of codes (the same in every run, as GitHub asks), and a file is
named by an RFC 3986 URI reference relative to the project root (`uriBaseId`), which is how
GitHub reads a relative path: from the root of the repository it was run in. An absolute path
(a file outside the root with no relative way to it) becomes a `file:` URI. A result in a file
carries GitHub's `primaryLocationLineHash` (`fingerprint.py`), so that an alert stays one alert
from commit to commit however the log is uploaded. `informationUri` is the page the package's
metadata names, and absent while it names none; no rule has a `helpUri` (no public page).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
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
_ROOT_DESCRIPTION = (
    "The sigspec project root: the folder of the configuration file (sigspec.toml or "
    "pyproject.toml), else the common folder of the paths given on the command line."
)
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}
_DRIVE = re.compile(r"[A-Za-z]:/")


def artifact_location(path: str) -> dict[str, str] | None:
    """The `artifactLocation` of a source's display path: None for a text that is no file
    (`<stdin>`, an inline signature)."""
    if not path or (path.startswith("<") and path.endswith(">")):
        return None
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
    d: Diagnostic, rule_index: int, hashes: Mapping[SourceFile, list[str]]
) -> dict[str, Any]:
    text = " ".join([d.message, *(f"({h})" for h in d.hints)])
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[d.severity],
        "message": {"text": text},
    }
    artifact = artifact_location(d.path)
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


def render(diagnostics: Sequence[Diagnostic], color: bool) -> str:
    index = {code: i for i, code in enumerate(sorted(CODES))}
    hashes = _line_hashes(diagnostics)
    log = {
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [
            {
                "tool": {"driver": driver()},
                "originalUriBaseIds": {ROOT: {"description": {"text": _ROOT_DESCRIPTION}}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index[d.code], hashes) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
