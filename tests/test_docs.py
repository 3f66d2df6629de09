"""Every code block of README.md and docs/*.md, run as its language says, and every internal
link followed.

How a block is run (a test per block, named FILE:LINE-LANGUAGE):
- `sig`: a whole .sig file, linted in a copy of examples/ (so `import "common.sig"` works). It
  lints clean, or produces exactly the diagnostics its `# expect: CODE[, CODE]` comments name,
  each on the line the diagnostic starts on.
- `sh`: the commands, run by bash (`-e -o pipefail`) from a copy of examples/ (a docs page)
  or of the repository (README.md), where `sigspec compile` of the examples has written
  build/. Lines starting with `pip install` are left to `.ci/run`'s fresh venvs, and the
  README's test command (`pytest`) is the suite itself; a block of nothing else is skipped,
  saying so.
- `python`: run by `python` in the same folder, with OPENAI_BASE_URL and OPENAI_API_KEY naming
  a scripted server on 127.0.0.1 (tests/docs_server.py) that answers valid JSON for the
  schema asked; PYTHONPATH=... when the text just above the block says to set it.
- `toml`: a configuration sigspec's reader accepts (pyproject.toml form with
  `[tool.sigspec...]`, sigspec.toml form otherwise; other `[tool.*]`/`[project]` tables:
  TOML that parses). `json`, `yaml`: parse. `ts`: a whole program (it imports) is
  type-checked by tsc --strict beside the generated TypeScript; a fragment is shown only.
- `text`, `console` (and a few more, `docs_snippets.SHOWN`): shown, not run. A block with no
  language or an unknown one fails: say what it is.

A block that cannot run as written fails. The one opt-out is a marker right above the fence,
`<!-- snippet: skip REASON -->`: the test is skipped with that reason (pytest's `-rs`
summary lists every one); a marker without a reason fails. `<!-- snippet: file NAME -->`
above a `sig` block saves it as NAME in the page's folder before the page's commands run.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from docs_server import scripted_server
from docs_snippets import (
    RUN,
    SHOWN,
    Block,
    anchors,
    blocks,
    internal_words,
    is_external,
    links,
    prose_lines,
)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
EXAMPLES = ROOT / "examples"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
BLOCKS = [b for page in PAGES for b in blocks(page)]
TSC = ROOT / "tests" / "node" / "node_modules" / ".bin" / "tsc"
TIMEOUT = 120

EXPECT = re.compile(r"#\s*expect:\s*([^#]+)")
# Set-up lines: a venv made or entered, packages installed (`.ci/run` installs on fresh venvs).
SETUP = re.compile(
    r"\b(pip3?|uv pip|pipx) install\b|\bnpm (ci|install)\b|^\s*python3? -m venv\b"
    r"|^\s*(\.|source) \S*bin/activate\b"
)
SUITE = re.compile(r"^\s*(python3? -m )?pytest\b")
PYTHONPATH = re.compile(r"PYTHONPATH=([^\s`'\"]+)")
IGNORED = shutil.ignore_patterns(
    ".git", "node_modules", "build", "dist", "__pycache__", ".venv", "*.egg-info", ".*_cache"
)


def block_id(block: Block) -> str:
    return f"{block.where(ROOT)}-{block.lang or 'unlabeled'}"


# The folders blocks run in ----------------------------------------------------------------


@pytest.fixture(scope="session")
def page_folder(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """The folder a page's blocks run in, made once per page and copied for each block: a
    copy of examples/ (a docs page) or of the repository (README.md), the page's `snippet:
    file` blocks saved in it, then the examples compiled into build/ as the page says (`sigspec
    compile . -o build`, or `sigspec compile examples -o build` from the repository)."""
    made: dict[Path, Path] = {}

    def make(page: Path) -> Path:
        if page in made:
            return made[page]
        folder = tmp_path_factory.mktemp("page") / "work"
        if page == README:
            shutil.copytree(ROOT, folder, ignore=IGNORED, symlinks=True)
            compiled = "examples"
        else:
            shutil.copytree(EXAMPLES, folder, ignore=IGNORED, symlinks=True)
            compiled = "."
        for block in blocks(page):
            if block.file is not None:
                target = folder / block.file
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.text, encoding="utf-8")
        result = subprocess.run(
            [sys.executable, "-m", "sigspec", "compile", compiled, "-o", "build", "-q"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        assert result.returncode == 0, (
            f"the page's folder does not compile (sigspec compile {compiled} -o build):\n"
            + result.stdout
            + result.stderr
        )
        made[page] = folder
        return folder

    return make


def environment(url: str, block: Block) -> dict[str, str]:
    """The environment a block runs in: this venv's commands first on PATH, the scripted
    server as the OpenAI endpoint, no colours; PYTHONPATH when the text above says to set
    it."""
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "OPENAI_BASE_URL": url,
        "OPENAI_API_KEY": "sk-docs-test",
        "NO_COLOR": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    # A proxy configured on the machine must not carry the requests to the scripted server.
    local = "127.0.0.1,localhost"
    for name in ("NO_PROXY", "no_proxy"):
        env[name] = f"{env[name]},{local}" if env.get(name) else local
    env.pop("PYTHONPATH", None)
    said = PYTHONPATH.search(text_above(block))
    if said is not None:
        env["PYTHONPATH"] = said.group(1)
    return env


def text_above(block: Block) -> str:
    """The prose between the block and the block or heading before it."""
    previous = [b for b in blocks(block.path) if b.line < block.line]
    start = previous[-1].line + previous[-1].text.count("\n") + 1 if previous else 0
    above: list[str] = []
    for n, line in prose_lines(block.path):
        if start < n < block.line:
            above = [] if line.lstrip().startswith("#") else [*above, line]
    return "\n".join(above)


def run(command: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            command,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"did not finish in {TIMEOUT} s (a command that waits, like --watch or lsp?)")


# The blocks ---------------------------------------------------------------------------------


def test_the_pages_have_blocks() -> None:
    """The collector finds the README's blocks (a change to how it reads fences would
    otherwise pass by checking nothing)."""
    assert README.is_file()
    assert [b for b in BLOCKS if b.path == README], "no code blocks found in README.md"


@pytest.mark.parametrize("block", BLOCKS, ids=block_id)
def test_block(block: Block, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    where = block.where(ROOT)
    if not block.closed:
        pytest.fail(f"{where}: the fence is never closed")
    if block.marker_error is not None:
        pytest.fail(f"{where}: {block.marker_error}")
    if block.skip is not None:
        if not block.skip:
            pytest.fail(f"{where}: `<!-- snippet: skip -->` needs a reason after `skip`")
        pytest.skip(f"{where}: {block.skip}")
    if block.file is not None and block.kind != "sig":
        pytest.fail(f"{where}: `snippet: file` is for sig blocks, not {block.lang or 'unlabeled'}")
    kind = block.kind
    if not kind:
        pytest.fail(
            f"{where}: a block with no language: name it (sig, sh, python, toml, json, yaml, "
            "ts run; text or console are shown only)"
        )
    if kind in SHOWN or (kind == "ts" and not re.search(r"^\s*import\s", block.text, re.M)):
        return  # shown only (a TypeScript fragment, not a program, too)
    if kind not in RUN:
        pytest.fail(f"{where}: unknown language `{block.lang}` (use text to show it as it is)")
    if kind in PARSED:
        PARSED[kind](block, tmp_path)
        return
    folder = tmp_path / "work"
    shutil.copytree(request.getfixturevalue("page_folder")(block.path), folder, symlinks=True)
    {"sig": check_sig, "sh": check_sh, "python": check_python, "ts": check_ts}[kind](block, folder)


def check_json(block: Block, _: Path) -> None:
    try:
        json.loads(block.text)
    except ValueError as exc:
        pytest.fail(f"{block.where(ROOT)}: not JSON: {exc}")


def check_yaml(block: Block, _: Path) -> None:
    try:
        list(yaml.safe_load_all(block.text))
    except yaml.YAMLError as exc:
        pytest.fail(f"{block.where(ROOT)}: not YAML: {exc}")


def check_sig(block: Block, folder: Path) -> None:
    name = block.file or "snippet.sig"
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(block.text, encoding="utf-8")
    result = run(
        [sys.executable, "-m", "sigspec", "lint", "--format", "json", name],
        folder,
        environment("http://127.0.0.1:9/v1", block),
    )
    if result.returncode not in (0, 1):
        pytest.fail(f"{block.where(ROOT)}: sigspec lint failed:\n{result.stderr}")
    found: set[tuple[int, str]] = set()
    elsewhere: list[str] = []
    for d in json.loads(result.stdout):
        if Path(d["path"]) == Path(name):
            found.add((block.content_line(d["line"]), d["code"]))
        else:
            elsewhere.append(f"{d['path']}:{d['line']}: {d['code']}: {d['message']}")
    expected = {
        (block.content_line(number), code.strip())
        for number, line in enumerate(block.text.splitlines(), 1)
        if (match := EXPECT.search(line))
        for code in match.group(1).split(",")
    }
    messages = {
        (block.content_line(d["line"]), d["code"]): d["message"]
        for d in json.loads(result.stdout)
        if Path(d["path"]) == Path(name)
    }
    problems = [
        f"{block.path.name}:{line}: {code}: {messages[(line, code)]} (not marked `# expect:`)"
        for line, code in sorted(found - expected)
    ] + [
        f"{block.path.name}:{line}: expected {code}, not reported"
        for line, code in sorted(expected - found)
    ]
    problems += [f"in an imported file: {e}" for e in elsewhere]
    assert not problems, "\n".join(problems)


def script(block: Block) -> tuple[str, list[str]]:
    """The block's commands, less those left to others: (the script, the lines left out)."""
    kept: list[str] = []
    left: list[str] = []
    continued = False
    for line in block.text.splitlines():
        leave = continued or SETUP.search(line) or (block.path == README and SUITE.match(line))
        continued = bool(leave) and line.rstrip().endswith("\\")
        (left if leave else kept).append(line)
    return "\n".join(kept) + "\n", left


def check_sh(block: Block, folder: Path) -> None:
    text, left = script(block)
    if not text.strip() or all(line.lstrip().startswith("#") for line in text.strip().splitlines()):
        pytest.skip(
            f"{block.where(ROOT)}: only set-up commands ({'; '.join(left)}): run on fresh "
            "venvs by .ci/run, or the test suite itself"
        )
    with scripted_server() as server:
        result = run(
            ["bash", "-e", "-o", "pipefail", "-c", text], folder, environment(server.url, block)
        )
    assert result.returncode == 0, (
        f"{block.where(ROOT)}: exit {result.returncode}\n--- stdout\n{result.stdout}"
        f"\n--- stderr\n{result.stderr}"
    )


def check_python(block: Block, folder: Path) -> None:
    (folder / "snippet.py").write_text(block.text, encoding="utf-8")
    with scripted_server() as server:
        result = run([sys.executable, "snippet.py"], folder, environment(server.url, block))
    assert result.returncode == 0, (
        f"{block.where(ROOT)}: exit {result.returncode}\n--- stdout\n{result.stdout}"
        f"\n--- stderr\n{result.stderr}"
    )
    assert not server.errors, f"{block.where(ROOT)}: the scripted server could not answer: " + (
        "; ".join(server.errors)
    )


TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "es2022",
        "module": "nodenext",
        "lib": ["es2022", "dom"],
        "types": [],
        "noEmit": True,
        "noUncheckedIndexedAccess": True,
    },
    "files": ["snippet.ts", "node.d.ts"],
}
# What a snippet may take from Node beyond the standard library's types (tests/node has no
# @types/node, and the generated TypeScript must not need it): a program's environment.
NODE_GLOBALS = "declare const process: { env: Record<string, string | undefined> };\n"


def check_ts(block: Block, folder: Path) -> None:
    if shutil.which("node") is None or not TSC.exists():
        pytest.fail("Node and tests/node's packages are needed: npm ci --prefix tests/node")
    (folder / "snippet.ts").write_text(block.text, encoding="utf-8")
    (folder / "node.d.ts").write_text(NODE_GLOBALS, encoding="utf-8")
    (folder / "tsconfig.json").write_text(json.dumps(TSCONFIG), encoding="utf-8")
    if not (folder / "package.json").exists():
        (folder / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    result = run([str(TSC), "-p", str(folder)], folder, dict(os.environ))
    assert result.returncode == 0, f"{block.where(ROOT)}: tsc:\n{result.stdout}{result.stderr}"


def check_toml(block: Block, tmp_path: Path) -> None:
    from sigspec.compiler.config import KEYS, ConfigError, load_config

    where = block.where(ROOT)
    try:
        data = tomllib.loads(block.text)
    except tomllib.TOMLDecodeError as exc:
        pytest.fail(f"{where}: not TOML: {exc}")
    sigspec_table = "sigspec" in data.get("tool", {})
    if not sigspec_table and not set(data) & KEYS:
        return  # another tool's configuration (pyproject's [project], an editor's): it parses
    folder = tmp_path / "config"
    folder.mkdir()
    name = "pyproject.toml" if sigspec_table else "sigspec.toml"
    (folder / name).write_text(block.text, encoding="utf-8")
    try:
        config = load_config(folder)
    except ConfigError as exc:
        pytest.fail(f"{where}: sigspec does not accept it as {name}: {exc}")
    assert config.path == folder / name, f"{where}: sigspec did not read it as {name}"
    assert not config.warnings, f"{where}: " + "; ".join(d.message for d in config.warnings)


PARSED: dict[str, Callable[[Block, Path], None]] = {
    "json": check_json,
    "yaml": check_yaml,
    "toml": check_toml,
}


# Links --------------------------------------------------------------------------------------


def link_problems(page: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the page's relative links, in the repository at `root` (its
    README.md and docs/)."""
    readme, docs = root / "README.md", root / "docs"
    problems: list[str] = []
    for link in links(page):
        if is_external(link.target):
            continue
        where = f"{page.relative_to(root).as_posix()}:{link.line}: {link.target}"
        path_part, _, anchor = link.target.partition("#")
        target = (page.parent / path_part).resolve() if path_part else page
        if not target.is_relative_to(root):
            problems.append(f"{where}: points outside the repository")
            continue
        if not target.exists():
            problems.append(f"{where}: no such file")
            continue
        if page != readme and not target.is_relative_to(docs):
            problems.append(f"{where}: outside docs/, so not part of the site")
            continue
        if anchor and target.suffix == ".md":
            found = anchors(target, "mkdocs")
            if readme in (page, target):
                found |= anchors(target, "github")
            if anchor not in found:
                problems.append(f"{where}: no heading or id makes the anchor #{anchor}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_internal_links(page: Path) -> None:
    """Each relative link names a file of the repository (for a docs page, of docs/) and an
    anchor one of its headings makes (MkDocs's: lower-case, punctuation dropped, spaces to
    `-`; for the README, GitHub's too)."""
    problems = link_problems(page)
    assert not problems, "\n".join(problems)


# What a user reads ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [*PAGES, *sorted(EXAMPLES.glob("*.sig"))],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_no_internal_vocabulary(path: Path) -> None:
    """What users read speaks their words: no names of documents or notes outside the
    repository (seed numbers, design cards, reference/ files, issue numbers)."""
    found = internal_words(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)}:\n" + "\n".join(found)


# The collector itself ------------------------------------------------------------------------

SAMPLE = """# A page

Intro with `[not a link](nowhere.md)` and [a link](other.md#the-sigspec-compile-command).

<!-- snippet: skip needs a model with tools -->
```python
call()
```

1. In a list:

   ```sh
   sigspec lint .
   ```

<!-- snippet: file hello.sig -->

~~~sig
signature hello(name :string) -> :string
~~~

````text
```sig
not a block of its own
```
````

## The `sigspec compile` command!

## The `sigspec compile` command!

<!-- snippet: skip -->
```sh
pip install sigspec
python3 -m venv .venv && . .venv/bin/activate
sigspec compile . \\
  -o build
```

```
no language
"""


def test_the_collector_reads_fences_markers_links_and_anchors(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(SAMPLE, encoding="utf-8")
    found = blocks(page)
    assert [(b.line, b.kind, b.skip, b.file, b.closed) for b in found] == [
        (6, "python", "needs a model with tools", None, True),
        (12, "sh", None, None, True),
        (18, "sig", None, "hello.sig", True),
        (22, "text", None, None, True),
        (33, "sh", "", None, True),
        (40, "", None, None, False),
    ]
    assert found[1].text == "sigspec lint .\n"  # the list item's indentation removed
    assert found[3].text == "```sig\nnot a block of its own\n```\n"
    assert [link.target for link in links(page)] == ["other.md#the-sigspec-compile-command"]
    assert {"a-page", "the-sigspec-compile-command", "the-sigspec-compile-command_1"} <= anchors(
        page
    )
    assert "the-sigspec-compile-command-1" in anchors(page, "github")
    text, left = script(found[4])
    assert text == "sigspec compile . \\\n  -o build\n"
    assert left == ["pip install sigspec", "python3 -m venv .venv && . .venv/bin/activate"]


def test_the_scripted_server_answers_valid_values_of_the_examples_schemas(
    examples_output: Path,
) -> None:
    """Every output schema of the examples gets a value it accepts (jsonschema judges)."""
    import jsonschema

    from docs_server import instance

    schemas = sorted((examples_output / "jsonschema").rglob("*.json"))
    assert schemas
    for path in schemas:
        schema = json.loads(path.read_text(encoding="utf-8"))
        jsonschema.validate(instance(schema, schema), schema, format_checker=None)


def test_the_link_check_finds_each_kind_of_broken_link(tmp_path: Path) -> None:
    root = (tmp_path / "repo").resolve()
    (root / "docs").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "src" / "x.py").write_text("", encoding="utf-8")
    (root / "README.md").write_text(
        "# Top\n\n[ok](docs/a.md#the-a-page) [gh](#top) [bad](docs/a.md#nope)\n",
        encoding="utf-8",
    )
    (root / "docs" / "a.md").write_text(
        "# The `a` page!\n\n## Two  words\n\n[self](#two-words) [up](../src/x.py) "
        "[out](../../elsewhere.md) [gone](b.md) [web](https://example.com/x.md) "
        "`[code](c.md)`\n",
        encoding="utf-8",
    )
    assert link_problems(root / "README.md", root) == [
        "README.md:3: docs/a.md#nope: no heading or id makes the anchor #nope"
    ]
    assert link_problems(root / "docs" / "a.md", root) == [
        "docs/a.md:5: ../src/x.py: outside docs/, so not part of the site",
        "docs/a.md:5: ../../elsewhere.md: points outside the repository",
        "docs/a.md:5: b.md: no such file",
    ]
