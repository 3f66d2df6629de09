"""Pydantic v2 models through datamodel-code-generator: the only module that imports it.

Each .sig file becomes one JSON Schema document whose `$defs` hold its named types and every
signature's `<Name>Input` / `<Name>Output`, and datamodel-code-generator turns that document
into one module for Python 3.10, which `reprint` prints again as ruff would leave it. Its
output depends on its version, so the version is pinned (pyproject) and part of the key:
generation is slow (about 3 ms a model), so each document's module is kept in the memo the
compile level passes in (the user's cache) under the hash of everything that determines it.
Imported only by the Python target: never on the `lint` or `fmt` path.

The models need pydantic and nothing else: of the string formats, only date-time, date, time
and uuid become types (`datetime`, `date`, `time`, `UUID`, all the standard library's); the
others are left out of the document, so that their fields stay `str` (no `EmailStr`, which
needs email-validator, and no `AnyUrl`, which rewrites the value). So are patterns. The
validators check both.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from sigspec.emit.base import HEADER, Memo
from sigspec.emit.python.reprint import reprint
from sigspec.lower.names import MODELS_ROOT
from sigspec.lower.quoting import line_comment
from sigspec.lower.schema import DRAFT, SchemaBuilder
from sigspec.lower.views import Lowered, Module
from sigspec.semantics import ir

# The document's root becomes a model of this name, which is then removed: only the $defs
# are wanted. No signature's models take the name (`lower/names`); a type so named is
# renamed away by datamodel-code-generator.
_ROOT = MODELS_ROOT
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
    "target_python_version": "3.10",
    "output_datetime_class": "datetime",
}
# The formats that become a standard type in the models; the others stay `str`.
TYPED_FORMATS = frozenset({"date-time", "date", "time", "uuid"})
# Keywords whose value is one subschema, a list of them, or a map of names to them.
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")
_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")
_MAP = ("properties", "$defs", "patternProperties", "dependentSchemas")


def untyped_formats(schema: Any) -> Any:
    """`schema` without the `format` keywords that do not become a type in the models, and
    without `pattern`: pydantic would run it with its own engine (Unicode digits and word
    boundaries, its own spaces), refusing values the validators accept as ECMA-262 means
    them. The validators check patterns before a model is built."""
    if not isinstance(schema, dict):
        return schema
    out = {
        k: v for k, v in schema.items() if k != "pattern" and (k != "format" or v in TYPED_FORMATS)
    }
    for key in _ONE:
        if key in out:
            out[key] = untyped_formats(out[key])
    for key in _LIST:
        if isinstance(out.get(key), list):
            out[key] = [untyped_formats(s) for s in out[key]]
    for key in _MAP:
        if isinstance(out.get(key), dict):
            out[key] = {name: untyped_formats(s) for name, s in out[key].items()}
    return out


def document(lowered: Lowered, module: Module) -> dict[str, Any]:
    """One JSON Schema document holding every model of a file's signatures, and of the
    named types they use or the file declares, under `$defs`."""
    builder = SchemaBuilder(lowered.project)
    for name in module.types:
        builder.type(ir.Ref(name))
    defs: dict[str, Any] = builder.definitions()
    own: dict[str, Any] = {}
    for sig in module.signatures:
        names = lowered.io[sig.name]
        # Inputs are open maps (extra arguments are kept), as the input validators say.
        inputs = {**lowered.input_schema(sig), "additionalProperties": True}
        for name, schema in ((names.input, inputs), (names.output, lowered.output_schema(sig))):
            body = dict(schema)
            defs.update(body.pop("$defs", {}))
            own[name] = body
    defs = {**dict(sorted(defs.items())), **own}
    return {"$schema": DRAFT, "$defs": {k: untyped_formats(v) for k, v in defs.items()}}


@functools.cache  # reading a distribution's metadata costs ~0.5 ms, once per document before
def _generator_version() -> str:
    from importlib.metadata import version

    return version("datamodel-code-generator")


@functools.cache
def _printer_digest() -> str:
    """The reprint's own code, which shapes the module as much as the generator does."""
    from sigspec.emit.python import pysource, reprint

    digest = hashlib.sha256()
    for module in (pysource, reprint):
        with open(module.__file__ or "", "rb") as source:
            digest.update(source.read())
    return digest.hexdigest()


def _cache_key(text: str) -> str:
    seed = json.dumps([_generator_version(), _printer_digest(), OPTIONS, _ROOT, text])
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def _generate(text: str) -> str:
    from datamodel_code_generator import generate
    from datamodel_code_generator.enums import DataModelType, InputFileType

    result = generate(
        text,
        input_file_type=InputFileType.JsonSchema,
        output_model_type=DataModelType.PydanticV2BaseModel,
        class_name=_ROOT,
        **OPTIONS,
    )
    assert isinstance(result, str), "one document gives one module"
    return result


def render_models(doc: dict[str, Any], header: str, memo: Memo) -> str:
    """The module for one document, from the memo or generated."""
    text = json.dumps(doc, sort_keys=False, ensure_ascii=False)

    def generate() -> str:
        module = _ROOT_CLASS.sub("\n", _generate(text), count=1)
        if _ROOT in module:
            raise RuntimeError("datamodel-code-generator changed how it names the root model")
        return reprint(module, header)

    return memo("models", _cache_key(text + header), generate)


def class_names(module: str) -> frozenset[str]:
    """The top-level classes a generated module defines."""
    tree = ast.parse(module)
    return frozenset(node.name for node in tree.body if isinstance(node, ast.ClassDef))


@dataclass(frozen=True, slots=True)
class Models:
    """One file's models module and the classes it defines."""

    text: str
    classes: frozenset[str]


def models_module(lowered: Lowered, module: Module, memo: Memo) -> Models:
    header = f"# {HEADER.format(source=line_comment(module.source))}"
    text = render_models(document(lowered, module), header, memo)
    return Models(text, class_names(text))
