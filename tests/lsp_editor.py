"""An editor for the language server's end-to-end tests: pytest-lsp's client (pygls) starts
`sigspec lsp` in its own process and speaks LSP to it over stdio, in a workspace folder of
its own (the test's `tmp_path`).

Tests take the `editor` fixture (`conftest.py`) and are `async`; every position they send or
read is in UTF-16 code units, as the client negotiated (`Editor.at` computes them).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

TIMEOUT = 30.0  # seconds to wait for a publication: generous, only a hang reaches it
PUBLISH = lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
REGISTER = lsp.CLIENT_REGISTER_CAPABILITY


class Client(LanguageClient):  # type: ignore[misc]
    """pytest-lsp's client, keeping every publication with the version it is for."""

    published: dict[str, list[lsp.PublishDiagnosticsParams]]
    registrations: list[lsp.Registration]  # what the server registered dynamically
    server_capabilities: lsp.ServerCapabilities  # what the server answered to `initialize`


def _publish(client: Client, params: lsp.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.setdefault(params.uri, []).append(params)


def _register(client: Client, params: lsp.RegistrationParams) -> None:
    client.registrations.extend(params.registrations)


def make_client() -> Client:
    client = Client()
    client.published = {}
    client.registrations = []
    features = {**DEFAULT_CLIENT_FEATURES, PUBLISH: _publish, REGISTER: _register}
    register_lsp_features(client, features)
    return client


@dataclass
class Editor:
    client: Client
    root: Path
    versions: dict[str, int] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)

    def write(self, name: str, text: str) -> str:
        """A file on disk (not opened); its URI."""
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path.as_uri()

    def open(self, name: str, text: str | None = None) -> str:
        """Open a document (written to disk first when `text` is given); its URI."""
        path = self.root / name
        if text is not None:
            self.write(name, text)
        text = path.read_text(encoding="utf-8")
        uri = path.as_uri()
        self.versions[uri] = 1
        self.texts[uri] = text
        item = lsp.TextDocumentItem(uri=uri, language_id="sigspec", version=1, text=text)
        self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(item))
        return uri

    def change(self, uri: str, text: str) -> None:
        """Replace a document's buffer (unsaved)."""
        self.versions[uri] += 1
        self.texts[uri] = text
        document = lsp.VersionedTextDocumentIdentifier(uri=uri, version=self.versions[uri])
        whole = lsp.TextDocumentContentChangeWholeDocument(text=text)
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(document, [whole]))

    def save(self, uri: str) -> None:
        """Write the buffer to disk and tell the server."""
        Path(lsp_path(uri)).write_text(self.texts[uri], encoding="utf-8")
        document = lsp.TextDocumentIdentifier(uri=uri)
        self.client.text_document_did_save(lsp.DidSaveTextDocumentParams(document))

    async def diagnostics(self, uri: str) -> list[lsp.Diagnostic]:
        """What the server published for the document's latest version (for a file that is
        not open, the latest publication at all, waiting for one if none came yet)."""
        want = self.versions.get(uri)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIMEOUT
        while loop.time() < deadline:
            for params in reversed(self.client.published.get(uri, [])):
                if want is None or params.version == want:
                    return list(params.diagnostics)
            await asyncio.sleep(0.01)
        raise AssertionError(f"no diagnostics published for {uri} (version {want})")

    def at(self, uri: str, needle: str, offset: int = 0, nth: int = 0) -> lsp.Position:
        """The position of the `nth` occurrence of `needle` in the document's text, plus
        `offset` characters, in UTF-16 code units."""
        text = self.texts[uri] if uri in self.texts else Path(lsp_path(uri)).read_text("utf-8")
        index = -1
        for _ in range(nth + 1):
            index = text.index(needle, index + 1)
        index += offset
        line = text.count("\n", 0, index)
        start = text.rfind("\n", 0, index) + 1
        column = len(text[start:index].encode("utf-16-le")) // 2
        return lsp.Position(line=line, character=column)

    def document(self, uri: str) -> lsp.TextDocumentIdentifier:
        return lsp.TextDocumentIdentifier(uri=uri)


def lsp_path(uri: str) -> str:
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(uri).path)


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "sigspec", "lsp"], client_factory=make_client
    )
)
async def sigspec_lsp(lsp_client: Client, tmp_path: Path) -> AsyncIterator[None]:
    """`sigspec lsp` initialized on the workspace `tmp_path` (pytest-lsp yields the client)."""
    root = tmp_path.resolve()
    result = await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        )
    )
    lsp_client.server_capabilities = result.capabilities
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def editor(sigspec_lsp: Client, tmp_path: Path) -> Editor:
    return Editor(sigspec_lsp, tmp_path.resolve())
