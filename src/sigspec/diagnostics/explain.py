"""The long form of a diagnostic code, as `sigspec explain CODE` prints it and as Markdown.

One text for both readers: the command prints `explain_text`, and the SARIF report gives each
rule the same page as its `help` (text and Markdown), so a code-scanning alert explains itself
just as the command line does.
"""

from __future__ import annotations

import re
import textwrap

from sigspec.diagnostics.codes import Code

WIDTH = 88
# A code span (`...`) is kept as written; outside one, these characters mean something to
# Markdown (emphasis, links, HTML, tables) and are escaped.
_CODE_SPAN = re.compile(r"(`[^`]*`)")
_MARKDOWN_SPECIAL = re.compile(r"([\\*_\[\]<>~|#])")


def explain_text(entry: Code) -> str:
    """The page: the code, its severity and summary, the explanation wrapped at 88 columns,
    and the example indented by four spaces."""
    wrapped = textwrap.fill(entry.explanation, width=WIDTH, break_on_hyphens=False)
    parts = [f"{entry.name} ({entry.severity.value}): {entry.summary}", wrapped]
    if entry.example:
        example = "".join(f"    {line}\n" for line in entry.example.splitlines())
        parts.append("Example:\n\n" + example.rstrip("\n"))
    return "\n\n".join(parts) + "\n"


def explain_markdown(entry: Code) -> str:
    """The same page in Markdown: the example in a fenced block, the prose escaped."""
    parts = [
        f"**{entry.name}** ({entry.severity.value}): {_escape(entry.summary)}",
        _escape(entry.explanation),
    ]
    if entry.example:
        fence = "`" * max(3, _longest_backtick_run(entry.example) + 1)
        parts.append(f"Example:\n\n{fence}\n{entry.example.rstrip(chr(10))}\n{fence}")
    return "\n\n".join(parts) + "\n"


def _escape(prose: str) -> str:
    pieces = _CODE_SPAN.split(prose)
    # split() with a group: the odd pieces are the code spans
    return "".join(
        piece if i % 2 else _MARKDOWN_SPECIAL.sub(r"\\\1", piece) for i, piece in enumerate(pieces)
    )


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
