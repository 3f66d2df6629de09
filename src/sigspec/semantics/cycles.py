"""Recursion with nothing in between: a named type that reaches itself through `?` and `|` only.

`type U = U?` has a value (null), so the inhabitation check lets it through, yet every walk
that unfolds it (schemas, prompts, Python and TypeScript types) never ends. Recursion is
sound only when each cycle passes through a list or a map, where a value has to nest one
level deeper to recurse. This module finds the cycles that do not (strongly connected parts
of the graph of "direct" references, found in linear time).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from sigspec.semantics.ir import ListOf, MapOf, Optional, Ref, TypeDef, TypeRef, Union

N = TypeVar("N", bound=Hashable)

MAX_SHOWN = 8  # names of a cycle spelled out in a message; the rest are counted


@dataclass(frozen=True, slots=True)
class Cycle:
    names: tuple[str, ...]  # every type of the cyclic part, in declaration order
    path: tuple[str, ...]  # one cycle through the first of them, first name repeated at the end


def direct_refs(t: TypeRef) -> list[str]:
    """The named types `t` may *be*, through optionals and unions (not inside a list or map)."""
    found: list[str] = []
    stack = [t]
    while stack:
        match stack.pop():
            case Ref(name):
                found.append(name)
            case Optional(inner):
                stack.append(inner)
            case Union(members):
                stack += reversed(members)
            case ListOf() | MapOf():
                pass  # a container: recursion below it is guarded
    return found


def unguarded_cycles(types: Mapping[str, TypeDef]) -> list[Cycle]:
    """Each set of types that refer to one another directly, in declaration order."""
    edges = {name: [n for n in direct_refs(t.type) if n in types] for name, t in types.items()}
    order = {name: i for i, name in enumerate(types)}
    cycles: list[Cycle] = []
    for part in components(edges):
        name = part[0]
        if len(part) > 1 or name in edges[name]:
            names = tuple(sorted(part, key=order.__getitem__))
            cycles.append(Cycle(names, _path(names[0], set(names), edges)))
    return sorted(cycles, key=lambda c: order[c.names[0]])


def components(edges: Mapping[N, list[N]]) -> list[list[N]]:
    """Tarjan's strongly connected components, iterative (a 10,000-long chain of aliases
    must not meet Python's recursion limit). Every target must be a key of `edges`."""
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    on_stack: set[N] = set()
    stack: list[N] = []
    found: list[list[N]] = []
    for root in edges:
        if root in index:
            continue
        work: list[tuple[N, int]] = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = edges[node]
            if i < len(targets):
                work.append((node, i + 1))
                target = targets[i]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if work:  # finished `node`: its parent learns its low link
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part: list[N] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                found.append(part)
    return found


def _path(start: str, within: set[str], edges: Mapping[str, list[str]]) -> tuple[str, ...]:
    """A shortest cycle from `start` back to itself inside one component (breadth first)."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for target in edges[node]:
                if target == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return (*reversed(path), start)
                if target in within and target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    return (start, start)  # unreachable for a real component


def render_cycle(path: tuple[str, ...]) -> str:
    if len(path) <= MAX_SHOWN + 1:
        return " -> ".join(path)
    hidden = len(path) - MAX_SHOWN - 1
    return " -> ".join(path[:MAX_SHOWN]) + f" -> ... ({hidden} more) -> {path[-1]}"
