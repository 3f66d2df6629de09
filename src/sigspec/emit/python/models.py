"""Pydantic v2 models through datamodel-code-generator: the only module that imports it.

Each .sig file becomes one JSON Schema document whose `$defs` hold its named types and every
signature's `<Name>Input` / `<Name>Output`, and datamodel-code-generator turns that document
into one module. Its output depends on its version, so the version is pinned (pyproject) and
part of the cache key: generation is slow (about 3 ms a model), so each document's module is
cached in the user's cache folder by the hash of everything that determines it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sigspec.emit.jsonschema import DRAFT, SchemaBuilder, input_schema, output_schema
from sigspec.infra.cache import user_cache
from sigspec.infra.pickling import by_fields
from sigspec.semantics import ir

# The document's root becomes a model of this name, which is then removed: only the $defs
# are wanted. Chosen so that no sensible `type` collides; one that does is renamed away.
_ROOT = "SigspecRootDocument"
_ROOT_CLASS = re.compile(rf"\n*class {_ROOT}\(RootModel\[Any\]\):\n    root: Any$\n?", re.MULTILINE)

# datamodel-code-generator settings: Literal enums, descriptions and constraints kept on
# `Field`, `X | None` for optional fields, no formatters (black/isort would dominate the time
# and their versions would change the bytes), no timestamp (determinism).
OPTIONS: dict[str, Any] = {
    "enum_field_as_literal": "all",
    "use_schema_description": True,
    "field_constraints": True,
    "use_annotated": True,
    "disable_timestamp": True,
    "formatters": [],
    "use_double_quotes": True,
    "use_standard_collections": True,
    "use_union_operator": True,
    "strict_nullable": True,
    "collapse_root_models": True,
    "keep_model_order": True,
    "disable_future_imports": False,
}


def pascal(name: str) -> str:
    """`act_on_sentiment` -> `ActOnSentiment`: the stem of a signature's model names."""
    words = [w for w in re.split(r"[^0-9A-Za-z]+", name) if w]
    text = "".join(w[0].upper() + w[1:] for w in words) or "Signature"
    return f"S{text}" if text[0].isdigit() else text


@dataclass(frozen=True, slots=True)
class ModelNames:
    """The class names of one signature's input and output models."""

    input: str
    output: str


def model_names(sigs: Iterable[ir.Signature], taken: Iterable[str]) -> dict[str, ModelNames]:
    """Unique `<Pascal>Input`/`<Pascal>Output` names, clear of named types and of each other."""
    used = {*taken, _ROOT}
    out: dict[str, ModelNames] = {}
    for sig in sigs:
        stem = pascal(sig.name)
        n = 1
        while f"{stem}Input" in used or f"{stem}Output" in used:
            n += 1
            stem = f"{pascal(sig.name)}{n}"
        used.update((f"{stem}Input", f"{stem}Output"))
        out[sig.name] = ModelNames(f"{stem}Input", f"{stem}Output")
    return out


def document(
    project: ir.Project,
    sigs: list[ir.Signature],
    names: dict[str, ModelNames],
    types: Iterable[str] = (),
) -> dict[str, Any]:
    """One JSON Schema document holding every model of these signatures, and of the named
    types they use or that are listed, under `$defs`."""
    builder = SchemaBuilder(project)
    for name in types:
        builder.type(ir.Ref(name))
    defs: dict[str, Any] = builder.definitions()
    own: dict[str, Any] = {}
    for sig in sigs:
        # Inputs are open maps (extra arguments are kept), as the input validators say.
        inputs = {**input_schema(sig, project), "additionalProperties": True}
        for name, schema in (
            (names[sig.name].input, inputs),
            (names[sig.name].output, output_schema(sig, project)),
        ):
            body = dict(schema)
            defs.update(body.pop("$defs", {}))
            own[name] = body
    return {"$schema": DRAFT, "$defs": {**dict(sorted(defs.items())), **own}}


@functools.cache  # reading a distribution's metadata costs ~0.5 ms, once per document before
def _generator_version() -> str:
    from importlib.metadata import version

    return version("datamodel-code-generator")


def _cache_key(text: str) -> str:
    seed = json.dumps([_generator_version(), OPTIONS, _ROOT, text])
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def _generate(text: str, header: str) -> str:
    from datamodel_code_generator import generate
    from datamodel_code_generator.enums import DataModelType, InputFileType
    from datamodel_code_generator.format import PythonVersion

    result = generate(
        text,
        input_file_type=InputFileType.JsonSchema,
        output_model_type=DataModelType.PydanticV2BaseModel,
        target_python_version=PythonVersion.PY_311,
        class_name=_ROOT,
        custom_file_header=header,
        **OPTIONS,
    )
    assert isinstance(result, str), "one document gives one module"
    return result


def render_models(doc: dict[str, Any], header: str) -> str:
    """The module for one document: from the cache, else generated (and then cached)."""
    text = json.dumps(doc, sort_keys=False, ensure_ascii=False)
    cache = user_cache()
    key = _cache_key(text + header)
    cached = cache.get("models", key, ".py")
    if cached is not None:
        return cached.decode("utf-8")
    module = _ROOT_CLASS.sub("\n", _generate(text, header), count=1)
    if _ROOT in module:
        raise RuntimeError("datamodel-code-generator changed how it names the root model")
    module = module.rstrip() + "\n"
    cache.put("models", key, module.encode("utf-8"), ".py")
    return module


def class_names(module: str) -> frozenset[str]:
    """The top-level classes a generated module defines."""
    tree = ast.parse(module)
    return frozenset(node.name for node in tree.body if isinstance(node, ast.ClassDef))


@by_fields  # sent back from the forked half (sigspec/parallel.py)
@dataclass(frozen=True, slots=True)
class Models:
    """One document's generated module and the classes it defines."""

    text: str
    classes: frozenset[str]


def generate_many(jobs: list[tuple[dict[str, Any], str]]) -> list[Models]:
    """render_models for each (document, header), with its classes (read where the module
    was made: parsing 100 modules costs ~0.1 s); on both cores when many."""

    def run(part: list[tuple[dict[str, Any], str]]) -> list[Models]:
        texts = [render_models(doc, header) for doc, header in part]
        return [Models(text, class_names(text)) for text in texts]

    if len(jobs) < 4:
        return run(jobs)
    from sigspec.infra.parallel import fork_map

    half = len(jobs) // 2
    first, second = fork_map(run, jobs[:half], jobs[half:])
    return first + second
