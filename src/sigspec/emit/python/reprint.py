"""A models module from datamodel-code-generator, printed again as ruff would leave it.

The generator writes single quotes, long lines and every import it might need. Its module is
parsed (`ast`) and printed with `pysource`: double quotes, brackets opened where a line would
pass 88 columns, the imports it uses and no others, sorted as ruff's isort sorts them
(`from __future__` first, then the standard library, then pydantic). Comments are the only
thing the generator writes that a reprint would drop, and it writes none.
"""

from __future__ import annotations

import ast

from sigspec.emit.python import pysource
from sigspec.emit.python.pysource import (
    INDENT,
    WIDTH,
    Brackets,
    Code,
    Node,
    Union,
    render,
    width,
)

# Modules a models module imports from that are not the standard library's.
_THIRD_PARTY = frozenset({"pydantic"})


def reprint(module: str, header: str) -> str:
    """`module` (the generator's text) reprinted, `header` (a comment line) first."""
    tree = ast.parse(module)
    models = frozenset(n.name for n in tree.body if isinstance(n, ast.ClassDef))
    origins: dict[str, str] = {"cast": "typing"}
    blocks: list[str] = []
    kept: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            origins.update({a.asname or a.name: node.module for a in node.names})
        elif isinstance(node, ast.ClassDef):
            blocks.append(_class(node, models))
            kept.append(node)
        elif isinstance(node, ast.Expr | ast.Assign | ast.AnnAssign):
            blocks.append(_statement(node, 0, models))
            kept.append(node)
        else:
            raise RuntimeError(f"unexpected statement in a models module: {ast.dump(node)[:80]}")
    used = {n.id for stmt in kept for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    if any("cast(" in block for block in blocks):
        used.add("cast")
    imports = _imports({name: origins[name] for name in used if name in origins})
    body = "\n\n\n".join(block.rstrip("\n") for block in blocks)
    return header + "\n\n" + imports + "\n\n\n" + body + "\n"


def _imports(names: dict[str, str]) -> str:
    """`from __future__ import annotations`, then one sorted block per section."""
    by_module: dict[str, list[str]] = {}
    for name, module in names.items():
        by_module.setdefault(module, []).append(name)
    sections = ["from __future__ import annotations\n"]
    for third_party in (False, True):
        lines = [
            _import_line(module, by_module[module])
            for module in sorted(by_module)
            if (module.split(".")[0] in _THIRD_PARTY) is third_party
        ]
        if lines:
            sections.append("".join(lines))
    return "\n".join(sections).rstrip("\n")


def _import_line(module: str, names: list[str]) -> str:
    ordered = sorted(set(names), key=_isort_key)
    line = f"from {module} import {', '.join(ordered)}\n"
    if width(line) - 1 <= WIDTH:
        return line
    inner = "".join(f"{INDENT}{name},\n" for name in ordered)
    return f"from {module} import (\n{inner})\n"


def _isort_key(name: str) -> tuple[int, str]:
    """ruff's isort `order-by-type`: CONSTANTS, then Classes, then the rest."""
    if name.isupper() and len(name) > 1:
        return (0, name)
    return (1 if name[:1].isupper() else 2, name)


def _class(node: ast.ClassDef, models: frozenset[str]) -> str:
    if node.decorator_list or node.keywords:
        raise RuntimeError(f"unexpected class shape in a models module: {node.name}")
    lines = [f"class {node.name}:\n"]
    if node.bases:
        bases = tuple(_node(b) for b in node.bases)
        lines = [render(Brackets(f"class {node.name}", "(", bases, ")"), 0, 0, 1) + ":\n"]
    body = list(node.body)
    if body and _docstring(body[0]) is not None:
        text = _docstring(body[0])
        assert text is not None
        lines.append(INDENT + pysource.docstring(text, 1) + "\n")
        body = body[1:]
        if body:
            lines.append("\n")  # ruff puts an empty line after a class docstring
    lines += [_statement(stmt, 1, models) for stmt in body]
    if not node.body:
        lines.append(INDENT + "pass\n")
    return "".join(lines)


def _docstring(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        value = stmt.value.value
        return value if isinstance(value, str) else None
    return None


def _statement(stmt: ast.stmt, indent: int, models: frozenset[str]) -> str:
    pad = INDENT * indent
    match stmt:
        case ast.AnnAssign(ast.Name(name), annotation, value):
            value_node = None if value is None else _default(annotation, value, models)
            return pad + _annotated(f"{name}: ", _node(annotation), value_node, indent)
        case ast.Assign([ast.Name(name)], value):
            head = f"{name} = "
            return pad + head + render(_node(value), indent, width(head)) + "\n"
        case ast.Expr(value):
            return pad + render(_node(value), indent) + "\n"
        case ast.Pass():
            return pad + "pass\n"
    raise RuntimeError(f"unexpected statement in a models module: {ast.dump(stmt)[:80]}")


def _default(annotation: ast.expr, value: ast.expr, models: frozenset[str]) -> Node:
    """A field's default; a JSON object where the field's type names a model (pydantic
    makes the model of it: `validate_default`) cast to that type for the type checkers."""
    match annotation:
        case ast.Subscript(ast.Name("Annotated"), ast.Tuple([first, *_])):
            annotation = first
    named = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    objects = any(isinstance(n, ast.Dict) for n in ast.walk(value))
    if objects and named & models:
        kind = pysource.code(pysource.string(pysource.flat(_node(annotation))))
        return pysource.call("cast", kind, _node(value))
    return _node(value)


def _annotated(head: str, annotation: Node, value: Node | None, indent: int) -> str:
    """`name: T` or `name: T = value` on one line when it fits, else the value's brackets
    opened (ruff splits the right-hand side first), else the annotation's (a union in
    parentheses), and the value after it as it then fits."""
    pad = INDENT * indent
    tail = "" if value is None else " = " + pysource.flat(value)
    target = head + pysource.flat(annotation)
    if len(pad) + width(target + tail) <= WIDTH:
        return target + tail + "\n"
    if isinstance(value, Brackets) and value.items:
        prefix = target + " = "
        if len(pad) + width(prefix + value.head + value.open) <= WIDTH:
            return prefix + render(value, indent, width(prefix)) + "\n"
    opens_late = (
        isinstance(annotation, Brackets)
        and len(pad) + width(head + annotation.head + annotation.open) > WIDTH
    )  # its brackets would open past the edge: ruff parenthesises it
    if isinstance(annotation, Union) or opens_late:
        inner = INDENT * (indent + 1) + render(annotation, indent + 1)
        typed = f"{head}(\n{inner}\n{pad})"
    else:
        typed = head + render(annotation, indent, width(head), width(tail))
    if value is None:
        return typed + "\n"
    wrapped = INDENT * (indent + 1) + pysource.flat(value)
    if "\n" not in typed and isinstance(value, Code) and width(wrapped) <= WIDTH:
        return f"{typed} = (\n{wrapped}\n{pad})\n"  # ruff wraps a value that then fits
    last = typed.rsplit("\n", 1)[-1]
    shown = last if "\n" in typed else pad + last
    return typed + " = " + render(value, indent, width(shown) - len(pad) + 3) + "\n"


def _node(e: ast.expr) -> Node:
    """An expression as a `pysource` tree."""
    match e:
        case ast.Constant(value) if value is Ellipsis:
            return pysource.code("...")
        case ast.Constant(value) if not isinstance(value, bytes):
            return pysource.lit(value)
        case ast.Call(func, args, keywords) if all(k.arg is not None for k in keywords):
            kwargs = {k.arg: _node(k.value) for k in keywords if k.arg is not None}
            return pysource.call(pysource.flat(_node(func)), *map(_node, args), **kwargs)
        case ast.Subscript(value, ast.Tuple(items)):
            return pysource.subscript(pysource.flat(_node(value)), *map(_node, items))
        case ast.Subscript(value, item):
            return pysource.subscript(pysource.flat(_node(value)), _node(item))
        case ast.List(items):
            return pysource.lit([_node(i) for i in items])
        case ast.Tuple(items):
            return pysource.lit(tuple(_node(i) for i in items))
        case ast.Dict(keys, values) if all(k is not None for k in keys):
            pairs = tuple(
                pysource.pair(_node(k), _node(v))
                for k, v in zip(keys, values, strict=True)
                if k is not None
            )
            return Brackets("", "{", pairs, "}")
        case ast.BinOp(op=ast.BitOr()):
            return Union(tuple(_node(m) for m in _members(e)))
        case ast.Name() | ast.Attribute() | ast.UnaryOp(ast.USub(), ast.Constant()):
            return pysource.code(ast.unparse(e))
    raise RuntimeError(f"unexpected expression in a models module: {ast.unparse(e)[:80]}")


def _members(e: ast.expr) -> list[ast.expr]:
    """The operands of `A | B | C` (parsed as `(A | B) | C`), left to right."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr):
        return [*_members(e.left), *_members(e.right)]
    return [e]
