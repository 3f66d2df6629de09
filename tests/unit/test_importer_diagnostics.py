"""The pure parts of the language server's importer diagnostics (`commands/lsp/importers.py`)
and the parse cache they load with: which files are a project's, which import an edited file,
and which the editor must be sent again."""

from __future__ import annotations

from pathlib import Path

import pytest

from sigspec.commands.lsp.check import Snapshot
from sigspec.commands.lsp.importers import (
    Imported,
    Importer,
    Importers,
    Shown,
    check_importers,
    in_project,
)
from sigspec.compiler.project import Parses, load
from sigspec.diagnostics import Diagnostic, codes
from sigspec.diagnostics.source import SourceFile, Span

COMMON = 'type Sentiment = "positive" | "negative"\n'
UNUSED = 'import "common.sig"\n@prompt("hi")\nsignature s(a :string) -> :int\n'
SENTIMENT = 'import "common.sig"\nsignature classify(text :string) -> {label Sentiment}\n'


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        ("/p/src/a.sig", True),
        ("/p/src/deep/a.sig", True),
        ("/p/src/.hidden/a.sig", False),
        ("/p/src/.a.sig", True),  # a hidden file is found, only hidden folders are skipped
        ("/p/other/a.sig", False),
        ("/p/one.sig", True),
        ("/p/two.sig", False),
        ("/q/src/a.sig", False),
    ],
)
def test_a_project_is_its_sources_outside_hidden_folders(path: str, inside: bool) -> None:
    assert in_project(Path(path), [Path("/p/src"), Path("/p/one.sig")]) is inside


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def snapshot(path: Path, text: str, workspace: Path | None) -> Snapshot:
    return Snapshot(path.resolve(), text, {path.resolve(): text}, workspace)


def test_the_importers_of_an_edited_buffer_come_from_one_load(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write(
        root,
        {
            "common.sig": COMMON,
            "sentiment.sig": SENTIMENT,
            "top.sig": 'import "sentiment.sig"\nsignature t(x :string) -> {s Sentiment}\n',
            "other.sig": "signature o(x :string) -> :int\n",
        },
    )
    found = check_importers(snapshot(root / "common.sig", COMMON.replace("Sent", "Feel"), root))
    by_name = {i.path.name: i for i in found.found}
    assert sorted(by_name) == ["sentiment.sig", "top.sig"]  # transitively too, not itself
    assert [d.code for d in by_name["sentiment.sig"].diagnostics] == ["unknown-type"]
    assert by_name["top.sig"].reads == {
        root / n for n in ("top.sig", "sentiment.sig", "common.sig")
    }
    assert found.imported == {root / "common.sig", root / "sentiment.sig"}


def test_only_files_of_the_configured_sources_are_importers(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write(
        root,
        {
            "sigspec.toml": 'sources = ["src"]\n[severity]\nunused-param = "warn"\n',
            "src/common.sig": COMMON,
            "src/sentiment.sig": UNUSED,
            "outside.sig": SENTIMENT.replace("common.sig", "src/common.sig"),
        },
    )
    found = check_importers(snapshot(root / "src/common.sig", "", None))
    [importer] = found.found
    assert importer.path == root / "src/sentiment.sig"
    [diagnostic] = importer.diagnostics
    assert diagnostic.code == "unused-param" and not diagnostic.is_error  # the `[severity]`


def test_without_a_configuration_or_workspace_the_project_is_not_known(tmp_path: Path) -> None:
    write(tmp_path, {"common.sig": COMMON, "sentiment.sig": SENTIMENT})
    assert check_importers(snapshot(tmp_path / "common.sig", "", None)).found == ()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert check_importers(snapshot(tmp_path / "common.sig", "", elsewhere)).found == ()


def finding(path: Path) -> Diagnostic:
    return codes.UNKNOWN_TYPE.at(SourceFile(path.name, "x"), Span(0, 1), name="x")


def importer(path: str, *, broken: bool = True, text: str = "x") -> Importer:
    where = Path(path)
    found = (finding(where),) if broken else ()
    return Importer(where, text, found, frozenset({where, Path("/common.sig")}), False)


def found(*importers: Importer) -> Importers:
    return Importers(Path("/"), importers)


EDITED, OTHER = Path("/common.sig"), Path("/other.sig")


def test_findings_are_sent_once_and_cleared_when_gone() -> None:
    shown = Shown()
    assert shown.update(
        EDITED, found(importer("/a.sig"), importer("/b.sig", broken=False)), ()
    ) == [Path("/a.sig")]  # a clean importer never shown is not sent an empty list
    assert shown.update(EDITED, found(importer("/a.sig")), ()) == []  # the same again
    assert shown.update(EDITED, found(importer("/a.sig", text="y")), ()) == [Path("/a.sig")]
    assert shown.update(EDITED, found(importer("/a.sig", broken=False)), ()) == [Path("/a.sig")]
    assert Path("/a.sig") not in shown


def test_a_file_no_longer_importing_is_cleared_unless_another_edit_holds_it() -> None:
    shown = Shown()
    shown.update(EDITED, found(importer("/a.sig"), importer("/b.sig")), ())
    shown.update(OTHER, found(importer("/b.sig")), ())
    # Neither imports the edited file any more (or both were deleted): `a` is cleared, `b`
    # still imports the other edited file, and stays shown.
    assert shown.update(EDITED, found(), ()) == [Path("/a.sig")]
    assert Path("/b.sig") in shown
    assert shown.holds(OTHER) and not shown.holds(EDITED)


def test_open_files_are_left_to_their_own_check() -> None:
    shown = Shown()
    shown.update(EDITED, found(importer("/a.sig")), ())
    opened = {Path("/a.sig")}
    assert shown.update(EDITED, found(importer("/a.sig", text="y")), opened) == []
    assert shown.update(EDITED, found(), opened) == []  # forgotten, never cleared
    assert Path("/a.sig") not in shown


def test_a_change_on_disk_names_the_edits_whose_importers_read_it() -> None:
    shown = Shown()
    shown.update(EDITED, found(importer("/a.sig")), ())
    assert shown.sources_reading(Path("/common.sig")) == {EDITED}
    assert shown.sources_reading(Path("/a.sig")) == {EDITED}
    assert shown.sources_reading(Path("/unrelated.sig")) == set()
    assert shown.forget(Path("/a.sig")) and not shown.forget(Path("/a.sig"))


def test_a_file_nothing_imports_is_known_until_the_disk_changes() -> None:
    imported = Imported()
    assert not imported.unimported(EDITED)  # not known yet
    imported.record(EDITED, Importers(Path("/"), (), frozenset({OTHER})))
    assert imported.unimported(EDITED)
    assert not imported.unimported(OTHER)
    imported.forget()
    assert not imported.unimported(EDITED)


def test_the_parse_cache_parses_only_changed_texts(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    write(root, {"common.sig": COMMON, "sentiment.sig": SENTIMENT, "gone.sig": COMMON})
    parses: Parses = {}
    first = load([root], root=root, parses=parses)
    assert {name for name, _, _ in parses} == {"common.sig", "sentiment.sig", "gone.sig"}
    (root / "gone.sig").unlink()
    edited = {root / "common.sig": COMMON.replace("Sent", "Feel")}
    second = load([root], root=root, overlay=edited, parses=parses)
    assert {name for name, _, _ in parses} == {"common.sig", "sentiment.sig"}  # what it read
    kept = {f.source.path: f.module for f in first.files}
    again = {f.source.path: f.module for f in second.files}
    assert again["sentiment.sig"] is kept["sentiment.sig"]  # not parsed again
    assert again["common.sig"] is not kept["common.sig"]
    assert [d.code for d in second.diagnostics] == ["unknown-type"]
    assert second.diagnostics == load([root], root=root, overlay=edited).diagnostics


def test_a_file_found_is_named_through_the_workspace_folder_the_client_gave(
    tmp_path: Path,
) -> None:
    from sigspec.commands.lsp.files import client_uri

    real = tmp_path.resolve() / "real"
    (real / "sub").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real)
    found = real / "sub" / "a b.sig"
    assert client_uri(found, str(link)) == (link / "sub" / "a b.sig").as_uri()
    assert client_uri(found, str(real)) == found.as_uri()
    assert (
        client_uri(tmp_path.resolve() / "x.sig", str(link))
        == (tmp_path.resolve() / "x.sig").as_uri()
    )
    assert client_uri(found, None) == found.as_uri()
