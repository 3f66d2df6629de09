"""TypeScript source, built as Prettier prints it: literals, types, calls, declarations.

Each builder returns a `doc.Doc` shaped as Prettier's own printer shapes that construct
(its `printArrayItems`, `printObject`, `printUnionType`, `printCallArguments`,
`printAssignment` layouts, `printFunctionParameters`), so that `doc.render` gives Prettier's
layout. Every string from a .sig file goes out through `string`: an escaped literal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from sigspec.emit.typescript.doc import (
    HARDLINE,
    LINE,
    SOFTLINE,
    Doc,
    Fill,
    Group,
    IfBreak,
    Indent,
    IndentIfBreak,
    group,
    join,
    new_id,
    render,
    width,
)

# Keys Prettier prints unquoted (`quoteProps: "as-needed"`): ES5 identifier names whose
# literal holds no escape; non-ASCII is always escaped here, so ASCII names only.
_BARE_KEY = re.compile(r"[$A-Z_a-z][$0-9A-Z_a-z]*\Z")
_ESCAPE = re.compile(r"\\.|'")


def string(text: str) -> str:
    """A string literal in Prettier's quotes (double unless the text holds more double than
    single quotes), non-ASCII and control characters escaped."""
    literal = json.dumps(text)
    if text.count('"') <= text.count("'"):
        return literal

    def swap(m: re.Match[str]) -> str:
        token = m.group()
        return '"' if token == '\\"' else "\\'" if token == "'" else token

    return "'" + _ESCAPE.sub(swap, literal[1:-1]) + "'"


def number(value: float) -> str:
    """A number literal as Prettier prints it (lower case, no `+` or redundant zeros)."""
    text = json.dumps(value).lower()
    text = re.sub(r"^([+-]?[\d.]+e)(?:\+|(-))?0*(?=\d)", r"\1\2", text)
    text = re.sub(r"^([+-]?[\d.]+)e[+-]?0+$", r"\1", text)
    text = re.sub(r"(\.\d+?)0+(?=e|$)", r"\1", text)
    return re.sub(r"\.(?=e|$)", "", text)


def scalar(value: object) -> str:
    """A JSON scalar (string, number, boolean, null) as a literal or literal type."""
    if isinstance(value, str):
        return string(value)
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    assert isinstance(value, int | float)
    return number(value)


def key(name: str) -> str:
    """A property key: bare when Prettier would unquote it, else a string literal."""
    return name if _BARE_KEY.match(name) else string(name)


def _items(open_: str, items: Sequence[Doc], close: str, *, brk: bool = False) -> Doc:
    """`open items close`: on one line, else one item per line with a trailing comma."""
    if not items:
        return open_ + close
    return group(
        [open_, Indent([SOFTLINE, join([",", LINE], items)]), IfBreak(","), SOFTLINE, close],
        brk=brk,
    )


def array(items: Sequence[Doc], *, numbers: bool = False, brk: bool = False) -> Doc:
    """An array literal: on one line, else one item per line; of numbers only (`numbers`),
    packed as many a line as fit. `brk`: Prettier always breaks an array of two or more
    arrays (or objects) that each hold two or more items."""
    if not numbers or len(items) < 2:
        return _items("[", [group(i) for i in items], "]", brk=brk)
    gid = new_id()
    parts: list[Doc] = []
    for i, item in enumerate(items):
        last = i == len(items) - 1
        parts.append([item, IfBreak(",", "", gid) if last else ","])
        if not last:
            parts.append(LINE)
    return Group(["[", Indent([SOFTLINE, Fill(tuple(parts))]), SOFTLINE, "]"], id=gid)


def obj(props: Sequence[Doc], *, expanded: bool = True) -> Doc:
    """An object literal; `expanded` as Prettier keeps one written with a newline after `{`."""
    if not props:
        return "{}"
    body = join([",", LINE], [group(p) for p in props])
    return group(["{", Indent([LINE, body]), IfBreak(","), LINE, "}"], brk=expanded)


def assign(left: str, op: str, value: Doc, layout: str = "fluid") -> Doc:
    """`left op value` in one of Prettier's assignment layouts: "break-after" (the value moves
    to its own line when it does not fit: strings, unions), "never" (it stays: numbers,
    booleans) or "fluid" (it moves only when even its first line cannot follow)."""
    if layout == "break-after":
        return group([left, op, group(Indent([LINE, value]))])
    if layout == "never":
        return group([left, op, " ", value])
    gid = new_id()
    return group([left, op, Group(Indent(LINE), id=gid), IndentIfBreak(value, gid)])


def prop(name: str, value: Doc, *, layout: str = "fluid") -> Doc:
    """`key: value` in an object literal (layouts as `assign`; after a key shorter than 5
    columns a value always stays). `__proto__` is a computed key: as a plain one it would
    set the prototype."""
    k = '["__proto__"]' if name == "__proto__" else key(name)
    return assign(k, ":", value, "never" if width(k) < 5 else layout)


def literal(value: object) -> Doc:
    """A JSON value as an object, array or scalar literal."""
    if isinstance(value, dict):
        props = [prop(str(k), literal(v), layout=layout(v)) for k, v in value.items()]
        return obj(props, expanded=False)
    if isinstance(value, list | tuple):
        numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
        nested = (
            len(value) > 1
            and all(isinstance(v, dict | list | tuple) and len(v) > 1 for v in value)
            and len({type(v) if isinstance(v, dict) else list for v in value}) == 1
        )
        return array([literal(v) for v in value], numbers=numbers, brk=nested)
    return scalar(value)


def layout(value: object) -> str:
    """The assignment layout Prettier gives a JSON value."""
    if isinstance(value, str):
        return "break-after"
    if isinstance(value, bool) or (isinstance(value, int | float) and value >= 0):
        return "never"
    return "fluid"


def call(callee: str, args: Sequence[Doc], type_args: str = "") -> Doc:
    """`callee<type_args>(args)`: on one line, else one argument per line. Prettier would
    hug a last argument that is an object or array literal (`f(a, {` ... `})`); generated
    code never passes one, so this does not."""
    return group([callee, type_args, _items("(", args, ")")])


def union(members: Sequence[Doc], *, hug: bool, where: str = "annotation") -> Doc:
    """`A | B`, else one `| member` a line (Prettier's printUnionType). `where` it stands: a
    type alias's value ("alias", the alias breaks after `=`), a property's or parameter's
    type ("annotation", which moves to the next line first) or an array's element
    ("parens"). An object type or reference with only nulls beside it stays hugged."""
    if hug:
        code: Doc = join(" | ", members)
        return ["(", code, ")"] if where == "parens" else code
    parts: list[Doc] = []
    for i, m in enumerate(members):
        parts.extend([IfBreak("| ") if i == 0 else [LINE, "| "], Indent(m, 2)])
    code = group(parts)
    if where == "alias":
        return code
    if where == "parens":
        return ["(", group([Indent([SOFTLINE, code]), SOFTLINE]), ")"]
    return group(Indent([SOFTLINE, code]))


def object_type(members: Sequence[Doc], *, expanded: bool) -> Doc:
    """`{ a: T; b: U }`, kept expanded when written expanded."""
    if not members:
        return "{}"
    body = join([";", LINE], [group(m) for m in members])
    return group(["{", Indent([LINE, body]), IfBreak(";"), LINE, "}"], brk=expanded)


def member(name: str, optional: bool, type_: Doc, comment: str = "") -> Doc:
    """One property of an object type, after its doc comment (lines of a `/** */` block)."""
    head: list[Doc] = [join(HARDLINE, comment.splitlines()), HARDLINE] if comment else []
    return [*head, key(name), "?" if optional else "", ": ", type_]


def type_args(args: Sequence[Doc], *, simple: bool) -> Doc:
    """`<T>`; one simple argument stays inline, others break like a list (no comma)."""
    if simple:
        return ["<", join(", ", args), ">"]
    return group(["<", Indent([SOFTLINE, join([",", LINE], args)]), SOFTLINE, ">"])


@dataclass(frozen=True)
class Param:
    name: str
    type_: Doc
    optional: bool = False
    default: str = ""


def function(
    name: str,
    params: Sequence[Param],
    returns: Doc,
    *,
    exported: bool = True,
    is_async: bool = False,
) -> Doc:
    """A function declaration's head, up to and including ` {`."""
    printed: list[Doc] = []
    for p in params:
        default = f" = {p.default}" if p.default else ""
        printed.append([p.name, "?" if p.optional else "", ": ", p.type_, default])
    head = ("export " if exported else "") + ("async " if is_async else "") + "function "
    params_doc: list[Doc] = [
        "(",
        Indent([SOFTLINE, join([",", LINE], printed)]),
        IfBreak(","),
        SOFTLINE,
        ")",
    ]
    return [head, name, group([params_doc, ": ", returns]), " {"]


def const(
    name: str, value: Doc, annotation: str = "", *, layout: str = "fluid", exported: bool = False
) -> Doc:
    """`const name: annotation = value;` (layouts as `assign`)."""
    left = ("export " if exported else "") + "const " + name
    return [assign(left + (f": {annotation}" if annotation else ""), " =", value, layout), ";"]


def type_alias(name: str, value: Doc, *, union: bool = False, exported: bool = True) -> Doc:
    """`type name = value;`: a union (not hugged) moves to the next line when it does not
    fit; anything else stays after `=` unless even its first line cannot."""
    left = ("export " if exported else "") + "type " + name
    return [assign(left, " =", value, "break-after" if union else "fluid"), ";"]


def statement(doc: Doc, indent: int = 0) -> str:
    """`doc` printed as a statement at `indent` levels (2 spaces each), without its newline."""
    for _ in range(indent):
        doc = Indent(doc)
    return render(["  " * indent, doc]) if indent else render(doc)
