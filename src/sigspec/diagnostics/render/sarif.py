"""SARIF 2.1.0, the format code-scanning services ingest."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sigspec.diagnostics.codes import CODES
from sigspec.diagnostics.model import Diagnostic, Severity
from sigspec.diagnostics.render.common import region

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def _result(d: Diagnostic, rule_index: int) -> dict[str, Any]:
    text = " ".join([d.message, *(f"({h})" for h in d.hints)])
    result: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": _LEVEL[d.severity],
        "message": {"text": text},
    }
    if d.path:
        location: dict[str, Any] = {"artifactLocation": {"uri": d.path}}
        r = region(d)
        if r is not None:
            location["region"] = {
                "startLine": r.line,
                "startColumn": r.column,
                "endLine": r.end_line,
                "endColumn": r.end_column,
            }
        result["locations"] = [{"physicalLocation": location}]
    return result


def render(diagnostics: Sequence[Diagnostic], color: bool) -> str:
    from sigspec.infra.version import VERSION

    rule_ids = sorted({d.code for d in diagnostics})
    rules = [
        {
            "id": code,
            "shortDescription": {"text": CODES[code].summary},
            "fullDescription": {"text": CODES[code].explanation},
            "defaultConfiguration": {"level": _LEVEL[CODES[code].severity]},
        }
        for code in rule_ids
    ]
    index = {code: i for i, code in enumerate(rule_ids)}
    log = {
        "version": "2.1.0",
        "$schema": SCHEMA,
        "runs": [
            {
                "tool": {"driver": {"name": "sigspec", "version": VERSION, "rules": rules}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index[d.code]) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
