"""vLLM: `structured_outputs.json` (guided decoding by xgrammar or llguidance).

Every constraint keyword is enforced; the model never sees descriptions. Patterns are
rewritten to the form both engines read as ECMA-262 does (`grammar_patterns.py`); xgrammar
produces no escapes in a length-bounded string and ignores a length beside a pattern, which
is reported. The runtime has no
payload builder of its own for it: send the fragment with any OpenAI-compatible client.
"""

from __future__ import annotations

from typing import Any

from sigspec.lower.providers.base import JsonSchema, Provider, Request
from sigspec.lower.providers.dialect import ALL_KEYWORDS, Dialect

DIALECT = Dialect(
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
    grammar_patterns=True,
    escape_free_lengths=True,
    # Measured with xgrammar 0.2.8 and llguidance 1.9.1 (tests/engines/test_engines.py).
    format_gaps=(
        ("date", "the engines admit impossible days (2024-02-30, 2023-02-29) and the year 0000"),
        (
            "date-time",
            "the engines admit impossible days, the year 0000 and a leap second (:60), and "
            "xgrammar refuses a lowercase `t` or `z`",
        ),
        ("time", "the engines admit a leap second (:60), and xgrammar refuses a lowercase `z`"),
        (
            "email",
            "xgrammar refuses one-letter top-level domains and IP-literal domains, "
            "llguidance quoted local parts",
        ),
        ("hostname", "xgrammar admits labels longer than 63 characters"),
        ("ipv4", "xgrammar admits leading zeros (01.1.1.1)"),
        ("ipv6", "llguidance refuses IPv4-mapped addresses (::ffff:1.2.3.4)"),
        ("uri", "xgrammar refuses IP-literal hosts (http://[::1]/)"),
    ),
)


def requests(r: Request) -> dict[str, Any]:
    return {"request": {"structured_outputs": {"json": r.built.schema}}}


def tool(name: str, description: str, schema: JsonSchema) -> dict[str, Any]:
    function = {"name": name, "description": description, "parameters": schema}
    return {"type": "function", "function": function}


PROVIDER = Provider("vllm", DIALECT, requests, tool)
