"""`sigspec lsp`: a language server (pygls) publishing lint diagnostics and formatting documents.

The only package that imports pygls, an optional extra (`sigspec[lsp]`): importing it fails
with pygls's `ImportError` when that is missing, which the command line turns into a usage
error. Checking and formatting are the same library calls as `sigspec lint` and `sigspec
fmt`; open buffers stand in for files on disk, so an import of an unsaved, edited file sees
the edited text.

- `server.py`: the pygls server, its notifications and what it publishes
- `schedule.py`: debounced, superseding checks run one at a time off the event loop
- `readers.py`: which open documents a change to a file can affect
- `importers.py`: the files importing an edited document that are not open, and which of them
  the editor shows
- `files.py`: `.sig` files watched on disk, and the URIs of files that are not open
- `check.py`: checking one document against a snapshot of the open buffers
"""

from sigspec.commands.lsp.server import build_server, serve

__all__ = ["build_server", "serve"]
