"""Reading the documentation as tests/test_docs.py checks it: the fenced code blocks of a
Markdown file (with the opt-out and file markers above them), its links, and the anchors its
headings make.

A block is a fence of three or more backticks or tildes, possibly indented (inside a list
item); it ends at a fence of the same character, at least as long, with no info string. Its
language is the info string's first word, lower-cased. The line right above the fence (blank
lines between are allowed) may hold a marker:

    <!-- snippet: skip REASON -->    the block is not run; the reason is required and shown
    <!-- snippet: file NAME -->      a `sig` block is saved as NAME in the page's folder, so
                                     that the page's commands can use it (and is checked as
                                     that file)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(?P<kind>\S+)(?P<rest>.*?)-->\s*$")

# The languages a block may be written in, by what the tests do with it. Aliases name the
# language they stand for.
ALIASES = {
    "bash": "sh",
    "shell": "sh",
    "py": "python",
    "python3": "python",
    "typescript": "ts",
    "yml": "yaml",
}
RUN = {"sig", "sh", "python", "toml", "json", "yaml", "ts"}
SHOWN = {"text", "console", "lua", "diff", "mustache", "jsonl", "ini", "vim", "jsonc", "xml"}


@dataclass(frozen=True)
class Block:
    path: Path  # the Markdown file
    line: int  # the line of the opening fence (1-based)
    lang: str  # "" when the fence names none
    text: str  # the content, the fence's indentation removed
    skip: str | None = None  # the reason of a `snippet: skip` marker ("" when it gives none)
    file: str | None = None  # the NAME of a `snippet: file` marker
    marker_error: str | None = None  # a marker that cannot be read
    closed: bool = True

    @property
    def kind(self) -> str:
        return ALIASES.get(self.lang, self.lang)

    def where(self, root: Path) -> str:
        return f"{self.path.relative_to(root).as_posix()}:{self.line}"

    def content_line(self, number: int) -> int:
        """The Markdown file's line of the content's line `number` (1-based)."""
        return self.line + number


def blocks(path: Path) -> list[Block]:
    """Every fenced block of the Markdown file at `path`, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match is None or (match["fence"][0] == "`" and "`" in match["info"]):
            index += 1
            continue
        indent = len(match["indent"].expandtabs())
        fence = match["fence"]
        lang = match["info"].strip().split(" ")[0].strip("{}.").lower() if match["info"] else ""
        skip, file, error = _marker(lines, index)
        body: list[str] = []
        closed = False
        start = index
        index += 1
        while index < len(lines):
            line = lines[index]
            stripped = line.strip()
            if (
                stripped.startswith(fence[0] * len(fence))
                and set(stripped) == {fence[0]}
                and len(line) - len(line.lstrip()) <= indent + 3
            ):
                closed = True
                index += 1
                break
            body.append(_dedent(line, indent))
            index += 1
        text = "\n".join(body) + ("\n" if body else "")
        found.append(Block(path, start + 1, lang, text, skip, file, error, closed))
    return found


def _dedent(line: str, indent: int) -> str:
    removable = len(line) - len(line.lstrip(" "))
    return line[min(indent, removable) :]


def _marker(lines: list[str], fence: int) -> tuple[str | None, str | None, str | None]:
    """The marker above the fence at index `fence`: (skip reason, file name, error)."""
    above = fence - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    if above < 0:
        return None, None, None
    match = MARKER.match(lines[above])
    if match is None:
        if "snippet:" in lines[above] and "<!--" in lines[above]:
            return None, None, f"a marker that cannot be read: {lines[above].strip()}"
        return None, None, None
    kind, rest = match["kind"], match["rest"].strip()
    if kind == "skip":
        return rest, None, None
    if kind == "file":
        if not re.fullmatch(r"[\w.-]+(/[\w.-]+)*", rest) or ".." in rest.split("/"):
            return None, None, f"`snippet: file` needs a relative file name, not {rest!r}"
        return None, rest, None
    return None, None, f"unknown marker `snippet: {kind}` (skip REASON, or file NAME)"


# Links --------------------------------------------------------------------------------------

INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(
    r"!?\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]"  # [text], one level of [] inside
    r"\(\s*<?(?P<target>[^()\s<>]*)>?(?:\s+\"[^\"]*\")?\s*\)"  # (target "title")
)
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(?P<target>\S+?)>?(?:\s+.*)?$")
HTML_HREF = re.compile(r"""<a\s[^>]*href=["'](?P<target>[^"']+)["']""", re.IGNORECASE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:, ...


@dataclass(frozen=True)
class Link:
    path: Path
    line: int
    target: str


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of the Markdown file outside fenced blocks, numbered from 1."""
    inside = {n for b in blocks(path) for n in range(b.line, b.line + b.text.count("\n") + 2)}
    text = path.read_text(encoding="utf-8").splitlines()
    return [(n, line) for n, line in enumerate(text, 1) if n not in inside]


def links(path: Path) -> list[Link]:
    """The links of the Markdown file's prose (inline, reference definitions, HTML `<a
    href>`), code spans and blocks left out."""
    found: list[Link] = []
    for number, line in prose_lines(path):
        plain = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
        for pattern in (LINK, REFERENCE, HTML_HREF):
            for match in pattern.finditer(plain):
                found.append(Link(path, number, match["target"]))
    return found


def is_external(target: str) -> bool:
    return bool(EXTERNAL.match(target)) or target.startswith("//")


# Anchors ------------------------------------------------------------------------------------

HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(?P<text>.*?)(?:\s+#+\s*)?$")
ATTR_ID = re.compile(r"\{[^}]*#(?P<id>[\w-]+)[^}]*\}\s*$")
HTML_ID = re.compile(r"""<[a-z]+\s[^>]*(?:id|name)=["'](?P<id>[^"']+)["']""", re.IGNORECASE)


def heading_text(raw: str) -> str:
    """A heading's text as rendered (markup removed), its `{#id}` attribute list dropped."""
    text = ATTR_ID.sub("", raw).strip()
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "")
    text = re.sub(r"(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1", r"\2", text)
    return text


def mkdocs_slug(text: str) -> str:
    """Python-Markdown's `toc` slugify, as MkDocs uses it: lower-case, punctuation dropped,
    runs of spaces and hyphens to one `-`."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def github_slug(text: str) -> str:
    """GitHub's heading anchors: lower-case, punctuation but `-` and `_` dropped, each space
    to `-`."""
    value = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return value.replace(" ", "-")


def anchors(path: Path, slug: str = "mkdocs") -> set[str]:
    """The anchors of the Markdown file: its headings' (repeated ones numbered as MkDocs
    numbers them, `_1`, or GitHub, `-1`), `{#id}` attribute lists and HTML ids."""
    make = mkdocs_slug if slug == "mkdocs" else github_slug
    sep = "_" if slug == "mkdocs" else "-"
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in prose_lines(path):
        for match in HTML_ID.finditer(line):
            found.add(match["id"])
        heading = HEADING.match(line)
        if heading is None:
            continue
        explicit = ATTR_ID.search(heading["text"])
        if explicit is not None:
            found.add(explicit["id"])
            continue
        base = make(heading_text(heading["text"]))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}{sep}{count}")
    return found


# What a user reads ----------------------------------------------------------------------------

INTERNAL = re.compile(r"\bseeds? 0\d\d|\bdesign cards?\b|\breference/|\bissue #?\d+", re.IGNORECASE)
DESIGN = re.compile(r"\bDESIGN\b")  # the notes' name, in capitals ("design" is a word)


def internal_words(text: str) -> list[str]:
    """Names of documents and notes outside the repository that `text` uses, by line."""
    return [
        f"{number}: {match.group(0)!r} in {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        for pattern in (INTERNAL, DESIGN)
        for match in pattern.finditer(line)
    ]
