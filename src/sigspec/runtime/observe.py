"""What a call reports and what it may spend: a hook called after every turn, standard
`logging`, an OpenTelemetry span when the caller passes a tracer, and a token or cost budget.
Standard library only: OpenTelemetry's API is imported only when a tracer is given, so the
package never needs it.

Copied into every generated Python package as `_observe.py`. The client's loop
(`client.json_turns`) calls these between its turns, so the sync, async and streaming forms
report and count alike.
"""

from __future__ import annotations

import importlib
import logging
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import Turn

# Records of every turn (DEBUG), and of each retry (INFO), under the client's logger name.
LOGGER = "sigspec.client"


@dataclass(frozen=True)
class TurnEvent:
    """One finished turn, as a hook sees it: `turn` holds the request, the reply (with this
    turn's token counts), the errors that sent it back and the repairs made to it."""

    signature: str
    number: int  # from 1
    turn: Turn
    seconds: float  # how long the callback took for this turn
    usage: dict[str, int]  # the call's token counts so far, this turn included

    @property
    def valid(self) -> bool:
        """Whether this turn's reply was the answer."""
        return not self.turn.errors


@dataclass(frozen=True)
class Hooks:
    """What a call reports to: `on_turn(event)` after every turn (a plain function, also in
    the async forms; what it raises ends the call), and `tracer`, an OpenTelemetry `Tracer`,
    which gets one span per call (named `sigspec NAME`, with an event per turn and the
    token counts); any HTTP span the callback makes is its child."""

    on_turn: Callable[[TurnEvent], None] | None = None
    tracer: Any = None


@dataclass(frozen=True)
class Budget:
    """A cap on what one call spends across its turns: `tokens` counts input and output
    tokens as the callback reports them; `cost` is priced with `prices`, per token of each
    usage key (`{"input": 3e-06, "output": 1.5e-05}`). No turn starts once the cap is
    reached, and the call fails as it does after `max_turns`, with `JsonEnforcementError`;
    a reply that is the answer is kept even if its turn went over. A pipeline gives each
    step what the steps before it left, so a step whose budget is spent sends nothing."""

    tokens: int | None = None
    cost: float | None = None
    prices: Mapping[str, float] = field(default_factory=dict[str, float])

    def __post_init__(self) -> None:
        if self.tokens is not None and self.tokens < 0:
            raise ValueError("Budget.tokens must not be negative")
        if self.cost is not None and (self.cost < 0 or not self.prices):
            raise ValueError("Budget.cost must not be negative and needs `prices`")
        if any(price < 0 for price in self.prices.values()):
            raise ValueError("Budget.prices must not be negative")

    def spent(self, usage: Mapping[str, int]) -> str | None:
        """Why no other turn may start after `usage`, or None while the budget lasts."""
        used = token_total(usage)
        if self.tokens is not None and used >= self.tokens:
            return f"token budget spent ({used:,} of {self.tokens:,} tokens)"
        cost = self.priced(usage)
        if self.cost is not None and cost >= self.cost:
            return f"cost budget spent ({cost:.6g} of {self.cost:.6g})"
        return None

    def priced(self, usage: Mapping[str, int]) -> float:
        return sum(count * self.prices.get(key, 0.0) for key, count in usage.items())

    def after(self, usage: Mapping[str, int]) -> Budget:
        """What is left once `usage` is spent (none left: zero, which no turn starts on)."""
        tokens = (
            None if self.tokens is None else max(self.tokens - token_total(usage), 0)
        )
        cost = None if self.cost is None else max(self.cost - self.priced(usage), 0.0)
        return Budget(tokens, cost, self.prices)


def token_total(usage: Mapping[str, int]) -> int:
    return usage.get("input", 0) + usage.get("output", 0)


def clock() -> float:
    return time.monotonic()


def report(hooks: Hooks | None, span: Any, event: TurnEvent) -> None:
    """A turn to the log, the span and the caller's hook, in that order."""
    logger = logging.getLogger(LOGGER)
    tokens = token_total(event.turn.reply.tokens)
    if event.valid:
        logger.debug(
            "%s turn %d: answered (%.3f s, %d tokens)",
            event.signature,
            event.number,
            event.seconds,
            tokens,
        )
    else:
        errors = event.turn.errors
        path, message = errors[0]
        logger.info(
            "%s turn %d: no valid answer (%d error%s, first %s: %s), %.3f s, %d tokens",
            event.signature,
            event.number,
            len(errors),
            "" if len(errors) == 1 else "s",
            path,
            message[:200],
            event.seconds,
            tokens,
        )
    if span is not None:
        span.add_event(
            "sigspec.turn",
            {
                "sigspec.turn.number": event.number,
                "sigspec.turn.valid": event.valid,
                "sigspec.turn.errors": len(event.turn.errors),
                "sigspec.turn.repairs": len(event.turn.repairs),
                "sigspec.turn.seconds": event.seconds,
            },
        )
    if hooks is not None and hooks.on_turn is not None:
        hooks.on_turn(event)


@contextmanager
def call_span(hooks: Hooks | None, signature: str) -> Generator[Any, None, None]:
    """The call's span, current while the call runs (so the callback's own spans are its
    children), or None without a tracer. Ended with the token counts and, when the call
    fails, the error; a call stopped early (a stream left unread) ends it unmarked."""
    if hooks is None or hooks.tracer is None:
        yield None
        return
    trace = importlib.import_module("opentelemetry.trace")
    span = hooks.tracer.start_span(
        f"sigspec {signature}", attributes={"sigspec.signature": signature}
    )
    try:
        with trace.use_span(
            span,
            end_on_exit=False,
            record_exception=False,
            set_status_on_exception=False,
        ):
            yield span
    except Exception as exc:
        span.record_exception(exc)
        span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc)[:200]))
        raise
    finally:
        span.end()


def finish_span(span: Any, turns: Sequence[Turn], usage: Mapping[str, int]) -> None:
    """The call's totals on its span (OpenTelemetry's GenAI names for the token counts)."""
    if span is None:
        return
    span.set_attribute("sigspec.turns", len(turns))
    for key, name in (("input", "input_tokens"), ("output", "output_tokens")):
        if key in usage:
            span.set_attribute(f"gen_ai.usage.{name}", usage[key])
