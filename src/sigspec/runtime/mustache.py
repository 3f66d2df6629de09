"""A small Mustache renderer: the subset sigspec's prompt templates use, as the spec says.

Variables (`{{x}}`, `{{{x}}}`, `{{&x}}`, dotted names, `{{.}}`), sections over lists, maps and
truthy values, inverted sections, comments, set-delimiter tags, and standalone-line removal.
No HTML escaping: prompts are text. Values render as text: strings as they are, everything
else as JSON (`true`, `null`, `[1, 2]`). Rendering never executes anything. Shipped inside
generated packages (the client renders its prompts with it); the checker reads `@prompt`
templates with the same tokenizer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class MustacheError(ValueError):
    """A template that cannot be read; `start` and `end` are where, in the template."""

    def __init__(self, message: str, start: int = 0, end: int = 0) -> None:
        super().__init__(message)
        self.start = start
        self.end = end


@dataclass(frozen=True, slots=True)
class Token:
    """A piece of a template: text, or a tag with its name and its extent in the template.

    Kinds: "text", "var", "section", "inverted", "close", "comment", "delims" (a set-delimiter
    tag), "partial". Rendering ignores the last three; the checker refuses the last two."""

    kind: str
    value: str  # the text, or the tag's name
    start: int = 0
    end: int = 0


_KINDS = {
    "#": "section",
    "^": "inverted",
    "/": "close",
    "!": "comment",
    "&": "var",
    "=": "delims",
}


def tokenize(template: str) -> list[Token]:
    """The template's tokens, in order; standalone lines of non-variable tags removed as the
    Mustache spec says. The one tokenizer: the renderer and the checker both read this."""
    out: list[Token] = []
    open_, close = "{{", "}}"
    pos = 0
    while True:
        start = template.find(open_, pos)
        if start < 0:
            out.append(Token("text", template[pos:], pos, len(template)))
            return out
        triple = open_ == "{{" and template.startswith("{{{", start)
        end_mark = "}}}" if triple else close
        end = template.find(end_mark, start + len(open_))
        if end < 0:
            raise _unclosed(template, start, triple)
        after = end + len(end_mark)
        body = template[start + len(open_) + (1 if triple else 0) : end].strip()
        kind = (
            "var"
            if triple
            else _KINDS.get(body[:1], "partial" if body[:1] == ">" else "var")
        )
        line_start = template.rfind("\n", 0, start) + 1
        line_end_nl = template.find("\n", after)
        line_end = len(template) if line_end_nl < 0 else line_end_nl
        standalone = (
            kind != "var"
            and not template[line_start:start].strip()
            and not template[after:line_end].strip()
        )
        text_end = line_start if standalone else start
        out.append(Token("text", template[pos:text_end], pos, text_end))
        sigil = not triple and body[:1] in "#^/!&=>" and body != ""
        name = body[1:].strip() if sigil else body
        out.append(Token(kind, name, start, after))
        if kind == "delims":
            open_, close = _delimiters(name, template, start, after)
        pos = (line_end + 1 if line_end_nl >= 0 else line_end) if standalone else after


def _unclosed(template: str, start: int, triple: bool) -> MustacheError:
    if triple and template.find("}}", start) >= 0:
        tag = template[start : template.find("}}", start) + 2]
        return MustacheError(
            f"`{tag}` opens with `{{{{{{` but does not close with `}}}}}}`",
            start,
            start + len(tag),
        )
    return MustacheError("a `{{` tag is not closed", start, len(template))


def _delimiters(body: str, template: str, start: int, end: int) -> tuple[str, str]:
    parts = body.removesuffix("=").split()
    if len(parts) != 2:
        raise MustacheError(
            f"`{template[start:end]}` must hold two delimiters, as in {{{{=<% %>=}}}}",
            start,
            end,
        )
    return parts[0], parts[1]


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
    tags = [
        t for t in tokenize(template) if t.kind not in ("comment", "delims", "partial")
    ]
    out: list[str] = []
    _render(tags, 0, len(tags), [values], out)
    return "".join(out)


def _section_end(tags: list[Token], start: int) -> int:
    depth = 0
    for index in range(start, len(tags)):
        if tags[index].kind in ("section", "inverted"):
            depth += 1
        elif tags[index].kind == "close":
            depth -= 1
            if depth == 0:
                return index
    raise MustacheError(f"section `{tags[start].value}` is not closed")


def _render(
    tags: list[Token], start: int, stop: int, stack: list[Any], out: list[str]
) -> None:
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
