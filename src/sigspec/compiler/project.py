"""Loading `.sig` files from disk: discovery, reading, imports. The library's only file reads.

Everything after reading is pure (`syntax`, `semantics`); this module turns paths into
`SourceFile`s, follows `import`s, detects cycles, and hands the parsed files to the checker.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sigspec.compiler import suppress
from sigspec.compiler.paths import (
    admit,
    common_root,
    discover,
    display_path,
    kind_of,
    located,
    source_name,
)
from sigspec.compiler.portable import check_names
from sigspec.compiler.suppress import Suppression
from sigspec.diagnostics import LOAD_PHASES, Diagnostic, codes, sort_diagnostics
from sigspec.diagnostics.source import SourceFile, Span
from sigspec.semantics import ir
from sigspec.semantics.analysis import check_project
from sigspec.semantics.scope import ParsedFile
from sigspec.syntax import ast
from sigspec.syntax.limits import DEFAULT_LIMITS, SourceLimits
from sigspec.syntax.parser import parse_module


@dataclass(frozen=True, slots=True)
class LoadResult:
    project: ir.Project
    diagnostics: tuple[Diagnostic, ...]
    sources: tuple[SourceFile, ...]
    suppressions: tuple[Suppression, ...] = ()
    # Every file that parsed, with its AST and what it sees: what the editor navigates.
    files: tuple[ParsedFile, ...] = ()

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.diagnostics)


def read_source(
    path: Path,
    root: Path | None = None,
    allowed: Sequence[Path] | None = None,
    limits: SourceLimits = DEFAULT_LIMITS,
) -> tuple[SourceFile | None, list[Diagnostic]]:
    """The source file at `path`, once admitted (`paths.admit`): a regular file below one of
    the `allowed` folders (default: `root`; without a root, a link must stay in the project
    it is in). A refusal quotes nothing of the file, and a fifo is never waited on."""
    if allowed is None:
        allowed = (root.resolve(),) if root is not None else _link_roots(path)
    target, problem = admit(located(path), allowed)
    shown = source_name(target, root) if root is not None else display_path(path)
    if problem is not None:
        return None, [_refusal(path, target, problem, root or allowed[0])]
    return _read_admitted(target, shown, limits)


def _read_admitted(
    target: Path, shown: str, limits: SourceLimits
) -> tuple[SourceFile | None, list[Diagnostic]]:
    """The source file at `target`, which `admit` let through, named `shown`."""
    try:
        data = _read_regular(target, limits.max_file_bytes)
    except OSError as exc:
        return None, [codes.READ_ERROR.at(None, None, path=shown, reason=exc.strerror or exc)]
    empty = SourceFile(shown, "")
    if len(data) > limits.max_file_bytes:
        size = target.stat().st_size
        limit = limits.max_file_bytes
        return None, [codes.FILE_TOO_LARGE.at(empty, Span(0, 0), size=size, limit=limit)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        prefix = data[: exc.start].decode("utf-8", "replace")
        where = SourceFile(shown, prefix)
        span = Span(len(prefix), len(prefix))
        return None, [codes.INVALID_ENCODING.at(where, span, byte=byte, offset=exc.start)]
    return SourceFile(shown, text.removeprefix("\ufeff")), []


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def _read_regular(path: Path, most: int) -> bytes:
    """Up to the size limit and one byte of the regular file `path` (already resolved); an
    OSError for anything else, found on the open file (so no swap after the check slips by),
    and without waiting: a fifo opened to read without a writer would block forever."""
    fd = os.open(path, _READ_FLAGS | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, f"it is {kind_of(mode)}, not a regular file")
        return handle.read(most + 1)


def _refusal(link: Path, target: Path, problem: str, root: Path) -> Diagnostic:
    """Why a path is not read as a source, naming the paths only."""
    place = located(link)  # the link's own name, not where it points
    shown = place.relative_to(root).as_posix() if place.is_relative_to(root) else place.as_posix()
    if problem == "outside":
        where = shown if target == place else f"{shown} -> {target.as_posix()}"
        return codes.OUTSIDE_ROOT.at(None, None, path=where, root=root)
    return codes.READ_ERROR.at(
        None, None, path=shown, reason=f"it is {problem}, not a regular file"
    )


def _link_roots(path: Path) -> tuple[Path, ...]:
    """Where a file named without a project root may lie: anywhere when it is not a link (the
    user named it); a link must point below its project's root or import roots (the
    configuration's, found from the link's folder), else below the link's own folder."""
    from sigspec.compiler.config import ConfigError, load_config

    place = located(path)
    if not place.is_symlink():
        return (Path(os.path.realpath(place)).parent,)
    try:
        config = load_config(place.parent)
    except ConfigError:
        return (place.parent,)
    if config.path is None:
        return (place.parent,)
    return (config.root.resolve(), *config.import_roots)


def _settings(root: Path) -> tuple[tuple[Path, ...], SourceLimits]:
    """The import roots and source limits of the configuration whose folder is `root`, if any
    (a broken one sets neither: the command that reads it reports it)."""
    from sigspec.compiler.config import ConfigError, load_config

    try:
        config = load_config(root)
    except ConfigError:
        return (), DEFAULT_LIMITS
    if config.path is None or config.root != root:
        return (), DEFAULT_LIMITS
    return config.import_roots, config.source_limits


@dataclass
class _Graph:
    sources: dict[Path, SourceFile]
    modules: dict[Path, ast.Module]
    edges: dict[Path, list[tuple[Path, ast.ImportDecl]]]
    diagnostics: list[Diagnostic]
    parses: Parses = field(default_factory=dict)  # what each file read parsed to


Parsed = tuple[Path, SourceFile | None, ast.Module | None, list[Diagnostic]]
PARALLEL_FROM = 16  # files; below this a fork costs more than it saves


# Unsaved editor buffers by resolved path, read instead of the disk (the language server's view).
Overlay = Mapping[Path, str]

# What parsing a file gave, by its name, text and limits: a caller loading the same project
# again and again (the language server, at each edit) passes one to `load` so that only the
# files whose text changed are parsed again. `load` leaves in it exactly the files it read.
Parses = dict[tuple[str, str, SourceLimits], tuple[ast.Module | None, tuple[Diagnostic, ...]]]


@dataclass(frozen=True, slots=True)
class _Reading:
    """How a load reads its files: the folders sources may lie in, the editor's unsaved
    buffers, and the limits on a file's size and declarations (the configuration's)."""

    root: Path
    allowed: tuple[Path, ...]
    overlay: Overlay
    limits: SourceLimits
    parses: Parses | None = None  # read only while reading (a forked child's copy is lost)
    parallel: bool = True  # may fork to parse on both cores


def _read_one(path: Path, how: _Reading) -> Parsed:
    root, overlay = how.root, how.overlay
    source: SourceFile | None
    diags: list[Diagnostic] = []
    if path in overlay:
        source = SourceFile(source_name(path, root), overlay[path].removeprefix("\ufeff"))
    else:
        # Admitted already: a root by `load`, an import by `_import_target`.
        source, diags = _read_admitted(path, source_name(path, root), how.limits)
    if source is None:
        return path, None, None, diags
    key = (source.path, source.text, how.limits)
    known = how.parses.get(key) if how.parses is not None else None
    module, found = known if known is not None else parse_module(source, how.limits)
    return path, source, module, [*diags, *found]


def _read_many(paths: list[Path], how: _Reading) -> list[Parsed]:
    """Read and parse, on both cores when there are many files (parsing is most of lint)."""
    if len(paths) < PARALLEL_FROM or how.parses or not how.parallel:  # parses: most known
        return [_read_one(p, how) for p in paths]
    from sigspec.infra.parallel import fork_map

    half = len(paths) // 2
    first, second = fork_map(
        lambda part: [_read_one(p, how) for p in part],
        paths[:half],
        paths[half:],
    )
    return first + second


def _read_all(roots: Sequence[Path], how: _Reading) -> _Graph:
    graph = _Graph({}, {}, {}, [])
    ready = {item[0]: item for item in _read_many(list(roots), how)}
    queue = list(roots)
    seen = set(queue)
    while queue:
        path = queue.pop(0)
        _, source, module, diags = ready.pop(path) if path in ready else _read_one(path, how)
        graph.diagnostics += diags
        if source is None:
            continue
        graph.parses[(source.path, source.text, how.limits)] = (module, tuple(diags))
        graph.sources[path] = source
        if module is None:
            continue
        graph.modules[path] = module
        graph.edges[path] = []
        for decl in module.decls:
            if isinstance(decl, ast.ImportDecl):
                target = _import_target(path, decl, source, how.allowed, graph.diagnostics)
                if target is not None:
                    graph.edges[path].append((target, decl))
                    if target not in seen:
                        seen.add(target)
                        queue.append(target)
    return graph


def _import_target(
    path: Path,
    decl: ast.ImportDecl,
    source: SourceFile,
    allowed: Sequence[Path],
    diags: list[Diagnostic],
) -> Path | None:
    """The file an import names (links resolved), when it lies below the project root (the
    first of `allowed`) or an import root."""
    try:
        target = (path.parent / decl.path).resolve()
        if decl.path.endswith(".sig") and target.is_file():
            if any(target.is_relative_to(folder) for folder in allowed):
                return target
            diags.append(
                codes.OUTSIDE_ROOT.at(source, decl.path_span, path=decl.path, root=allowed[0])
            )
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
    import_roots: Sequence[Path] | None = None,
    limits: SourceLimits | None = None,
    *,
    parses: Parses | None = None,
    parallel: bool = True,
) -> LoadResult:
    """Read, parse, resolve and check the given .sig files and folders (and their imports).

    Paths in diagnostics and results are relative to `root`, the project root (default: the
    common folder of `paths`); a source or import outside it and the `import_roots` (default:
    those of the configuration in `root`, if any) is an error, and so is a source that is no
    regular file. `overlay` maps resolved paths to texts that stand in for those files'
    contents on disk. `limits` bound each file's size and declarations (default: the
    configuration's `[limits]`, else `syntax.limits`' defaults). `parses`, when given, holds
    what files were parsed to before (see `Parses`) and is left holding this load's files.
    `parallel=False` never forks (many files are otherwise parsed on both cores by a forked
    child): a multi-threaded caller such as the language server must pass it, as a child
    forked from a process running threads can deadlock on a lock another thread held.
    """
    given = [Path(p) for p in paths]
    root = (root or common_root(given)).resolve()
    configured, configured_limits = _settings(root)
    extra = configured if import_roots is None else tuple(import_roots)
    allowed = (root, *(Path(folder).resolve() for folder in extra))
    roots: dict[Path, None] = {}  # in order, each file once (two links to one file)
    refused: list[Diagnostic] = []
    for candidate in discover(given, root):
        if not candidate.is_relative_to(root):
            refused.append(codes.OUTSIDE_ROOT.at(None, None, path=candidate.as_posix(), root=root))
            continue
        target, problem = admit(candidate, allowed)
        if problem is not None:
            refused.append(_refusal(candidate, target, problem, root))
        else:
            roots.setdefault(target)
    how = _Reading(root, allowed, overlay or {}, limits or configured_limits, parses, parallel)
    graph = _read_all(list(roots), how)
    if parses is not None:
        parses.clear()
        parses.update(graph.parses)
    graph.diagnostics += refused
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
    return LoadResult(project, sort_diagnostics(kept), sources, tuple(found), tuple(files))
