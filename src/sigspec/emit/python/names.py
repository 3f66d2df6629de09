"""Names inside one generated validators module, each safe whatever a `.sig` file names.

Module-level names (named types, TypedDicts, constants, check functions) come from one
`Namespace` per module; each function's locals from one per function. A name is what the
declaration suggests (`Sentiment`, `SENTIMENT_VALUES`, `score`), with a suffix only where it
would clash with a keyword, a builtin, a name the module imports or one already given.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_BUILTINS = frozenset(dir(builtins))
# Locals never start with `_` (the module's private names do) and are lower case (its
# constants and types are not): what is left to avoid is the function's own parameters and
# the module's few lower-case globals.
_LOCAL_RESERVED = frozenset({"value", "limits", "re"})


def snake(name: str) -> str:
    """`ActOnSentiment`, `act-on-sentiment` -> `act_on_sentiment` (ASCII word characters)."""
    text = re.sub(r"\W", "_", name, flags=re.ASCII)
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text)
    return re.sub(r"_+", "_", text).strip("_").lower()


def pascal(name: str) -> str:
    """`act_on_sentiment` -> `ActOnSentiment`; a name already in capitals keeps them."""
    return "".join(
        part[:1].upper() + part[1:] for part in re.split(r"[\W_]+", name, flags=re.ASCII)
    )


@dataclass
class Namespace:
    """Names given in one scope; `reserved` are taken from the start."""

    reserved: frozenset[str] = frozenset()
    taken: set[str] = field(default_factory=set)

    def free(self, name: str) -> bool:
        return not (
            name in self.taken
            or name in self.reserved
            or name in _BUILTINS
            or keyword.iskeyword(name)
            or keyword.issoftkeyword(name)
        )

    def take(self, wanted: str, fallback: str = "item") -> str:
        """`wanted` made an identifier, or with `_` (then `_2`, `_3`, ...) when not free."""
        text = re.sub(r"\W", "_", wanted, flags=re.ASCII) or fallback
        if text[0].isdigit():
            text = f"{fallback}_{text}"
        name, n = text, 1
        if not self.free(name) and name not in self.taken:  # a keyword, a builtin, ...
            name = f"{text}_"
        while not self.free(name):
            n += 1
            name = f"{text}_{n}"
        self.taken.add(name)
        return name

    def take_all(self, names: Iterable[str]) -> None:
        self.taken.update(names)


def local_namespace(reserved: Iterable[str] = ()) -> Namespace:
    return Namespace(frozenset({*_LOCAL_RESERVED, *reserved}))


def local_name(scope: Namespace, field_name: str) -> str:
    """A local for a field's value: the field's name in snake case, never private."""
    text = snake(field_name) or "item"
    if text.startswith(("validate_", "parse_")):
        text = f"field_{text}"
    return scope.take(text)
