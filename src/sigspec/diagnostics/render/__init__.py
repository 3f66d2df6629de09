"""One renderer per output format; `renderer(name)` is what the command line chooses from.

Each format's module is imported when it is used: a run prints in one format.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sigspec.diagnostics.model import Diagnostic

Renderer = Callable[[Sequence["Diagnostic"], bool], str]

# format -> the module whose `render` writes it
RENDERERS: dict[str, str] = {
    "text": "sigspec.diagnostics.render.human",
    "json": "sigspec.diagnostics.render.json_format",
    "github": "sigspec.diagnostics.render.github",
    "sarif": "sigspec.diagnostics.render.sarif",
}


def renderer(name: str) -> Renderer:
    found: Renderer = importlib.import_module(RENDERERS[name]).render
    return found
