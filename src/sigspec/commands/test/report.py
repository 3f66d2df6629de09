"""What `sigspec test` prints: a table (one row per test, then the failures' reasons), JSON
(every run's details, stable keys) or JUnit XML (one testcase per test). Pure: results in,
text out."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from xml.etree import ElementTree as ET

from sigspec.commands.test.run import OUTCOMES, TestResult
from sigspec.diagnostics.words import counted

FORMATS = ("table", "json", "junit")
_HEAD = ("test", "result", "runs", "turns", "tokens", "latency", "repairs")


def render(results: Sequence[TestResult], fmt: str, mode: str) -> str:
    if fmt == "json":
        return as_json(results, mode)
    if fmt == "junit":
        return as_junit(results)
    return as_table(results)


# ---- the table ----------------------------------------------------------------------------


def runs_text(result: TestResult) -> str:
    """`1/1`, or with several runs the pass rate and its 95% interval: `3/5 60% [23-88%]`."""
    rate = result.rate
    if rate.total <= 1:
        return f"{rate.passed}/{rate.total}"
    low, high = rate.interval()
    return f"{rate.passed}/{rate.total} {rate.value:.0%} [{low:.0%}-{high:.0%}]"


def _row(result: TestResult) -> tuple[str, ...]:
    latency = result.latency_ms
    return (
        result.id,
        result.outcome,
        runs_text(result),
        str(sum(r.turns for r in result.runs)),
        str(sum(r.tokens for r in result.runs)),
        "-" if latency is None else f"{latency} ms",
        str(sum(r.repairs for r in result.runs)),
    )


def as_table(results: Sequence[TestResult]) -> str:
    rows = [_HEAD, *(_row(r) for r in results)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEAD))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    failed = [r for r in results if r.outcome != "pass"]
    if failed:
        lines += ["", "failures:"]
        for result in failed:
            lines.append(f"  {result.id} ({result.outcome}): {_one_line(result.reason or '')}")
            if len(result.runs) > 1:
                lines += [
                    f"    run {run.number} ({run.outcome}): {_one_line(run.reason or '')}"
                    for run in result.runs
                    if run.outcome != "pass"
                ]
    notes = [f"  {r.id}: {note}" for r in results for note in r.notes]
    if notes:
        lines += ["", "notes:", *notes]
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def summary(results: Sequence[TestResult], mode: str) -> str:
    """The line for standard error: how many tests, how each ended, how they ran."""
    counts = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    how = {"replay": "replayed from cassettes", "live": "live", "record": "live, recorded"}
    parts = [f"{counts[o]} {word}" for o, word in _WORDS]
    errors = counts["error"]
    parts.append(counted(errors, "error"))
    return f"{counted(len(results), 'test')} ({how[mode]}): {', '.join(parts)}"


_WORDS = (("pass", "passed"), ("fail", "failed"), ("stale", "stale"))


# ---- JSON -----------------------------------------------------------------------------------


def _test_json(result: TestResult) -> dict[str, Any]:
    rate = result.rate
    low, high = rate.interval()
    test = result.test
    file, _, name = result.id.rpartition("::")
    return {
        "id": result.id,
        "file": file,
        "name": name,
        "signature": test.signature,
        "result": result.outcome,
        "reason": result.reason,
        "passed": rate.passed,
        "total": rate.total,
        "pass_rate": rate.value,
        "interval": [low, high],
        "min_pass_rate": test.min_pass_rate,
        "turns": sum(r.turns for r in result.runs),
        "tokens": sum(r.tokens for r in result.runs),
        "latency_ms": result.latency_ms,
        "repairs": sum(r.repairs for r in result.runs),
        "notes": list(result.notes),
        "runs": [
            {
                "run": r.number,
                "result": r.outcome,
                "reason": r.reason,
                "turns": r.turns,
                "tokens": r.tokens,
                "latency_ms": r.latency_ms,
                "repairs": r.repairs,
                "output": r.output,
            }
            for r in result.runs
        ],
    }


def as_json(results: Sequence[TestResult], mode: str) -> str:
    counts = {o: sum(r.outcome == o for r in results) for o in OUTCOMES}
    data = {"mode": mode, "summary": counts, "tests": [_test_json(r) for r in results]}
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


# ---- JUnit XML -------------------------------------------------------------------------------

# What XML 1.0 cannot hold at all, even escaped: written as \uXXXX instead.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """`text` with every character XML 1.0 cannot hold written as `\\uXXXX`."""
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _case(result: TestResult) -> ET.Element:
    file, _, name = result.id.rpartition("::")
    seconds = sum(r.latency_ms for r in result.runs) / 1000
    shown_time = f"{seconds:.3f}"
    case = ET.Element(
        "testcase", {"classname": xml_text(file), "name": xml_text(name), "time": shown_time}
    )
    rate = result.rate
    low, high = rate.interval()
    properties = ET.SubElement(case, "properties")
    shown = {
        "result": result.outcome,
        "runs": str(rate.total),
        "passed": str(rate.passed),
        "pass_rate": f"{rate.value:.4f}",
        "interval_low": f"{low:.4f}",
        "interval_high": f"{high:.4f}",
        "min_pass_rate": f"{result.test.min_pass_rate:g}",
    }
    for key, value in shown.items():
        ET.SubElement(properties, "property", name=key, value=value)
    if result.outcome != "pass":
        tag = "error" if result.outcome == "error" else "failure"
        message = xml_text(_one_line(result.reason or result.outcome))
        problem = ET.SubElement(case, tag, message=message, type=result.outcome)
        details = [f"run {r.number} ({r.outcome}): {r.reason}" for r in result.runs if r.reason]
        problem.text = xml_text("\n".join(details or [result.reason or result.outcome]))
    return case


def as_junit(results: Sequence[TestResult]) -> str:
    failures = sum(r.outcome in ("fail", "stale") for r in results)
    errors = sum(r.outcome == "error" for r in results)
    seconds = sum(r.latency_ms for res in results for r in res.runs) / 1000
    counts = {
        "tests": str(len(results)),
        "failures": str(failures),
        "errors": str(errors),
        "skipped": "0",
        "time": f"{seconds:.3f}",
    }
    root = ET.Element("testsuites", {"name": "sigspec test", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": "sigspec test", **counts})
    suite.extend(_case(r) for r in results)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
