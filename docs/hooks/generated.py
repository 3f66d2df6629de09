"""The generated parts of the docs: the command-line reference (from the click commands), the
table of what each provider enforces (from the provider registry) and the table of
diagnostic codes (from the table of codes).

A generated part sits in a page between `<!-- NAME: ... -->` and `<!-- /NAME -->`. MkDocs
runs this file as a hook (`hooks:` in mkdocs.yml): each page is built with its parts
generated afresh, so the site cannot be stale. The committed pages (what GitHub shows) are
held to the same output by `tests/unit/test_docs_generated.py`; rewrite them with
`python docs/hooks/generated.py` (or that test's `--update-goldens`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

DOCS = Path(__file__).resolve().parent.parent
WIDTH = 80  # the help text as a terminal of 80 columns (or wider) shows it


def _help(command: click.Command, name: str, parent: click.Context | None) -> str:
    """`command`'s help as `--help` prints it: its context settings (`-h`) and its parent's."""
    ctx = click.Context(
        command,
        info_name=name,
        parent=parent,
        terminal_width=WIDTH,
        max_content_width=WIDTH,
        **command.context_settings,
    )
    return command.get_help(ctx)


def cli_reference() -> str:
    """Every command's `--help`, as `sigspec COMMAND --help` prints it on a terminal."""
    from sigspec.cli import main

    root = click.Context(
        main,
        info_name="sigspec",
        terminal_width=WIDTH,
        max_content_width=WIDTH,
        **main.context_settings,
    )
    commands = {name: main.commands[name] for name in sorted(main.commands)}
    out = ["| command | what it does |", "|---|---|"]
    for name, command in commands.items():
        anchor = f"sigspec-{name}"
        summary = command.get_short_help_str(limit=300).replace("|", "\\|")
        out.append(f"| [`sigspec {name}`](#{anchor}) | {summary} |")
    out += ["", "## `sigspec`", "", "```text", main.get_help(root), "```"]
    for name, command in commands.items():
        out += ["", f"## `sigspec {name}`", "", "```text", _help(command, name, root), "```"]
    return "\n".join(out) + "\n"


def provider_table() -> str:
    from sigspec.lower.providers.table import enforcement_table

    return enforcement_table()


# Which run finds a phase's codes (`lint` runs the first three and the providers' limits).
_FOUND_BY = {
    "read": "every command, reading files",
    "syntax": "every command, parsing",
    "check": "every command, checking",
    "compile": "`compile`",
    "breaking": "`breaking`",
    "import": "`import`",
}


def diagnostic_codes() -> str:
    """Every diagnostic code with its severity and summary, grouped by the run that finds it."""
    from sigspec.diagnostics.codes import CODES

    out = ["| code | severity | found by | what it means |", "|---|---|---|---|"]
    for phase, found_by in _FOUND_BY.items():
        for code in sorted(CODES.values(), key=lambda c: c.name):
            if code.phase.value == phase:
                summary = code.summary.replace("|", "\\|")
                out.append(f"| `{code.name}` | {code.severity.value} | {found_by} | {summary} |")
    return "\n".join(out) + "\n"


# page (below docs/) -> part name -> its generator
PARTS: dict[str, dict[str, Callable[[], str]]] = {
    "cli.md": {"cli-reference": cli_reference},
    "providers.md": {"provider-table": provider_table},
    "language.md": {"diagnostic-codes": diagnostic_codes},
}


def _block(name: str) -> re.Pattern[str]:
    quoted = re.escape(name)
    return re.compile(rf"(<!-- {quoted}:[^\n]*-->\n)(.*?)(<!-- /{quoted} -->)", re.S)


def fill(page: str, text: str) -> str:
    """`text` of `page` with each generated part written afresh; an error if a part's
    markers are missing."""
    for name, generate in PARTS.get(page, {}).items():
        found = _block(name).search(text)
        if found is None:
            raise ValueError(f"docs/{page} lost its `<!-- {name}: ... -->` markers")
        text = text[: found.start(2)] + generate() + text[found.end(2) :]
    return text


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    """MkDocs hook: the page's generated parts as the code makes them now."""
    return fill(page.file.src_uri, markdown)


def main(argv: list[str]) -> int:
    """Rewrite the committed pages (`--check`: only say which are stale, exit 1)."""
    stale = []
    for page in PARTS:
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        new = fill(page, text)
        if new != text:
            stale.append(page)
            if "--check" not in argv:
                path.write_text(new, encoding="utf-8")
    for page in stale:
        print(("stale: docs/" if "--check" in argv else "rewrote docs/") + page)
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
