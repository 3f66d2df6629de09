"""The files the server hears of besides the open documents: `.sig` files changed on disk,
which the client is asked to watch, and files that are not open, named as the client names
them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

logger = logging.getLogger(__name__)


def client_uri(path: Path, given: str | None) -> str:
    """The URI of a file a check found (resolved), as the client names it: through the
    workspace folder as the client gave it (`given`; a link in it, such as macOS's /tmp, left
    unresolved), so that a file opened later is the same document to the client."""
    if given:
        root = Path(given).resolve()
        if path.is_relative_to(root):
            path = Path(given) / path.relative_to(root)
    return from_fs_path(str(path)) or path.as_uri()


WATCH = "sigspec-watch-sig-files"  # the id of the registration of `**/*.sig` watching


async def watch_files(server: LanguageServer) -> None:
    """Ask the client to report `.sig` files created, changed and deleted on disk (a git
    checkout, another tool), when it can be asked; a refusal is logged, not fatal."""
    capabilities = server.client_capabilities
    watched = capabilities.workspace and capabilities.workspace.did_change_watched_files
    if not (watched and watched.dynamic_registration):
        return
    watchers = [lsp.FileSystemWatcher(glob_pattern="**/*.sig")]
    registration = lsp.Registration(
        id=WATCH,
        method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
    )
    try:
        await server.client_register_capability_async(lsp.RegistrationParams([registration]))
    except Exception as error:  # the client's answer: the server works on without watching
        logger.warning("the client did not watch .sig files: %s", error)
