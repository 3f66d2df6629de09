"""The reply runtime: standard library only, shipped verbatim inside generated packages.

`validate.py` is the reference meaning of a valid value (also what `sigspec validate` and the
checker's default checks run); `reply.py` finds and repairs JSON in raw LLM replies;
`client.py` runs the call-validate-retry loop; `adapters.py` turns the official SDKs' client
objects into its callback; `transport.py` is its OpenAI-compatible HTTP callback;
`mustache.py` renders prompts. The Python target copies them into the generated package
(`emit/python/runtime.py`). Nothing is imported here: the checker reads templates with
`mustache.py` and must not load the reply parser for it.
"""

from __future__ import annotations

from typing import Any


def parse(text: str, descriptor: Any, types: dict[str, Any], limits: Any = None) -> Any:
    """The reply parser with the runtime's validator: a `ParseResult`, or `ReplyError`.
    `limits` (`common.Limits`) overrides the default limits."""
    from .reply import parse_reply
    from .validate import check

    return parse_reply(text, descriptor, types, check, limits)
