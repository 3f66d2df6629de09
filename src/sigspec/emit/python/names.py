"""Python names for names from .sig files."""

from __future__ import annotations

import keyword
import re
from pathlib import PurePosixPath


def suffix(name: str) -> str:
    """A name from a .sig file as the tail of a Python identifier (`validate_` + it)."""
    return re.sub(r"\W", "_", name, flags=re.ASCII)


def identifier(name: str) -> str:
    """A whole Python identifier for a name (keywords get a trailing `_`)."""
    text = suffix(name)
    text = f"_{text}" if not text or text[0].isdigit() else text
    return f"{text}_" if keyword.iskeyword(text) else text


# The package's own modules: a .sig file of the same stem gets a longer module name.
_OWN = frozenset({"__init__", "_runtime", "_reply", "_client", "_mustache", "models", "client"})


def module_names(sources: list[str]) -> dict[str, str]:
    """Module name per source file: the stem, made unique with its folders when needed."""
    stems = [identifier(PurePosixPath(s).stem) for s in sources]
    out = {}
    for source, stem in zip(sources, stems, strict=True):
        unique = stems.count(stem) == 1 and stem not in _OWN
        out[source] = stem if unique else identifier(str(PurePosixPath(source).with_suffix("")))
    return out
