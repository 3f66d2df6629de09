"""`sigspec validate FILE.sig:NAME REPLY` and `--jsonl`: the generated parser's semantics,
run from sigspec's own copy of the runtime (the one the python target ships).

A reply file that cannot be read (missing, a folder, unreadable, not UTF-8) is a usage error
(exit 2) that names the file; a reply the parser rejects is a finding (exit 1). In `--jsonl`
a bad line is a finding of its own and the other lines are still validated."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sigspec.commands import Report, load_named

if TYPE_CHECKING:
    from sigspec.runtime.common import Limits

# A reply may hold a lone surrogate (`"\ud800"` is valid JSON); UTF-8 cannot write one.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _descriptors(spec: str, report: Report) -> tuple[Any, dict[str, Any]] | int:
    from sigspec.semantics.descriptors import output_descriptor, type_descriptors

    found = load_named(spec, report)
    if isinstance(found, int):
        return found
    loaded, sig = found
    project = loaded.project
    return output_descriptor(sig, project), type_descriptors(project, list(project.types))


def _configured_limits() -> Limits:
    """The reply limits of the configuration in force (`load_named` has read it already, so
    it is well formed)."""
    from sigspec.compiler.config import load_config
    from sigspec.runtime.common import Limits

    return Limits(**dict(load_config(Path.cwd()).reply_limits))


def outcome(
    text: str, descriptor: Any, types: dict[str, Any], limits: Limits | None = None
) -> dict[str, Any]:
    from sigspec.runtime import parse
    from sigspec.runtime.common import ReplyError

    try:
        result = parse(text, descriptor, types, limits)
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


def json_text(value: Any, indent: int | None = None) -> str:
    """`value` as JSON that any UTF-8 output can print: non-ASCII kept, and a lone surrogate
    (only ever inside a string) written as its `\\u` escape, which reads back as the same
    value. The value is accepted as the JSON it is, not rejected: `json.loads` and
    `JSON.parse` both read it, and the generated validators do too."""
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def read_reply(reply: Path) -> str:
    """The reply file's text (`-`: standard input); click.UsageError saying why it cannot be
    read. Not UTF-8 is refused rather than repaired: a replaced byte could make a broken reply
    validate."""
    name = click.format_filename(reply)
    try:
        data = sys.stdin.buffer.read() if str(reply) == "-" else reply.read_bytes()
    except FileNotFoundError:
        raise click.UsageError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise click.UsageError(f"{name}: is a folder, not a reply file") from None
    except PermissionError:
        raise click.UsageError(f"{name}: permission denied") from None
    except OSError as exc:
        raise click.UsageError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.UsageError(f"{name}: {_not_utf8(exc)}") from None


def _not_utf8(exc: UnicodeDecodeError) -> str:
    return f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"


def run(
    spec: str, reply: Path | None, jsonl: bool, report: Report, limits: Limits | None = None
) -> int:
    """Exit 0 (valid), 1 (findings) or 2 (usage). `limits` overrides the runtime's limits on
    reply size, nesting depth and tags (default: the configuration's `[limits]`)."""
    found = _descriptors(spec, report)
    if isinstance(found, int):
        return found
    if limits is None:
        limits = _configured_limits()
    descriptor, types = found
    if jsonl:
        return _lines(descriptor, types, limits)
    if reply is None:
        click.echo(
            "error: give REPLY, a file holding the reply (- for standard input), or --jsonl",
            err=True,
        )
        return 2
    try:
        text = read_reply(reply)
    except click.UsageError as exc:
        click.echo(f"error: {exc.message}", err=True)
        return 2
    result = outcome(text, descriptor, types, limits)
    click.echo(json_text(result, indent=2))
    return 0 if result["ok"] else 1


def _line_result(
    number: int, raw: bytes, descriptor: Any, types: dict[str, Any], limits: Limits | None
) -> dict[str, Any]:
    """One input line's result: the reply's outcome, or why the line is no `{"id", "text"}`
    object (its line number for its id)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _bad_line(number, _not_utf8(exc))
    try:
        item = json.loads(line)
    except RecursionError:  # the json module's own limit on nesting
        return _bad_line(number, "nested too deeply to read")
    except ValueError as exc:
        return _bad_line(number, str(exc))
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        return _bad_line(number, 'expected an object {"id": ..., "text": "..."}')
    ident = item.get("id", number)
    finite = type(ident) is not float or ident - ident == 0  # NaN has no JSON to print
    if not (ident is None or type(ident) in (str, int, float)) or not finite:
        return _bad_line(number, "`id` must be a string, a number or null")
    return {"id": ident, **outcome(item["text"], descriptor, types, limits)}


def _bad_line(number: int, why: str) -> dict[str, Any]:
    return {"id": number, "ok": False, "reason": f"bad input line: {why}", "errors": []}


def _lines(descriptor: Any, types: dict[str, Any], limits: Limits | None) -> int:
    failed = False
    for number, raw in enumerate(sys.stdin.buffer, 1):
        if not raw.strip():
            continue
        result = _line_result(number, raw, descriptor, types, limits)
        failed = failed or not result["ok"]
        click.echo(json_text(result))
    return 1 if failed else 0
