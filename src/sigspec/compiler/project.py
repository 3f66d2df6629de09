"""Loading `.sig` files from disk: discovery, reading, imports. The library's only file reads.

Everything after reading is pure (`syntax`, `semantics`); this module turns paths into
`SourceFile`s, follows `import`s, detects cycles, and hands the parsed files to the checker.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sigspec.compiler import suppress
from sigspec.compiler.paths import common_root, discover, display_path
from sigspec.compiler.portable import check_names
from sigspec.compiler.suppress import Suppression
from sigspec.diagnostics import LOAD_PHASES, Diagnostic, codes, sort_diagnostics
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.semantics import ir
from sigspec.semantics.analysis import check_project
from sigspec.semantics.scope import ParsedFile
from sigspec.syntax import ast
from sigspec.syntax.parser import parse_module

MAX_FILE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class LoadResult:
    project: ir.Project
    diagnostics: tuple[Diagnostic, ...]
    sources: tuple[SourceFile, ...]
    suppressions: tuple[Suppression, ...] = ()

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.diagnostics)


def read_source(path: Path, root: Path | None = None) -> tuple[SourceFile | None, list[Diagnostic]]:
    shown = display_path(path, root)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return None, [codes.READ_ERROR.at(None, None, path=shown, reason=exc.strerror or exc)]
    empty = SourceFile(shown, "")
    if len(data) > MAX_FILE_BYTES:
        size = path.stat().st_size
        return None, [codes.FILE_TOO_LARGE.at(empty, Span(0, 0), size=size, limit=MAX_FILE_BYTES)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        prefix = data[: exc.start].decode("utf-8", "replace")
        where = SourceFile(shown, prefix)
        span = Span(len(prefix), len(prefix))
        return None, [codes.INVALID_ENCODING.at(where, span, byte=byte, offset=exc.start)]
    return SourceFile(shown, text.removeprefix("\ufeff")), []


@dataclass
class _Graph:
    sources: dict[Path, SourceFile]
    modules: dict[Path, ast.Module]
    edges: dict[Path, list[tuple[Path, ast.ImportDecl]]]
    diagnostics: list[Diagnostic]


Parsed = tuple[Path, SourceFile | None, ast.Module | None, list[Diagnostic]]
PARALLEL_FROM = 16  # files; below this a fork costs more than it saves


# Unsaved editor buffers by resolved path, read instead of the disk (the language server's view).
Overlay = Mapping[Path, str]


def _read_one(path: Path, root: Path | None, overlay: Overlay) -> Parsed:
    source: SourceFile | None
    diags: list[Diagnostic] = []
    if path in overlay:
        source = SourceFile(display_path(path, root), overlay[path].removeprefix("\ufeff"))
    else:
        source, diags = read_source(path, root)
    if source is None:
        return path, None, None, diags
    module, found = parse_module(source)
    return path, source, module, [*diags, *found]


def _read_many(paths: list[Path], root: Path | None, overlay: Overlay) -> list[Parsed]:
    """Read and parse, on both cores when there are many files (parsing is most of lint)."""
    if len(paths) < PARALLEL_FROM:
        return [_read_one(p, root, overlay) for p in paths]
    from sigspec.infra.parallel import fork_map

    half = len(paths) // 2
    first, second = fork_map(
        lambda part: [_read_one(p, root, overlay) for p in part], paths[:half], paths[half:]
    )
    return first + second


def _read_all(roots: Sequence[Path], root: Path, overlay: Overlay) -> _Graph:
    graph = _Graph({}, {}, {}, [])
    ready = {item[0]: item for item in _read_many(list(roots), root, overlay)}
    queue = list(roots)
    seen = set(queue)
    while queue:
        path = queue.pop(0)
        _, source, module, diags = (
            ready.pop(path) if path in ready else _read_one(path, root, overlay)
        )
        graph.diagnostics += diags
        if source is None:
            continue
        graph.sources[path] = source
        if module is None:
            continue
        graph.modules[path] = module
        graph.edges[path] = []
        for decl in module.decls:
            if isinstance(decl, ast.ImportDecl):
                target = _import_target(path, decl, source, root, graph.diagnostics)
                if target is not None:
                    graph.edges[path].append((target, decl))
                    if target not in seen:
                        seen.add(target)
                        queue.append(target)
    return graph


def _import_target(
    path: Path, decl: ast.ImportDecl, source: SourceFile, root: Path, diags: list[Diagnostic]
) -> Path | None:
    try:
        target = (path.parent / decl.path).resolve()
        if decl.path.endswith(".sig") and target.is_file():
            if target.is_relative_to(root):
                return target
            diags.append(codes.OUTSIDE_ROOT.at(source, decl.path_span, path=decl.path, root=root))
            return None
    except (OSError, ValueError):  # NUL bytes, names too long: such a file cannot exist
        pass
    hints = () if decl.path.endswith(".sig") else ("imports name .sig files",)
    diags.append(codes.IMPORT_NOT_FOUND.at(source, decl.path_span, path=decl.path, hints=hints))
    return None


def _cycles(graph: _Graph) -> list[Diagnostic]:
    """One diagnostic per import edge that closes a cycle (depth-first, deterministic order)."""
    diags: list[Diagnostic] = []
    state: dict[Path, int] = {}  # 1 = on the stack, 2 = done
    order = sorted(graph.edges, key=lambda p: graph.sources[p].path)
    for root in order:
        if root in state:
            continue
        stack: list[tuple[Path, int]] = [(root, 0)]
        trail: list[Path] = [root]
        state[root] = 1
        while stack:
            node, index = stack[-1]
            edges = graph.edges.get(node, [])
            if index == len(edges):
                stack.pop()
                trail.pop()
                state[node] = 2
                continue
            stack[-1] = (node, index + 1)
            target, decl = edges[index]
            if state.get(target) == 1:
                loop = [*trail[trail.index(target) :], target]
                cycle = " -> ".join(graph.sources[p].path for p in loop)
                diags.append(
                    codes.IMPORT_CYCLE.at(graph.sources[node], decl.path_span, cycle=cycle)
                )
            elif target not in state and target in graph.edges:
                state[target] = 1
                stack.append((target, 0))
                trail.append(target)
    return diags


def _visible(graph: _Graph, start: Path) -> frozenset[str]:
    seen = {start}
    queue = [start]
    while queue:
        for target, _ in graph.edges.get(queue.pop(), []):
            if target not in seen and target in graph.sources:
                seen.add(target)
                queue.append(target)
    return frozenset(graph.sources[p].path for p in seen)


def load(
    paths: Iterable[str | os.PathLike[str]],
    root: Path | None = None,
    overlay: Overlay | None = None,
) -> LoadResult:
    """Read, parse, resolve and check the given .sig files and folders (and their imports).

    Paths in diagnostics and results are relative to `root`, the project root (default: the
    common folder of `paths`); an import of a file outside it is an error. `overlay` maps
    resolved paths to texts that stand in for those files' contents on disk.
    """
    given = [Path(p) for p in paths]
    root = (root or common_root(given)).resolve()
    found_files = discover(given, root)
    roots = [p for p in found_files if p.is_relative_to(root)]
    outside = [
        codes.OUTSIDE_ROOT.at(None, None, path=p.as_posix(), root=root)
        for p in found_files
        if not p.is_relative_to(root)
    ]
    graph = _read_all(roots, root, overlay or {})
    graph.diagnostics += outside
    graph.diagnostics += _cycles(graph)
    ordered = sorted(graph.modules, key=lambda p: graph.sources[p].path)
    files = [ParsedFile(graph.sources[p], graph.modules[p], _visible(graph, p)) for p in ordered]
    project, diags = check_project(files)
    diags += tuple(check_names(project, [f.source for f in files]))
    sources = tuple(sorted(graph.sources.values(), key=lambda s: s.path))
    found: list[Suppression] = []
    problems: list[Diagnostic] = []
    for f in files:
        more, bad = suppress.find(f.source, f.module.comments)
        found += more
        problems += bad
    kept = suppress.apply(
        [*graph.diagnostics, *diags, *problems],
        found,
        phases=LOAD_PHASES,
    )
    return LoadResult(project, sort_diagnostics(kept), sources, tuple(found))
