"""`--help` of every command, and shell completion: every option appears in its command's help
with a text that says what it does and, for an option that takes a value, its default; every
argument is explained; the command list shows each command's whole summary; `compile --help`
lists every target and target option. Bash, zsh and fish completion scripts come from click
(`_SIGSPEC_COMPLETE=bash_source sigspec`), and bash completes commands and `--target`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sigspec.cli import main

COMMANDS = sorted(main.commands)


def help_text(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def test_the_command_list_shows_whole_summaries() -> None:
    text = help_text().split("Commands:", 1)[1]
    assert "..." not in text  # a summary cut short
    for name in COMMANDS:
        assert f"  {name} " in text


@pytest.mark.parametrize("name", COMMANDS)
def test_every_option_is_explained_with_its_default(name: str) -> None:
    command = main.commands[name]
    text = " ".join(help_text(name).split())
    assert command.help and len(command.help) > 20
    for param in command.params:
        if isinstance(param, click.Argument):
            # An argument is named in the usage line and explained in the description.
            shown = param.make_metavar(click.Context(command)).strip("[]. ")
            assert shown in " ".join(command.help.split()), (name, shown)
            continue
        assert isinstance(param, click.Option)
        for opt in param.opts:
            assert opt in text, (name, opt)
        assert param.help and len(param.help) > 10, (name, param.opts)
        if param.is_flag or param.name == "help":
            continue
        says_default = param.show_default or "default" in param.help
        assert says_default, f"{name} {param.opts[-1]}: its help does not give the default"


def test_compile_help_lists_every_target_and_target_option() -> None:
    from sigspec.emit.options import describe
    from sigspec.emit.registry import TARGETS

    text = help_text("compile")
    epilog = text.split("Targets (", 1)[1]
    for target in TARGETS.values():
        assert f"  {target.name} " in epilog
        for option, _, _ in describe(target.options):
            assert f"{option} = " in epilog


# The installed command: its name makes click's variable, `_SIGSPEC_COMPLETE`.
SIGSPEC = Path(sys.executable).with_name("sigspec")


def complete(words: str, index: int) -> list[str]:
    """What `sigspec` completes, asked as bash's completion function asks it."""
    env = {
        **os.environ,
        "_SIGSPEC_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(index),
    }
    result = subprocess.run(
        [str(SIGSPEC)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return [line.split(",", 1)[1] for line in result.stdout.splitlines()]


def test_completion_of_commands_and_targets() -> None:
    from sigspec.emit.registry import NAMES
    from sigspec.lower.providers import NAMES as PROVIDERS

    assert complete("sigspec comp", 1) == ["compile"]
    assert complete("sigspec ", 1) == COMMANDS
    assert complete("sigspec compile --target ", 3) == list(NAMES)
    assert complete("sigspec lint --provider o", 3) == [p for p in PROVIDERS if p[0] == "o"]
    assert "--watch" in complete("sigspec compile --w", 2)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts(shell: str) -> None:
    result = subprocess.run(
        [str(SIGSPEC)],
        env={**os.environ, "_SIGSPEC_COMPLETE": f"{shell}_source"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "_sigspec_completion" in result.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash on this machine")
def test_bash_completes_through_the_sourced_script() -> None:
    """The script `eval "$(_SIGSPEC_COMPLETE=bash_source sigspec)"` installs, run by bash as
    a <TAB> runs it: `sigspec comp<TAB>` and `sigspec compile --target <TAB>`."""
    bin_dir = SIGSPEC.parent
    program = """
eval "$(_SIGSPEC_COMPLETE=bash_source sigspec)"
ask() { COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()
        _sigspec_completion sigspec; echo "${COMPREPLY[*]}"; }
ask sigspec comp
ask sigspec compile --target ''
"""
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        ["bash", "-c", program], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "compile"
    assert lines[1].split() == ["jsonschema", "providers", "prompts", "python", "typescript"]


def test_counts_take_the_number_they_count() -> None:
    """A count printed with a noun says "1 file", "2 files": messages use `counted` and
    `noun` (`diagnostics/words.py`), never a plural after a number that may be 1."""
    from sigspec.diagnostics.words import counted, were

    assert [counted(n, "file") for n in (0, 1, 2)] == ["0 files", "1 file", "2 files"]
    assert [were(n, "turn") for n in (1, 2)] == ["1 turn was", "2 turns were"]
    root = Path(__file__).resolve().parents[1] / "src" / "sigspec"
    sources = [
        *sorted((root / "commands").rglob("*.py")),
        *sorted((root / "compiler").glob("*.py")),
        root / "emit" / "options.py",
    ]
    nouns = "files|errors|warnings|tests|changes|constraints|declarations|projects|runs|turns"
    plural = re.compile(rf"\{{[^{{}}]*\}} ({nouns}|items|lines|signatures|types)\b|\(s\)")
    allowed = {  # said only when there are several
        "in {done.projects} projects checked:",
        'else f"{len(value)} items"',
    }
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sources
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if plural.search(line) and 'f"' in line and not any(a in line for a in allowed)
    ]
    assert not found, "\n".join(found)


def test_fmt_says_1_file(tmp_path: Path) -> None:
    (tmp_path / "one.sig").write_text("signature   one() -> :int\n", encoding="utf-8")
    result = subprocess.run(
        [str(SIGSPEC), "fmt", "one.sig"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "1 file reformatted, 0 unchanged" in result.stderr


def test_what_users_read_has_no_internal_vocabulary() -> None:
    """Help, diagnostic explanations and the generated files (the goldens) speak the user's
    words: no seed numbers, design cards or reference/ files (test_docs checks the pages)."""
    from docs_snippets import internal_words
    from sigspec.diagnostics.codes import CODES
    from sigspec.diagnostics.explain import explain_text

    texts = {"sigspec --help": help_text()}
    texts |= {f"sigspec {name} --help": help_text(name) for name in COMMANDS}
    texts |= {f"sigspec explain {code}": explain_text(entry) for code, entry in CODES.items()}
    golden = Path(__file__).resolve().parent / "golden"
    texts |= {
        str(path.relative_to(golden)): path.read_text(encoding="utf-8")
        for path in sorted(golden.rglob("*"))
        if path.is_file()
    }
    found = [f"{name}: {hit}" for name, text in texts.items() for hit in internal_words(text)]
    assert not found, "\n".join(found)
