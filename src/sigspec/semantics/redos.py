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

A possessive or atomic part (`a++`, `(?>a+)`) never gives back what it took, so it is read
as one position that loops on its own characters in a single way. A counted repetition of a
part that can match the empty string (`(a?){25}`) is slow by itself: a failing string makes
the engine try every choice of which copies match, 2**25 of them.

What it does not do, on purpose: it ignores anchors and lookarounds (a match that fails
late is the attack) and reads counted repetitions past 10 as unbounded. The product graph
is explored only from the pairs `(p, p)`, where ambiguity starts. A pattern with more than
200 positions, or whose product graph would take more than 60,000 steps (tens of
milliseconds), is analysed piece by piece instead (each group or repetition that fits on its
own, within four times that budget for the whole pattern); whatever still cannot be analysed
(too large, or syntax the parser does not follow) is reported as not analysed, never passed
in silence. An email-ish `^[^@\\s]+@[^@\\s]+$` is not
reported: `@` separates its two repetitions, so each character can be matched in one way only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial

from sigspec.semantics.cycles import components
from sigspec.semantics.regex import (
    Alt,
    Chars,
    Empty,
    Node,
    Ranges,
    Repeat,
    Seq,
    normalize,
    overlap,
    read,
    subtract,
)

MAX_UNROLL = 10  # copies of a counted repetition; a larger count is read as unbounded
MAX_POSITIONS = 200  # larger automata are analysed piece by piece (pairs grow as n**2)
MAX_WORK = 60_000  # steps through the pair graph beyond which we give up on a piece
PAIR_COST = 4  # steps a pair costs beyond its edges (it is also in the component search)
TOTAL_WORK = 4 * MAX_WORK  # steps for the whole pattern, all its pieces together
ERROR_DEGREE = 4  # a polynomial of this degree is as bad as exponential in practice
SHOWN = 60  # characters of a piece quoted in a message
ATOMIC_TAG = 0  # the one tag of every edge from an atomic position back to itself

Edge = tuple[int, int]  # (target position, tag: which construct made the edge)
Pair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Finding:
    exponential: bool
    reason: str
    analysed: bool = True  # False: the reason says why the pattern could not be checked


@dataclass
class _Automaton:
    """Positions (character classes) and the edges between them."""

    chars: list[Chars] = field(default_factory=list)
    loops: list[tuple[int, int]] = field(default_factory=list)  # per position: its loop span
    follow: list[set[Edge]] = field(default_factory=list)
    atomic: set[int] = field(default_factory=set)
    # Atomic positions that read a maximal run of their characters (`a++`, `(?>\\w+)`): they
    # are left only on a character they cannot read.
    runs: set[int] = field(default_factory=set)
    blowups: list[Repeat] = field(default_factory=list)  # counted repeats of nullable parts
    tags: int = 0

    def new_tag(self) -> int:
        self.tags += 1
        return self.tags

    def link(self, sources: list[int], targets: list[int], tag: int) -> None:
        for s in sources:
            # Looping back into an atomic position is one way however many loops lead there.
            self.follow[s].update(
                (t, ATOMIC_TAG if t == s and s in self.atomic else tag) for t in targets
            )


@dataclass(frozen=True, slots=True)
class _Part:
    nullable: bool
    first: list[int]
    last: list[int]


class _TooLarge(Exception):
    pass


@dataclass
class _Budget:
    """Steps left for one pattern (a pattern analysed piece by piece must not cost more
    than a few whole ones)."""

    left: int = TOTAL_WORK

    def spend(self, steps: int, limit: int = MAX_WORK) -> None:
        self.left -= steps
        if steps > limit:
            raise _TooLarge


def _position(node: Chars, auto: _Automaton, loop: tuple[int, int] | None) -> int:
    if len(auto.chars) >= MAX_POSITIONS:
        raise _TooLarge
    auto.chars.append(node)
    auto.follow.append(set())
    auto.loops.append(loop or (node.start, node.end))
    return len(auto.chars) - 1


def _build(node: Node, auto: _Automaton, loop: tuple[int, int] | None) -> _Part:
    match node:
        case Chars():
            p = _position(node, auto, loop)
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
        case Repeat(atomic=True):
            return _atomic(node, auto, loop)
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


def _atomic(node: Repeat, auto: _Automaton, loop: tuple[int, int] | None) -> _Part:
    """One position for the whole part: it matches one way from wherever it starts. It
    loops on its own characters only if it can read any number of them (`(?>ab)` is read
    as one character of `[ab]`, a bounded part has no length a neighbour could share)."""
    body = Repeat(node.body, node.low, node.high, node.start, node.end)
    if _width(body) == 0:
        return _Part(True, [], [])
    p = _position(Chars(_letters(body), node.start, node.end), auto, loop)
    if _unbounded(body):
        auto.atomic.add(p)
        auto.follow[p].add((p, ATOMIC_TAG))
        if _run(body):
            auto.runs.add(p)
    return _Part(_nullable(body), [p], [p])


def _unbounded(node: Node) -> bool:
    """Can the part read any number of characters?"""
    match node:
        case Alt(parts) | Seq(parts):
            return any(_unbounded(p) for p in parts)
        case Repeat(body, _, high):
            return _width(body) > 0 and (high is None or _unbounded(body))
    return False


def _run(node: Node) -> bool:
    """Does the part read as many of one set of characters as there are (`a+`, `(a+){2}`)?"""
    match node:
        case Repeat(Chars(), _, None):
            return True
        case Repeat(body, low):
            return low >= 1 and _run(body)
    return False


def _letters(node: Node) -> Ranges:
    """Every character the part can read."""
    match node:
        case Chars(ranges):
            return ranges
        case Empty():
            return ()
        case Alt(parts) | Seq(parts):
            return normalize([r for part in parts for r in _letters(part)])
        case Repeat(body):
            return _letters(body)


def _width(node: Node) -> int:
    """How many characters the part reads at most: 0, 1, or 2 for more than one."""
    match node:
        case Chars():
            return 1
        case Empty():
            return 0
        case Alt(parts):
            return max((_width(p) for p in parts), default=0)
        case Seq(parts):
            return min(sum(_width(p) for p in parts), 2)
        case Repeat(body, _, high):
            once = _width(body)
            return 0 if once == 0 or high == 0 else min(once * (high or 2), 2)


def _nullable(node: Node) -> bool:
    match node:
        case Chars():
            return False
        case Empty():
            return True
        case Alt(parts):
            return any(_nullable(p) for p in parts)
        case Seq(parts):
            return all(_nullable(p) for p in parts)
        case Repeat(body, low):
            return low == 0 or _nullable(body)


def _repeat(node: Repeat, auto: _Automaton, loop: tuple[int, int] | None) -> _Part:
    count = node.high if node.high is not None else node.low
    atomic_body = isinstance(node.body, Repeat) and node.body.atomic
    if count > MAX_UNROLL and _width(node.body) > 0 and _nullable(node.body) and not atomic_body:
        auto.blowups.append(node)
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


def _steps(auto: _Automaton, p: int) -> list[tuple[int, int, Ranges | None]]:
    """The edges from `p`, with the characters they may read when that is fewer than their
    target's (None): a maximal run is left only on a character it cannot read."""
    out: list[tuple[int, int, Ranges | None]] = []
    for target, tag in sorted(auto.follow[p]):
        if p in auto.runs and target != p:
            out.append((target, tag, subtract(auto.chars[target].ranges, auto.chars[p].ranges)))
        else:
            out.append((target, tag, None))
    return out


def _pair_graph(
    auto: _Automaton, budget: _Budget
) -> tuple[dict[Pair, list[Pair]], set[tuple[Pair, Pair]]]:
    """Pairs of positions reading the same text, from the pairs `(p, p)` on (only those can
    lead to ambiguity); and the steps from `(p, p)` to `(q, q)` that two different edges
    make (two loops around the same text). Raises `_TooLarge` past `MAX_WORK` steps."""
    steps = [_steps(auto, p) for p in range(len(auto.chars))]
    meets: dict[Pair, bool] = {}

    def meet(p2: int, ranges_p: Ranges | None, q2: int, ranges_q: Ranges | None) -> bool:
        if ranges_p is None and ranges_q is None:
            if (p2, q2) not in meets:
                meets[(p2, q2)] = overlap(auto.chars[p2].ranges, auto.chars[q2].ranges)
            return meets[(p2, q2)]
        a = auto.chars[p2].ranges if ranges_p is None else ranges_p
        b = auto.chars[q2].ranges if ranges_q is None else ranges_q
        return overlap(a, b)

    graph: dict[Pair, list[Pair]] = {}
    split: set[tuple[Pair, Pair]] = set()
    pending = [(p, p) for p in range(len(auto.chars))]
    seen = set(pending)
    work = 0
    while pending:
        p, q = pending.pop()
        work += len(steps[p]) * len(steps[q]) + PAIR_COST
        if work > MAX_WORK:
            budget.spend(work)
        targets: set[Pair] = set()
        for p2, tag_p, ranges_p in steps[p]:
            for q2, tag_q, ranges_q in steps[q]:
                if meet(p2, ranges_p, q2, ranges_q):
                    targets.add((p2, q2))
                    if p == q and p2 == q2 and tag_p != tag_q:
                        split.add(((p, p), (p2, p2)))
        graph[(p, q)] = sorted(targets)
        for target in targets - seen:
            seen.add(target)
            pending.append(target)
    budget.spend(work)
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


def _polynomial_steps(graph: dict[Pair, list[Pair]], looping: list[int]) -> dict[int, list[int]]:
    """p -> q when text can loop at p, move from p to q, and loop at q."""
    reverse: dict[Pair, list[Pair]] = {pair: [] for pair in graph}
    for source, targets in graph.items():
        for target in targets:
            reverse[target].append(source)
    forward = {p: _reach(graph, (p, p)) for p in looping}
    backward = {q: _reach(reverse, (q, q)) for q in looping}
    return {
        p: [q for q in looping if q != p and (p, q) in forward[p] and (p, q) in backward[q]]
        for p in looping
    }


def _looping(auto: _Automaton) -> list[int]:
    """Positions that can be read again after themselves."""
    edges = {p: sorted({t for t, _ in auto.follow[p]}) for p in range(len(auto.chars))}
    return sorted(p for part in components(edges) for p in part if len(part) > 1 or p in edges[p])


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
    """What is slow about `pattern`, why it could not be analysed, or None (safe)."""
    node = read(pattern)
    if isinstance(node, str):
        return Finding(False, node, analysed=False)
    found, skipped = _search(node, pattern, _Budget())
    if found is not None:  # a definite finding first; the rest is reported once it is fixed
        return found
    if skipped is not None:
        return Finding(
            False,
            f"it is too large to analyse (more than {MAX_POSITIONS} character positions, or "
            f"more than {MAX_WORK:,} steps) from `{_quote(skipped)}`; split or simplify it",
            analysed=False,
        )
    return None


def _quote(text: str) -> str:
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _search(node: Node, pattern: str, budget: _Budget) -> tuple[Finding | None, str | None]:
    """The worst finding in `node`, analysed whole or else piece by piece; and the text of
    the first piece too large to analyse at all."""
    if budget.left <= 0:
        start, end = _span(node)
        return None, pattern[start:end]
    try:
        return _analyse_tree(node, pattern, budget), None
    except _TooLarge:
        pass
    match node:
        case Alt(parts) | Seq(parts):
            pieces = list(parts)
        case Repeat(body):
            pieces = [body]
        case _:
            pieces = []
    if not pieces:
        start, end = _span(node)
        return None, pattern[start:end]
    results = [_search(piece, pattern, budget) for piece in pieces]
    findings = [f for f, _ in results if f is not None]
    worst = max(findings, key=lambda f: f.exponential, default=None)
    skipped = next((s for _, s in results if s is not None), None)
    if skipped is None:  # every piece fits, but not the whole: name the whole
        start, end = _span(node)
        skipped = pattern[start:end]
    return worst, skipped


def _span(node: Node) -> tuple[int, int]:
    match node:
        case Chars(_, start, end) | Repeat(_, _, _, start, end):
            return start, end
        case Alt(parts) | Seq(parts):
            spans = [_span(p) for p in parts]
            spans = [s for s in spans if s[0] < s[1]]
            return (min(s for s, _ in spans), max(e for _, e in spans)) if spans else (0, 0)
        case Empty():
            return 0, 0


def _analyse_tree(node: Node, pattern: str, budget: _Budget) -> Finding | None:
    """Raises `_TooLarge` past the budget."""
    auto = _Automaton()
    try:
        _build(node, auto, None)
    finally:
        budget.spend(len(auto.chars), limit=MAX_POSITIONS)
    if auto.blowups:
        blowup = auto.blowups[0]
        count = blowup.high if blowup.high is not None else blowup.low
        return Finding(
            True,
            f"`{_quote(pattern[blowup.start : blowup.end])}` repeats a part that can match "
            f"the empty string {count} times, so a failing string tries every choice of which "
            "copies match",
        )
    budget.spend(sum(len(f) for f in auto.follow))
    graph, split = _pair_graph(auto, budget)
    ambiguous = _exponential(auto, graph, split)
    if ambiguous is not None:
        start, end = auto.loops[ambiguous]
        return Finding(True, f"`{_quote(pattern[start:end])}` can match the same text in many ways")
    looping = _looping(auto)
    pair_edges = sum(len(t) for t in graph.values())
    budget.spend(2 * len(looping) * pair_edges)
    chain = _longest_chain(_polynomial_steps(graph, looping))
    if len(chain) < 2:
        return None
    start = min(auto.loops[p][0] for p in chain)
    end = max(auto.loops[p][1] for p in chain)
    text = _quote(pattern[start:end])
    degree = len(chain)
    return Finding(
        degree >= ERROR_DEGREE,
        f"{degree} repetitions in `{text}` can match the same characters, so a string of "
        f"length n takes about n**{degree} steps to reject",
    )
