"""A small Mustache renderer: the subset sigspec's prompt templates use, as the spec says.

Variables (`{{x}}`, `{{{x}}}`, `{{&x}}`, dotted names, `{{.}}`), sections over lists, maps and
truthy values, inverted sections, comments, set-delimiter tags, and standalone-line removal.
No HTML escaping: prompts are text. Values render as text: strings as they are, everything
else as JSON (`true`, `null`, `[1, 2]`). Used by the tests to render the golden templates and
as the reference the generated runtimes follow. Rendering never executes anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class MustacheError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class _Tag:
    kind: str  # "text", "var", "section", "inverted", "close"
    value: str


def _tokens(template: str) -> list[_Tag]:
    out: list[_Tag] = []
    open_, close = "{{", "}}"
    pos = 0
    while True:
        start = template.find(open_, pos)
        if start < 0:
            out.append(_Tag("text", template[pos:]))
            return out
        triple = open_ == "{{" and template.startswith("{{{", start)
        end_mark = "}}}" if triple else close
        end = template.find(end_mark, start + len(open_))
        if end < 0:
            raise MustacheError("unclosed tag")
        body = template[start + len(open_) + (1 if triple else 0) : end].strip()
        line_start = template.rfind("\n", 0, start) + 1
        line_end_nl = template.find("\n", end + len(end_mark))
        line_end = len(template) if line_end_nl < 0 else line_end_nl
        kind = "var" if triple else _kind(body[:1])
        standalone = (
            kind not in ("var", "amp")
            and not template[line_start:start].strip()
            and not template[end + len(end_mark) : line_end].strip()
        )
        text_end = line_start if standalone else start
        out.append(_Tag("text", template[pos:text_end]))
        if kind == "delims":
            open_, close = body[1:-1].strip().split()
        elif kind not in ("comment",):
            name = body if kind in ("var",) and not triple else body[1:].strip()
            out.append(_Tag("var" if kind == "amp" else kind, name if not triple else body))
        pos = (
            (line_end + 1 if line_end_nl >= 0 else line_end) if standalone else end + len(end_mark)
        )


def _kind(sigil: str) -> str:
    return {
        "#": "section",
        "^": "inverted",
        "/": "close",
        "!": "comment",
        "&": "amp",
        "=": "delims",
    }.get(sigil, "var")


def _lookup(name: str, stack: Sequence[Any]) -> Any:
    if name == ".":
        return stack[-1]
    first, *rest = name.split(".")
    for context in reversed(stack):
        if isinstance(context, Mapping) and first in context:
            value = context[first]
            for part in rest:
                value = value.get(part) if isinstance(value, Mapping) else None
            return value
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def render(template: str, values: Mapping[str, Any]) -> str:
    tags = _tokens(template)
    out: list[str] = []
    _render(tags, 0, len(tags), [values], out)
    return "".join(out)


def _section_end(tags: list[_Tag], start: int) -> int:
    depth = 0
    for index in range(start, len(tags)):
        if tags[index].kind in ("section", "inverted"):
            depth += 1
        elif tags[index].kind == "close":
            depth -= 1
            if depth == 0:
                return index
    raise MustacheError(f"section `{tags[start].value}` is not closed")


def _render(tags: list[_Tag], start: int, stop: int, stack: list[Any], out: list[str]) -> None:
    index = start
    while index < stop:
        tag = tags[index]
        if tag.kind == "text":
            out.append(tag.value)
        elif tag.kind == "var":
            out.append(_text(_lookup(tag.value, stack)))
        elif tag.kind in ("section", "inverted"):
            end = _section_end(tags, index)
            value = _lookup(tag.value, stack)
            truthy = bool(value) and value is not False
            if tag.kind == "inverted":
                if not truthy:
                    _render(tags, index + 1, end, stack, out)
            elif isinstance(value, list):
                for item in value:
                    _render(tags, index + 1, end, [*stack, item], out)
            elif truthy:
                _render(tags, index + 1, end, [*stack, value], out)
            index = end
        index += 1


_DELIMITERS = [
    ("<%", "%>"),
    ("[[", "]]"),
    ("<<", ">>"),
    ("(%", "%)"),
    ("{%", "%}"),
    ("<|", "|>"),
    ("[:", ":]"),
]


def literal(text: str) -> str:
    """`text` as template text that renders exactly to `text`: no `{{` in it can open a tag.

    Each run of braces that could start a tag (two or more, or one at either end, where it
    could join a brace of the surrounding template) is wrapped in set-delimiter tags that
    switch to delimiters the text does not contain, and back. The tags sit on the same line
    as the braces, so they are never standalone and never remove a line.
    """
    open_, close = next(
        ((o, c) for o, c in _DELIMITERS if o not in text and c not in text), ("<%", "%>")
    )
    if open_ in text or close in text:  # every pair is taken: fall back to one brace at a time
        open_, close = _rare_pair(text)

    def wrap(match: re.Match[str]) -> str:
        return f"{{{{={open_} {close}=}}}}{match.group(0)}{open_}={{{{ }}}}={close}"

    return re.sub(r"\{\{+|^\{|\{$", wrap, text)


def _rare_pair(text: str) -> tuple[str, str]:
    for size in range(3, 12):
        candidate = "<" + "~" * size, "~" * size + ">"
        if candidate[0] not in text and candidate[1] not in text:
            return candidate
    raise MustacheError("no delimiter pair is free in this text")


def comment(text: str) -> str:
    """A Mustache comment holding `text`, which cannot end the comment early."""
    return "{{! " + text.replace("}}", "} }") + " }}"
