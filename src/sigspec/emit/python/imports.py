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


def _short_names(modules: Sequence[str]) -> dict[str, str]:
    """A name for each module, the same under every prefix: its last name when no other
    module here shares it, else its whole path joined by `_` (numbered if even that clashes,
    as `a_b.c` and `a.b_c` would)."""
    lasts = [m.rsplit(".", 1)[-1] for m in modules]
    taken: set[str] = set()
    out: dict[str, str] = {}
    for module, last in zip(modules, lasts, strict=True):
        wanted = last if lasts.count(last) == 1 else module.replace(".", "_")
        name, n = wanted, 1
        while name in taken:
            n += 1
            name = f"{wanted}_{n}"
        taken.add(name)
        out[module] = name
    return out


@dataclass(frozen=True, slots=True)
class Aliases:
    """The names one client module imports other generated modules under: `_m_<name>` for
    models modules, `_c_<name>` for client modules, where a module's name is the same under
    both prefixes (`_short_names`; the module's own first, then the others sorted)."""

    models: dict[str, str]  # dotted module path -> alias of its models module
    clients: dict[str, str]  # dotted module path -> alias of its client module (others only)

    @classmethod
    def of(cls, own: str, others: Sequence[str]) -> Aliases:
        names = _short_names([own, *others])
        models = {m: f"_m_{names[m]}" for m in (own, *others)}
        clients = {m: f"_c_{names[m]}" for m in others}
        return cls(models, clients)
