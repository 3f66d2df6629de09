"""Which checks the language server runs, and when: a change rechecks its document and the
open documents importing it, once typing pauses; a check that fails is its document's alone;
requests are answered while checks wait or run.

Synchronisation is by messages, never by sleeping: checks run one at a time, in the order
their documents' typing pauses, so the publication for a change made last (a "barrier") comes
after the publications of every check that change could follow.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lsp_client import (
    TIMEOUT,
    Client,
    Message,
    is_publish,
    published,
    server_process,
    server_thread,
)
from sigspec.commands.lsp import build_server
from sigspec.commands.lsp.check import Checked, Snapshot, lint_document

COMMON = 'type Label = "a" | "b"\n'
MID = 'import "common.sig"\ntype Pick = {label Label}\nsignature pick(x :string) -> Pick\n'
TOP = 'import "mid.sig"\nsignature top(x :string) -> {pick Pick}\n'
SIDE = 'import "common.sig"\nsignature side(x :string) -> {label Label}\n'
UNRELATED = "signature u{n}(x :string) -> {{y :string}}\n"
BARRIER = "signature barrier(x :string) -> {y :string}\n"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    with server_process(tmp_path) as lsp:
        yield lsp


def until_barrier(client: Client, uri: str, version: int) -> list[Message]:
    """Change the barrier document; every message up to its publication."""
    client.change(uri, BARRIER, version)
    return client.collect(lambda m: is_publish(m, uri, version))


def barrier(client: Client, uri: str, version: int) -> list[tuple[str, int | None]]:
    """(URI, version) of every publication up to the barrier document's."""
    return published(until_barrier(client, uri, version))


def diagnostics_by_uri(messages: list[Message]) -> dict[str, list[dict[str, Any]]]:
    """The last publication for each URI among `messages`."""
    return {m["params"]["uri"]: m["params"]["diagnostics"] for m in messages if is_publish(m)}


def write_project(root: Path, unrelated: int) -> dict[str, str]:
    """The files of a project on disk: name -> text."""
    files = {"common.sig": COMMON, "mid.sig": MID, "top.sig": TOP, "side.sig": SIDE}
    files |= {f"u{n}.sig": UNRELATED.format(n=n) for n in range(unrelated)}
    files["barrier.sig"] = BARRIER
    for name, text in files.items():
        (root / name).write_text(text)
    return files


def test_a_change_rechecks_its_document_and_its_importers_only(
    client: Client, tmp_path: Path
) -> None:
    files = write_project(tmp_path, unrelated=20)
    client.write([client.did_open(tmp_path / name, text) for name, text in files.items()])
    uri = {name: (tmp_path / name).as_uri() for name in files}
    first = barrier(client, uri["barrier.sig"], 2)
    assert {u for u, _ in first} == set(uri.values())  # each checked once opened

    # Unsaved: the disk still has `Label`; mid and side (directly) and top (through mid)
    # import it; the twenty others do not.
    client.change(uri["common.sig"], COMMON.replace("Label", "Tag"), 2)
    after = barrier(client, uri["barrier.sig"], 3)

    assert sorted(after) == sorted(
        [
            (uri["common.sig"], 2),
            (uri["mid.sig"], 1),
            (uri["top.sig"], 1),
            (uri["side.sig"], 1),
            (uri["barrier.sig"], 3),
        ]
    )


def test_an_importer_reports_what_the_changed_import_broke(client: Client, tmp_path: Path) -> None:
    files = write_project(tmp_path, unrelated=0)
    client.write([client.did_open(tmp_path / name, text) for name, text in files.items()])
    uri = {name: (tmp_path / name).as_uri() for name in files}
    barrier(client, uri["barrier.sig"], 2)

    client.change(uri["common.sig"], COMMON.replace("Label", "Tag"), 2)
    found = diagnostics_by_uri(until_barrier(client, uri["barrier.sig"], 3))
    codes = {u: [d["code"] for d in diagnostics] for u, diagnostics in found.items()}
    assert codes[uri["common.sig"]] == []
    assert codes[uri["mid.sig"]] == ["unknown-type"]
    assert codes[uri["side.sig"]] == ["unknown-type"]
    # top's own text is fine: what mid lost is reported on mid.
    assert codes[uri["top.sig"]] == []


def test_rapid_changes_are_checked_once_as_the_last_text(client: Client, tmp_path: Path) -> None:
    uri = client.open(tmp_path / "a.sig", "signature a(x :string) -> {y :string}\n")
    assert client.diagnostics(uri, 1) == []
    barrier_uri = client.open(tmp_path / "barrier.sig", BARRIER)
    client.diagnostics(barrier_uri, 1)

    # Ten edits arriving together, as fast typing sends them; each names another unknown type.
    edits = [
        client.did_change(uri, f"signature a(x :string) -> {{y Typo{version}}}\n", version)
        for version in range(2, 12)
    ]
    client.write(edits)
    final = client.wait(lambda m: is_publish(m, uri))
    assert final["params"]["version"] == 11
    [diagnostic] = final["params"]["diagnostics"]
    assert "unknown type `Typo11`" in diagnostic["message"]
    assert barrier(client, barrier_uri, 2) == [(barrier_uri, 2)]  # nothing else for a.sig


def test_a_closed_import_is_read_from_disk_again_by_its_importers(
    client: Client, tmp_path: Path
) -> None:
    files = write_project(tmp_path, unrelated=2)
    client.write([client.did_open(tmp_path / name, text) for name, text in files.items()])
    uri = {name: (tmp_path / name).as_uri() for name in files}
    barrier(client, uri["barrier.sig"], 2)
    client.change(uri["common.sig"], COMMON.replace("Label", "Tag"), 2)
    barrier(client, uri["barrier.sig"], 3)

    client.send("textDocument/didClose", {"textDocument": {"uri": uri["common.sig"]}})
    found = diagnostics_by_uri(until_barrier(client, uri["barrier.sig"], 4))
    assert sorted(found) == sorted(
        [uri[n] for n in ("common.sig", "mid.sig", "top.sig", "side.sig", "barrier.sig")]
    )
    assert all(diagnostics == [] for diagnostics in found.values())  # the disk has `Label`


def test_saving_a_new_file_rechecks_the_documents_that_import_it(
    client: Client, tmp_path: Path
) -> None:
    main = 'import "new.sig"\nsignature pick(x :string) -> {label Label}\n'
    (tmp_path / "main.sig").write_text(main)
    main_uri = client.open(tmp_path / "main.sig", main)
    assert [d["code"] for d in client.diagnostics(main_uri, 1)] == [
        "import-not-found",
        "unknown-type",
    ]
    # A new file, unsaved: the import still names no file on disk.
    new_uri = client.open(tmp_path / "new.sig", COMMON)
    assert client.diagnostics(new_uri, 1) == []
    assert [d["code"] for d in client.diagnostics(main_uri, 1)] == [
        "import-not-found",
        "unknown-type",
    ]

    (tmp_path / "new.sig").write_text(COMMON)
    client.send("textDocument/didSave", {"textDocument": {"uri": new_uri}})
    assert client.diagnostics(main_uri, 1) == []


# In-process servers with a check the test controls: a crash no real input should cause, and
# a check held running until the test lets it finish.

BOOM = "boom.sig"
SECRET = "a secret the exception quoted"


def crashing_check(snapshot: Snapshot) -> Checked:
    if snapshot.path.name == BOOM:
        raise RuntimeError(SECRET)
    if snapshot.path.name == "exits.sig":
        raise SystemExit(3)  # not even this ends the server
    return lint_document(snapshot)


def test_a_crashing_check_is_an_internal_error_on_its_document_only(tmp_path: Path) -> None:
    texts = {
        "a.sig": "signature a(x :string) -> {y Strin}\n",
        BOOM: "signature boom(x :string) -> {y :string}\n",
        "exits.sig": "signature exits(x :string) -> {y :string}\n",
        "c.sig": "signature c(x :string) -> {y :string}\n",
    }
    server = build_server("9.9", check=crashing_check, delay=0.01)
    with server_thread(tmp_path, server) as client:
        # The crashing ones opened between the others: checked after a.sig, before c.sig.
        client.write([client.did_open(tmp_path / name, text) for name, text in texts.items()])
        uri = {name: (tmp_path / name).as_uri() for name in texts}
        assert [d["code"] for d in client.diagnostics(uri["a.sig"], 1)] == ["unknown-type"]
        [internal] = client.diagnostics(uri[BOOM], 1)
        [exits] = client.diagnostics(uri["exits.sig"], 1)
        assert client.diagnostics(uri["c.sig"], 1) == []
        assert exits["code"] == "internal-error"
        assert "SystemExit" in exits["message"]

        assert internal["code"] == "internal-error"
        assert internal["severity"] == 1
        assert "internal error in sigspec 9.9" in internal["message"]
        assert "RuntimeError" in internal["message"]
        assert "report" in internal["message"]
        assert SECRET not in internal["message"]
        assert "Traceback" not in internal["message"]

        # Still checking the others, and the crashing one again on its next change.
        client.change(uri["a.sig"], texts["a.sig"].replace("Strin", ":string"), 2)
        assert client.diagnostics(uri["a.sig"], 2) == []
        client.change(uri[BOOM], texts[BOOM] + "\n", 2)
        [again] = client.diagnostics(uri[BOOM], 2)
        assert again["code"] == "internal-error"


def formatting(uri: str) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}}


class HeldCheck:
    """A check that, for `held` only, waits to be released; counts the checks it runs."""

    def __init__(self, held: str) -> None:
        self.held = held
        self.started = threading.Event()
        self.release = threading.Event()
        self.texts: list[str] = []

    def __call__(self, snapshot: Snapshot) -> Checked:
        if snapshot.path.name == self.held:
            self.texts.append(snapshot.text)
            self.started.set()
            assert self.release.wait(TIMEOUT)
        return lint_document(snapshot)


def test_requests_are_answered_while_a_check_runs(tmp_path: Path) -> None:
    check = HeldCheck("slow.sig")
    server = build_server("9.9", check=check, delay=0.01)
    with server_thread(tmp_path, server) as client:
        uri = client.open(tmp_path / "slow.sig", "signature   a( x :int )->{y :string}\n")
        assert check.started.wait(TIMEOUT)
        # The check of slow.sig is running and will not finish until released: the formatting
        # request is answered meanwhile, and nothing is published yet.
        ident = client.send("textDocument/formatting", formatting(uri), request=True)
        reply = client.collect(lambda m: m.get("id") == ident)
        assert [m for m in reply if is_publish(m)] == []
        [edit] = reply[-1]["result"]
        assert edit["newText"] == "signature a(x :int) -> {y :string}\n"
        check.release.set()
        assert client.diagnostics(uri, 1) == []


def test_a_change_supersedes_the_check_running_for_its_document(tmp_path: Path) -> None:
    check = HeldCheck("slow.sig")
    server = build_server("9.9", check=check, delay=0.01)
    with server_thread(tmp_path, server) as client:
        first = "signature a(x :string) -> {y First}\n"
        uri = client.open(tmp_path / "slow.sig", first)
        assert check.started.wait(TIMEOUT)
        client.change(uri, "signature a(x :string) -> {y Second}\n", 2)
        # Requests are handled in order: once this one is answered, the change has been.
        client.request("textDocument/formatting", formatting(uri))
        check.release.set()  # the first check finishes now, its text already stale
        [diagnostic] = client.diagnostics(uri)
        assert "unknown type `Second`" in diagnostic["message"]
        assert check.texts == [first, "signature a(x :string) -> {y Second}\n"]


def test_a_change_under_an_import_root_rechecks_its_importers(tmp_path: Path) -> None:
    """A file under an import root is named `../shared/x.sig` from the project: the documents
    importing it are found through its resolved path."""
    project, shared = tmp_path / "project", tmp_path / "shared"
    project.mkdir()
    shared.mkdir()
    (project / "sigspec.toml").write_text('import_roots = ["../shared"]\n')
    (shared / "common.sig").write_text(COMMON)
    main = 'import "../shared/common.sig"\nsignature m(x :string) -> {label Label}\n'
    (project / "main.sig").write_text(main)
    (project / "barrier.sig").write_text(BARRIER)
    with server_process(project) as client:
        common = client.open(shared / "common.sig", COMMON)
        main_uri = client.open(project / "main.sig", main)
        barrier_uri = client.open(project / "barrier.sig", BARRIER)
        first = diagnostics_by_uri(until_barrier(client, barrier_uri, 2))
        assert first[main_uri] == [] and first[common] == []

        client.change(common, COMMON.replace("Label", "Tag"), 2)
        after = until_barrier(client, barrier_uri, 3)
        assert (main_uri, 1) in published(after)
        codes = [d["code"] for d in diagnostics_by_uri(after)[main_uri]]
        assert codes == ["unknown-type"]


def test_the_configuration_severities_apply_in_the_editor(tmp_path: Path) -> None:
    text = '@prompt("hello")\nsignature t(a :string) -> {x :int}\n'
    (tmp_path / "a.sig").write_text(text)
    snapshot = Snapshot((tmp_path / "a.sig").resolve(), text, {}, None)
    [before] = lint_document(snapshot).diagnostics
    assert before.code == "unused-param" and before.is_error
    (tmp_path / "sigspec.toml").write_text('[severity]\nunused-param = "warn"\n')
    [after] = lint_document(snapshot).diagnostics
    assert after.code == "unused-param" and not after.is_error
