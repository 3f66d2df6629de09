"""How deep and how large a type becomes with its named types written out in place.

Every emitter walks a type with its named types followed (the Python checks and models, the
TypeScript types, the schemas) and some write them out in place (the prompts' output shape
and the inline signature, Gemini's OpenAPI schema, `@allow_extra_keys`'s descriptor). A
chain of a few hundred types `type T1 = {next T2?}` is then deeper than Python's stack, and a
diamond of 30 lines `type T1 = {a T2, b T2}` writes out 2**30 nodes. Both are measured here
once per named type, in linear time and without recursion, so the checker can reject them
with a diagnostic before any emitter starts.

Depth counts maps, lists and named-type references on the way to the innermost value (the
brackets the type would have if written out, plus one per name followed); size counts the
nodes of the written-out type, a recursive reference back to a type being written out
counting one (it stays a name, as in every emitter).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sigspec.semantics.cycles import components
from sigspec.semantics.ir import ListOf, MapOf, Optional, Ref, TypeDef, TypeRef, Union
from sigspec.semantics.types import referenced_names

# The parser allows 64 levels of brackets in one declaration (syntax/scan.py MAX_DEPTH); the
# same bound holds for a type with its named types written out. No provider takes anywhere
# near it (OpenAI allows 10 levels of nesting), and every emitter stays well inside Python's
# stack below it (a chain of 64 names costs about 700 frames in the deepest emitter).
MAX_TYPE_DEPTH = 64
# Nodes of a type written out in place. A prompt spells each one out on about a line: 10,000
# lines is a prompt far past any useful size (the largest real schemas have a few hundred),
# while the emitters still write it in well under a second.
MAX_EXPANDED_NODES = 10_000
_CAP = MAX_EXPANDED_NODES + 1  # sizes are counted up to here: a diamond's 2**n stays small
# Nodes visited in all while unfolding cyclic parts. Each member of a part costs at most _CAP
# visits, and only one whose unfolding reaches the cap costs that much (it is too large
# anyway); without a total, a ring of thousands of types took minutes. Past it, the members
# left count as too large.
_BUDGET = 2_000_000


@dataclass(frozen=True, slots=True)
class Measure:
    depth: int  # levels, as above
    size: int  # nodes written out, at most _CAP
    via: str | None  # the named type the deepest path goes through first, if any


class TypeGraph:
    """The measures of every named type, computed once, innermost types first."""

    def __init__(self, types: Mapping[str, TypeDef]) -> None:
        self._types = types
        self._named: dict[str, Measure] = {}
        self._budget = _BUDGET
        edges = {n: [r for r in referenced_names(t.type) if r in types] for n, t in types.items()}
        # Tarjan lists each part after every part it reaches: their measures are known.
        for part in components(edges):
            members = frozenset(part)
            cyclic = len(part) > 1 or part[0] in edges[part[0]]
            for name in sorted(part):
                within = members if cyclic else frozenset()
                self._named[name] = self._measure(types[name].type, within, (name,))

    def named(self, name: str) -> Measure:
        """A reference to `name`: one level more than its type."""
        m = self._named[name]
        return Measure(m.depth + 1, m.size, name)

    def measure(self, t: TypeRef) -> Measure:
        """A type outside every named type (a signature's parameter or output)."""
        return self._measure(t, frozenset(), ())

    def _measure(self, t: TypeRef, within: frozenset[str], path: tuple[str, ...]) -> Measure:
        """`t` written out; references into `within` (the cyclic part being measured) are
        unfolded while not already on the path, all others read from the known measures."""
        depth, size, via = 0, 0, None
        stack: list[tuple[TypeRef, int, tuple[str, ...], str | None]] = [(t, 0, path, None)]
        while stack and size < _CAP:
            if within:
                self._budget -= 1
                if self._budget < 0:
                    return Measure(depth, _CAP, via)
            node, level, on_path, first = stack.pop()
            match node:
                # Past the depth limit the answer is known: unfolding stops (and the path
                # copied at each step stays short).
                case Ref(name) if (
                    name in within and name not in on_path and level <= MAX_TYPE_DEPTH
                ):
                    stack.append(
                        (self._types[name].type, level + 1, (*on_path, name), first or name)
                    )
                    continue
                case Ref(name) if name in self._named and name not in within:
                    known = self.named(name)
                    reach, size = level + known.depth, size + known.size
                    first = first or name
                case Ref(name):
                    reach, size = level + 1, size + 1
                    first = first or name
                case ListOf(item):
                    reach, size = level + 1, size + 1
                    stack.append((item, reach, on_path, first))
                case MapOf(fields):
                    reach, size = level + 1, size + 1
                    stack += [(f.type, reach, on_path, first) for f in reversed(fields)]
                case Optional(inner):
                    reach, size = level, size + 1
                    stack.append((inner, level, on_path, first))
                case Union(members):
                    reach, size = level, size + 1
                    stack += [(m, level, on_path, first) for m in reversed(members)]
                case _:
                    reach, size = level, size + 1
            if reach > depth:
                depth, via = reach, first
        return Measure(depth, min(size, _CAP), via)

    def chain(self, start: str | None) -> tuple[str, ...]:
        """The named types the deepest path goes through, from `start`."""
        names: list[str] = []
        while start is not None and start not in names:
            names.append(start)
            start = self._named[start].via if start in self._named else None
        return tuple(names)
