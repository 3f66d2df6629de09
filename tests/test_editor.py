"""The VS Code extension (editors/vscode): its TextMate grammar, run by vscode-textmate (what
VS Code itself uses), its snippets (each lints clean as expanded), its manifest and packaging
files. The extension's TypeScript has its own tests (`npm test` in editors/vscode, run by
.ci/run): the settings' command, and `sigspec lsp` started and spoken to over stdio."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT, run_cli

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


TRICKY = """\
type Level = {level 1 | 2 | 3, ratio -2.5 | 0.5, tag "a" | "b", on true | false, none null}
@output(json) @tools(search, fetch-all)
signature s(x 1 | 2, email :string @format(email), n :int @clamp(0, 1)) -> {
  level 1 | 2 # sigspec: ignore[unused-type, bad-code] reason
}
@prompt(\"\"\"two
{{x}} lines\"\"\") @output("text") @deprecated("old")
signature t(y [Level]?) -> {...}
type Keywords = {import :string, tool :string, signature :string, pipeline :string}
"""


@pytest.fixture(scope="module")
def tricky(tmp_path_factory: pytest.TempPathFactory) -> list[Token]:
    path = tmp_path_factory.mktemp("editor") / "tricky.sig"
    path.write_text(TRICKY, encoding="utf-8")
    return tokenize(path)[path]


def all_scopes(tokens: list[Token], line: int, text: str) -> list[list[str]]:
    """The scopes of every token with exactly this text on this line."""
    return [names[1:] for at, token, names in tokens if at == line and token == text]


def test_literal_types_are_constants(tricky: list[Token]) -> None:
    """A field whose type is a literal union: the name is a field, the literals constants."""
    for name in ("level", "ratio", "tag", "on", "none"):
        assert scopes(tricky, 1, name) == ["variable.other.property.sigspec"], name
    for number in ("1", "2", "3", "-2.5", "0.5"):
        assert scopes(tricky, 1, number) == ["constant.numeric.sigspec"], number
    for word in ("true", "false", "null"):
        assert scopes(tricky, 1, word) == ["constant.language.sigspec"], word
    assert all_scopes(tricky, 1, "a") == [["string.quoted.double.sigspec"]]
    assert scopes(tricky, 3, "x") == ["variable.other.property.sigspec"]
    assert all_scopes(tricky, 3, "1") == [["constant.numeric.sigspec"]] * 2
    assert scopes(tricky, 4, "level") == ["variable.other.property.sigspec"]
    assert scopes(tricky, 4, "2") == ["constant.numeric.sigspec"]
    nowhere = [(line, text) for line, text, names in tricky if "entity.name.type.sigspec" in names]
    assert nowhere == [(1, "Level"), (8, "Level"), (9, "Keywords")]


def test_attribute_names_are_what_they_name(tricky: list[Token]) -> None:
    """`@tools(search)` names tools, `@output(json)` a mode, `@format(email)` a format."""
    assert scopes(tricky, 2, "json") == ["support.constant.mode.sigspec"]
    assert scopes(tricky, 2, "search") == ["entity.name.function.tool.sigspec"]
    assert scopes(tricky, 2, "fetch-all") == ["entity.name.function.tool.sigspec"]
    assert all_scopes(tricky, 2, "(") == [["punctuation.section.parens.sigspec"]] * 2
    assert all_scopes(tricky, 3, "email") == [
        ["variable.other.property.sigspec"],
        ["support.constant.format.sigspec"],
    ]
    assert scopes(tricky, 3, "@clamp") == ["entity.name.function.decorator.sigspec"]
    assert all_scopes(tricky, 3, "0") == [["constant.numeric.sigspec"]]
    # A quoted mode is a string; a multi-line argument ends at its parenthesis.
    assert all_scopes(tricky, 7, "text") == [["string.quoted.double.sigspec"]]
    assert scopes(tricky, 7, "{{x}}") == [
        "string.quoted.triple.sigspec",
        "variable.other.placeholder.sigspec",
    ]
    assert scopes(tricky, 7, "@deprecated") == ["entity.name.function.decorator.sigspec"]
    assert scopes(tricky, 8, "signature") == ["storage.type.signature.sigspec"]


def test_keywords_as_field_names(tricky: list[Token]) -> None:
    for name in ("import", "tool", "signature", "pipeline"):
        assert scopes(tricky, 9, name) == ["variable.other.property.sigspec"], name


def test_suppression_lists_each_code(tricky: list[Token]) -> None:
    code = ["comment.line.number-sign.sigspec", "constant.other.diagnostic-code.sigspec"]
    assert scopes(tricky, 4, "unused-type") == code
    assert scopes(tricky, 4, "bad-code") == code


def test_tricky_tokens_are_classified_and_valid(tricky: list[Token]) -> None:
    bare = [(line, text) for line, text, names in tricky if len(names) == 1 and text.strip()]
    assert bare == []
    assert [t for t in tricky if any("invalid" in n for n in t[2])] == []
    from sigspec.diagnostics.source import SourceFile
    from sigspec.syntax.parser import parse_module

    module, diagnostics = parse_module(SourceFile("tricky.sig", TRICKY))
    assert module is not None
    assert [d for d in diagnostics if d.is_error] == []


def test_no_invalid_scopes_in_examples(examples: dict[Path, list[Token]]) -> None:
    for path, tokens in examples.items():
        assert [t for t in tokens if any("invalid" in n for n in t[2])] == [], path


SNIPPETS = EXTENSION / "snippets" / "sigspec.code-snippets"
_PLACEHOLDER = re.compile(r"\$\{\d+:([^}]*)\}|\$\{\d+\|([^,|]*)[^}]*\}|\$\d+")


def expand(body: list[str]) -> str:
    """A snippet as inserted with every placeholder left at its default."""
    return _PLACEHOLDER.sub(lambda m: m.group(1) or m.group(2) or "", "\n".join(body)) + "\n"


def snippets() -> dict[str, dict[str, object]]:
    loaded: dict[str, dict[str, object]] = json.loads(SNIPPETS.read_text(encoding="utf-8"))
    return loaded


def test_expand() -> None:
    assert expand(["a ${1:x} $2", "${3|one,two|}$0"]) == "a x \none\n"


# What a snippet needs around it: a pipeline's steps, an import's file.
CONTEXT = {
    "pipeline": "signature first(text :string) -> {result :string}\n"
    "signature second(result :string) -> {answer :string}\n",
    "test": "signature classify(text :string) -> {label :string}\n",
}


@pytest.mark.parametrize("name", sorted(snippets()))
def test_snippet_lints_clean(name: str, tmp_path: Path) -> None:
    body = snippets()[name]["body"]
    assert isinstance(body, list)
    text = CONTEXT.get(name, "") + expand(body)
    (tmp_path / "common.sig").write_text("type Shared = :string\n", encoding="utf-8")
    (tmp_path / "snippet.sig").write_text(text, encoding="utf-8")
    result = run_cli("lint", "--format", "json", "snippet.sig", cwd=tmp_path)
    assert (result.returncode, json.loads(result.stdout)) == (0, []), text + result.stderr


def test_snippets_cover_the_declarations() -> None:
    prefixes = {str(s["prefix"]) for s in snippets().values()}
    assert prefixes == {"signature", "type", "tool", "pipeline", "import", "test"}
    for name, snippet in snippets().items():
        assert snippet["description"], name
        assert "$0" in "".join(snippet["body"]), name  # type: ignore[arg-type]


def manifest() -> dict[str, object]:
    loaded: dict[str, object] = json.loads((EXTENSION / "package.json").read_text("utf-8"))
    return loaded


def test_manifest_is_complete() -> None:
    found = manifest()
    assert found["main"] == "./dist/extension.js"
    assert "activationEvents" not in found  # contributed languages and commands activate it
    contributes = found["contributes"]
    assert isinstance(contributes, dict)
    [snippet] = contributes["snippets"]
    assert (EXTENSION / snippet["path"]).resolve() == SNIPPETS
    [command] = contributes["commands"]
    assert command["command"] == "sigspec.restartServer"
    properties = contributes["configuration"]["properties"]
    assert properties["sigspec.server.command"]["default"] == ["sigspec", "lsp"]
    assert properties["sigspec.trace.server"]["enum"] == ["off", "messages", "verbose"]
    # A folder's own settings could name any program: not before the user trusts it.
    restricted = found["capabilities"]["untrustedWorkspaces"]["restrictedConfigurations"]  # type: ignore[index]
    assert sorted(restricted) == ["sigspec.server.command", "sigspec.server.env"]
    assert found["license"] == "MIT"
    assert "repository" not in found  # none public yet: vsce runs with --allow-missing-repository


def test_engine_matches_the_vscode_types() -> None:
    """vsce refuses an `engines.vscode` older than `@types/vscode`; the client needs 1.91."""
    found = manifest()
    engine = found["engines"]["vscode"]  # type: ignore[index]
    types = found["devDependencies"]["@types/vscode"]  # type: ignore[index]
    assert engine == f"^{types}"
    lock = json.loads((EXTENSION / "package-lock.json").read_text("utf-8"))
    client = lock["packages"]["node_modules/vscode-languageclient"]
    assert client["engines"]["vscode"] == engine


def test_licence_is_the_projects() -> None:
    assert (EXTENSION / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()


def test_vscodeignore_keeps_only_what_the_extension_needs() -> None:
    """`.vscodeignore` keeps the files `test/vsix-files.txt` lists, which .ci/run compares
    with the built .vsix (where vsce names README `readme.md` and LICENSE `LICENSE.txt`)."""
    lines = (EXTENSION / ".vscodeignore").read_text("utf-8").splitlines()
    assert [line for line in lines if line and not line.startswith(("#", "!"))] == ["**"]
    kept = {line[1:] for line in lines if line.startswith("!")}
    listed = (EXTENSION / "test" / "vsix-files.txt").read_text("utf-8").splitlines()
    assert listed == sorted(listed)
    renamed = {"readme.md": "README.md", "LICENSE.txt": "LICENSE"}
    in_vsix = {
        renamed.get(name.removeprefix("extension/"), name.removeprefix("extension/"))
        for name in listed
        if name.startswith("extension/")
    }
    assert in_vsix == kept
    assert {"extension.vsixmanifest", "[Content_Types].xml"} <= set(listed)
    for name in kept - {"dist/extension.js", "dist/extension.js.map"}:  # `npm run bundle`
        assert (EXTENSION / name).is_file(), name


def test_the_extension_is_versioned_with_sigspec() -> None:
    """A .vsix names the sigspec release it was built with (the lock file agrees)."""
    from sigspec.infra.version import VERSION

    manifest = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((EXTENSION / "package-lock.json").read_text(encoding="utf-8"))
    assert manifest["version"] == lock["version"] == lock["packages"][""]["version"] == VERSION


TESTS = """\
signature classify(text :string, in :int) -> {label :string, score :float, items [{name :string}]}
## A test.
@repeat(3) @min_pass_rate(0.5)
test positive = classify(text = "I love it", in = 1) -> {label == "a", score >= 0.5}
test anything = classify(text = "meh") -> valid
test exact = classify(text = "x") -> {"label": "a", "score": 0.5, "items": []}
test more = classify(text = "x") -> {
  len(items) <= 2, # how many
  items[0].name ~ "^[A-Z]",
  $.score in [1, 2],
  label != "b", score < 1, score > 0
}
test test = classify(text = "valid") -> valid
type test = {test :int, valid :int, in :int, len :int}
"""


@pytest.fixture(scope="module")
def tests_sample(tmp_path_factory: pytest.TempPathFactory) -> list[Token]:
    path = tmp_path_factory.mktemp("editor") / "tests.sig"
    path.write_text(TESTS, encoding="utf-8")
    return tokenize(path)[path]


def test_a_test_head_names_the_test_and_calls_a_function(tests_sample: list[Token]) -> None:
    assert scopes(tests_sample, 4, "test") == ["storage.type.test.sigspec"]
    assert scopes(tests_sample, 4, "positive") == ["entity.name.function.test.sigspec"]
    assert scopes(tests_sample, 4, "classify") == ["entity.name.function.sigspec"]
    assert scopes(tests_sample, 3, "@repeat") == ["entity.name.function.decorator.sigspec"]
    # Arguments name the params they pass, a field or param named `in` too.
    assert scopes(tests_sample, 4, "text") == ["variable.parameter.sigspec"]
    assert scopes(tests_sample, 4, "in") == ["variable.parameter.sigspec"]
    assert scopes(tests_sample, 5, "valid") == ["constant.language.valid.sigspec"]
    assert scopes(tests_sample, 5, "->") == ["keyword.operator.arrow.sigspec"]
    # `test test = ...`: the keyword, then the name; a string "valid" stays a string.
    assert all_scopes(tests_sample, 13, "test") == [
        ["storage.type.test.sigspec"],
        ["entity.name.function.test.sigspec"],
    ]
    assert all_scopes(tests_sample, 13, "valid") == [
        ["string.quoted.double.sigspec"],
        ["constant.language.valid.sigspec"],
    ]


def test_checks_are_subjects_operators_and_values(tests_sample: list[Token]) -> None:
    assert scopes(tests_sample, 4, "label") == ["variable.other.member.sigspec"]
    assert scopes(tests_sample, 4, "==") == ["keyword.operator.comparison.sigspec"]
    assert scopes(tests_sample, 4, ">=") == ["keyword.operator.comparison.sigspec"]
    assert scopes(tests_sample, 4, "0.5") == ["constant.numeric.sigspec"]
    assert scopes(tests_sample, 8, "len") == ["support.function.len.sigspec"]
    assert scopes(tests_sample, 8, "items") == ["variable.other.member.sigspec"]
    assert scopes(tests_sample, 8, "<=") == ["keyword.operator.comparison.sigspec"]
    assert scopes(tests_sample, 8, "# how many") == ["comment.line.number-sign.sigspec"]
    assert scopes(tests_sample, 9, "name") == ["variable.other.member.sigspec"]
    assert scopes(tests_sample, 9, ".") == ["punctuation.accessor.sigspec"]
    assert scopes(tests_sample, 9, "0") == ["constant.numeric.sigspec"]
    assert scopes(tests_sample, 9, "~") == ["keyword.operator.match.sigspec"]
    assert scopes(tests_sample, 10, "$") == ["variable.language.output.sigspec"]
    assert scopes(tests_sample, 10, "in") == ["keyword.operator.in.sigspec"]
    for operator in ("!=", "<", ">"):
        assert scopes(tests_sample, 11, operator) == ["keyword.operator.comparison.sigspec"]
    # An exact value is JSON.
    assert all_scopes(tests_sample, 6, "label") == [["string.quoted.double.sigspec"]]


def test_after_a_test_the_words_are_names_again(tests_sample: list[Token]) -> None:
    assert scopes(tests_sample, 14, "type") == ["storage.type.type.sigspec"]
    assert scopes(tests_sample, 14, "test") == ["entity.name.type.sigspec"]
    for name in ("valid", "in", "len"):
        assert scopes(tests_sample, 14, name) == ["variable.other.property.sigspec"], name
    assert all_scopes(tests_sample, 1, "in") == [["variable.other.property.sigspec"]]


def test_every_test_token_is_classified_and_valid(tests_sample: list[Token]) -> None:
    bare = [(line, text) for line, text, names in tests_sample if len(names) == 1 and text.strip()]
    assert bare == []
    from sigspec.diagnostics.source import SourceFile
    from sigspec.syntax.parser import parse_module

    module, diagnostics = parse_module(SourceFile("tests.sig", TESTS))
    assert module is not None
    assert [d for d in diagnostics if d.is_error] == []
