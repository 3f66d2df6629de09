"""The language server's one cache of loaded projects (`commands/lsp/views.py`): freshness,
one load shared by navigation and completion, the shared parse cache, and loads that never
fork from the server's process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sigspec.commands.lsp.views import Views
from sigspec.compiler import project as compiler_project
from sigspec.compiler.project import PARALLEL_FROM, load
from sigspec.syntax.parser import parse_module

COMMON = 'type Label = "good" | "bad"\n'


def _project(root: Path, files: int) -> list[Path]:
    """`files` files each importing common.sig; their resolved paths."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "common.sig").write_text(COMMON, encoding="utf-8")
    paths = []
    for n in range(files):
        path = root / f"part{n}.sig"
        text = f'import "common.sig"\n\nsignature judge{n}(text :string) -> Label\n'
        path.write_text(text, encoding="utf-8")
        paths.append(path.resolve())
    return paths


def _no_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> int:
        raise AssertionError("forked")

    monkeypatch.setattr(os, "fork", refuse)


def test_a_server_load_of_a_large_project_does_not_fork(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _project(tmp_path / "p", 20)
    assert len(paths) + 1 >= PARALLEL_FROM
    root = paths[0].parent
    _no_fork(monkeypatch)
    with pytest.raises(AssertionError, match="forked"):  # `sigspec lint`'s load would fork
        load([root], root=root)
    views = Views()
    loaded = views.get(paths[3], {}, root)
    assert len(loaded.view.files) == 21
    assert len(views.of_workspace(root, {}).view.files) == 21
    # A document being typed, with no parse cached for this root yet: still no fork.
    typing = {paths[3]: "signature half(\n"}
    view = Views().for_completion(paths[3], typing, root, 10)
    blanked = view.file_at(paths[3])
    assert blanked is not None and blanked.source.text == "\n" and len(view.files) == 21


def test_navigation_and_completion_share_one_load(tmp_path: Path) -> None:
    paths = _project(tmp_path / "p", 2)
    root, path = paths[0].parent, paths[0]
    views = Views()
    overlay = {path: path.read_text("utf-8")}
    text = overlay[path]
    seen = views.for_completion(path, overlay, root, text.index("Label"))
    loaded = views.get(path, overlay, root)
    assert loaded.view is seen
    assert loaded._index is None  # completion read the view alone: no index computed
    assert loaded.index is loaded.index
    assert views.for_completion(path, overlay, root, 0) is loaded.view


def test_entries_are_kept_while_nothing_they_read_changes(tmp_path: Path) -> None:
    paths = _project(tmp_path / "p", 2)
    root, path = paths[0].parent, paths[0]
    views = Views()
    first = views.get(path, {}, root)
    assert views.get(path, {}, root) is first
    assert views.get(paths[1], {}, root) is first  # one project, one load
    views.changed_on_disk()
    second = views.get(path, {}, root)
    assert second is not first
    (root / "common.sig").write_text(COMMON + "type Other = :int\n", encoding="utf-8")
    third = views.get(path, {}, root)
    assert third is not second
    assert any(f.source.path == "common.sig" and "Other" in f.source.text for f in third.view.files)
    (root / "new.sig").write_text("type Brand_new = :int\n", encoding="utf-8")  # the folder
    assert views.get(path, {}, root) is not third


def test_a_file_that_does_not_parse_is_kept_too(tmp_path: Path) -> None:
    paths = _project(tmp_path / "p", 2)
    root, path = paths[0].parent, paths[0]
    views = Views()
    broken = {path: "signature half(\n"}
    first = views.get(path, broken, root)
    assert first.view.file_at(path) is None and path in first.view.read
    assert views.get(path, broken, root) is first


def test_only_the_most_recent_entries_are_kept(tmp_path: Path) -> None:
    paths = _project(tmp_path / "p", 1)
    root, path = paths[0].parent, paths[0]
    views = Views()
    text = path.read_text("utf-8")
    first = views.get(path, {path: text}, root)
    for n in range(Views.KEEP):
        views.get(path, {path: text + f"# {n}\n"}, root)
    assert views.get(path, {path: text}, root) is not first


def test_completion_while_typing(tmp_path: Path) -> None:
    paths = _project(tmp_path / "p", 2)
    root, path = paths[0].parent, paths[0]
    text = path.read_text("utf-8")
    views = Views()
    # A half-written line: the view of the text without it.
    typed = text + "signature more(x :La\n"
    view = views.for_completion(path, {path: typed}, root, len(typed) - 1)
    file = view.file_at(path)
    assert file is not None and "more" not in file.source.text and view.project.signatures
    # A line whose blanking does not help either: the last view in which it parsed.
    worse = text + "signature more(\nx :La"
    assert views.for_completion(path, {path: worse}, root, len(worse)) is view
    # A document never seen parsing: the project without it.
    other = Views().for_completion(path, {path: worse}, root, len(worse))
    assert other.file_at(path) is None and other.file_at(paths[1]) is not None


def test_an_edit_parses_the_edited_file_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _project(tmp_path / "p", 5)
    root, path = paths[0].parent, paths[0]
    parses: dict[Path, compiler_project.Parses] = {}  # the server shares it with importers
    views = Views(parses)
    views.get(path, {}, root)
    assert len(parses[root]) == 6
    parsed: list[str] = []
    real = parse_module

    def counting(source, limits):  # type: ignore[no-untyped-def]
        parsed.append(source.path)
        return real(source, limits)

    monkeypatch.setattr(compiler_project, "parse_module", counting)
    edited = {path: path.read_text("utf-8") + "# edited\n"}
    loaded = views.get(path, edited, root)
    assert parsed == ["part0.sig"]
    file = loaded.view.file_at(path)
    assert file is not None and "# edited" in file.source.text
