"""Diagnostics for files that import an edited document and are not open: published without
a version when an edit (saved or not) breaks them, cleared when it stops, and handed over to
their own check when they are opened. End to end over stdio with pytest-lsp's client.

Synchronisation is by messages: checks run one at a time in the order their documents'
typing pauses, so once the publication for a later change to a "barrier" document arrives,
every check of the importers of an earlier change has published what it had to.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from lsp_client import is_publish, server_process
from lsp_editor import TIMEOUT, Editor

COMMON = 'type Sentiment = "positive" | "negative"\n'
RENAMED = 'type Mood = "positive" | "negative"\n'
SENTIMENT = 'import "common.sig"\nsignature classify(text :string) -> {label Sentiment}\n'
BARRIER = "signature barrier(x :string) -> {y :string}\n"


def publications(editor: Editor, uri: str) -> list[lsp.PublishDiagnosticsParams]:
    return editor.client.published.get(uri, [])


async def published_after(editor: Editor, uri: str, count: int) -> list[lsp.Diagnostic]:
    """The diagnostics of the first publication for `uri` after the first `count`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while loop.time() < deadline:
        found = publications(editor, uri)
        if len(found) > count:
            return list(found[count].diagnostics)
        await asyncio.sleep(0.01)
    raise AssertionError(f"no new publication for {uri}")


async def barrier(editor: Editor, uri: str) -> None:
    """Change the barrier document and wait for its publication (see the module's doc)."""
    version = editor.versions[uri] + 1
    editor.change(uri, BARRIER.replace("barrier", f"barrier{version}"))
    await editor.diagnostics(uri)


async def registered(editor: Editor) -> list[lsp.Registration]:
    """What the server registered once initialized (a request of its own, answered after)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not editor.client.registrations and loop.time() < deadline:
        await asyncio.sleep(0.01)
    return editor.client.registrations


def codes(diagnostics: list[lsp.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


def watched(editor: Editor, *changes: tuple[str, lsp.FileChangeType]) -> None:
    events = [lsp.FileEvent(uri=uri, type=kind) for uri, kind in changes]
    editor.client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(events))


@pytest.mark.asyncio
async def test_an_unsaved_rename_shows_on_the_importer_that_is_not_open(editor: Editor) -> None:
    # The emoji before the error is two UTF-16 units: the column must count them as LSP does.
    text = SENTIMENT.replace("text :string", 'text :string "\U0001f600"')
    sentiment = editor.write("sentiment.sig", text)
    common = editor.open("common.sig", COMMON)
    assert await editor.diagnostics(common) == []

    editor.change(common, RENAMED)
    [found] = await published_after(editor, sentiment, 0)
    assert found.code == "unknown-type"
    assert "unknown type `Sentiment`" in found.message
    assert found.range.start == editor.at(sentiment, "Sentiment")
    assert found.range.start.character == text.splitlines()[1].index("Sentiment") + 1
    assert publications(editor, sentiment)[-1].version is None  # not open: no version

    editor.change(common, COMMON)  # renamed back: the importer is clean again
    assert await published_after(editor, sentiment, 1) == []

    editor.change(common, RENAMED)
    assert codes(await published_after(editor, sentiment, 2)) == ["unknown-type"]
    # Closed without saving: the disk still says `Sentiment`.
    editor.client.text_document_did_close(lsp.DidCloseTextDocumentParams(editor.document(common)))
    assert await published_after(editor, sentiment, 3) == []


@pytest.mark.asyncio
async def test_a_saved_rename_stays_shown_after_closing(editor: Editor) -> None:
    sentiment = editor.write("sentiment.sig", SENTIMENT)
    common = editor.open("common.sig", COMMON)
    await editor.diagnostics(common)
    editor.change(common, RENAMED)
    editor.save(common)
    assert codes(await published_after(editor, sentiment, 0)) == ["unknown-type"]

    count = len(publications(editor, sentiment))
    editor.client.text_document_did_close(lsp.DidCloseTextDocumentParams(editor.document(common)))
    barrier_uri = editor.open("barrier.sig", BARRIER)
    await editor.diagnostics(barrier_uri)
    await barrier(editor, barrier_uri)
    # The disk's view is the broken one: nothing clears it (an equal finding is not resent).
    assert codes(publications(editor, sentiment)[-1].diagnostics) == ["unknown-type"]
    assert all(p.diagnostics for p in publications(editor, sentiment)[count:])


@pytest.mark.asyncio
async def test_a_transitive_importer_is_published_and_unrelated_files_are_not(
    editor: Editor,
) -> None:
    editor.write("mid.sig", 'import "common.sig"\ntype Pick = {label Sentiment}\n')
    top = editor.write("top.sig", 'import "mid.sig"\nsignature top(x :string) -> {s Sentiment}\n')
    unrelated = editor.write("unrelated.sig", BARRIER.replace("barrier", "unrelated"))
    clean = editor.write("clean.sig", 'import "common.sig"\nsignature c(x :string) -> :int\n')
    common = editor.open("common.sig", COMMON)
    barrier_uri = editor.open("barrier.sig", BARRIER)
    await editor.diagnostics(barrier_uri)

    editor.change(common, RENAMED)
    await barrier(editor, barrier_uri)
    mid = (editor.root / "mid.sig").as_uri()
    assert codes(publications(editor, mid)[-1].diagnostics) == ["unknown-type"]
    assert codes(publications(editor, top)[-1].diagnostics) == ["unknown-type"]
    # It imports the edited file but has no findings; the other imports nothing of it.
    assert publications(editor, clean) == []
    assert publications(editor, unrelated) == []


@pytest.mark.asyncio
async def test_an_importer_opened_is_checked_as_a_document_only(editor: Editor) -> None:
    sentiment = editor.write("sentiment.sig", SENTIMENT)
    common = editor.open("common.sig", COMMON)
    barrier_uri = editor.open("barrier.sig", BARRIER)
    await editor.diagnostics(barrier_uri)
    editor.change(common, RENAMED)
    assert codes(await published_after(editor, sentiment, 0)) == ["unknown-type"]

    editor.open("sentiment.sig")
    assert codes(await editor.diagnostics(sentiment)) == ["unknown-type"]
    count = len(publications(editor, sentiment))
    editor.change(common, COMMON)
    assert await published_after(editor, sentiment, count) == []
    editor.change(common, RENAMED.replace("Mood", "Feeling"))
    assert codes(await published_after(editor, sentiment, count + 1)) == ["unknown-type"]
    await barrier(editor, barrier_uri)
    # One source of truth: every publication since it opened is its own check's.
    assert [p.version for p in publications(editor, sentiment)[count - 1 :]] == [1, 1, 1]

    # Closed again while the edit breaks it: back to being shown as an importer.
    editor.client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(editor.document(sentiment))
    )
    assert await published_after(editor, sentiment, count + 2) == []  # the close
    after = await published_after(editor, sentiment, count + 3)
    assert codes(after) == ["unknown-type"]
    assert publications(editor, sentiment)[-1].version is None


@pytest.mark.asyncio
async def test_an_importer_deleted_on_disk_is_cleared(editor: Editor) -> None:
    [registration] = await registered(editor)
    assert registration.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert isinstance(registration.register_options, dict)  # as the client received it
    [watcher] = registration.register_options["watchers"]
    assert watcher["globPattern"] == "**/*.sig"
    sentiment = editor.write("sentiment.sig", SENTIMENT)
    common = editor.open("common.sig", COMMON)
    await editor.diagnostics(common)
    editor.change(common, RENAMED)
    assert codes(await published_after(editor, sentiment, 0)) == ["unknown-type"]

    (editor.root / "sentiment.sig").unlink()
    watched(editor, (sentiment, lsp.FileChangeType.Deleted))
    assert await published_after(editor, sentiment, 1) == []


@pytest.mark.asyncio
async def test_files_changed_on_disk_are_rechecked(editor: Editor) -> None:
    """A checkout changes a shown importer (now clean), another so that it imports nothing
    any more, and adds a new one (broken)."""
    sentiment = editor.write("sentiment.sig", SENTIMENT)
    stops = editor.write("stops.sig", SENTIMENT.replace("classify", "stops"))
    common = editor.open("common.sig", COMMON)
    await editor.diagnostics(common)
    editor.change(common, RENAMED)
    assert codes(await published_after(editor, sentiment, 0)) == ["unknown-type"]
    assert codes(await published_after(editor, stops, 0)) == ["unknown-type"]

    editor.write("sentiment.sig", SENTIMENT.replace("Sentiment", "Mood"))
    editor.write("stops.sig", 'type Sentiment = "x"\nsignature stops(t :string) -> Sentiment\n')
    added = editor.write("added.sig", SENTIMENT.replace("classify", "added"))
    watched(
        editor,
        (sentiment, lsp.FileChangeType.Changed),
        (stops, lsp.FileChangeType.Changed),
        (added, lsp.FileChangeType.Created),
    )
    assert await published_after(editor, sentiment, 1) == []
    assert await published_after(editor, stops, 1) == []
    assert codes(await published_after(editor, added, 0)) == ["unknown-type"]


@pytest.mark.asyncio
async def test_only_the_configured_sources_are_published(editor: Editor) -> None:
    editor.write("sigspec.toml", 'sources = ["src"]\n')
    inside = editor.write("src/sentiment.sig", SENTIMENT.replace("common.sig", "../lib/mid.sig"))
    # Read, as the project imports it, and importing the edited file; but not a source.
    mid = SENTIMENT.replace("common.sig", "../src/common.sig").replace("classify", "mid")
    lib = editor.write("lib/mid.sig", mid)
    # Below the root but not a source; in a hidden folder of the sources: not even read.
    other = editor.write("other/uses.sig", SENTIMENT.replace("common.sig", "../src/common.sig"))
    hidden = editor.write("src/.cache/uses.sig", SENTIMENT.replace("common.sig", "../common.sig"))
    common = editor.open("src/common.sig", COMMON)
    barrier_uri = editor.open("src/barrier.sig", BARRIER)
    await editor.diagnostics(barrier_uri)

    editor.change(common, RENAMED)
    assert codes(await published_after(editor, inside, 0)) == ["unknown-type"]
    await barrier(editor, barrier_uri)
    assert publications(editor, lib) == []
    assert publications(editor, other) == []
    assert publications(editor, hidden) == []


@pytest.mark.asyncio
async def test_a_document_outside_any_project_has_no_importers_published(
    editor: Editor, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Outside the workspace and without a configuration, the folder of the document is no
    project: its neighbours are not loaded, let alone published."""
    elsewhere = tmp_path_factory.mktemp("elsewhere").resolve()
    (elsewhere / "sentiment.sig").write_text(SENTIMENT)
    common = elsewhere / "common.sig"
    common.write_text(COMMON)
    uri = common.as_uri()
    editor.versions[uri], editor.texts[uri] = 1, COMMON
    item = lsp.TextDocumentItem(uri=uri, language_id="sigspec", version=1, text=COMMON)
    editor.client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
    barrier_uri = editor.open("barrier.sig", BARRIER)
    await editor.diagnostics(barrier_uri)

    editor.change(uri, RENAMED)
    assert await editor.diagnostics(uri) == []
    await barrier(editor, barrier_uri)
    assert publications(editor, (elsewhere / "sentiment.sig").as_uri()) == []


@pytest.mark.asyncio
async def test_an_importer_created_on_disk_after_edits_of_a_file_nothing_imported(
    editor: Editor,
) -> None:
    """Edits to a file nothing imports load nothing more; a file created on disk that imports
    it is checked once the client reports it, and at each edit after."""
    common = editor.open("common.sig", COMMON)
    barrier_uri = editor.open("barrier.sig", BARRIER)
    await editor.diagnostics(barrier_uri)
    editor.change(common, RENAMED)
    await barrier(editor, barrier_uri)
    editor.change(common, RENAMED + "\n")
    await barrier(editor, barrier_uri)

    added = editor.write("added.sig", SENTIMENT)
    watched(editor, (added, lsp.FileChangeType.Created))
    assert codes(await published_after(editor, added, 0)) == ["unknown-type"]
    editor.change(common, COMMON)
    assert await published_after(editor, added, 1) == []


def test_no_watching_is_asked_of_a_client_that_cannot_register_it(tmp_path: Path) -> None:
    """A client without dynamic registration (no capabilities at all) is sent no request:
    the first message after `initialized` is the publication for the first document."""
    with server_process(tmp_path) as client:
        uri = client.open(tmp_path / "a.sig", BARRIER)
        messages = client.collect(lambda m: is_publish(m, uri))
        assert [m.get("method") for m in messages] == [lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
