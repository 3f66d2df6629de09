"""Prettier's document algebra and line printer, ported, so that generated TypeScript comes out
exactly as `prettier` (defaults: 80 columns, 2-space indent) would print it.

A document is a string, a list (concatenation) or one of the nodes below. `render` is
Prettier's `printDocToString`: a group prints flat when it fits in what is left of the line
(measured up to the next possible line break), else broken; a `Fill` packs as many parts per
line as fit. The TypeScript builders (`tssource.py`) shape documents as Prettier's printers do
for the few constructs generated code uses. Users never need Prettier: the emitter is the
formatter; the tests run Prettier to prove the two agree.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

WIDTH = 80


@dataclass(eq=False)
class Group:
    contents: Doc
    brk: bool = False
    id: object | None = None  # for `IfBreak` and `IndentIfBreak` to ask how it printed
    states: tuple[Doc, ...] = ()  # Prettier's conditionalGroup: tried in order

    def __post_init__(self) -> None:
        # Prettier's propagateBreaks, done as the document is built: a group holding a hard
        # line or a broken group breaks (a conditional group chooses for itself).
        if not self.brk and not self.states:
            self.brk = holds_break(self.contents)


@dataclass(frozen=True, eq=False)
class Indent:
    contents: Doc
    by: int | None = None  # None: one level (2 spaces); else `align(by)`


@dataclass(frozen=True, eq=False)
class Line:
    soft: bool = False
    hard: bool = False


@dataclass(frozen=True, eq=False)
class IfBreak:
    broken: Doc
    flat: Doc = ""
    group: object | None = None


@dataclass(frozen=True, eq=False)
class IndentIfBreak:
    contents: Doc
    group: object


@dataclass(frozen=True, eq=False)
class Fill:
    parts: tuple[Doc, ...]


@dataclass(frozen=True, eq=False)
class BreakParent:
    pass


Doc = str | list["Doc"] | Group | Indent | Line | IfBreak | IndentIfBreak | Fill | BreakParent

LINE = Line()
SOFTLINE = Line(soft=True)
HARDLINE: Doc = [Line(hard=True), BreakParent()]


def group(contents: Doc, *, brk: bool = False, gid: object | None = None) -> Group:
    return Group(contents, brk, gid)


def new_id() -> object:
    """A group id: any object, unique by identity (Prettier uses a Symbol)."""
    return object()


def join(sep: Doc, docs: Sequence[Doc]) -> list[Doc]:
    out: list[Doc] = []
    for i, d in enumerate(docs):
        if i:
            out.append(sep)
        out.append(d)
    return out


def width(text: str) -> int:
    """Columns `text` takes, as Prettier counts them (wide characters 2, combining 0)."""
    if text.isascii():
        return len(text)
    n = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def _children(doc: Doc) -> Iterator[Doc]:
    match doc:
        case list():
            yield from doc
        case Group():
            yield from doc.states or (doc.contents,)
        case Indent() | IndentIfBreak():
            yield doc.contents
        case IfBreak():
            yield doc.broken
            yield doc.flat
        case Fill():
            yield from doc.parts
        case _:
            pass


def holds_break(doc: Doc) -> bool:
    """Whether `doc` holds a hard line or a broken group (groups know their own)."""
    if isinstance(doc, Group):
        return doc.brk
    if isinstance(doc, BreakParent):
        return True
    return not isinstance(doc, str) and any(holds_break(c) for c in _children(doc))


_Cmd = tuple[str, bool, "Doc"]  # indentation, broken (else flat), document


@dataclass
class _Printer:
    out: list[str] = field(default_factory=list)
    pos: int = 0
    modes: dict[object, bool] = field(default_factory=dict)  # group id -> broken

    def fits(self, next_: _Cmd, rest: list[_Cmd], room: int, must_be_flat: bool = False) -> bool:
        """Whether `next_` flat, then `rest` up to its first line break, fits in `room`."""
        rest_idx = len(rest)
        cmds = [(next_[1], next_[2])]
        while room >= 0:
            if not cmds:
                if rest_idx == 0:
                    return True
                rest_idx -= 1
                cmds.append((rest[rest_idx][1], rest[rest_idx][2]))
                continue
            broken, doc = cmds.pop()
            if isinstance(doc, str):
                room -= width(doc)
            elif isinstance(doc, Line):
                if broken or doc.hard:
                    return True
                room -= 0 if doc.soft else 1
            elif isinstance(doc, Group):
                if must_be_flat and doc.brk:
                    return False
                mode = doc.brk or broken
                cmds.append((mode, doc.states[-1] if doc.states and mode else doc.contents))
            else:
                cmds.extend((broken, d) for d in reversed(self._inner(doc, broken)))
        return False

    def _inner(self, doc: Doc, broken: bool) -> list[Doc]:
        """What `doc` (not text, a line or a group) holds, as `fits` measures it."""
        match doc:
            case list():
                return doc
            case Fill():
                return list(doc.parts)
            case Indent() | IndentIfBreak():
                return [doc.contents]
            case IfBreak():
                mode = self.modes.get(doc.group, False) if doc.group is not None else broken
                return [doc.broken if mode else doc.flat]
            case _:
                return []

    def newline(self, ind: str) -> None:
        while self.out:  # trailing spaces go, as Prettier's `trim` does
            kept = self.out[-1].rstrip(" ")
            if kept:
                self.out[-1] = kept
                break
            self.out.pop()
        self.out.append("\n" + ind)
        self.pos = len(ind)

    def print(self, doc: Doc) -> str:
        cmds: list[_Cmd] = [("", True, doc)]
        while cmds:
            ind, broken, d = cmds.pop()
            match d:
                case str():
                    self.out.append(d)
                    self.pos += width(d)
                case Line() if broken or d.hard:
                    self.newline(ind)
                case Line():
                    self.out.append("" if d.soft else " ")
                    self.pos += 0 if d.soft else 1
                case Group():
                    self.group(ind, broken, d, cmds)
                case Fill():
                    self.fill(ind, broken, d, cmds)
                case _:
                    inner = self._print_inner(ind, broken, d)
                    cmds.extend((i, broken, c) for i, c in reversed(inner))
        return "".join(self.out)

    def _print_inner(self, ind: str, broken: bool, d: Doc) -> list[tuple[str, Doc]]:
        match d:
            case list():
                return [(ind, c) for c in d]
            case Indent():
                return [(ind + " " * (2 if d.by is None else d.by), d.contents)]
            case IfBreak():
                mode = self.modes.get(d.group, False) if d.group is not None else broken
                return [(ind, d.broken if mode else d.flat)]
            case IndentIfBreak():
                return [(ind, Indent(d.contents) if self.modes.get(d.group) else d.contents)]
            case _:
                return []

    def group(self, ind: str, broken: bool, d: Group, cmds: list[_Cmd]) -> None:
        if not broken:
            cmds.append((ind, d.brk, d.contents))
        else:
            room = WIDTH - self.pos
            flat = (ind, False, d.contents)
            if not d.brk and self.fits(flat, cmds, room):
                cmds.append(flat)
            elif d.states and not d.brk:
                tried = ((ind, False, s) for s in d.states[1:])
                cmds.append(
                    next((c for c in tried if self.fits(c, cmds, room)), (ind, True, d.states[-1]))
                )
            else:
                cmds.append((ind, True, d.states[-1] if d.states else d.contents))
        if d.id is not None:
            self.modes[d.id] = cmds[-1][1]

    def fill(self, ind: str, broken: bool, d: Fill, cmds: list[_Cmd]) -> None:
        """Prettier's fill: each separator breaks only when the next part does not fit."""
        room = WIDTH - self.pos
        parts = d.parts
        if not parts:
            return
        content = parts[0]
        fits = self.fits((ind, False, content), [], room, must_be_flat=True)
        if len(parts) <= 2:
            cmds.extend((ind, not fits, p) for p in reversed(parts))
            return
        pair = self.fits((ind, False, [content, parts[1], parts[2]]), [], room, must_be_flat=True)
        cmds.append((ind, broken, Fill(parts[2:])))
        cmds.append((ind, not pair, parts[1]))
        cmds.append((ind, not fits, content))


def render(doc: Doc) -> str:
    """`doc` printed at column 0 within 80 columns, as Prettier prints it."""
    return _Printer().print(doc)
