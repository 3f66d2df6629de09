"""Pickling frozen slotted dataclasses as a call with their fields.

The forked half of a large compile sends its ASTs, artifacts and diagnostics back through a
pipe: tens of thousands of small objects. The state functions that `dataclass` generates for
slotted classes run a Python loop per object; a `__reduce__` built on `attrgetter` pickles
and unpickles them three times as fast (16,000 spans: 23 -> 5 ms out, 17 -> 5 ms back).
"""

from __future__ import annotations

from dataclasses import fields
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")


def by_fields(cls: type[T]) -> type[T]:
    """Give a dataclass whose fields are all set by `__init__` a `__reduce__` that rebuilds
    it with them (so `__post_init__` checks run again, as for any new instance)."""
    found = fields(cls)  # type: ignore[arg-type]
    if not all(f.init for f in found):
        raise TypeError(f"{cls.__name__} has fields that __init__ does not set")
    names = [f.name for f in found]
    get = attrgetter(*names)

    def reduce_many(self: Any) -> tuple[Any, ...]:
        return cls, get(self)

    def reduce_one(self: Any) -> tuple[Any, ...]:
        return cls, (get(self),)

    cls.__reduce__ = reduce_many if len(names) > 1 else reduce_one  # type: ignore[method-assign]
    return cls
