"""`sigspec import`: exit codes, where the text goes, `-o`, and Pydantic models whose compiled
import judges values as Pydantic does."""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import run_cli
from sigspec.compiler.project import load
from sigspec.lower.schema import SchemaBuilder

ORDER = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Order",
    "type": "object",
    "properties": {"id": {"type": "integer", "minimum": 1}, "note": {"type": "string"}},
    "required": ["id"],
    "additionalProperties": False,
}


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_imports_to_standard_output_with_warnings_on_standard_error(tmp_path: Path) -> None:
    schema = write_json(tmp_path / "order.json", ORDER)
    result = run_cli("import", str(schema))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "type Order = {id :int @min(1), note :string?}\n"
    assert "warning[import-approximated]" in result.stderr
    assert "#/properties/note" in result.stderr


def test_json_diagnostics(tmp_path: Path) -> None:
    schema = write_json(tmp_path / "s.json", {"type": "object", "not": {"required": ["a"]}})
    result = run_cli("import", str(schema), "--format", "json")
    assert result.returncode == 1
    found = json.loads(result.stderr)
    assert [(d["code"], d["severity"]) for d in found] == [("import-unsupported", "error")]
    assert found[0]["message"].endswith("at #/not")
    assert result.stdout == "type s = :map\n"  # printed as a starting point


def test_output_file_written_once_clean_and_never_over_an_existing_one(tmp_path: Path) -> None:
    schema = write_json(tmp_path / "order.json", ORDER)
    out = tmp_path / "order.sig"
    assert run_cli("import", str(schema), "-o", str(out), "--name", "Ord").returncode == 0
    assert out.read_text(encoding="utf-8").startswith("type Ord = ")
    again = run_cli("import", str(schema), "-o", str(out))
    assert again.returncode == 2 and "--force" in again.stderr
    assert run_cli("import", str(schema), "-o", str(out), "--force").returncode == 0
    assert out.read_text(encoding="utf-8").startswith("type Order = ")


def test_errors_write_no_output_file(tmp_path: Path) -> None:
    schema = write_json(tmp_path / "s.json", {"type": "integer", "multipleOf": 3})
    out = tmp_path / "s.sig"
    result = run_cli("import", str(schema), "-o", str(out))
    assert result.returncode == 1
    assert not out.exists()
    assert "#/multipleOf" in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", "is not JSON"),
        ("[1, 2]", "not a JSON Schema"),
        ('{"openapi": "3.1.0", "paths": {}}', "components.schemas"),
        ('{"type": "integer", "maximum": ' + "9" * 5000 + "}", "cannot be read"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "in.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = run_cli("import", str(path))
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_fifo_or_a_folder_is_refused_without_waiting(tmp_path: Path) -> None:
    """Reading a fifo would block until something writes to it; `run_cli` has a timeout."""
    fifo = tmp_path / "schema.json"
    os.mkfifo(fifo)
    result = run_cli("import", str(fifo))
    assert result.returncode == 2
    assert "it is a fifo, not a file" in result.stderr
    folder = run_cli("import", str(tmp_path))
    assert folder.returncode == 2 and "it is a folder, not a file" in folder.stderr


def test_a_module_that_fails_to_import_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    result = run_cli("import", "broken:Model", cwd=tmp_path)
    assert result.returncode == 2
    assert "cannot import broken:Model: RuntimeError: boom" in result.stderr
    assert "Traceback" not in result.stderr
    missing = run_cli("import", "nowhere:Model", cwd=tmp_path)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_openapi_components(tmp_path: Path) -> None:
    doc = {
        "openapi": "3.1.0",
        "components": {
            "schemas": {
                "Pet": {
                    "type": "object",
                    "properties": {"kind": {"$ref": "#/components/schemas/Kind"}},
                    "required": ["kind"],
                },
                "Kind": {"enum": ["cat", "dog"], "description": "What it is."},
            }
        },
    }
    result = run_cli("import", str(write_json(tmp_path / "api.json", doc)))
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        'type Pet = {kind Kind, ...}\n\n## What it is.\ntype Kind = "cat" | "dog"\n'
    )


def test_draft_07_definitions_and_a_remote_ref(tmp_path: Path) -> None:
    doc = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"A": {"type": "string"}},
        "type": "object",
        "properties": {
            "a": {"$ref": "#/definitions/A", "maxLength": 3},  # ignored beside $ref in draft-07
            "b": {"$ref": "https://example.com/b.json"},
        },
        "required": ["a", "b"],
    }
    result = run_cli("import", str(write_json(tmp_path / "d7.json", doc)), "--name", "D")
    assert result.returncode == 1
    assert result.stdout == "type D = {a A, b :any, ...}\n\ntype A = :string\n"
    assert "error[import-unresolved-ref]" in result.stderr
    assert "#/properties/b" in result.stderr


# ---- Pydantic ----------------------------------------------------------------------------------

MODELS = '''
from __future__ import annotations

from enum import Enum
from typing import Optional

from pydantic import BaseModel, Field


class Color(str, Enum):
    red = "red"
    green = "green"


class Part(BaseModel):
    """A part of an order."""

    sku: str = Field(pattern="^[A-Z]{3}-[0-9]+$", description="Stock code")
    count: int = Field(ge=1, le=99)


class Node(BaseModel):
    name: str = Field(min_length=1, max_length=8)
    children: list[Node] = []


class Order(BaseModel):
    id: int
    color: Color
    note: Optional[str] = None
    parts: list[Part] = Field(min_length=1)
    weight: float = Field(default=1.5, ge=0)
    tree: Optional[Node] = None
'''

VALUES: list[Any] = [
    {"id": 1, "color": "red", "parts": [{"sku": "ABC-1", "count": 2}]},
    {"id": 1, "color": "blue", "parts": [{"sku": "ABC-1", "count": 2}]},
    {"id": 1, "color": "red", "parts": []},
    {"id": 1, "color": "red", "parts": [{"sku": "abc-1", "count": 2}]},
    {"id": 1, "color": "red", "parts": [{"sku": "ABC-1", "count": 100}]},
    {"id": 1, "color": "red", "parts": [{"sku": "ABC-1", "count": 0}]},
    {"id": "1", "color": "red", "parts": [{"sku": "ABC-1", "count": 2}]},
    {"color": "red", "parts": [{"sku": "ABC-1", "count": 2}]},
    {"id": 2, "color": "green", "note": None, "parts": [{"sku": "XYZ-9", "count": 99}]},
    {"id": 2, "color": "green", "note": 5, "parts": [{"sku": "XYZ-9", "count": 1}]},
    {"id": 3, "color": "red", "parts": [{"sku": "ABC-1", "count": 2}], "weight": -1},
    {"id": 3, "color": "red", "parts": [{"sku": "ABC-1", "count": 2}], "weight": 0},
    {"id": 3, "color": "red", "parts": [{"sku": "A", "count": 2}], "tree": {"name": "r"}},
    {
        "id": 3,
        "color": "red",
        "parts": [{"sku": "ABC-12", "count": 2}],
        "tree": {"name": "r", "children": [{"name": "a", "children": [{"name": ""}]}]},
    },
    {
        "id": 3,
        "color": "red",
        "parts": [{"sku": "ABC-12", "count": 2}],
        "tree": {"name": "r", "children": [{"name": "toolongname"}]},
    },
    {
        "id": 3,
        "color": "red",
        "parts": [{"sku": "ABC-12", "count": 2}],
        "tree": {"name": "r", "children": [{"name": "ok", "children": []}]},
    },
]


def test_pydantic_models_judge_values_as_pydantic_does(tmp_path: Path) -> None:
    pydantic = pytest.importorskip("pydantic")
    (tmp_path / "shop.py").write_text(textwrap.dedent(MODELS), encoding="utf-8")
    out = tmp_path / "order.sig"
    result = run_cli("import", "shop:Order", "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    loaded = load([out], root=tmp_path, parallel=False)
    assert not loaded.has_errors, [d.message for d in loaded.diagnostics]
    builder = SchemaBuilder(loaded.project)
    schema = builder.type(loaded.project.types["Order"].type)
    schema = {**schema, "$defs": builder.definitions()}
    validator = jsonschema.Draft202012Validator(schema)

    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        import shop  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(tmp_path))
    for value in VALUES:
        try:
            shop.Order.model_validate_json(json.dumps(value), strict=True)
            expected = True
        except pydantic.ValidationError:
            expected = False
        assert validator.is_valid(value) == expected, (value, out.read_text(encoding="utf-8"))


def test_a_description_never_shows_as_code(tmp_path: Path) -> None:
    # A CR or a line separator in a description would show as a line of code in an editor.
    schema = {"title": "A", "description": "one\rtype Evil = :int\u2028two", "type": "object"}
    path = tmp_path / "a.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    result = run_cli("import", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("## one\n## type Evil = :int\n## two\ntype A = ")
    assert "\r" not in result.stdout and "\u2028" not in result.stdout
