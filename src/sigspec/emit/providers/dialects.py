"""What each provider's structured output accepts, as data (reference/providers.md, 2026).

Provider rules change often, so they live in this table, not in code paths: a new rule is a
new value here. Keywords not listed for a provider are removed from its schema, reported as
`provider-loss`, and still enforced by sigspec's validator after the reply.
"""

from __future__ import annotations

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
    openapi: bool = False  # Gemini's OpenAPI 3.0 subset: uppercase types, `nullable`
    integer_bounds_only: bool = False  # llama.cpp grammars apply min/max to integers only
    describes: bool = True  # does the model see descriptions? (local engines: no)
    ref_siblings: bool = True  # may a `$ref` carry other keywords (description)?


OPENAI = Dialect(
    "openai",
    keywords=NUMBER_BOUNDS | ITEM_BOUNDS | {"pattern", "format"},
    formats=frozenset(
        {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
    ),
    all_required=True,
    closed_objects=True,
    any_type=False,
    wrap_root=True,
    ref_siblings=False,
)
ANTHROPIC = Dialect(
    "anthropic",
    keywords=frozenset({"format", "minItems"}),
    formats=frozenset(
        {
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "uri",
            "ipv4",
            "ipv6",
            "uuid",
        }
    ),
    closed_objects=True,
    any_type=False,
    recursion=False,
    max_min_items=1,
    wrap_root=True,
)
GEMINI = Dialect(
    "gemini",
    keywords=NUMBER_BOUNDS | ITEM_BOUNDS | {"format"},
    formats=frozenset({"date-time", "date", "time"}),
    enum_values="strings_numbers",
    property_ordering=True,
    ref_siblings=False,
)
GEMINI_OPENAPI = Dialect(
    "gemini-openapi",
    keywords=NUMBER_BOUNDS | ITEM_BOUNDS | STRING_BOUNDS | {"format", "default"},
    formats=frozenset({"date-time"}),
    any_type=False,
    recursion=False,
    enum_values="strings",
    property_ordering=True,
    openapi=True,
)
OLLAMA = Dialect(
    "ollama",
    keywords=NUMBER_BOUNDS | ITEM_BOUNDS | STRING_BOUNDS | {"format"},
    formats=frozenset({"date", "time", "date-time", "uuid"}),
    integer_bounds_only=True,
    describes=False,
)
VLLM = Dialect(
    "vllm",
    keywords=ALL_KEYWORDS - {"default", "deprecated"},
    formats=frozenset(
        {
            "date-time",
            "time",
            "date",
            "duration",
            "email",
            "hostname",
            "ipv4",
            "ipv6",
            "uuid",
            "uri",
        }
    ),
    describes=False,
)

# OpenAI strict-mode limits (raised twice since launch: keep them here, dated).
OPENAI_LIMITS = {
    "properties": 5000,
    "nesting": 10,
    "characters": 120_000,
    "enum_values": 1000,
    "large_enum": 250,
    "large_enum_characters": 15_000,
}
OPENAI_NAME = r"^[a-zA-Z0-9_-]{1,64}$"
ANTHROPIC_LIMITS = {"optional": 24, "unions": 16}
