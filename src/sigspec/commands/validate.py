"""`sigspec validate FILE.sig:NAME REPLY_FILE` and `--jsonl`: the generated parser's semantics,
run from sigspec's own copy of the runtime (the one the python target ships)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from sigspec.commands import Report, load_named


def _descriptors(spec: str, report: Report) -> tuple[Any, dict[str, Any]] | int:
    from sigspec.semantics.descriptors import output_descriptor, type_descriptors

    found = load_named(spec, report)
    if isinstance(found, int):
        return found
    loaded, sig = found
    project = loaded.project
    return output_descriptor(sig, project), type_descriptors(project, list(project.types))


def outcome(text: str, descriptor: Any, types: dict[str, Any]) -> dict[str, Any]:
    from sigspec.runtime import parse
    from sigspec.runtime.common import ReplyError

    try:
        result = parse(text, descriptor, types)
    except ReplyError as exc:
        return {
            "ok": False,
            "reason": exc.reason,
            "errors": [{"path": p, "message": m} for p, m in exc.errors],
        }
    return {
        "ok": True,
        "value": result.value,
        "repairs": [{"path": p, "message": m} for p, m in result.repairs],
    }


def run(spec: str, reply: Path | None, jsonl: bool, report: Report) -> int:
    found = _descriptors(spec, report)
    if isinstance(found, int):
        return found
    descriptor, types = found
    if jsonl:
        return _lines(descriptor, types)
    if reply is None:
        click.echo("error: give a REPLY_FILE (or - for standard input), or --jsonl", err=True)
        return 2
    data = sys.stdin.buffer.read() if str(reply) == "-" else reply.read_bytes()
    result = outcome(data.decode("utf-8", "replace"), descriptor, types)
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    return 0 if result["ok"] else 1


def _lines(descriptor: Any, types: dict[str, Any]) -> int:
    failed = False
    for number, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            text, ident = item["text"], item.get("id", number)
            if not isinstance(text, str):
                raise TypeError("`text` must be a string")
        except (ValueError, KeyError, TypeError) as exc:
            result: dict[str, Any] = {
                "id": number,
                "ok": False,
                "reason": f"bad input line: {exc}",
                "errors": [],
            }
        else:
            result = {"id": ident, **outcome(text, descriptor, types)}
        failed = failed or not result["ok"]
        click.echo(json.dumps(result, ensure_ascii=False))
    return 1 if failed else 0
