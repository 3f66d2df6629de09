"""File and folder names are data in every target: a name that would end a comment, a
docstring or a Mustache tag is escaped there; one holding a line break, a control character
or a bidirectional control is refused (`unsafe-path`) before anything is written.

One compile of a corpus of hostile names, shared by the assertions: the Python package
imports without running anything from a name (the payloads would create a marker folder),
passes mypy --strict, the TypeScript passes tsc --strict, every JSON file parses, and each
name appears in each file escaped for it, never raw where that would change the meaning.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import run_cli
from sigspec import load
from sigspec.compiler.generate import compile_project
from sigspec.emit.base import HEADER
from sigspec.lower.prompts.escape import comment
from sigspec.lower.quoting import block_comment, docstring, line_comment
from sigspec.runtime.mustache import render
from test_shared_cases import compile_typescript

# Each payload would create the folder named by $SIGSPEC_MARK if it ever ran as Python.
RUN = '__import__("os").mkdir(__import__("os").environ["SIGSPEC_MARK"])'

# Paths below the project root (folders included) that compile, each to one signature.
ALLOWED = [
    f'doc"""; {RUN}; """.sig',  # ends a docstring, runs code, opens another
    "tq\"\"\"'''.sig",
    "cl*/x.sig",  # the folder ends a `/* */` comment in TypeScript
    "op/*x.sig",
    "bs\\x.sig",
    "bs\\N.sig",  # `\N` without `{...}` is a SyntaxError in a Python string
    "bs\\u.sig",
    "end\\.sig",
    "mu{{x}}.sig",  # `}}` ends a Mustache comment
    "mu3}}}.sig",
    "mu4}.sig",
    "dol$x{1}.sig",
    "bt`x${y}`.sig",
    "sq'y.sig",
    'dq"x.sig',
    "ha#x.sig",
    "sp x.sig",
    "uni\u00e9\u4e2d\U0001f600.sig",
    "html-->x<!--.sig",
    "nbsp\u00a0zw\u200bx.sig",  # unprintable but harmless: shown as escapes in comments
]

# Names that no comment can hold as they are: refused, with the character named.
REFUSED = {
    f"x\nimport os; {RUN}\n#.sig": "U+000A",
    "cr\rx.sig": "U+000D",
    "esc\x1b[2Jx.sig": "U+001B",
    "ls\u2028x.sig": "U+2028",
    "ps\u2029x.sig": "U+2029",
    "bidi\u202ex.sig": "U+202E",
    "iso\u2066x.sig": "U+2066",
    "nel\x85x.sig": "U+0085",
    "dir\tname/x.sig": "U+0009",
}


def write(root: Path, names: list[str]) -> None:
    for number, name in enumerate(names):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        head = f'## Doc of s{number}.\n@prompt("Do {{{{a}}}}")\n'
        text = f"{head}signature s{number}(a :string) -> {{x :int}}\n"
        path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus of allowed names, compiled once with every target by the real command."""
    base = tmp_path_factory.mktemp("hostile")
    write(base / "src", ALLOWED)
    result = run_cli("compile", "src", "-o", "out", cwd=base)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    return base


def import_all(package_root: Path, marker: Path) -> subprocess.CompletedProcess[str]:
    """Import every module of the generated package in a fresh interpreter; print each
    module's docstring as JSON."""
    script = (
        "import importlib, json, pathlib, sys\n"
        "root = pathlib.Path(sys.argv[1])\n"
        "sys.path.insert(0, str(root))\n"
        "docs = {}\n"
        "for path in sorted(root.rglob('*.py')):\n"
        "    parts = path.relative_to(root).with_suffix('').parts\n"
        "    name = '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)\n"
        "    docs[name] = importlib.import_module(name).__doc__\n"
        "print(json.dumps(docs))\n"
    )
    env = {**os.environ, "SIGSPEC_MARK": str(marker)}
    return subprocess.run(
        [sys.executable, "-I", "-c", script, str(package_root)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )


def test_the_package_imports_without_running_a_name_and_documents_each(
    hostile: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    run = import_all(hostile / "out" / "python", marker)
    assert run.returncode == 0, run.stderr
    assert not marker.exists()
    docs = json.loads(run.stdout)
    # Each docstring's value is the path itself: escaped in the source, whole in the value.
    for part in ("signatures", "signatures.models", "signatures.client"):
        assert all(name in docs[part] for name in ALLOWED), docs[part]
    # Folders' packages have no docstring: only the files' modules name a path.
    modules = [m for m in docs if m.startswith("signatures.client.") and docs[m] is not None]
    assert len(modules) == len(ALLOWED)
    assert all(any(name in docs[m] for name in ALLOWED) for m in modules)


def test_the_package_passes_mypy_strict(hostile: Path) -> None:
    mypy = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "signatures"],
        cwd=hostile / "out" / "python",
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert mypy.returncode == 0, mypy.stdout


def test_the_typescript_passes_tsc_strict(hostile: Path) -> None:
    compile_typescript(hostile / "out")


def header(source: str) -> str:
    return HEADER.format(source=source)


def test_each_file_shows_its_source_escaped_for_its_language(hostile: Path) -> None:
    out = hostile / "out"
    manifest = json.loads((out / "manifest.json").read_text("utf-8"))
    assert sorted(manifest["inputs"]) == sorted(ALLOWED)
    seen = set()
    for relative in sorted(manifest["files"]):
        path = out / relative
        text = path.read_text("utf-8")
        first = text.splitlines()[0]
        if path.suffix == ".json":
            name = json.loads(text)["$comment"].removeprefix("Code generated by sigspec from ")
            seen.add(name.removesuffix(". DO NOT EDIT."))
        elif path.suffix == ".ts" and relative not in (
            "typescript/_runtime.ts",
            "typescript/_providers.ts",
            "typescript/_stream.ts",
        ):
            name = next(n for n in ALLOWED if first == "// " + header(line_comment(n)))
            assert f" typed clients for {block_comment(name)}.\n" in text
        elif path.suffix == ".py" and relative.count("/") > 2 and not path.name.startswith("_"):
            name = next(n for n in ALLOWED if first == "# " + header(line_comment(n)))
            if "/models/" not in relative:
                assert f"signatures of {docstring(name)}.\n" in text
    assert seen == set(ALLOWED)


def test_prompt_headers_render_to_nothing(hostile: Path) -> None:
    """A name in a Mustache header comment never ends it: the file renders as its body."""
    files = sorted((hostile / "out" / "prompts").rglob("*.mustache"))
    assert files
    for path in files:
        header, _, body = path.read_text("utf-8").partition("\n")
        assert header.startswith("{{! Code generated by sigspec from ")
        values = {"a": "A", "errors": [], "reply": "R"}
        assert render(header + "\n" + body, values) == render(body, values), header


def test_names_that_no_comment_can_hold_are_refused(tmp_path: Path) -> None:
    write(tmp_path / "src", [*REFUSED, "fine.sig"])
    loaded = load([tmp_path / "src"])
    found = {d.path: d.message for d in loaded.diagnostics if d.code == "unsafe-path"}
    assert [d.severity.name for d in loaded.diagnostics] == ["ERROR"] * len(REFUSED)
    assert sorted(found) == sorted(REFUSED)
    for name, char in REFUSED.items():
        assert char in found[name]
        assert found[name].isprintable()  # the message shows the name escaped
    marker = tmp_path / "ran"
    result = run_cli("compile", "src", "-o", "out", cwd=tmp_path, env={"SIGSPEC_MARK": str(marker)})
    printed = result.stdout + result.stderr  # which stream diagnostics take is not this test's
    assert result.returncode == 1, printed
    assert "Traceback" not in printed
    assert printed.count("error[unsafe-path]") == len(REFUSED)
    assert not (tmp_path / "out").exists() and not marker.exists()


def test_an_undecodable_file_name_is_refused(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with open(os.path.join(os.fsencode(tmp_path / "src"), b"bad\xff.sig"), "wb") as f:
        f.write(b"signature f(a :string) -> {x :int}\n")
    # The location prints the name's bytes as they are: read the output as bytes.
    result = subprocess.run(
        [sys.executable, "-m", "sigspec", "compile", "src", "-o", "out"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        timeout=120,
    )
    printed = (result.stdout + result.stderr).decode("utf-8", "replace")
    assert result.returncode == 1, printed
    assert "Traceback" not in printed
    assert "error[unsafe-path]" in printed and "not UTF-8" in printed


def test_emitters_escape_even_a_name_they_are_given_unchecked(tmp_path: Path) -> None:
    """Defence in depth: the targets called on a project whose paths were not checked still
    write comments, not code."""
    write(tmp_path / "src", list(REFUSED))
    loaded = load([tmp_path / "src"])
    result = compile_project(loaded.project, (), {}, inputs={})
    assert result.ok, result.diagnostics
    for artifact in result.files:
        path = tmp_path / "out" / artifact.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(artifact.text, encoding="utf-8")
    marker = tmp_path / "ran"
    run = import_all(tmp_path / "out" / "python", marker)
    assert run.returncode == 0, run.stderr
    assert not marker.exists()
    docs = json.loads(run.stdout)
    assert all(name in docs["signatures"] for name in REFUSED)
    compile_typescript(tmp_path / "out")
    for path in (tmp_path / "out" / "prompts").rglob("*.mustache"):
        header = path.read_text("utf-8").partition("\n")[0]
        assert header.endswith(" }}") and header.isprintable()


# ---- the escapes themselves, over any text --------------------------------------------------

TEXT = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()),
    max_size=40,
)
# Brace and star runs, quotes and backslashes next to each other, where the edge cases are.
NASTY = st.text(alphabet="\"\\*/{}!\n\r\u2028'`$#", max_size=40)


@given(st.one_of(TEXT, NASTY))
def test_a_docstring_holds_any_text_as_its_value(text: str) -> None:
    source = f'"""{docstring(text)}."""'
    assert ast.literal_eval(source) == text + "."
    assert "\n" not in source and "\r" not in source


@given(st.one_of(TEXT, NASTY))
def test_comments_hold_any_text_on_one_line(text: str) -> None:
    for shown in (line_comment(text), block_comment(text), comment(text)):
        assert shown.isprintable()  # no line break of any language, no control
    assert "*/" not in block_comment(text)
    assert comment(text).count("}}") == 1 and comment(text).endswith(" }}")
    assert render(comment(text), {}) == ""
