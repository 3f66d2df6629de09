"""`sigspec compile` and `sigspec schema`: configuration, loading, emitting, and the output.

This is CLI-layer code: it reads and writes files and returns exit codes (0 clean, 1 findings,
2 usage or configuration), so that `cli.py` stays a thin argument parser.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sigspec.config import ConfigError, load_config
from sigspec.output import OutputError

if TYPE_CHECKING:  # the up-to-date check must not import the diagnostics machinery
    from sigspec.diagnostics import Diagnostic

Report = Callable[[Sequence["Diagnostic"]], None]


@dataclass(frozen=True)
class Request:
    paths: tuple[Path, ...]
    out: Path | None
    targets: tuple[str, ...]
    check: bool = False
    clean: bool = False


@dataclass(frozen=True)
class Plan:
    roots: tuple[Path, ...]
    out: Path
    targets: tuple[str, ...]
    options: dict[str, dict[str, Any]]
    root: Path  # display paths are relative to this folder


def plan(request: Request) -> Plan:
    config = load_config(Path.cwd())
    roots = request.paths or config.sources or (config.root,)
    out = request.out or config.out or Path("build")
    return Plan(
        tuple(roots),
        out,
        request.targets or config.targets,
        config.options,
        config.root if config.path else Path.cwd(),
    )


def run(request: Request, report: Report) -> int:
    try:
        p = plan(request)
        return _run(request, p, report)
    except (ConfigError, OutputError) as exc:
        click.echo(f"error: {exc}", err=True)
        return 2


def _inputs(paths: Sequence[Path], root: Path) -> dict[str, str]:
    from sigspec.emit.base import digest
    from sigspec.paths import display_path

    return {display_path(p, root): digest(p.read_bytes()) for p in paths}


def _fingerprint(p: Plan) -> dict[str, Any]:
    from sigspec.targets import selected

    names = selected(p.targets)
    return {"targets": names, "options": {k: dict(v) for k, v in sorted(p.options.items())}}


def _state_file(out: Path) -> Path:
    """Where the stat cache of an output folder lives: the user's cache, not the folder."""
    import zlib

    from sigspec.paths import user_cache_dir

    key = zlib.crc32(str(out.resolve()).encode("utf-8"))
    return user_cache_dir() / f"outputs-{key:08x}.json"


def compiler_id() -> str:
    """Which build of sigspec this is: its version alone would let an editable install, or a
    rebuilt wheel of the same version, call output up to date that it would now write
    differently. The sizes and times of its own files (code, grammar, templates), no reads."""
    import hashlib

    from sigspec import __version__
    from sigspec.resources import resource_path

    entries = [__version__]
    for root in (Path(__file__).parent, resource_path("grammar"), resource_path("templates")):
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".ts", ".j2", ".lark") and "__pycache__" not in path.parts:
                stat = path.stat()
                entries.append(f"{path.relative_to(root)} {stat.st_size} {stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(entries).encode("utf-8")).hexdigest()


def _remember(out: Path, stats: dict[str, list[int]]) -> None:
    import contextlib

    with contextlib.suppress(OSError):  # a cache that cannot be written costs speed only
        path = _state_file(out)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        partial.write_text(json.dumps({"compiler": compiler_id(), "files": stats}), "utf-8")
        partial.replace(path)


def _recall(out: Path) -> dict[str, list[int]] | None:
    """The stat cache of `out`'s files as the last compile wrote them, or None when no compile
    by this very build of sigspec is on record (then nothing is taken as up to date)."""
    try:
        data = json.loads(_state_file(out).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("compiler") != compiler_id():
        return None
    files = data.get("files")
    return files if isinstance(files, dict) else None


def _fast_path(p: Plan) -> bool:
    """Nothing changed since the last compile: answer without parsing anything."""
    from sigspec import __version__
    from sigspec.output import read_manifest, up_to_date
    from sigspec.paths import discover

    try:
        manifest = read_manifest(p.out)
        if manifest is None:
            return False
        recorded = [p.root / rel for rel in manifest.get("inputs", {})]
        roots = discover(p.roots)
        if not set(roots) <= {r.resolve() for r in recorded}:
            return False
        current = _inputs(recorded, p.root)
    except (OSError, OutputError):
        return False
    known = _recall(p.out)
    if known is None:
        return False
    fresh = up_to_date(p.out, current, _fingerprint(p), f"sigspec {__version__}", known)
    if fresh is None:
        return False
    _remember(p.out, fresh)
    return True


def _run(request: Request, p: Plan, report: Report) -> int:
    from sigspec import output
    from sigspec.paths import discover

    roots = discover(p.roots)
    output.guard(p.out, roots)
    if request.clean:
        removed = output.clean(p.out)
        click.echo(f"removed {removed} file{'s' if removed != 1 else ''} from {p.out}", err=True)
        return 0
    if not roots:
        raise ConfigError("no .sig files found in " + ", ".join(str(r) for r in p.roots))
    if not request.check:
        output.recover(p.out)  # what a killed run left beside the folder, before anything else
    if not request.check and _fast_path(p):
        click.echo(f"{p.out} is up to date", err=True)
        return 0
    from sigspec.compiler import compile_project
    from sigspec.project import load

    loaded = load(roots, root=p.root)
    if loaded.has_errors:
        report(loaded.diagnostics)
        return 1
    sources = [p.root / s.path for s in loaded.sources]
    result = compile_project(loaded.project, p.targets, p.options, inputs=_inputs(sources, p.root))
    from sigspec import suppress

    found = suppress.apply(
        result.diagnostics, loaded.suppressions, judged=lambda code: code in suppress.COMPILE_CODES
    )
    report((*loaded.diagnostics, *found))
    if not result.ok:
        return 1
    if request.check:
        return _check(p.out, result.files)
    changed = output.write(p.out, result.files)
    _remember(p.out, {a.path: output.stat_key(p.out / a.path) for a in result.files})
    click.echo(f"wrote {len(result.files)} files to {p.out} ({changed} changed)", err=True)
    return 0


def _check(out: Path, files: Sequence[Any]) -> int:
    from sigspec.output import drift
    from sigspec.paths import display_path

    found = drift(out, files)
    for label, paths in (
        ("stale", found.stale),
        ("missing", found.missing),
        ("orphaned", found.orphaned),
    ):
        for rel in paths:
            click.echo(f"{label}: {display_path(out / rel)}")
    if found.clean:
        click.echo(f"{display_path(out)} is up to date", err=True)
        return 0
    click.echo(f"{display_path(out)} is not up to date; run `sigspec compile`", err=True)
    return 1


def show_schema(spec: str, *, want_input: bool, provider: str | None, report: Report) -> int:
    from sigspec.emit.jsonschema import input_schema, output_schema
    from sigspec.project import load

    file, sep, name = spec.rpartition(":")
    if not sep or not file or not name:
        click.echo("error: expected FILE.sig:NAME", err=True)
        return 2
    loaded = load([Path(file)])
    if loaded.has_errors:
        report(loaded.diagnostics)
        return 1
    sig = loaded.project.signature(name) or next(
        (t for t in loaded.project.tools if t.name == name), None
    )
    if sig is None:
        click.echo(f"error: no signature or tool `{name}` in {file}", err=True)
        return 2
    if provider is not None:
        return _show_fragment(sig, loaded.project, provider, report)
    if sig.kind == "tool" or want_input:
        click.echo(json.dumps(input_schema(sig, loaded.project), indent=2, ensure_ascii=False))
    else:
        click.echo(json.dumps(output_schema(sig, loaded.project), indent=2, ensure_ascii=False))
    return 0


def _show_fragment(sig: Any, project: Any, provider: str, report: Report) -> int:
    from sigspec.emit.providers import fragment

    body, diagnostics = fragment(sig, project, provider)
    report(diagnostics)
    if body is None:
        return 1
    click.echo(json.dumps(body, indent=2, ensure_ascii=False))
    return 0


def _snapshot(request: Request) -> dict[str, tuple[int, int]]:
    """What a change is measured against: each source file's and config file's stat."""
    from sigspec.config import find_config
    from sigspec.paths import discover

    try:
        p = plan(request)
    except ConfigError:
        p = None
    files = list(discover(p.roots)) if p is not None else []
    found = find_config(Path.cwd().resolve()) if p is not None else None
    if found is not None:
        files.append(found[0])
    out: dict[str, tuple[int, int]] = {}
    for path in files:
        try:
            st = path.stat()
        except OSError:
            continue
        out[str(path)] = (st.st_mtime_ns, st.st_size)
    return out


def watch(request: Request, report: Report, *, interval: float) -> int:
    """Compile now and again after every change, until interrupted. Never stops on a broken
    file or configuration: the problem is reported and the next change tried."""
    import time
    import traceback

    seen: dict[str, tuple[int, int]] | None = None
    try:
        while True:
            now = _snapshot(request)
            if now != seen:
                seen = now
                try:
                    code = run(request, report)
                except Exception:  # a bug in sigspec: show it, keep watching
                    traceback.print_exc()
                    code = 70
                click.echo(f"[watch] compiled (exit {code}); waiting for changes", err=True)
            time.sleep(interval)
    except KeyboardInterrupt:
        return 0
