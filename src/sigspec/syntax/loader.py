"""Building the Lark parser once, and loading it from a per-user cache afterwards.

Analysing the grammar takes ~0.2 s, several times the budget of `sigspec lint` on one file,
so the analysed parser is saved in `$XDG_CACHE_HOME/sigspec` (a private folder: the cache is
a pickle, which must never come from a place other users can write). The file name carries a
hash of the grammar and the versions, so a new grammar never meets an old cache.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import zlib
from typing import Any

from sigspec.infra.cache import user_cache
from sigspec.infra.resources import read_resource

LARK_OPTIONS: dict[str, Any] = {
    "parser": "lalr",
    "lexer": "contextual",
    "start": ["module", "inline"],
    "keep_all_tokens": True,  # spans come from tokens; see syntax/tree.py
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
    import io

    import lark

    grammar = grammar_text()
    cache = user_cache()
    key = _cache_key(grammar)
    data = cache.get("parser", key, ".pickle")
    if data is not None:
        with contextlib.suppress(Exception):  # a damaged cache is simply rebuilt
            return lark.Lark.load(io.BytesIO(data))
    parser = lark.Lark(grammar, **LARK_OPTIONS)
    buffer = io.BytesIO()
    parser.save(buffer)
    cache.put("parser", key, buffer.getvalue(), ".pickle")
    return parser
