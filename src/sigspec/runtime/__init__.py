"""The reply runtime: standard library only, shipped verbatim inside generated packages.

`validate.py` is the reference semantics of DESIGN 2 (also what `sigspec validate` runs);
`reply.py` finds and repairs JSON in raw LLM replies (reference/reply-policy.md). The python
target copies them into the generated package as `_runtime.py` and `_reply.py`.
"""

from __future__ import annotations

from typing import Any

from .reply import parse_reply
from .validate import ParseResult, ReplyError, ValidationError, check, validate


def parse(text: str, descriptor: Any, types: dict[str, Any]) -> ParseResult:
    return parse_reply(text, descriptor, types, check)


__all__ = ["ParseResult", "ReplyError", "ValidationError", "check", "parse", "validate"]
