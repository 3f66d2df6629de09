"""Each target's options: a frozen dataclass whose fields are the keys of its table in the
configuration (`[options.<target>]`). Configuration checks and `sigspec compile --help`
read these fields, so an option exists in exactly one place. Light on purpose: the command
line imports this module before any target runs.

A field's metadata may hold `help` (one line for `--help`), `choices` (the values a string,
or each item of a list, may take) and `check` (a function returning what is wrong with a
value, or None).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args, get_origin, get_type_hints

from sigspec.diagnostics.words import noun
from sigspec.lower.names import WINDOWS_RESERVED
from sigspec.lower.providers import NAMES as PROVIDER_NAMES


@dataclass(frozen=True)
class NoOptions:
    """A target without options."""


def _help(text: str, **more: Any) -> dict[str, Any]:
    return {"help": text, **more}


@dataclass(frozen=True)
class ProvidersOptions:
    providers: tuple[str, ...] = field(
        default=PROVIDER_NAMES,
        # The compile step fills it from the top-level `providers` (or `--provider`); in
        # `[options.providers]` it is deprecated (`compiler/config.py` warns).
        metadata=_help(
            "deprecated: set `providers = [...]` at the top level, or pass --provider",
            choices=PROVIDER_NAMES,
        ),
    )


def dotted_name(value: str) -> str | None:
    """What keeps a package name from being a Python package inside the output folder."""
    parts = value.split(".")
    if not all(p.isascii() and p.isidentifier() for p in parts):
        return "must be a dotted Python name such as `signatures` or `acme.signatures`"
    bad = [part for part in parts if keyword.iskeyword(part)]
    if bad:
        return f"`{bad[0]}` is a Python keyword"
    devices = [part for part in parts if part.lower() in WINDOWS_RESERVED]
    return f"`{devices[0]}` is a device name Windows refuses as a folder" if devices else None


Check = Callable[[Any], "str | None"]


@dataclass(frozen=True)
class PythonOptions:
    package: str = field(
        default="signatures",
        metadata=_help("the generated package's name (under python/)", check=dotted_name),
    )
    validators: Literal["fast", "compact"] = field(
        default="fast",
        metadata=_help(
            "fast: generated checks per signature; compact: the runtime's validator bound to"
            " each signature's types (smaller, slower)"
        ),
    )


class OptionsError(ValueError):
    """An option table that does not fit its target's options."""


def parse_options(target: Any, table: Mapping[str, Any]) -> Any:
    """`table` (as the configuration holds it) as an instance of `target.options`."""
    cls = target.options
    known = {f.name: f for f in fields(cls)}
    hints = get_type_hints(cls)
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in known:
            takes = ", ".join(known) or "no options"
            raise OptionsError(f"`{target.name}` has no option `{key}` (it takes {takes})")
        values[key] = _value(key, value, hints[key], known[key].metadata)
    return cls(**values)


def _value(key: str, value: Any, hint: Any, metadata: Mapping[str, Any]) -> Any:
    problem = _problem(value, hint, metadata)
    if problem is None:
        check: Check | None = metadata.get("check")
        problem = check(value) if check is not None else None
    if problem is not None:
        raise OptionsError(f"`{key}` {problem}")
    return tuple(value) if get_origin(hint) is tuple else value


def _problem(value: Any, hint: Any, metadata: Mapping[str, Any]) -> str | None:
    """What is wrong with `value` for a field of type `hint`, or None."""
    choices: tuple[Any, ...] = metadata.get("choices") or get_args(hint)
    if get_origin(hint) is Literal:
        if value not in choices:
            import json

            shown = ", ".join(map(json.dumps, choices))
            return f"must be one of {shown}, not {json.dumps(value)}"
        return None
    if get_origin(hint) is tuple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return "must be a list of strings"
        bad = [v for v in value if metadata.get("choices") and v not in choices]
        if not bad:
            return None
        return (
            f"has unknown {noun(len(bad), 'value')} {', '.join(bad)}; known: {', '.join(choices)}"
        )
    if hint is str:
        return None if isinstance(value, str) and value else "must be a non-empty string"
    if isinstance(hint, type):  # bool is an int to isinstance: it is checked exactly
        return None if type(value) is hint else f"must be a {hint.__name__}"
    raise TypeError(f"an option of type {hint} is not supported here")


def describe(cls: type[Any]) -> list[tuple[str, str, str]]:
    """(name, default, help) of each option, for `--help`."""
    out = []
    for f in fields(cls):
        default = f.default
        shown = ", ".join(default) if isinstance(default, tuple) else str(default)
        out.append((f.name, shown, str(f.metadata.get("help", ""))))
    return out
