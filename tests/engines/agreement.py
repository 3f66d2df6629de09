"""Do the grammar engines and sigspec's validator agree on a signature's replies?

Candidates are made from the plain JSON Schema of a signature's output (near-valid values,
then one mutation each: a wrong type, a missing or extra key, a bound crossed, a string with
quotes, backslashes and control characters), and the runtime validator
(`sigspec.runtime.validate.check`, the reference meaning) says which are valid. Each engine
then judges the same text under the provider's schema. A disagreement is excused when the
provider reported a loss for that signature (`provider-loss`: per signature, not per field,
so a signature with one warned loss excuses all of its disagreements); any other is a
failure.
"""

from __future__ import annotations

import json
import random
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.engines.grammar_engines import ENGINES, PROVIDER_ENGINES

from sigspec import load
from sigspec.lower.schema import output_schema
from sigspec.lower.views import Lowered
from sigspec.runtime import ecma
from sigspec.runtime.validate import check
from sigspec.semantics.descriptors import output_descriptor, type_descriptors

# Per format: values sigspec's validator accepts, then values it rejects, the hard cases the
# engines get wrong among them (tests/engines/test_engines.py holds the dialects' notes to them).
FORMATS = {
    "date": (
        ["2024-01-31", "2024-02-29"],
        ["31/01/2024", "2024-13-01", "2024-02-30", "2023-02-29", "0000-01-01"],
    ),
    "date-time": (
        ["2024-01-31T10:00:00Z", "2024-01-31t10:00:00z", "2024-01-31T10:00:00.5+05:30"],
        ["2024-01-31", "2024-02-30T10:00:00Z", "2024-01-31 10:00:00Z", "2024-01-31T23:59:60Z"],
    ),
    "time": (["10:00:00Z", "10:00:00.123Z", "10:00:00.5Z", "10:00:00z"], ["25:00", "23:59:60Z"]),
    "email": (["a@example.com", "a.b@c.d", "a@[1.2.3.4]"], ["not-an-email", "a..b@c.com"]),
    "uri": (["https://example.com/x", "mailto:a@b.c", "http://[::1]/"], ["not a url", "//x.com"]),
    "uuid": (
        ["123e4567-e89b-12d3-a456-426614174000"],
        ["1234", "123e4567e89b12d3a456426614174000"],
    ),
    "ipv4": (["192.168.0.1"], ["999.1.1.1", "01.1.1.1", "1.1.1"]),
    "ipv6": (["::1", "::ffff:1.2.3.4"], ["1:2:3", "1::2::3"]),
    "hostname": (["example.com", "localhost"], ["-bad-", "a_b.com", "a" * 64 + ".com"]),
    "duration": (["P1D", "PT1H", "P1W"], ["1 day", "P", "P1DT"]),
}
NASTY = ['a"b', "a\\b", "a\nb", "tab\there", "é😀"]


@dataclass
class Counts:
    agree: int = 0
    excused: int = 0
    repaired: int = 0  # values the validator repairs (@fallback, @clamp): either verdict is right
    disagree: list[str] = field(default_factory=list)  # accepts an invalid value
    narrower: list[str] = field(default_factory=list)  # rejects a valid value, no loss warned
    refused: list[str] = field(default_factory=list)  # schemas the engine did not compile


class Candidates:
    """Candidate values for a JSON Schema, with the declaration path each mutation touched."""

    def __init__(self, root: dict[str, Any], seed: int) -> None:
        self.root = root
        self.rng = random.Random(seed)

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def value(self, schema: dict[str, Any], depth: int = 0) -> Any:
        schema = self.resolve(schema)
        rng = self.rng
        if "const" in schema:
            return schema["const"]
        if "enum" in schema:
            return rng.choice(schema["enum"])
        if "anyOf" in schema:
            options = schema["anyOf"] if depth < 4 else schema["anyOf"][-1:]
            return self.value(rng.choice(options), depth + 1)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = rng.choice(kind) if depth < 4 else kind[-1]
        match kind:
            case "object":
                return self.object(schema, depth)
            case "array":
                low, high = schema.get("minItems", 0), schema.get("maxItems", 3)
                items = schema.get("items", {})
                count = rng.randint(low, min(high, low + 2)) if depth < 4 else low
                return [self.value(items, depth + 1) for _ in range(count)]
            case "string":
                return self.string(schema)
            case "integer":
                return rng.randint(schema.get("minimum", -5), schema.get("maximum", 50))
            case "number":
                low, high = schema.get("minimum", -5.0), schema.get("maximum", 50.0)
                return round(rng.uniform(low, high), 3)
            case "boolean":
                return rng.random() < 0.5
            case "null":
                return None
        return rng.choice([1, "x", None, [1], {"k": True}])

    def object(self, schema: dict[str, Any], depth: int) -> dict[str, Any]:
        required = set(schema.get("required", ()))
        out = {}
        for name, sub in schema.get("properties", {}).items():
            if name in required or (depth < 4 and self.rng.random() < 0.6):
                out[name] = self.value(sub, depth + 1)
        return out

    def string(self, schema: dict[str, Any]) -> str:
        rng = self.rng
        if "format" in schema and schema["format"] in FORMATS:
            good, bad = FORMATS[schema["format"]]
            return rng.choice(good if rng.random() < 0.8 else bad)
        if "pattern" in schema:
            return self.matching(schema["pattern"])
        low, high = schema.get("minLength", 0), schema.get("maxLength", 12)
        size = rng.randint(low, min(high, low + 8))
        return "".join(rng.choice("abc xyz019é") for _ in range(size))

    def matching(self, pattern: str) -> str:
        from hypothesis import strategies as st
        from hypothesis.errors import NonInteractiveExampleWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NonInteractiveExampleWarning)
            found: str = st.from_regex(ecma.compiled(pattern)).example()
        return found


def mutations(value: Any, schema: dict[str, Any], cands: Candidates) -> list[Any]:
    """Values one change away from `value`: the fault sits at one field."""
    out: list[Any] = [None, "text", 7, 2.5, [value], {"zz": value}]
    schema = cands.resolve(schema)
    if isinstance(value, dict):
        for name in list(value)[:4]:
            sub = schema.get("properties", {}).get(name, {})
            out.append({k: v for k, v in value.items() if k != name})
            for bad in mutations(value[name], sub, cands)[:8]:
                out.append({**value, name: bad})
        out.append({**value, "unexpected": 1})
    elif isinstance(value, list) and value:
        item = schema.get("items", {})
        out += [value + value + value, value[:-1]]
        out += [[bad, *value[1:]] for bad in mutations(value[0], item, cands)[:6]]
    elif isinstance(value, str):
        out += [value + "!", value[:1], value * 3, "", *NASTY, "٣", " " + value, value + "\n"]
    elif isinstance(value, bool):
        out += [not value, 1]
    elif isinstance(value, int | float):
        out += [value + 1000, value - 1000, value + 0.5, -value - 1, 0, True]
    return out


@dataclass(frozen=True)
class Case:
    name: str  # signature
    provider: str
    schema: Any  # the provider's schema
    wrapped: str | None
    losses: tuple[str, ...]  # the provider-loss messages of this signature


def cases(paths: list[Path], providers: tuple[str, ...]) -> tuple[list[Case], Any]:
    loaded = load(paths)
    assert not loaded.has_errors, loaded.diagnostics
    project = loaded.project
    lowered = Lowered(project)
    out = []
    for sig in project.signatures:
        for provider in providers:
            found = lowered.fragment(sig, provider)
            if not found.available:
                continue
            request = found.entry["request"]
            schema = {
                "vllm": lambda r: r["structured_outputs"]["json"],
                "openai": lambda r: r["response_format"]["json_schema"]["schema"],
                "ollama": lambda r: r["format"],
            }[provider](request)
            losses = tuple(d.message for d in found.diagnostics if d.code == "provider-loss")
            out.append(Case(sig.name, provider, schema, found.entry.get("wrapped"), losses))
    return out, project


def _resolve(schema: Any, root: Any) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _nullable(schema: Any, root: Any) -> bool:
    schema = _resolve(schema, root)
    kind = schema.get("type")
    options = schema.get("anyOf", ())
    return (isinstance(kind, list) and "null" in kind) or any(_nullable(o, root) for o in options)


class NotComparable(Exception):
    """A value OpenAI's strict shape cannot hold (a missing key that may not be null)."""


def strict_shape(value: Any, schema: Any, root: Any) -> Any:
    """`value` as OpenAI's strict mode produces it: every key, null for an absent one."""
    schema = _resolve(schema, root)
    if isinstance(value, dict) and isinstance(schema, dict) and "properties" in schema:
        out = {}
        for name, sub in schema["properties"].items():
            if name in value:
                out[name] = strict_shape(value[name], sub, root)
            elif _nullable(sub, root):
                out[name] = None
            else:
                raise NotComparable(name)
        out.update({k: v for k, v in value.items() if k not in out})
        return out
    if isinstance(value, list) and isinstance(schema, dict) and "items" in schema:
        return [strict_shape(v, schema["items"], root) for v in value]
    return value


def presented(value: Any, case: Case, engine: str) -> tuple[Any, Any]:
    """(what the validator judges, what the engine is asked to let through)."""
    if case.provider == "openai":
        inner = case.schema["properties"][case.wrapped] if case.wrapped else case.schema
        value = strict_shape(value, inner, case.schema)
    elif engine == "llama.cpp":
        value = required_first(value, case.schema, case.schema)
    return value, ({case.wrapped: value} if case.wrapped else value)


def required_first(value: Any, schema: Any, root: Any) -> Any:
    """`value` with each object's required keys ahead of the optional ones: the key order
    llama.cpp's grammar produces (the same value to a validator)."""
    while isinstance(schema, dict) and "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict):
        props = schema.get("properties", {})
        required = set(schema.get("required", ()))
        keys = sorted(value, key=lambda k: (k not in required, k not in props))
        return {k: required_first(value[k], props.get(k, {}), root) for k in keys}
    if isinstance(value, list):
        return [required_first(v, schema.get("items", {}), root) for v in value]
    return value


def run(
    paths: list[Path],
    providers: tuple[str, ...],
    per_case: int = 6,
    engines: tuple[str, ...] = tuple(ENGINES),
) -> dict[str, Counts]:
    """Counts per "provider/engine" over every signature of `paths` (for `engines` only)."""
    found, project = cases(paths, providers)
    types = type_descriptors(project, list(project.types))
    counts: dict[str, Counts] = {}
    for index, case in enumerate(found):
        sig = project.signature(case.name)
        descriptor = output_descriptor(sig, project)
        plain = output_schema(sig, project)
        cands = Candidates(plain, seed=index)
        values: list[Any] = []
        for _ in range(per_case):
            base = cands.value(plain)
            values += [base, *mutations(base, plain, cands)]
        for engine in (e for e in PROVIDER_ENGINES[case.provider] if e in engines):
            tally = counts.setdefault(f"{case.provider}/{engine}", Counts())
            pairs = []
            for value in values:
                try:
                    pairs.append(presented(value, case, engine))
                except NotComparable:
                    continue
            judge(case, engine, pairs, descriptor, types, tally=tally)
    return counts


def judge(
    case: Case,
    engine: str,
    pairs: list[tuple[Any, Any]],
    descriptor: Any,
    types: Any,
    *,
    tally: Counts,
) -> None:
    accepts = ENGINES[engine]
    seen = set()
    for value, shown in pairs:
        text = json.dumps(shown, ensure_ascii=False)
        if text in seen:
            continue
        seen.add(text)
        _, errors, repairs = check(descriptor, value, types)
        valid = not errors
        try:
            verdict = accepts(case.schema, text)
        except Exception as exc:  # the engine refused the schema
            tally.refused.append(f"{case.name}: {exc}")
            return
        if valid and repairs:
            tally.repaired += 1
        elif verdict == valid:
            tally.agree += 1
        elif case.losses:
            tally.excused += 1
        else:
            found = tally.narrower if valid else tally.disagree
            found.append(f"{case.name}: {engine} {text[:200]}")


def table(counts: dict[str, Counts]) -> str:
    lines = [
        "| provider / engine | agree | repaired | excused (warned) | rejects valid | "
        "accepts invalid | schemas refused |"
    ]
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for key, c in sorted(counts.items()):
        row = (key, c.agree, c.repaired, c.excused, len(c.narrower), len(c.disagree))
        row += (len(c.refused),)
        lines.append("| " + " | ".join(map(str, row)) + " |")
    return "\n".join(lines)


def totals(counts: dict[str, Counts]) -> Counter[str]:
    return Counter({k: c.agree for k, c in counts.items()})


FIELDS = [
    ":string",
    ":string @min_length(2) @max_length(6)",
    ':string @pattern("^\\\\d{3}-\\\\w+$")',
    ':string @pattern("[A-Z]{2}")',
    ':string @pattern("^[a-z]+$") @min_length(2) @max_length(4)',
    ':string @pattern("^.{2,4}$")',
    ':string @format("date")',
    ':string @format("uuid")',
    ":int @min(1) @max(20)",
    ":int",
    ":float @min(0) @max(1)",
    ":bool",
    '"red" | "green" | "blue"',
    "[:int] @min_items(1) @max_items(3)",
    "[:string]",
    "{x :int, y :string?}",
    ":any",
    ":string?",
]


def random_signatures(count: int, seed: int = 11) -> str:
    """`count` signatures whose outputs draw on every kind of field and constraint."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        fields = rng.sample(FIELDS, rng.randint(1, 5))
        body = ", ".join(f"f{i} {t}" for i, t in enumerate(fields))
        out.append(f"signature g{index}(a :string) -> {{{body}}}\n")
    return "\n".join(out)
