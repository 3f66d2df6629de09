"""The target registry: one explicit table, in the order targets run (manifest last, since it
records the files of the others). The key names a target everywhere: `--target`, config,
golden folders, docs.
"""

from __future__ import annotations

from sigspec.emit import jsonschema, manifest, prompts, providers, python, typescript
from sigspec.emit.base import Emitter
from sigspec.targets import TARGET_NAMES

TARGETS: dict[str, Emitter] = {
    "jsonschema": jsonschema.EMITTER,
    "providers": providers.EMITTER,
    "prompts": prompts.EMITTER,
    "python": python.EMITTER,
    "typescript": typescript.EMITTER,
    "manifest": manifest.EMITTER,
}
assert tuple(TARGETS) == TARGET_NAMES, "targets.py and the registry must list the same targets"
