"""The target registry: one explicit table, in the order targets run (manifest last, since it
records the files of the others). The key names a target everywhere: `--target`, config,
golden folders, docs. Each target's module is imported only when it runs: a compile to JSON
Schema alone never loads the prompt, Python or TypeScript emitters (jinja2 and the runtimes).
"""

from __future__ import annotations

import importlib

from sigspec.emit.base import Emitter
from sigspec.emit.targets import TARGET_NAMES

TARGETS: dict[str, str] = {
    "jsonschema": "sigspec.emit.jsonschema",
    "providers": "sigspec.emit.providers",
    "prompts": "sigspec.emit.prompts",
    "python": "sigspec.emit.python",
    "typescript": "sigspec.emit.typescript",
    "manifest": "sigspec.emit.manifest",
}
assert tuple(TARGETS) == TARGET_NAMES, "targets.py and the registry must list the same targets"


def emitter(name: str) -> Emitter:
    """The emitter of the target `name` (a key of TARGETS)."""
    found: Emitter = importlib.import_module(TARGETS[name]).EMITTER
    return found
