"""The VS Code extension's TextMate grammar, run by vscode-textmate (what VS Code itself uses)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT

EXTENSION = ROOT / "editors" / "vscode"
NODE_TOOLS = ROOT / "tests" / "node"

Token = tuple[int, str, list[str]]

SAMPLE = '''\
import "common.sig"
## Documented.
@deprecated("use b") type Pair = {left :int?, type :string, ...}
# sigspec: ignore[unused-type] kept for old callers
type Mode = "a" | "b\\"c"
tool search(q :string) -> [:string]
signature pick(x Pair "the \\"pair\\"") -> {
  n :float = -1.5e3 @clamp(0, 1),
  ok :bool = true,
  gone :int? = null,
  note :string = """line one
{{#items}}{{.}}{{/items}} "quoted" text"""
}
pipeline both = pick
  |> pick
'''


def tokenize(*files: Path) -> dict[Path, list[Token]]:
    node = shutil.which("node")
    assert node, "Node.js is needed to run the TextMate grammar test"
    assert (NODE_TOOLS / "node_modules" / "vscode-textmate").is_dir(), (
        "the test's Node packages are missing: run `npm ci --prefix tests/node`"
    )
    grammar = EXTENSION / "syntaxes" / "sigspec.tmLanguage.json"
    result = subprocess.run(
        [node, str(NODE_TOOLS / "tokenize.mjs"), str(grammar), *map(str, files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    return {
        Path(name): [(line, text, scopes) for line, text, scopes in found[name]] for name in found
    }


def scopes(tokens: list[Token], line: int, text: str) -> list[str]:
    """The scopes of the token with exactly this text on this line (the first one)."""
    for at, token, names in tokens:
        if at == line and token == text:
            assert names[0] == "source.sigspec"
            return names[1:]
    raise AssertionError(f"no token {text!r} on line {line}: {tokens}")


@pytest.fixture(scope="module")
def examples() -> dict[Path, list[Token]]:
    return tokenize(*sorted(EXAMPLES.glob("*.sig")))


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> list[Token]:
    path = tmp_path_factory.mktemp("editor") / "sample.sig"
    path.write_text(SAMPLE, encoding="utf-8")
    return tokenize(path)[path]


def test_every_example_token_is_classified(examples: dict[Path, list[Token]]) -> None:
    """Nothing but whitespace falls through to the bare `source.sigspec` scope."""
    assert len(examples) == len(list(EXAMPLES.glob("*.sig")))
    for path, tokens in examples.items():
        bare = [(line, text) for line, text, names in tokens if len(names) == 1 and text.strip()]
        assert bare == [], path


def test_examples_scopes(examples: dict[Path, list[Token]]) -> None:
    agent = examples[EXAMPLES / "agent.sig"]
    assert scopes(agent, 1, agent[0][1]) == ["comment.line.number-sign.sigspec"]
    assert scopes(agent, 4, agent[3][1]) == [
        "comment.line.double-number-sign.documentation.sigspec"
    ]
    assert scopes(agent, 5, "type") == ["storage.type.type.sigspec"]
    assert scopes(agent, 5, "SubTask") == ["entity.name.type.sigspec"]
    assert scopes(agent, 8, "@prompt") == ["entity.name.function.decorator.sigspec"]
    assert scopes(agent, 8, "{{query}}") == [
        "string.quoted.double.sigspec",
        "variable.other.placeholder.sigspec",
    ]
    assert scopes(agent, 9, "signature") == ["storage.type.signature.sigspec"]
    assert scopes(agent, 9, "agent_step") == ["entity.name.function.sigspec"]
    assert scopes(agent, 9, "query") == ["variable.other.property.sigspec"]
    assert scopes(agent, 9, ":string") == ["support.type.primitive.sigspec"]
    assert scopes(agent, 9, "->") == ["keyword.operator.arrow.sigspec"]
    assert scopes(agent, 12, "0.8") == ["constant.numeric.sigspec"]
    assert scopes(agent, 12, "@clamp") == ["entity.name.function.decorator.sigspec"]
    sentiment = examples[EXAMPLES / "sentiment.sig"]
    assert scopes(sentiment, 2, "import") == ["keyword.control.import.sigspec"]
    assert scopes(sentiment, 2, '"') == ["string.quoted.double.sigspec"]


def test_sample_scopes(sample: list[Token]) -> None:
    assert scopes(sample, 3, "@deprecated") == ["entity.name.function.decorator.sigspec"]
    # A type declaration after an attribute, and a field that happens to be named `type`.
    assert [t for line, t, names in sample if line == 3 and "storage.type.type.sigspec" in names]
    assert scopes(sample, 3, "Pair") == ["entity.name.type.sigspec"]
    assert scopes(sample, 3, "?") == ["keyword.operator.optional.sigspec"]
    assert scopes(sample, 3, "...") == ["keyword.operator.rest.sigspec"]
    field_type = [names[1:] for line, t, names in sample if line == 3 and t == "type"]
    assert field_type == [["storage.type.type.sigspec"], ["variable.other.property.sigspec"]]

    assert scopes(sample, 4, "sigspec: ignore") == [
        "comment.line.number-sign.sigspec",
        "keyword.other.suppression.sigspec",
    ]
    assert scopes(sample, 4, "unused-type") == [
        "comment.line.number-sign.sigspec",
        "constant.other.diagnostic-code.sigspec",
    ]
    assert scopes(sample, 5, "|") == ["keyword.operator.union.sigspec"]
    assert scopes(sample, 5, '\\"') == [
        "string.quoted.double.sigspec",
        "constant.character.escape.sigspec",
    ]
    assert scopes(sample, 6, "tool") == ["storage.type.tool.sigspec"]
    assert scopes(sample, 6, "search") == ["entity.name.function.sigspec"]
    assert scopes(sample, 7, "Pair") == ["entity.name.type.sigspec"]
    assert scopes(sample, 8, "-1.5e3") == ["constant.numeric.sigspec"]
    assert scopes(sample, 9, "true") == ["constant.language.sigspec"]
    assert scopes(sample, 10, "null") == ["constant.language.sigspec"]


def test_triple_quoted_strings_span_lines(sample: list[Token]) -> None:
    assert scopes(sample, 11, "line one") == ["string.quoted.triple.sigspec"]
    assert scopes(sample, 12, "{{#items}}") == [
        "string.quoted.triple.sigspec",
        "variable.other.placeholder.sigspec",
    ]
    # A lone quote inside does not end the string; the closing triple quote does.
    assert scopes(sample, 12, ' "quoted" text') == ["string.quoted.triple.sigspec"]
    assert scopes(sample, 13, "}") == ["punctuation.section.braces.sigspec"]


def test_pipelines(sample: list[Token]) -> None:
    assert scopes(sample, 14, "pipeline") == ["storage.type.pipeline.sigspec"]
    assert scopes(sample, 14, "both") == ["entity.name.function.sigspec"]
    assert scopes(sample, 14, "pick") == ["entity.name.function.sigspec"]
    assert scopes(sample, 15, "|>") == ["keyword.operator.pipe.sigspec"]
    assert scopes(sample, 15, "pick") == ["entity.name.function.sigspec"]


def test_sample_is_valid_sigspec(tmp_path: Path) -> None:
    """The sample exercises real syntax: sigspec itself parses it."""
    from sigspec.diagnostics.source import SourceFile
    from sigspec.syntax.parser import parse_module

    module, diagnostics = parse_module(SourceFile("sample.sig", SAMPLE))
    assert module is not None
    assert [d for d in diagnostics if d.is_error] == []


def test_extension_manifest_points_at_the_grammar() -> None:
    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    [language] = manifest["contributes"]["languages"]
    [grammar] = manifest["contributes"]["grammars"]
    assert language["extensions"] == [".sig"]
    assert grammar["language"] == language["id"]
    assert (EXTENSION / grammar["path"]).is_file()
    assert (EXTENSION / language["configuration"]).is_file()
    tm = json.loads((EXTENSION / grammar["path"]).read_text(encoding="utf-8"))
    assert tm["scopeName"] == grammar["scopeName"]
    json.loads((EXTENSION / language["configuration"]).read_text(encoding="utf-8"))
