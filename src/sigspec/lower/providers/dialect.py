"""What a provider's structured output accepts, as data: its dialect of JSON Schema.

Provider rules change often, so they are values of a `Dialect` (each provider's module holds
its own), not code paths. Keywords a dialect does not list are removed from that provider's
schema, reported as `provider-loss`, and still enforced by sigspec's validator after the reply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# Annotations, not constraints: no validator enforces them, and sigspec's validator fills
# defaults itself, so dropping them from a provider's schema loses nothing and is not reported.
ANNOTATIONS = frozenset({"default", "deprecated"})

NUMBER_BOUNDS = frozenset({"minimum", "maximum"})
ITEM_BOUNDS = frozenset({"minItems", "maxItems"})
STRING_BOUNDS = frozenset({"minLength", "maxLength", "pattern"})

ALL_KEYWORDS = frozenset(
    {
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "pattern",
        "format",
        "default",
        "deprecated",
    }
)


@dataclass(frozen=True, slots=True)
class Dialect:
    name: str
    keywords: frozenset[str]  # constraint and annotation keywords the provider enforces
    formats: frozenset[str]  # string formats it knows
    all_required: bool = False  # OpenAI strict: every key required, optional as null union
    closed_objects: bool = False  # every object must say additionalProperties: false
    any_type: bool = True  # can express `:any` (an untyped schema)
    recursion: bool = True
    enum_values: str = "any"  # "any", "strings" or "strings_numbers"
    max_min_items: int | None = None  # Anthropic accepts minItems 0 or 1 only
    wrap_root: bool = False  # the root must be an object
    property_ordering: bool = False  # Gemini: explicit key order on every object
    refs: bool = True  # `$ref` and `$defs` (Gemini's OpenAPI subset has neither: inlined)
    integer_bounds_only: bool = False  # llama.cpp grammars apply min/max to integers only
    describes: bool = True  # does the model see descriptions? (local engines: no)
    ref_siblings: bool = True  # may a `$ref` carry other keywords (description)?
    # Grammar engines (xgrammar, llguidance, llama.cpp): patterns rewritten to the form they
    # read as ECMA-262 does (`grammar_patterns.py`), lengths beside a pattern reported.
    grammar_patterns: bool = False
    escape_free_lengths: bool = False  # xgrammar: no escapes inside a length-bounded string
    any_as_types: bool = False  # `:any` as a list of every type (llama.cpp: `{}` is an object)
    # Formats the engine enforces otherwise than sigspec: (format, what differs), reported.
    format_gaps: tuple[tuple[str, str], ...] = ()
    # A provider's second form of its schema: the fragment entry holding it, named in reports
    # (Gemini's OpenAPI form is `openapi_request`); "" for a provider's own dialect.
    form: str = ""
    # The reason a provider cannot enforce this `pattern` (outside its regex subset), or None.
    pattern_refusal: Callable[[str], str | None] | None = None
    null_in_enum: bool = True  # Gemini: enum values are strings and numbers (null: anyOf)
    # Gemini: a cyclic `$ref` may sit only in a property that is not required.
    cycles_in_optional: bool = False
    empty_objects: bool = True  # Gemini's OpenAPI form: an OBJECT needs properties
