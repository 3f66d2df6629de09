"""`sigspec lsp`: a language server (pygls): lint diagnostics, formatting, navigation, hover,
completion and code actions.

The only package that imports pygls, an optional extra (`sigspec[lsp]`): importing it fails
with pygls's `ImportError` when that is missing, which the command line turns into a usage
error. Checking and formatting are the same library calls as `sigspec lint` and `sigspec
fmt`; open buffers stand in for files on disk, so an import of an unsaved, edited file sees
the edited text.

- `server.py`: the pygls server, its notifications and what it publishes; one session's
  state (the checks, the parse cache, the cache of loaded projects)
- `schedule.py`: debounced, superseding checks run one at a time off the event loop
- `readers.py`: which open documents a change to a file can affect
- `importers.py`: the files importing an edited document that are not open, and which of them
  the editor shows
- `files.py`: `.sig` files watched on disk, and the URIs of files that are not open
- `check.py`: checking one document against a snapshot of the open buffers
- `project.py`: a document's whole project as parsed and resolved (`View`), loaded without
  forking
- `views.py`: the one cache of loaded projects (view, index and lowered schemas on demand)
  that navigation, hover, completion and workspace symbols read; the view completion reads
  while a document is being typed
- `symbols.py`: a project's index of declarations and references; `navigate.py`
  (definition, references, rename), `outline.py` (document and workspace symbols) and
  `hover.py` answer from it; `navigation.py` is their LSP side
- `context.py` (where the cursor stands), `complete.py` (completion items), `actions.py`
  (quick fixes, suppressions), `ranges.py` (range formatting); `edit.py` is their LSP side
"""

from sigspec.commands.lsp.server import build_server, serve

__all__ = ["build_server", "serve"]
