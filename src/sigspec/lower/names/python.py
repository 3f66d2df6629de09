"""Python names for names from .sig files: identifiers, client functions, keyword arguments.

Every name is derived from the .sig name alone (plus fixed reserved sets), so a declaration's
names never change because another declaration was added.
"""

from __future__ import annotations

import keyword
import re


def suffix(name: str) -> str:
    """A name from a .sig file as the tail of a Python identifier (`validate_` + it)."""
    return re.sub(r"\W", "_", name, flags=re.ASCII)


def constant(name: str) -> str:
    """A module-level constant's name for a .sig name: `ActOnSentiment` and
    `act-on-sentiment` -> `ACT_ON_SENTIMENT` (.sig names are ASCII and never start with a
    digit)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", suffix(name)).upper()


def identifier(name: str) -> str:
    """A whole Python identifier for a name (keywords get a trailing `_`)."""
    text = suffix(name)
    text = f"_{text}" if not text or text[0].isdigit() else text
    return f"{text}_" if keyword.iskeyword(text) else text


# Keyword arguments of every client function; a param of the same name gets a trailing `_`.
RESERVED = frozenset(
    {"llm", "max_turns", "structured", "field_descriptions", "limits", "budget", "hooks"}
)


def kwarg(name: str) -> str:
    """A param's keyword-argument name: an identifier, never a keyword or a client option."""
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    text = f"_{text}" if not text or text[0].isdigit() else text
    clash = keyword.iskeyword(text) or text in RESERVED or _private(text)
    return f"{text}_" if clash else text


def _private(name: str) -> bool:
    """A name a client function's body reads besides its params (`_client`, its locals
    `_values` and `_step<n>`, the `<NAME>_SPEC` constants, `JsonObject`, the models
    aliases): a param so named would shadow it."""
    if name.isupper() and name.endswith("_SPEC"):
        return True
    if name == "JsonObject":  # the body's annotation of `_values`
        return True
    return name in ("_v", "_client", "_values") or name.startswith(("_m_", "_c_", "_step"))


# Module-level names of a client module that a function or constant must not shadow: what
# it imports, and the builtins its annotations name (`def list(...)` would make every
# `list[str]` after it name the function).
CLIENT_MODULE_NAMES = frozenset(
    {
        "Any",
        "AsyncLlm",
        "Budget",
        "Hooks",
        "JsonEnforcementError",
        "JsonObject",
        "Limits",
        "Literal",
        "Llm",
        "Mapping",
        "Request",
        "Sequence",
        "Spec",
        "Step",
        "TYPE_CHECKING",
        "annotations",
        "bool",
        "dict",
        "float",
        "int",
        "list",
        "str",
    }
)


def function_name(name: str) -> str:
    """A signature's or pipeline's client function name, clear of the module's own names."""
    text = kwarg(name)
    return f"{text}_" if text in CLIENT_MODULE_NAMES else text
