"""What each provider enforces while it decodes, and what only sigspec's validator checks
after the reply: a Markdown table printed from the dialects, so that the README's table
cannot drift from what the fragments say (`tests/unit/test_provider_table.py` holds the
README to it)."""

from __future__ import annotations

from collections.abc import Callable

from sigspec.lower.providers import NAMES, provider
from sigspec.lower.providers.dialect import Dialect
from sigspec.runtime.formats import CHECKS

BOTH = "both"
SIGSPEC = "sigspec"


def _bounds(d: Dialect) -> str:
    if not {"minimum", "maximum"} <= d.keywords:
        return SIGSPEC
    return "both on `:int`, sigspec on `:float`" if d.integer_bounds_only else BOTH


def _items(d: Dialect) -> str:
    has_min, has_max = "minItems" in d.keywords, "maxItems" in d.keywords
    if not has_min and not has_max:
        return SIGSPEC
    if has_min and has_max and d.max_min_items is None:
        return BOTH
    enforced = []
    if has_min:
        most = d.max_min_items
        enforced.append("`@min_items`" + ("" if most is None else f" up to {most}"))
    if has_max:
        enforced.append("`@max_items`")
    return f"both for {' and '.join(enforced)}; sigspec for the rest"


def _pattern(d: Dialect) -> str:
    if "pattern" not in d.keywords:
        return SIGSPEC
    if d.grammar_patterns:
        return (
            "both, rewritten for the engine; with lookaround, `\\b` or an inner anchor, "
            "sigspec (warned)"
        )
    return "both inside the provider's regex subset, else sigspec" if d.pattern_refusal else BOTH


def _lengths(d: Dialect) -> str:
    if not {"minLength", "maxLength"} <= d.keywords:
        return SIGSPEC
    notes = []
    if d.grammar_patterns:
        notes.append("beside `@pattern`, folded into it or sigspec")
    if d.escape_free_lengths:
        notes.append(
            "xgrammar writes no quote, backslash or control character in a bounded string (warned)"
        )
    return "; ".join([BOTH, *notes])


def _format(name: str) -> Callable[[Dialect], str]:
    def cell(d: Dialect) -> str:
        if "format" not in d.keywords or name not in d.formats:
            return SIGSPEC
        return "both, with gaps (warned)" if name in dict(d.format_gaps) else BOTH

    return cell


def _open_maps(d: Dialect) -> str:
    return "sigspec (the schema asks for no extra keys)" if d.closed_objects else BOTH


def _any(d: Dialect) -> str:
    if not d.any_type:
        return "sigspec (the schema asks for a scalar or null)"
    return "both (as a list of every type)" if d.any_as_types else BOTH


def _recursion(d: Dialect) -> str:
    if not d.recursion:
        return "no fragment (sigspec checks a prompt-mode reply)"
    return (
        "both; a property it recurses through is optional for the provider"
        if d.cycles_in_optional
        else BOTH
    )


def _enums(d: Dialect) -> str:
    return {
        "any": BOTH,
        "strings": "both for strings, sigspec for others",
        "strings_numbers": "both for strings and numbers, sigspec for others",
    }[d.enum_values]


ROWS: tuple[tuple[str, Callable[[Dialect], str]], ...] = (
    ("`@min` `@max`", _bounds),
    ("`@min_length` `@max_length`", _lengths),
    ("`@pattern`", _pattern),
    ("`@min_items` `@max_items`", _items),
    ("literal unions", _enums),
    ("open maps (`...`)", _open_maps),
    ("`:any`", _any),
    ("recursive types", _recursion),
    *((f'`@format("{name}")`', _format(name)) for name in CHECKS),
)


def enforcement_table() -> str:
    """The table, one row per constraint, one column per provider of the registry."""
    dialects = [provider(name).dialect for name in NAMES]
    lines = [
        "| constraint | " + " | ".join(f"`{name}`" for name in NAMES) + " |",
        "|---" * (len(NAMES) + 1) + "|",
    ]
    for label, cell in ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(d) for d in dialects) + " |")
    return "\n".join(lines) + "\n"
