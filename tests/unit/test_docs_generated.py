"""The generated parts of the committed docs pages (the command-line reference, the table of
what each provider enforces) are what `docs/hooks/generated.py` makes from the code now; the
site builds them afresh (a MkDocs hook), GitHub shows the committed pages."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import ModuleType

import click
import pytest

from conftest import ROOT

HOOK = ROOT / "docs" / "hooks" / "generated.py"


def _generated() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_generated", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATED = _generated()


@pytest.mark.parametrize("page", sorted(GENERATED.PARTS))
def test_the_committed_page_holds_the_generated_parts(page: str, update_goldens: bool) -> None:
    path = ROOT / "docs" / page
    text = path.read_text(encoding="utf-8")
    fresh = GENERATED.fill(page, text)
    if update_goldens:
        path.write_text(fresh, encoding="utf-8")
        return
    assert text == fresh, (
        f"docs/{page} is stale: run `python docs/hooks/generated.py` (or pytest "
        "tests/unit/test_docs_generated.py --update-goldens)"
    )


def test_the_cli_reference_names_every_command_and_option() -> None:
    from sigspec.cli import main

    text = GENERATED.cli_reference()
    for name, command in main.commands.items():
        assert f"## `sigspec {name}`" in text
        for param in command.params:
            if isinstance(param, click.Option):
                assert any(opt in text for opt in param.opts), (name, param.opts)


def test_a_page_that_lost_its_markers_is_an_error() -> None:
    with pytest.raises(ValueError, match="cli-reference"):
        GENERATED.fill("cli.md", "# Command line\n")


def test_the_check_mode_finds_nothing_stale() -> None:
    done = subprocess.run(
        [sys.executable, str(HOOK), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_shell_completion_works_as_the_cli_page_says() -> None:
    """`_SIGSPEC_COMPLETE=..._source sigspec` prints a script for bash, zsh and fish, and
    completing `sigspec comp` offers `compile`."""
    import os

    sigspec = [sys.executable, "-c", "from sigspec.cli import main; main(prog_name='sigspec')"]
    for shell in ("bash", "zsh", "fish"):
        env = {**os.environ, "_SIGSPEC_COMPLETE": f"{shell}_source"}
        done = subprocess.run(sigspec, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0 and "_sigspec_completion" in done.stdout, shell
    env = {
        **os.environ,
        "_SIGSPEC_COMPLETE": "bash_complete",
        "COMP_WORDS": "sigspec comp",
        "COMP_CWORD": "1",
    }
    done = subprocess.run(sigspec, env=env, capture_output=True, text=True, check=False)
    assert "plain,compile" in done.stdout.split()


def test_each_section_is_what_help_prints() -> None:
    """The reference holds each command's `--help` exactly as a terminal shows it."""
    from click.testing import CliRunner

    from sigspec.cli import main

    text = GENERATED.cli_reference()
    runner = CliRunner()
    for args in [[], *([name] for name in main.commands)]:
        shown = runner.invoke(
            main, [*args, "--help"], prog_name="sigspec", terminal_width=GENERATED.WIDTH
        )
        assert shown.exit_code == 0, shown.output
        assert f"```text\n{shown.output}```" in text, args
