"""The target registry: one explicit table, in the order targets run. The key names a target
everywhere: `--target`, the configuration, golden folders, the docs. A target's module is
imported only when it runs: a compile to JSON Schema alone never loads jinja2, the prompt
lowering or the Python and TypeScript targets.

A target module exports `emit_module(lowered, module, options, context)` (the files of one
.sig file: the compile level may run files in two processes) and `emit_common(lowered,
options, context)` (the files that belong to the whole project). The manifest is not a
target: it is the final pass, which records every file the targets wrote.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sigspec.emit.base import EmitContext, EmitResult
    from sigspec.lower.views import Lowered, Module


@dataclass(frozen=True)
class Target:
    name: str
    summary: str  # one line for `--help`
    options_class: str  # its options: a frozen dataclass of that name in emit/options.py
    module: str  # the implementation, imported when the target runs

    @property
    def options(self) -> type[Any]:
        """The options dataclass (imported on first use: the no-op compile needs only names)."""
        from sigspec.emit import options

        found: type[Any] = getattr(options, self.options_class)
        return found

    def emit_module(
        self, lowered: Lowered, module: Module, options: Any, context: EmitContext
    ) -> EmitResult:
        result: EmitResult = self._code().emit_module(lowered, module, options, context)
        return result

    def emit_common(self, lowered: Lowered, options: Any, context: EmitContext) -> EmitResult:
        result: EmitResult = self._code().emit_common(lowered, options, context)
        return result

    def _code(self) -> Any:
        return importlib.import_module(self.module)


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "jsonschema",
            "JSON Schema (2020-12) of each signature's input and output",
            "NoOptions",
            "sigspec.emit.jsonschema",
        ),
        Target(
            "providers",
            "request fragments for each provider's structured output",
            "ProvidersOptions",
            "sigspec.emit.providers",
        ),
        Target(
            "prompts",
            "Mustache templates of each signature's prompts",
            "NoOptions",
            "sigspec.emit.prompts",
        ),
        Target(
            "python",
            "a Python package: validators, reply parsers, Pydantic models, typed clients",
            "PythonOptions",
            "sigspec.emit.python",
        ),
        Target(
            "typescript",
            "TypeScript modules: types, validators, reply parsers, typed clients",
            "NoOptions",
            "sigspec.emit.typescript",
        ),
    )
}
NAMES = tuple(TARGETS)


def selected(names: tuple[str, ...] | list[str]) -> list[str]:
    """The targets to run, in registry order (all of them when none is named)."""
    wanted = set(names or NAMES)
    return [name for name in NAMES if name in wanted]


def config_record(names: list[str], options: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The configuration as the manifest records it (and the up-to-date check compares)."""
    return {"targets": names, "options": {k: dict(v) for k, v in sorted(options.items())}}
