"""One renderer per output format; `RENDERERS` is the table the CLI chooses from."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sigspec.diagnostics.model import Diagnostic
from sigspec.diagnostics.render import github, human, json_format, sarif

Renderer = Callable[[Sequence[Diagnostic], bool], str]

RENDERERS: dict[str, Renderer] = {
    "text": human.render,
    "json": json_format.render,
    "github": github.render,
    "sarif": sarif.render,
}
