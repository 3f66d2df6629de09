"""Does a `@pattern` backtrack exponentially or polynomially? (ReDoS)

Python's `re` and JavaScript's engines backtrack: on a string that fails to match they try
every way the pattern can consume it. That is slow exactly when the pattern is *ambiguous*:
when one piece of text can be matched along several paths. We build the pattern's position
automaton (Glushkov: one state per character class in the pattern, an edge for each way one
may follow another, counted repetitions unrolled) and ask two classic questions of it
(Weber and Seidl's criteria, as used by rxxr2 and regexploit):

- exponential: a state can return to itself along two different paths reading the same
  text (`(a+)+`, `(a|a)*`, `(\\w|\\d)+`, `(.*a)+`). In the product of the automaton with
  itself this is a cycle through a pair `(p, p)` that also passes a pair `(p, q)` with
  `p != q`, or takes two different edges between the same two states (nested loops);
- polynomial: two different looping states `p` and `q` where text can loop at `p`, move to
  `q`, and loop at `q` (`\\s*.*\\s*`, `[^@]+\\.[^@]+`). We check the move and the two loops
  pairwise rather than on one common text, which can only over-report; a chain of k such
  states costs n**k, and k >= 4 (`(.*a){20}`) is reported as an error like exponential.

What it does not do, on purpose: it ignores anchors and lookarounds (a match that fails
late is the attack), reads counted repetitions past 10 as unbounded, reads inline flags as
"not analysed", and gives up (no finding) on patterns with more than 60 positions or whose product
graph would take more than 60,000 steps (tens of milliseconds). An
email-ish `^[^@\\s]+@[^@\\s]+$` is not reported: `@` separates its two repetitions, so each
character can be matched in one way only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

from sigspec.semantics.cycles import components
from sigspec.semantics.regex import Alt, Chars, Empty, Node, Repeat, Seq, overlap, parse

MAX_UNROLL = 10  # copies of a counted repetition; a larger count is read as unbounded
MAX_POSITIONS = 60  # larger automata are not analysed (the pair graph grows as n**2)
MAX_WORK = 60_000  # steps of the pair graph (edges squared) beyond which we give up
ERROR_DEGREE = 4  # a polynomial of this degree is as bad as exponential in practice

Edge = tuple[int, int]  # (target position, tag: which construct made the edge)
Pair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Finding:
    exponential: bool
    reason: str


@dataclass
class _Automaton:
    """Positions (character classes) and the edges between them."""

    chars: list[Chars] = field(default_factory=list)
    loops: list[tuple[int, int]] = field(default_factory=list)  # per position: its loop span
    follow: list[set[Edge]] = field(default_factory=list)
    tags: int = 0

    def new_tag(self) -> int:
        self.tags += 1
        return self.tags

    def link(self, sources: list[int], targets: list[int], tag: int) -> None:
        for s in sources:
            self.follow[s].update((t, tag) for t in targets)


@dataclass(frozen=True, slots=True)
class _Part:
    nullable: bool
    first: list[int]
    last: list[int]


class _TooLarge(Exception):
    pass


def _build(node: Node, auto: _Automaton, loop: tuple[int, int] | None) -> _Part:
    match node:
        case Chars():
            if len(auto.chars) >= MAX_POSITIONS:
                raise _TooLarge
            auto.chars.append(node)
            auto.follow.append(set())
            auto.loops.append(loop or (node.start, node.end))
            p = len(auto.chars) - 1
            return _Part(False, [p], [p])
        case Empty():
            return _Part(True, [], [])
        case Alt(options):
            parts = [_build(o, auto, loop) for o in options]
            return _Part(
                any(p.nullable for p in parts),
                [x for p in parts for x in p.first],
                [x for p in parts for x in p.last],
            )
        case Seq(items):
            return _sequence([partial(_build, i, auto, loop) for i in items], auto)
        case Repeat():
            return _repeat(node, auto, loop)


def _sequence(builders: list[Callable[[], _Part]], auto: _Automaton) -> _Part:
    """Parts one after another (each built only when its turn comes, so positions are
    numbered left to right)."""
    result = _Part(True, [], [])
    for build in builders:
        part = build()
        auto.link(result.last, part.first, auto.new_tag())
        result = _Part(
            result.nullable and part.nullable,
            result.first + (part.first if result.nullable else []),
            part.last + (result.last if part.nullable else []),
        )
    return result


def _repeat(node: Repeat, auto: _Automaton, loop: tuple[int, int] | None) -> _Part:
    low = min(node.low, MAX_UNROLL)
    high = node.high if node.high is not None and node.high <= MAX_UNROLL else None
    unbounded = high is None
    span = (node.start, node.end) if unbounded and loop is None else loop
    required = low if not unbounded else max(low, 1)
    optional = (high - low) if high is not None else 0

    def copy(is_loop: bool) -> _Part:
        part = _build(node.body, auto, span if is_loop else loop)
        if is_loop:
            auto.link(part.last, part.first, auto.new_tag())
        return part

    def optional_copy() -> _Part:
        return _optional(copy(False))

    builders: list[Callable[[], _Part]] = [
        partial(copy, unbounded and i == required - 1) for i in range(required)
    ]
    builders += [optional_copy] * optional
    part = _sequence(builders, auto)
    if unbounded and low == 0:
        return _Part(True, part.first, part.last)
    return part


def _optional(part: _Part) -> _Part:
    return _Part(True, part.first, part.last)


# ---- the questions ------------------------------------------------------------------------


def _pair_graph(auto: _Automaton) -> tuple[dict[Pair, list[Pair]], set[tuple[Pair, Pair]]]:
    """Pairs of positions reading the same text; and the steps from `(p, p)` to `(q, q)` that
    two different edges make (two loops around the same text)."""
    n = len(auto.chars)
    meets = [
        [overlap(auto.chars[a].ranges, auto.chars[b].ranges) for b in range(n)] for a in range(n)
    ]
    graph: dict[Pair, list[Pair]] = {}
    split: set[tuple[Pair, Pair]] = set()
    for p in range(n):
        for q in range(n):
            targets: set[Pair] = set()
            for p2, tag_p in auto.follow[p]:
                for q2, tag_q in auto.follow[q]:
                    if meets[p2][q2]:
                        targets.add((p2, q2))
                        if p == q and p2 == q2 and tag_p != tag_q:
                            split.add(((p, p), (p2, p2)))
            graph[(p, q)] = sorted(targets)
    return graph, split


def _exponential(
    auto: _Automaton, graph: dict[Pair, list[Pair]], split: set[tuple[Pair, Pair]]
) -> int | None:
    """A position two different paths lead back to, reading the same text."""
    for part in components(graph):
        members = set(part)
        diagonal = sorted(p for p, q in members if p == q)
        if not diagonal:
            continue
        if len(members) > len(diagonal) or any(a in members and b in members for a, b in split):
            return diagonal[0]
    return None


def _reach(graph: dict[Pair, list[Pair]], start: Pair) -> set[Pair]:
    seen = {start}
    stack = [start]
    while stack:
        for target in graph[stack.pop()]:
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def _polynomial_steps(graph: dict[Pair, list[Pair]], n: int) -> dict[int, list[int]]:
    """p -> q when text can loop at p, move from p to q, and loop at q."""
    reverse: dict[Pair, list[Pair]] = {pair: [] for pair in graph}
    for source, targets in graph.items():
        for target in targets:
            reverse[target].append(source)
    forward = [_reach(graph, (p, p)) for p in range(n)]
    backward = [_reach(reverse, (q, q)) for q in range(n)]
    return {
        p: [q for q in range(n) if q != p and (p, q) in forward[p] and (p, q) in backward[q]]
        for p in range(n)
    }


def _longest_chain(steps: dict[int, list[int]]) -> list[int]:
    """The longest chain of polynomial steps (a cycle counts as unbounded)."""
    best: dict[int, list[int]] = {}
    for root, following in steps.items():
        stack: list[tuple[int, Iterator[int]]] = [(root, iter(following))]
        on_path = {root}
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.discard(node)
                tails = [best[c] for c in steps[node]]
                best[node] = [node, *max(tails, key=len, default=[])]
            elif child in on_path:
                return [node, child] * ERROR_DEGREE
            elif child not in best:
                on_path.add(child)
                stack.append((child, iter(steps[child])))
    return max(best.values(), key=len, default=[])


def analyse(pattern: str) -> Finding | None:
    """What is slow about `pattern`, or None (safe, or not analysed)."""
    node = parse(pattern)
    if node is None:
        return None
    auto = _Automaton()
    try:
        _build(node, auto, None)
    except _TooLarge:
        return None
    edges = sum(len(f) for f in auto.follow)
    if edges * edges > MAX_WORK:
        return None
    graph, split = _pair_graph(auto)
    looping = _exponential(auto, graph, split)
    if looping is not None:
        start, end = auto.loops[looping]
        return Finding(True, f"`{pattern[start:end]}` can match the same text in many ways")
    pair_edges = sum(len(t) for t in graph.values())
    if 2 * len(auto.chars) * pair_edges > MAX_WORK:
        return None
    chain = _longest_chain(_polynomial_steps(graph, len(auto.chars)))
    if len(chain) < 2:
        return None
    start = min(auto.loops[p][0] for p in chain)
    end = max(auto.loops[p][1] for p in chain)
    text = pattern[start:end]
    degree = len(chain)
    return Finding(
        degree >= ERROR_DEGREE,
        f"{degree} repetitions in `{text}` can match the same characters, so a string of "
        f"length n takes about n**{degree} steps to reject",
    )
