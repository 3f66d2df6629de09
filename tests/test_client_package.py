"""The generated models and client beyond the examples: hostile names, and a venv that has
nothing but pydantic."""

from __future__ import annotations

import importlib
import json
import shutil
import subprocess
import sys
import venv
from importlib.metadata import distribution
from pathlib import Path
from typing import Any

from sigspec import load
from sigspec.compiler.generate import compile_project

HOSTILE = '''\
## A node "of a tree" with \\\\ backslash """ triple and {{mustache}}
type Node = {value :int, children [Node] = [], model_config :string?}
type Color = "red" | "green"

## Doc with """ quotes, a backslash \\\\ and a newline\\n"); import os; os.exit(1)
@prompt("Tell me about {{def}} in {{copy}} ({{json.value}}, {{llm}})")
signature class(def :string, json Node, llm :int = 1, copy Color = "red") -> {
  schema :string "desc with \\"quotes\\" and \\\\ and unicode \u00e9 \u2028",
  from :int?,
  next-action :string,
  open {a :int, ...},
  tags :map
}
'''


def build(root: Path, text: str, package: str) -> Path:
    (root / "h.sig").write_text(text, encoding="utf-8")
    loaded = load([root / "h.sig"], root=root)
    assert not loaded.has_errors, loaded.diagnostics
    result = compile_project(
        loaded.project, ["python"], {"python": {"package": package}}, inputs={}
    )
    assert not [d for d in result.diagnostics if d.is_error]
    for artifact in result.files:
        path = root / "out" / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text, encoding="utf-8")
    return root / "out" / "python"


def test_hostile_names_and_text_give_working_models_and_client(tmp_path: Path) -> None:
    sys.path.insert(0, str(build(tmp_path, HOSTILE, "hostile_pkg")))
    try:
        models = importlib.import_module("hostile_pkg.models.h")
        client = importlib.import_module("hostile_pkg.client.h")
    finally:
        sys.path.pop(0)
    # Keywords and Pydantic's own attribute names are aliased, not clobbered.
    node = models.Node.model_validate({"value": 1, "children": [{"value": 2}], "model_config": "x"})
    assert node.children[0].value == 2 and node.model_config_ == "x"
    out = models.ClassOutput.model_validate(
        {"schema": "s", "next-action": "go", "open": {"a": 1, "extra": True}, "tags": {}}
    )
    assert out.schema_ == "s" and out.next_action == "go" and out.from_ is None
    assert out.open.model_extra == {"extra": True}  # an open map keeps its extras
    described = models.ClassOutput.model_json_schema()["properties"]["schema"]["description"]
    assert described == 'desc with "quotes" and \\ and unicode \u00e9 \u2028'
    assert models.Node.__doc__.strip().startswith('A node "of a tree"')
    assert client.class_.__doc__.startswith('Doc with """ quotes')

    seen: list[dict[str, Any]] = []

    def llm(request: dict[str, Any]) -> str:
        seen.append(request)
        return json.dumps({"schema": "s", "next-action": "n", "open": {"a": 1}, "tags": {}})

    step = client.class_(def_="D", json={"value": 1}, llm_=7, llm=llm)
    assert step.return_.next_action == "n"
    assert "Tell me about D in red (1, 7)" in seen[0]["messages"][0]["content"]


def _copy_distribution(name: str, site: Path, done: set[str]) -> None:
    """Copy an installed distribution (and what it requires) into another site-packages."""
    dist = distribution(name)
    key = dist.metadata["Name"].lower()
    if key in done:
        return
    done.add(key)
    for file in dist.files or ():
        source = Path(str(file.locate()))
        target = site / file
        if source.is_file() and site in target.resolve().parents:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    for requirement in dist.requires or ():
        if "extra ==" in requirement:
            continue
        wanted = requirement.split(";")[0].split("[")[0]
        for stop in "<>=!~ (":
            wanted = wanted.split(stop)[0]
        _copy_distribution(wanted.strip(), site, done)


def test_the_package_runs_with_only_pydantic_installed(
    tmp_path: Path, examples_output: Path
) -> None:
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    copied: set[str] = set()
    _copy_distribution("pydantic", site, copied)
    assert "pydantic" in copied and "datamodel-code-generator" not in copied
    script = """
import importlib.util, json, sys
sys.path.insert(0, sys.argv[1])
for absent in ("sigspec", "datamodel_code_generator", "jsonschema", "jinja2"):
    assert importlib.util.find_spec(absent) is None, absent
from signatures.client import sentiment
replies = iter(['{"sentiment": "great"}', '{"sentiment": "positive", "score": 1}'])
def llm(request):
    if "Classify" in request["messages"][0]["content"]:
        return next(replies)
    return '{"action": "ignore", "priority": 5}'
step = sentiment.triage(text="t", llm=llm)
print(json.dumps([step.return_.model_dump(), len(step.turns)]))
"""
    result = subprocess.run(
        [python, "-I", "-B", "-c", script, str(examples_output / "python")],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    value, turns = json.loads(result.stdout)
    assert value == {"action": "ignore", "priority": 5, "note": None} and turns == 3


def test_function_names_never_shadow_the_module_s_own(tmp_path: Path) -> None:
    text = (
        "signature _v(x :int) -> {y :int}\n"
        "signature Step(x :int) -> {y :int}\n"
        "signature _client(y :int) -> {z :int}\n"
        "pipeline _m_p = _v |> _client\n"
        "signature params(_v :int, _client :string, _m_h :bool) -> {ok :bool}\n"
    )
    sys.path.insert(0, str(build(tmp_path, text, "shadow_pkg")))
    try:
        client = importlib.import_module("shadow_pkg.client.h")
    finally:
        sys.path.pop(0)
    answers = {"_v": '{"y": 2}', "_client": '{"z": 5}'}
    step = client._m_p_(x=1, llm=lambda request: answers[request["signature"]])
    assert step.return_.z == 5 and len(step.turns) == 2
    assert client.Step_(x=1, llm=lambda request: '{"y": 3}').return_.y == 3
    assert client._v_(x=1, llm=lambda request: '{"y": 4}').return_.y == 4
    # Params named like the module's own names are renamed too, and still reach the prompt.
    seen = []
    step = client.params(
        _v_=7, _client_="c", _m_h_=True, llm=lambda r: seen.append(r) or '{"ok": true}'
    )
    prompt = seen[0]["messages"][0]["content"]
    assert step.return_.ok is True and "- _v: 7" in prompt and "- _client: c" in prompt
