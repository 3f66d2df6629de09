"""How one generated module names another: relative imports and local aliases.

Paths are module paths below the generated package's root: `("client", "billing", "types")`
is `PACKAGE/client/billing/types.py`; `()` is the package itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

ModulePath = tuple[str, ...]


def relative(here: ModulePath, there: ModulePath) -> str:
    """The relative name of module or package `there` as the module at `here` writes it
    after `from`: `.` for its own package, else up to the root and down again."""
    if there == here[:-1]:
        return "."
    return "." * len(here) + ".".join(there)


def _unique(wanted: str, taken: set[str]) -> str:
    name, n = wanted, 1
    while name in taken:
        n += 1
        name = f"{wanted}_{n}"
    taken.add(name)
    return name


@dataclass(frozen=True, slots=True)
class Aliases:
    """The names one client module imports other generated modules under: `_m_<name>` for
    models modules, `_c_<name>` for client modules, numbered when two modules share their
    last name (decided in a fixed order: the module's own first, then the others sorted)."""

    models: dict[str, str]  # dotted module path -> alias of its models module
    clients: dict[str, str]  # dotted module path -> alias of its client module (others only)

    @classmethod
    def of(cls, own: str, others: Sequence[str]) -> Aliases:
        taken: set[str] = set()
        models = {m: _unique("_m_" + m.rsplit(".", 1)[-1], taken) for m in (own, *others)}
        clients = {m: _unique("_c_" + m.rsplit(".", 1)[-1], taken) for m in others}
        return cls(models, clients)
