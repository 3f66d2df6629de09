"""`sigspec import SCHEMA`: a JSON Schema, OpenAPI document or Pydantic model as `.sig` text.

The converter (`sigspec.importer`) is pure; this reads the file or imports the module, and
prints the text (standard output) or writes it in one step to `-o`. With an error finding the
text is still printed, as a starting point, but `-o` is not written.
"""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path
from typing import Any

import click

from sigspec.commands import Report
from sigspec.compiler.paths import kind_of

_MODEL = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*\Z")


class UsageError(Exception):
    pass


def run(spec: str, output: Path | None, name: str | None, force: bool, report: Report) -> int:
    from sigspec.diagnostics import has_errors
    from sigspec.importer import NotASchema, import_schema

    try:
        value, stem = _read(spec)
        if output is not None and output.exists() and not force:
            raise UsageError(f"{output} exists: pass --force to replace it")
        imported = import_schema(value, path=spec, stem=stem, name=name)
    except (UsageError, NotASchema) as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    report(imported.diagnostics)
    failed = has_errors(imported.diagnostics)
    if output is None:
        click.echo(imported.text, nl=False)
    elif failed:
        click.echo(f"error: {output} not written: the import has errors", err=True)
    else:
        from sigspec.infra.atomic import write_atomic

        try:
            write_atomic(output, imported.text.encode("utf-8"))
        except OSError as exc:
            click.echo(f"error: cannot write {output}: {exc.strerror or exc}", err=True)
            return 2
    return 1 if failed else 0


def _read(spec: str) -> tuple[Any, str]:
    path = Path(spec)
    if not path.exists() and _MODEL.match(spec):
        return _model_schema(spec), spec.rpartition(":")[2].rpartition(".")[2]
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):  # reading a fifo would wait for a writer that never comes
            raise UsageError(f"cannot read {spec}: it is {kind_of(mode)}, not a file")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"no such file: {spec}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {spec}: {exc}") from None
    try:
        return json.loads(text), path.name.split(".")[0]
    except json.JSONDecodeError as exc:
        raise UsageError(f"{spec} is not JSON: {exc}") from None
    except ValueError as exc:  # an integer of more digits than Python converts (4,300)
        raise UsageError(f"{spec} cannot be read: {exc}") from None
    except RecursionError:
        raise UsageError(f"{spec} is nested too deeply to read") from None


def _model_schema(spec: str) -> Any:
    """`module:Model`'s `model_json_schema()`, the module imported from the current folder."""
    import importlib
    import sys

    module_name, _, attr = spec.partition(":")
    cwd = str(Path.cwd())
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        found: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            found = getattr(found, part)
    except Exception as exc:  # the user's module: any failure is theirs, said in one line
        raise UsageError(f"cannot import {spec}: {type(exc).__name__}: {exc}") from None
    schema_of = getattr(found, "model_json_schema", None)
    if not callable(schema_of):
        raise UsageError(f"{spec} is not a Pydantic v2 model (no model_json_schema)")
    try:
        return schema_of()
    except Exception as exc:
        raise UsageError(
            f"{spec}: model_json_schema() failed: {type(exc).__name__}: {exc}"
        ) from None
