"""Building the Lark parser once, and loading it from a per-user cache afterwards.

Analysing the grammar takes ~0.2 s, several times the budget of `sigspec lint` on one file,
so the analysed parser is saved in `$XDG_CACHE_HOME/sigspec` (a private folder: the cache is
a pickle, which must never come from a place other users can write). The file name carries a
hash of the grammar and the versions, so a new grammar never meets an old cache.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

from sigspec.paths import user_cache_dir
from sigspec.resources import read_resource

LARK_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "lexer": "contextual",
    "start": ["module", "inline"],
    "keep_all_tokens": True,  # spans come from tokens; see syntax/build.py
    "maybe_placeholders": True,
}


def grammar_text() -> str:
    return read_resource("grammar", "sigspec.lark")


def _cache_key(grammar: str) -> str:
    import lark

    seed = f"{grammar}\0{lark.__version__}\0{sys.version_info[:2]}\0{sorted(LARK_OPTIONS.items())}"
    # crc32, not sha256: the key only tells versions apart (safety comes from the private
    # folder), and hashlib's OpenSSL load would cost more than the rest of this function.
    return f"{zlib.crc32(seed.encode('utf-8')):08x}"


@functools.cache  # one analysed parser per process; it is immutable once built
def get_parser() -> Any:
    import lark

    grammar = grammar_text()
    path = user_cache_dir() / f"parser-{_cache_key(grammar)}.pickle"
    with contextlib.suppress(Exception), path.open("rb") as handle:
        # A missing or damaged cache is simply rebuilt.
        return lark.Lark.load(handle)
    parser = lark.Lark(grammar, **LARK_OPTIONS)
    with contextlib.suppress(OSError):  # an unwritable cache folder costs speed, not results
        _save(parser, path)
    return parser


def _save(parser: Any, path: Path) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".parser-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            parser.save(handle)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
